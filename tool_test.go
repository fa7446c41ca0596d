package toolnexus_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// TestDecodeArguments checks that arguments decode with exact keys, as the
// state binds them, and that arguments no state binds decode nothing.
func TestDecodeArguments(t *testing.T) {
	t.Parallel()
	type deploy struct {
		Env      string `json:"env"`
		Replicas int64  `json:"replicas"`
		Inner    *struct {
			Region string `json:"region"`
		} `json:"inner"`
		Extra map[string]any `json:"extra"`
	}
	for _, tt := range []struct {
		name, args string
		want       deploy
		err        error
		msg        string
	}{
		{"exact keys", `{"env":"prod","replicas":3}`, deploy{Env: "prod", Replicas: 3}, nil, ""},
		{"a key that only folds to a field is ignored", `{"ENV":"prod","Replicas":3}`, deploy{}, nil, ""},
		{"nested", `{"inner":{"Region":"x","region":"eu"}}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: keys "Region" and "region" in the object at inner are one key when case is folded, as encoding/json folds it`},
		{"nested, exact", `{"inner":{"REGION":"x"},"extra":{"A":1}}`, deploy{Inner: &struct {
			Region string `json:"region"`
		}{}, Extra: map[string]any{"A": 1.0}}, nil, ""},
		{"folded", `{"Env":"prod","env":"staging"}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"twice", `{"env":"prod","env":"staging"}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: key "env" appears twice in the top-level object`},
		{"a large integer keeps its digits", `{"replicas":9007199254740993}`, deploy{Replicas: 9007199254740993}, nil, ""},
		{"empty", ``, deploy{}, nil, ""},
		{"null", `null`, deploy{}, nil, ""},
		{"not JSON", `{"env":`, deploy{}, toolnexus.ErrInvalidJSON, ""},
		{"a value of the wrong type", `{"env":1}`, deploy{}, toolnexus.ErrInvalidJSON, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got deploy
			err := toolnexus.DecodeArguments(json.RawMessage(tt.args), &got)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				if tt.msg != "" {
					assert.EqualError(t, err, tt.msg)
				}
				assert.Equal(t, deploy{}, got, "nothing is decoded")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	var m map[string]any
	require.ErrorIs(t, toolnexus.DecodeArguments(json.RawMessage(`{}`), m), toolnexus.ErrInvalidJSON)
}
