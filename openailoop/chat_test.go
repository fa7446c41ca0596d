package openailoop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

const (
	chatToolCallsJSON = `{"id":"chatcmpl-01","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}},` +
		`{"id":"call_02","type":"function","function":{"name":"deploy","arguments":"{\"env\":\"prod\"}"}}]}}]}`
	chatDoneJSON = `{"id":"chatcmpl-02","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"stop",` +
		`"message":{"role":"assistant","content":"Deployed."}}]}`
	chatPromptJSON = `{"content":"Show me the screen, then deploy to prod.","role":"user"}`
	chatToolsJSON  = `"tools":[{"function":{"name":"screenshot"},"type":"function"},` +
		`{"function":{"name":"deploy","parameters":{"properties":{"env":{"type":"string"}},"required":["env"],"type":"object"}},"type":"function"}]`
	chatAssistantJSON = `{"tool_calls":[{"id":"call_01","function":{"arguments":"{}","name":"screenshot"},"type":"function"},` +
		`{"id":"call_02","function":{"arguments":"{\"env\":\"prod\"}","name":"deploy"},"type":"function"}],"role":"assistant"}`
)

// chatExchanges are the requests of the example, as the SDK sends them.
var chatExchanges = []looptest.Exchange{
	{Path: "/chat/completions", Want: `{"messages":[` + chatPromptJSON + `],"model":"gpt-5.5",` + chatToolsJSON + `}`, Reply: chatToolCallsJSON},
	{Path: "/chat/completions", Want: `{"messages":[` + chatPromptJSON + `,` + chatAssistantJSON + `,` +
		`{"role":"tool","tool_call_id":"call_01","content":"fixture.png (image/png, 82 bytes)"},` +
		`{"role":"tool","tool_call_id":"call_02","content":"deployed to prod"},` +
		`{"role":"user","content":[{"type":"text","text":"Output of tool screenshot (call_01):"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + looptest.GoldenPNG("../testdata") + `"}}]}],` +
		`"model":"gpt-5.5",` + chatToolsJSON + `}`, Reply: chatDoneJSON},
}

func TestChatCalls(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []toolnexus.ToolCall{
		{ID: "call_01", Name: "screenshot", Arguments: []byte(`{}`)},
		{ID: "call_02", Name: "deploy", Arguments: []byte(`{"env":"prod"}`)},
	}, openailoop.ChatCalls(decode[openai.ChatCompletion](t, chatToolCallsJSON)))
	assert.Empty(t, openailoop.ChatCalls(decode[openai.ChatCompletion](t, chatDoneJSON)))
	assert.Empty(t, openailoop.ChatCalls(decode[openai.ChatCompletion](t, `{"choices":[]}`)))
	assert.Empty(t, openailoop.ChatCalls(nil))
}

func TestRunChat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	done := decode[openai.ChatCompletion](t, chatDoneJSON)
	turn, more, err := openailoop.RunChat(ctx, done, tools)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, turn, "no tool call: the model is done")
	assert.Equal(t, mustJSON(t, []openai.ChatCompletionMessageParamUnion{done.Choices[0].Message.ToParam()}), mustJSON(t, more))

	calls := decode[openai.ChatCompletion](t, chatToolCallsJSON)
	turn, more, err = openailoop.RunChat(ctx, calls, tools)
	require.NoError(t, err)
	assert.False(t, turn.Complete())
	assert.Len(t, more, 1, "the model's message only, while a call waits")
	_, err = openailoop.ChatMessages(turn)
	assert.ErrorIs(t, err, toolnexus.ErrIncompleteTurn)

	turn, more, err = openailoop.RunChat(ctx, decode[openai.ChatCompletion](t, `{"choices":[]}`), tools)
	require.NoError(t, err)
	assert.Empty(t, turn.Calls)
	assert.Empty(t, more)

	hostile := `{"id":"chatcmpl-03","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_01","type":"function","function":{"name":"rm -rf","arguments":"{}"}},` +
		`{"id":"call_02","type":"function","function":{"name":"deploy","arguments":"{\"env\": prod}"}},` +
		`{"id":"call_03","type":"function","function":{"name":"deploy","arguments":"[\"prod\"]"}}]}}]}`
	turn, more, err = openailoop.RunChat(ctx, decode[openai.ChatCompletion](t, hostile), tools)
	hostileCalls(t, turn, err)
	require.Len(t, more, 4)
	assert.Equal(t, `{"role":"tool","tool_call_id":"call_02","content":"toolnexus: arguments of \"deploy\" are not JSON: invalid character 'p' looking for beginning of value"}`,
		mustJSON(t, more[2]))
}

func TestResumeChat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parked, sent, err := openailoop.RunChat(ctx, decode[openai.ChatCompletion](t, chatToolCallsJSON), tools)
	require.NoError(t, err)
	req := parked.Waiting()[0].Request
	stored := []byte(mustJSON(t, parked))
	last := []byte(mustJSON(t, sent[0]))

	turn, more, err := openailoop.ResumeChat(ctx, stored, last, req.Decline(toolnexus.ReasonDeclined), tools)
	require.NoError(t, err)
	assert.Equal(t, "deploy to prod declined", turn.Calls[1].Result.Output)
	want, err := turn.OpenAIChatMessages()
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, want), mustJSON(t, more), "the turn's messages, as they are")

	_, more, err = openailoop.ResumeChat(ctx, stored, last, toolnexus.Answer{ID: "pnd-other", OK: true}, tools)
	assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	assert.Empty(t, more)
	_, _, err = openailoop.ResumeChat(ctx, []byte(`{"calls":[{"id":"x","Name":"deploy"}]}`), last, req.Resolve(nil), tools)
	assert.ErrorIs(t, err, toolnexus.ErrInvalidTurn, "keys are exact")
	_, more, err = openailoop.ResumeChat(ctx, []byte(strings.Replace(string(stored), `"env":"prod"`, `"env":"dev"`, 1)), last, req.Resolve(nil), tools)
	assert.ErrorIs(t, err, openailoop.ErrTurnMismatch, "other arguments")
	assert.Empty(t, more)
}

func TestParseChatMessage(t *testing.T) {
	t.Parallel()
	m, err := openailoop.ParseChatMessage([]byte(chatAssistantJSON), 1<<10)
	require.NoError(t, err)
	assert.Equal(t, chatAssistantJSON, mustJSON(t, m), "as it was stored")
	for data, want := range map[string]error{
		`{"content":"hi"}`:                toolnexus.ErrInvalidJSON,
		`{"role":"user","role":"user"}`:   toolnexus.ErrDuplicateKey,
		`{"role":"user","content":"hi"} `: toolnexus.ErrPartTooLarge,
	} {
		_, err := openailoop.ParseChatMessage([]byte(data), 30)
		assert.ErrorIs(t, err, want, data)
	}
}
