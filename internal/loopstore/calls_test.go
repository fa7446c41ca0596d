package loopstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
)

func TestCalls(t *testing.T) {
	t.Parallel()
	deploy := toolnexus.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)}
	tests := []struct {
		name string
		read func([]byte) ([]toolnexus.ToolCall, error)
		data string
		want []toolnexus.ToolCall
		err  error
		msg  string
	}{
		{"anthropic", loopstore.AnthropicCalls, deployUse, []toolnexus.ToolCall{deploy}, nil, ""},
		{"anthropic, no input", loopstore.AnthropicCalls, `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"shot","input":null}]}`,
			[]toolnexus.ToolCall{{ID: "c1", Name: "shot"}}, nil, ""},
		{"anthropic, text content", loopstore.AnthropicCalls, `{"role":"assistant","content":"Done."}`, nil, nil, ""},
		{"anthropic, a user's message", loopstore.AnthropicCalls, strings.Replace(deployUse, "assistant", "user", 1), nil, nil, ""},
		{"anthropic, other blocks", loopstore.AnthropicCalls,
			`{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{}},{"type":"thinking","thinking":"…"}]}`, nil, nil, ""},
		{"anthropic, a block with a repeated key", loopstore.AnthropicCalls,
			`{"role":"assistant","content":[{"type":"tool_use","id":"c1","id":"c2","name":"deploy"}]}`, nil, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: content block 0 of the model's message has the key "id" twice`},
		{"anthropic, a block that is no object", loopstore.AnthropicCalls, `{"role":"assistant","content":["tool_use"]}`, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: content block 0 of the model's message is not a JSON object"},
		{"anthropic, not JSON", loopstore.AnthropicCalls, `{"role":`, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: the model's message is not JSON"},
		{"anthropic, missing", loopstore.AnthropicCalls, ``, nil, loopstore.ErrTurnMismatch,
			"toolnexus: invalid turn: the parked turn is not the model's calls: the model's message is missing"},
		{"chat", loopstore.ChatCalls, `{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"c1","type":"function","function":{"name":"deploy","arguments":"{\"env\": \"prod\"}"}},` +
			`{"id":"c2","type":"custom","custom":{"name":"grep","input":"x"}},` +
			`{"id":"c3","type":"function","function":{"name":"deploy","arguments":"{\"env\": prod}"}},` +
			`{"id":"c4","type":"function","function":{"name":"shot","arguments":" null "}}]}`,
			[]toolnexus.ToolCall{
				{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env": "prod"}`)},
				{ID: "c3", Name: "deploy", Arguments: json.RawMessage(`"{\"env\": prod}"`)},
				{ID: "c4", Name: "shot"},
			}, nil, ""},
		{"chat, no tool calls", loopstore.ChatCalls, `{"role":"assistant","content":"Done."}`, nil, nil, ""},
		{"chat, a function that is no object", loopstore.ChatCalls, `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":"deploy"}]}`,
			nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the function of tool call 0 of the model's message is not a JSON object"},
		{"responses", loopstore.ResponsesCalls, `[{"type":"reasoning","id":"rs_1","summary":[]},` +
			`{"type":"function_call","id":"fc_1","call_id":"c1","name":"deploy","arguments":"{\"env\":\"prod\"}","status":"completed"}]`,
			[]toolnexus.ToolCall{deploy}, nil, ""},
		{"responses, null", loopstore.ResponsesCalls, `null`, nil, loopstore.ErrTurnMismatch,
			"toolnexus: invalid turn: the parked turn is not the model's calls: the model's function calls are missing"},
		{"responses, none", loopstore.ResponsesCalls, `[]`, nil, nil, ""},
		{"responses, missing", loopstore.ResponsesCalls, ``, nil, loopstore.ErrTurnMismatch,
			"toolnexus: invalid turn: the parked turn is not the model's calls: the model's function calls are missing"},
		{"responses, not an array", loopstore.ResponsesCalls, `{}`, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: the model's function calls are not a JSON array"},
		{"responses, an item with a repeated key", loopstore.ResponsesCalls, `[{"type":"function_call","name":"a","name":"b"}]`, nil, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: function call item 0 has the key "name" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.read([]byte(tt.data))
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.EqualError(t, err, tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAgree(t *testing.T) {
	t.Parallel()
	turn, err := toolnexus.ParseTurn([]byte(waitingTurn), 0)
	require.NoError(t, err)
	model := func(calls ...toolnexus.ToolCall) []toolnexus.ToolCall { return calls }
	deploy := toolnexus.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)}
	other := toolnexus.ToolCall{ID: "c2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)}
	tests := []struct {
		name  string
		turn  toolnexus.Turn
		calls []toolnexus.ToolCall
		msg   string // "" when they agree
	}{
		{"the model's calls", turn, model(deploy), ""},
		{"the same arguments, otherwise written", turn, model(toolnexus.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(` { "\u0065nv" : "prod" } `)}), ""},
		{"no turn", toolnexus.Turn{}, nil, ""},
		{"other arguments", turn, model(toolnexus.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`)}),
			`call "c1" has other arguments in the turn than in the model's message`},
		{"arguments that are not JSON", turn, model(toolnexus.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":`)}),
			`call "c1" has other arguments in the turn than in the model's message`},
		{"another tool", turn, model(toolnexus.ToolCall{ID: "c1", Name: "rollback", Arguments: deploy.Arguments}),
			`call "c1" is a call of "deploy" in the turn, of "rollback" in the model's message`},
		{"another id", turn, model(other), `call 0 is "c1" in the turn, "c2" in the model's message`},
		{"a call the model did not make", turn, nil, "the turn holds 1 calls, the model made 0"},
		{"a call the turn lacks", turn, model(deploy, other), "the turn holds 1 calls, the model made 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := loopstore.Agree(tt.turn, tt.calls)
			if tt.msg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, loopstore.ErrTurnMismatch)
			require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
			assert.EqualError(t, err, "toolnexus: invalid turn: the parked turn is not the model's calls: "+tt.msg)
		})
	}
}

func TestResumeTurn(t *testing.T) {
	t.Parallel()
	ran := 0
	tools := map[string]toolnexus.Tool{"deploy": func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		ran++
		return toolnexus.Ok("deployed")
	}}
	answer := toolnexus.Answer{ID: "r1", OK: true}
	_, err := loopstore.ResumeTurn(context.Background(), []byte(waitingTurn), []byte(strings.Replace(deployUse, "prod", "dev", 1)),
		loopstore.AnthropicCalls, answer, tools)
	require.ErrorIs(t, err, loopstore.ErrTurnMismatch)
	assert.Zero(t, ran, "nothing ran")
	_, err = loopstore.ResumeTurn(context.Background(), []byte(`{"calls":`), []byte(deployUse), loopstore.AnthropicCalls, answer, tools)
	require.ErrorIs(t, err, toolnexus.ErrInvalidJSON)

	turn, err := loopstore.ResumeTurn(context.Background(), []byte(waitingTurn), []byte(deployUse), loopstore.AnthropicCalls, answer, tools)
	require.NoError(t, err)
	assert.Equal(t, 1, ran)
	assert.Equal(t, "deployed", turn.Calls[0].Result.Output)
}
