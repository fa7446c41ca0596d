package park_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// FuzzRunTurnArguments checks that whatever arguments a model sends, the
// turn RunTurn makes of them validates, marshals and reads back as it was,
// and that a tool of ToolFor runs exactly when they are a JSON object of
// the keys it takes.
func FuzzRunTurnArguments(f *testing.F) {
	for _, s := range []string{``, ` `, `null`, `{}`, `{"env":"prod"}`, `{"ENV":"prod"}`, `{"env":"prod","x":1}`, `{"env":1}`, `[1]`, `"x"`,
		`{"env": prod}`, `{"env":"\ud800"}`, "{\"env\":\"\xff\"}", `{} {}`, `{"env":"a","env":"b"}`, `{"n":1e999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		ran := false
		tools := map[string]toolnexus.Tool{"t": toolnexus.ToolFor(func(context.Context, struct {
			Env string `json:"env"`
		}, toolnexus.Answers) toolnexus.ToolResult {
			ran = true
			return toolnexus.Ok("ran")
		})}
		turn, err := park.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "1", Name: "t", Arguments: args})
		require.NoError(t, err)
		require.NoError(t, turn.Validate())
		b, err := json.Marshal(turn)
		require.NoError(t, err)
		back, err := toolnexus.ParseTurn(b, 0)
		require.NoError(t, err)
		assert.Equal(t, turn, back)
		assert.Equal(t, ran, !turn.Calls[0].Result.IsError)
		if !ran {
			assert.True(t, strings.HasPrefix(turn.Calls[0].Result.Output, "toolnexus: arguments "), turn.Calls[0].Result.Output)
		}
	})
}
