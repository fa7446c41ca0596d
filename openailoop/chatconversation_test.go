package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// chatPrompted is a conversation of the user's message alone.
func chatPrompted() openailoop.ChatConversation {
	return openailoop.ChatConversation{Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Show me the screen, then deploy to prod.")}}
}

// chatParked is chatPrompted after the reply chatToolCallsJSON: the
// screenshot finished, the deploy waits for an approval.
func chatParked(t testing.TB) openailoop.ChatConversation {
	t.Helper()
	c, err := chatPrompted().Run(context.Background(), decode[openai.ChatCompletion](t, chatToolCallsJSON), tools)
	require.NoError(t, err)
	require.Len(t, c.Turn.Waiting(), 1)
	return c
}

func TestChatConversationRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.True(t, chatPrompted().Ready())
	assert.False(t, openailoop.ChatConversation{}.Ready())
	for name, tc := range map[string]struct {
		msgs  []openai.ChatCompletionMessageParamUnion
		ready bool
	}{
		"the SDK's assistant message": {[]openai.ChatCompletionMessageParamUnion{openai.AssistantMessage("Hi.")}, false},
		"a system and a user message": {[]openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hi.")}, true},
		"a raw assistant message": {[]openai.ChatCompletionMessageParamUnion{
			param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(`{"role":"assistant","content":"Hi."}`))}, false},
	} {
		assert.Equal(t, tc.ready, openailoop.ChatConversation{Messages: tc.msgs}.Ready(), name)
	}

	done, err := chatPrompted().Run(ctx, decode[openai.ChatCompletion](t, chatDoneJSON), tools)
	require.NoError(t, err)
	assert.False(t, done.Ready(), "the model's last word")
	assert.Equal(t, `[`+chatPromptJSON+`,{"content":"Deployed.","role":"assistant"}]`, mustJSON(t, done.Messages))

	c := chatParked(t)
	assert.False(t, c.Ready(), "a call waits")
	assert.Equal(t, `[`+chatPromptJSON+`,`+chatAssistantJSON+`]`, mustJSON(t, c.Messages))

	hostile := `{"id":"chatcmpl-03","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_01","type":"function","function":{"name":"rm -rf","arguments":"{}"}},` +
		`{"id":"call_02","type":"function","function":{"name":"deploy","arguments":"{\"env\": prod}"}},` +
		`{"id":"call_03","type":"function","function":{"name":"deploy","arguments":"[\"prod\"]"}}]}}]}`
	ran, err := chatPrompted().Run(ctx, decode[openai.ChatCompletion](t, hostile), tools)
	require.NoError(t, err)
	assert.True(t, ran.Ready(), "the error results are for the model")
	require.Len(t, ran.Messages, 5)
	assert.Equal(t, `{"role":"tool","tool_call_id":"call_02","content":"toolnexus: arguments of \"deploy\" are not JSON: invalid character 'p' looking for beginning of value"}`,
		mustJSON(t, ran.Messages[3]))

	twice := strings.Replace(chatToolCallsJSON, `"call_02"`, `"call_01"`, 1)
	tests := []struct {
		name string
		c    openailoop.ChatConversation
		cc   *openai.ChatCompletion
		err  error
	}{
		{"no reply", chatPrompted(), nil, openailoop.ErrNoReply},
		{"no choice", chatPrompted(), decode[openai.ChatCompletion](t, `{"choices":[]}`), openailoop.ErrNoReply},
		{"a parked turn", c, decode[openai.ChatCompletion](t, chatDoneJSON), toolnexus.ErrIncompleteTurn},
		{"two calls with one id", chatPrompted(), decode[openai.ChatCompletion](t, twice), toolnexus.ErrInvalidTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.c.Run(ctx, tt.cc, tools)
			require.ErrorIs(t, err, tt.err)
			assert.Equal(t, mustJSON(t, tt.c.Messages), mustJSON(t, got.Messages), "returned as it was")
			assert.Equal(t, tt.c.Turn.Waiting(), got.Turn.Waiting())
		})
	}
}

func TestChatConversationResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := chatParked(t)
	req := c.Turn.Waiting()[0].Request

	got, err := c.Resume(ctx, req.Decline(toolnexus.ReasonDeclined), tools)
	require.NoError(t, err)
	assert.True(t, got.Ready())
	assert.Empty(t, got.Turn.Calls)
	require.Len(t, got.Messages, 5)
	assert.Equal(t, `{"role":"tool","tool_call_id":"call_02","content":"deploy to prod declined"}`, mustJSON(t, got.Messages[3]))
	assert.Equal(t, `{"role":"user","content":[{"type":"text","text":"Output of tool screenshot (call_01):"},`+
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,`+looptest.GoldenPNG("../testdata")+`"}}]}`, mustJSON(t, got.Messages[4]))
	assert.Len(t, c.Messages, 2, "c itself is not changed")

	for name, tc := range map[string]struct {
		c openailoop.ChatConversation
		a toolnexus.Answer
	}{
		"another request": {c, toolnexus.Answer{ID: "pnd-other", OK: true}},
		"not parked":      {chatPrompted(), req.Resolve(nil)},
	} {
		got, err := tc.c.Resume(ctx, tc.a, tools)
		require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch, name)
		assert.Equal(t, mustJSON(t, tc.c.Messages), mustJSON(t, got.Messages), name)
	}
}

// TestParseChatConversation checks that a stored conversation, parked or
// stored after its calls were answered, reads back to one that sends the
// request the first process would have sent, byte for byte.
func TestParseChatConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := chatParked(t)
	answer := c.Turn.Waiting()[0].Request.Resolve(nil)
	answered, err := c.Resume(ctx, answer, tools)
	require.NoError(t, err)

	for name, conv := range map[string]openailoop.ChatConversation{"parked": c, "answered": answered} {
		stored := mustJSON(t, conv)
		back, err := openailoop.ParseChatConversation([]byte(stored), 1<<20)
		require.NoError(t, err, name)
		assert.Equal(t, mustJSON(t, conv.Messages), mustJSON(t, back.Messages), name)
		assert.Equal(t, conv.Ready(), back.Ready(), name)
		if len(conv.Turn.Calls) > 0 {
			conv, err = conv.Resume(ctx, answer, tools)
			require.NoError(t, err)
			back, err = back.Resume(ctx, answer, tools)
			require.NoError(t, err)
		}
		assert.Equal(t, mustJSON(t, conv.Params(chatParams)), mustJSON(t, back.Params(chatParams)), name)
	}

	got, err := openailoop.ResumeChatConversation(ctx, []byte(mustJSON(t, c)), 1<<20, answer, tools)
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, answered.Params(chatParams)), mustJSON(t, got.Params(chatParams)))

	// Stored a message at a time and the turn apart: resumed from the turn
	// and the model's message alone, then read back message by message, it
	// sends the body the first process would have sent, as the SDK sends it.
	rows := make([][]byte, len(c.Messages))
	for i, m := range c.Messages {
		rows[i] = []byte(mustJSON(t, m))
	}
	turn, more, err := openailoop.ResumeChat(ctx, []byte(mustJSON(t, c.Turn)), rows[len(rows)-1], answer, tools)
	require.NoError(t, err)
	assert.True(t, turn.Complete())
	for _, m := range more {
		rows = append(rows, []byte(mustJSON(t, m)))
	}
	var apart openailoop.ChatConversation
	for _, row := range rows {
		m, err := openailoop.ParseChatMessage(row, 1<<20)
		require.NoError(t, err)
		apart.Messages = append(apart.Messages, m)
	}
	require.True(t, apart.Ready())
	send := func(c openailoop.ChatConversation) func(openai.Client) error {
		return func(client openai.Client) error {
			_, err := client.Chat.Completions.New(ctx, c.Params(chatParams))
			return err
		}
	}
	body := sent(t, chatDoneJSON, send(answered))
	assert.Contains(t, body, `"tool_call_id":"call_02"`)
	assert.Equal(t, body, sent(t, chatDoneJSON, send(got)), "read back whole")
	assert.Equal(t, body, sent(t, chatDoneJSON, send(apart)), "read back a message at a time")

	stored := mustJSON(t, c)
	refused(t, openailoop.ParseChatConversation, openailoop.ResumeChatConversation, map[string]badStored{
		"over the limit":            {stored, 100, toolnexus.ErrPartTooLarge},
		"a folded key":              {strings.Replace(stored, `"turn"`, `"Turn"`, 1), 0, toolnexus.ErrInvalidJSON},
		"a message without a role":  {`{"messages":[{"content":"hi"}]}`, 0, toolnexus.ErrInvalidJSON},
		"a turn that waits no more": {`{"messages":[],"turn":{"calls":[{"id":"c","name":"deploy","result":{"output":"ok"}}]}}`, 0, toolnexus.ErrInvalidTurn},
	})
}

func TestChatConversationPrintsNoPayload(t *testing.T) {
	t.Parallel()
	c := chatParked(t)
	answered, err := c.Resume(context.Background(), c.Turn.Waiting()[0].Request.Resolve(nil), tools)
	require.NoError(t, err)
	stored, err := openailoop.ParseChatConversation([]byte(mustJSON(t, answered)), 0)
	require.NoError(t, err)
	png := looptest.GoldenPNG("../testdata")
	for name, v := range map[string]openailoop.ChatConversation{"parked": c, "answered": answered, "read back": stored} {
		assert.NotContains(t, looptest.Shown(v), png[:24], name)
	}
	want := `{Messages:["user" "assistant" "tool" "tool" "user"] Turn:{}}`
	assert.Equal(t, want, fmt.Sprint(answered))
	assert.Equal(t, want, fmt.Sprint(stored))
	assert.Equal(t, `openailoop.ChatConversation{Messages:[]openai.ChatCompletionMessageParamUnion["user" "assistant" "tool" "tool" "user"], `+
		`Turn:toolnexus.Turn{Calls:nil}}`, fmt.Sprintf("%#v", stored))
}

func FuzzParseChatConversation(f *testing.F) {
	f.Add([]byte(mustJSON(f, chatParked(f))))
	f.Add([]byte(`{"messages":[` + chatPromptJSON + `]}`))
	f.Add([]byte(`{"messages":[{"role":"tool","content":"x"}],"turn":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		require.NoError(t, looptest.Reread(data, openailoop.ParseChatConversation))
	})
}

// TestResumeChatConversationMismatch checks that a stored conversation
// whose parked turn is not the model's last message's function calls is
// refused, and that no tool runs.
func TestResumeChatConversationMismatch(t *testing.T) {
	t.Parallel()
	c := chatParked(t)
	with := func(turn toolnexus.Turn) openailoop.ChatConversation {
		return openailoop.ChatConversation{Messages: c.Messages, Turn: turn}
	}
	withLast := func(msgs ...openai.ChatCompletionMessageParamUnion) openailoop.ChatConversation {
		return openailoop.ChatConversation{Messages: append(slices.Clone(c.Messages[:1]), msgs...), Turn: c.Turn}
	}
	raw := func(s string) openai.ChatCompletionMessageParamUnion {
		return param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(s))
	}
	cases := append(turnMismatches(c.Turn, with),
		mismatch[openailoop.ChatConversation]{"the model's calls", c, ""},
		mismatch[openailoop.ChatConversation]{"other arguments in the message", withLast(raw(strings.Replace(chatAssistantJSON, "prod", "staging", 1))),
			`call "call_02" has other arguments in the turn than in the model's message`},
		mismatch[openailoop.ChatConversation]{"a custom call in place of a function call", withLast(raw(strings.Replace(chatAssistantJSON,
			`{"id":"call_02","function":{"arguments":"{\"env\":\"prod\"}","name":"deploy"},"type":"function"}`,
			`{"id":"call_02","custom":{"input":"prod","name":"deploy"},"type":"custom"}`, 1))),
			"the turn holds 2 calls, the model made 1"},
		mismatch[openailoop.ChatConversation]{"a last message not the model's", withLast(c.Messages[1], openai.UserMessage("Go on.")),
			"the turn holds 2 calls, the model made 0"},
		mismatch[openailoop.ChatConversation]{"no message", openailoop.ChatConversation{Turn: c.Turn}, "the model's message is missing"},
	)
	mismatches(t, c.Turn.Waiting()[0].Request.Resolve(nil), cases, openailoop.ParseChatConversation, openailoop.ResumeChatConversation,
		openailoop.ChatConversation.Resume, func(c openailoop.ChatConversation, a toolnexus.Answer, tools map[string]toolnexus.Tool) error {
			var last []byte
			if len(c.Messages) > 0 {
				last = []byte(mustJSON(t, c.Messages[len(c.Messages)-1]))
			}
			_, more, err := openailoop.ResumeChat(context.Background(), []byte(mustJSON(t, c.Turn)), last, a, tools)
			assert.Empty(t, more)
			return err
		})
}
