package mcptasks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
)

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	full := mcptasks.FullRecord()
	again, err := mcptasks.Reencode(full)
	require.NoError(t, err)
	assert.JSONEq(t, string(full), string(again), "every field survives the store")
}

// TestRecordExactKeys shows that a stored task is read with exact keys:
// a key written in another case is an unknown key, at every level.
func TestRecordExactKeys(t *testing.T) {
	t.Parallel()
	full := string(mcptasks.FullRecord())
	for _, tt := range []struct{ from, to string }{
		{`"tool":`, `"TOOL":`},
		{`"principal":`, `"Principal":`},
		{`"key":`, `"KEY":`},
		{`"method":`, `"METHOD":`},
		{`"code":`, `"CODE":`},
	} {
		require.Contains(t, full, tt.from)
		_, err := mcptasks.Reencode([]byte(strings.Replace(full, tt.from, tt.to, 1)))
		assert.Error(t, err, "%s", tt.to)
	}
	for _, bad := range []string{`null`, `[]`, `{"run":"one"}`, `{"pending":[{"input":null}]}`, `{`} {
		_, err := mcptasks.Reencode([]byte(bad))
		assert.ErrorContains(t, err, "mcptasks: stored task", bad)
	}
}
