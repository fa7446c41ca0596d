package anthropicloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
)

// prompted is a conversation of the user's message alone.
func prompted() anthropicloop.Conversation {
	return anthropicloop.Conversation{Messages: []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the screen, then deploy to prod.")),
	}}
}

// parked is prompted after the model's reply toolUseJSON: the screenshot
// finished, the deploy waits for an approval.
func parked(t *testing.T) anthropicloop.Conversation {
	t.Helper()
	c, err := prompted().Run(context.Background(), message(t, toolUseJSON), tools)
	require.NoError(t, err)
	require.Len(t, c.Turn.Waiting(), 1)
	return c
}

func TestConversationRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.True(t, prompted().Ready(), "the user's message is for the model")
	assert.False(t, anthropicloop.Conversation{}.Ready(), "nothing to send")
	for name, tc := range map[string]struct {
		m     anthropic.MessageParam
		ready bool
	}{
		"the SDK's assistant message": {anthropic.NewAssistantMessage(anthropic.NewTextBlock("Hi.")), false},
		"a raw assistant message":     {param.Override[anthropic.MessageParam](json.RawMessage(`{"role":"assistant","content":"Hi."}`)), false},
		"a raw user message":          {param.Override[anthropic.MessageParam](json.RawMessage(`{"role":"user","content":"Hi."}`)), true},
	} {
		assert.Equal(t, tc.ready, anthropicloop.Conversation{Messages: []anthropic.MessageParam{tc.m}}.Ready(), name)
	}

	done, err := prompted().Run(ctx, message(t, doneJSON), tools)
	require.NoError(t, err)
	assert.False(t, done.Ready(), "the model's last word")
	assert.Empty(t, done.Turn.Calls)
	assert.Equal(t, `[`+promptJSON+`,{"content":[{"text":"Deployed.","type":"text"}],"role":"assistant"}]`, mustJSON(t, done.Messages))

	c := parked(t)
	assert.False(t, c.Ready(), "a call waits")
	assert.Equal(t, `[`+promptJSON+`,`+assistantJSON+`]`, mustJSON(t, c.Messages), "no answer while a call waits")
	assert.Equal(t, "deploy", c.Turn.Waiting()[0].Tool)

	shot := strings.Replace(toolUseJSON, `,{"type":"tool_use","id":"toolu_02","name":"deploy","input":{"env":"prod"}}`, "", 1)
	ran, err := prompted().Run(ctx, message(t, shot), tools)
	require.NoError(t, err)
	assert.True(t, ran.Ready(), "the calls' answers are for the model")
	assert.Empty(t, ran.Turn.Calls)
	require.Len(t, ran.Messages, 3)
	assert.Equal(t, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[`+
		`{"type":"text","text":"fixture.png (image/png, 82 bytes)"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+
		looptest.GoldenPNG("../testdata")+`"}}]}]}`, mustJSON(t, ran.Messages[2]))

	twice := strings.Replace(toolUseJSON, `"toolu_02"`, `"toolu_01"`, 1)
	tests := []struct {
		name string
		c    anthropicloop.Conversation
		m    *anthropic.Message
		err  error
	}{
		{"no reply", prompted(), nil, anthropicloop.ErrNoReply},
		{"a parked turn", c, message(t, doneJSON), toolnexus.ErrIncompleteTurn},
		{"two calls with one id", prompted(), message(t, twice), toolnexus.ErrInvalidTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.c.Run(ctx, tt.m, tools)
			require.ErrorIs(t, err, tt.err)
			assert.Equal(t, mustJSON(t, tt.c), mustJSON(t, got), "returned as it was")
		})
	}
}

// TestConversationRunCopies checks that two conversations run from one
// share no message: each has its own reply.
func TestConversationRunCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := prompted()
	base.Messages = append(make([]anthropic.MessageParam, 0, 8), base.Messages...) // room to append in place
	a, err := base.Run(ctx, message(t, doneJSON), tools)
	require.NoError(t, err)
	b, err := base.Run(ctx, message(t, toolUseJSON), tools)
	require.NoError(t, err)
	assert.Len(t, base.Messages, 1)
	assert.Equal(t, "Deployed.", a.Messages[1].OfAssistant.Content[0].OfText.Text)
	assert.Equal(t, "Checking.", b.Messages[1].OfAssistant.Content[0].OfText.Text)
}

func TestConversationResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := parked(t)
	req := c.Turn.Waiting()[0].Request

	tests := []struct {
		name   string
		c      anthropicloop.Conversation
		answer toolnexus.Answer
		err    error
		result string // the deploy's result
	}{
		{"approved", c, req.Resolve(nil), nil, "deployed to prod"},
		{"declined", c, req.Decline(toolnexus.ReasonDeclined), nil, "deploy to prod declined"},
		{"another request", c, toolnexus.Answer{ID: "pnd-other", OK: true}, toolnexus.ErrAnswerMismatch, ""},
		{"not parked", prompted(), req.Resolve(nil), toolnexus.ErrAnswerMismatch, ""},
		{"late", late(t, c), req.Resolve(nil), toolnexus.ErrExpired, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.c.Resume(ctx, tt.answer, tools)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Equal(t, mustJSON(t, tt.c), mustJSON(t, got), "returned as it was")
				return
			}
			require.NoError(t, err)
			assert.True(t, got.Ready())
			assert.Empty(t, got.Turn.Calls, "no longer parked")
			require.Len(t, got.Messages, 3)
			turn, err := tt.c.Turn.Resume(ctx, tools, tt.answer)
			require.NoError(t, err)
			assert.Equal(t, tt.result, turn.Calls[1].Result.Output)
			want, err := turn.AnthropicMessage()
			require.NoError(t, err)
			assert.Equal(t, mustJSON(t, want), mustJSON(t, got.Messages[2]), "the turn's message, as it is")
		})
	}
}

// late returns c with its request expired, as if ten minutes had passed.
func late(t *testing.T, c anthropicloop.Conversation) anthropicloop.Conversation {
	t.Helper()
	req := c.Turn.Waiting()[0].Request
	req.ExpiresAt = time.Now().Add(-time.Second).UTC().Format(time.RFC3339)
	call, err := c.Turn.Answer(req.Resolve(nil), time.Time{})
	require.NoError(t, err)
	call.Answers, call.Result = nil, toolnexus.Pending(req)
	c.Turn.Calls = append([]toolnexus.ToolCall{c.Turn.Calls[0]}, call)
	return c
}

// TestConversationResumeTwoWaits checks a turn whose two calls wait: the
// first answer keeps it parked, the second makes it ready.
func TestConversationResumeTwoWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reply := strings.Replace(toolUseJSON, `"id":"toolu_01","name":"screenshot","input":{}`, `"id":"toolu_01","name":"deploy","input":{"env":"dev"}`, 1)
	c, err := prompted().Run(ctx, message(t, reply), tools)
	require.NoError(t, err)
	waits := c.Turn.Waiting()
	require.Len(t, waits, 2)

	c, err = c.Resume(ctx, waits[1].Request.Resolve(nil), tools)
	require.NoError(t, err)
	assert.False(t, c.Ready())
	assert.Len(t, c.Messages, 2)
	assert.Equal(t, []toolnexus.Wait{waits[0]}, c.Turn.Waiting(), "still parked")

	c, err = c.Resume(ctx, waits[0].Request.Decline(toolnexus.ReasonDeclined), tools)
	require.NoError(t, err)
	assert.True(t, c.Ready())
	assert.Contains(t, mustJSON(t, c.Messages[2]), `"text":"deploy to dev declined"`)
	assert.Contains(t, mustJSON(t, c.Messages[2]), `"text":"deployed to prod"`)
}

// TestParseConversation checks that a stored conversation reads back to
// one that marshals to the same bytes and sends the same request, and
// that storage others can write is read with exact keys and a limit.
func TestParseConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A reply whose input has keys out of order, a number past float64's
	// precision and characters that JSON may escape: the SDK's own
	// MessageParam would read it back otherwise.
	odd := `{"id":"msg_05","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use","content":[` +
		`{"type":"tool_use","id":"toolu_05","name":"deploy","input":{"env":"prod","big":12345678901234567891,"n":1.0,"note":"<b> & \u2028"}}],` +
		`"usage":{"input_tokens":1,"output_tokens":1}}`
	for name, reply := range map[string]string{"parked": toolUseJSON, "odd input": odd} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := prompted().Run(ctx, message(t, reply), tools)
			require.NoError(t, err)
			stored := mustJSON(t, c)
			assert.True(t, strings.HasPrefix(stored, `{"messages":[`+promptJSON+`,`), stored)

			back, err := anthropicloop.ParseConversation([]byte(stored), 1<<20)
			require.NoError(t, err)
			assert.Equal(t, mustJSON(t, c.Messages), mustJSON(t, back.Messages), "the stored bytes again")
			assert.Equal(t, c.Turn.Waiting(), back.Turn.Waiting())
			assert.False(t, back.Ready())

			answer := c.Turn.Waiting()[0].Request.Resolve(nil)
			here, err := c.Resume(ctx, answer, tools)
			require.NoError(t, err)
			there, err := back.Resume(ctx, answer, tools)
			require.NoError(t, err)
			assert.True(t, there.Ready())
			assert.Equal(t, mustJSON(t, here.Params(params)), mustJSON(t, there.Params(params)), "the request the first process would have sent")
		})
	}

	stored := mustJSON(t, parked(t))
	bad := []struct {
		name, data string
		max        int64
		err        error
	}{
		{"over the limit", stored, int64(len(stored)) - 1, toolnexus.ErrPartTooLarge},
		{"not JSON", `{"messages":[`, 0, toolnexus.ErrInvalidJSON},
		{"a folded key", strings.Replace(stored, `"messages"`, `"Messages"`, 1), 0, toolnexus.ErrInvalidJSON},
		{"a repeated key", `{"messages":[],"messages":[` + promptJSON + `]}`, 0, toolnexus.ErrDuplicateKey},
		{"a message without a role", `{"messages":[{"content":"hi"}]}`, 0, toolnexus.ErrInvalidJSON},
		{"a turn with a folded key", strings.Replace(stored, `"calls"`, `"CALLS"`, 1), 0, toolnexus.ErrInvalidTurn},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := anthropicloop.ParseConversation([]byte(tt.data), tt.max)
			require.ErrorIs(t, err, tt.err)
			assert.Empty(t, c.Messages)
			assert.Empty(t, c.Turn.Calls)
		})
	}
	var tooLarge *toolnexus.PartTooLargeError
	_, err := anthropicloop.ParseConversation([]byte(stored), 10)
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, toolnexus.PartTooLargeError{Limit: 10, Size: int64(len(stored)), Document: true}, *tooLarge)

	c, err := anthropicloop.ParseConversation([]byte(`{"messages":[`+promptJSON+`]}`), 0)
	require.NoError(t, err)
	assert.True(t, c.Ready(), "a stored prompt, not yet sent")
	assert.Equal(t, `{"messages":[`+promptJSON+`]}`, mustJSON(t, c))
}

func TestResumeConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := parked(t)
	stored := []byte(mustJSON(t, c))
	req := c.Turn.Waiting()[0].Request

	got, err := anthropicloop.ResumeConversation(ctx, stored, 1<<20, req.Resolve(nil), tools)
	require.NoError(t, err)
	assert.True(t, got.Ready())
	assert.Len(t, got.Messages, 3)

	got, err = anthropicloop.ResumeConversation(ctx, stored, 1<<20, toolnexus.Answer{ID: "pnd-other", OK: true}, tools)
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	assert.Equal(t, mustJSON(t, c.Messages), mustJSON(t, got.Messages), "the stored conversation, as it was")
	assert.Equal(t, c.Turn.Waiting(), got.Turn.Waiting())
	_, err = anthropicloop.ResumeConversation(ctx, stored, 100, req.Resolve(nil), tools)
	require.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
}

// TestConversationPrintsNoPayload checks that no verb and no log shows the
// base64 of a part, in a message or in the parked turn.
func TestConversationPrintsNoPayload(t *testing.T) {
	t.Parallel()
	c := parked(t)
	answered, err := c.Resume(context.Background(), c.Turn.Waiting()[0].Request.Resolve(nil), tools)
	require.NoError(t, err)
	stored, err := anthropicloop.ParseConversation([]byte(mustJSON(t, c)), 0)
	require.NoError(t, err)
	png := looptest.GoldenPNG("../testdata")
	for name, v := range map[string]anthropicloop.Conversation{"parked": c, "answered": answered, "read back": stored} {
		assert.NotContains(t, looptest.Shown(v), png[:24], name)
	}
	assert.Equal(t, `{Messages:["user" "assistant" "user"] Turn:{}}`, fmt.Sprint(answered))
	assert.Equal(t, `{Messages:["user" "assistant"] Turn:{Calls:[{ID:"toolu_01" Name:"screenshot" Arguments:json.RawMessage(2 bytes) `+
		`Result:ok "fixture.png (image/png, 82 bytes)" parts=[image (image/png, 82 bytes)]}, {ID:"toolu_02" Name:"deploy" Arguments:json.RawMessage(14 bytes) `+
		`Result:error "Deploy to prod?" metadata=[pending] pending=approval:`+c.Turn.Waiting()[0].Request.ID+`}]}}`, fmt.Sprint(stored))
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", stored), `anthropicloop.Conversation{Messages:[]anthropic.MessageParam["user" "assistant"], Turn:toolnexus.Turn{Calls:[`))
}

func FuzzParseConversation(f *testing.F) {
	c, err := prompted().Run(context.Background(), message(f, toolUseJSON), tools)
	require.NoError(f, err)
	f.Add([]byte(mustJSON(f, c)))
	f.Add([]byte(`{"messages":[` + promptJSON + `]}`))
	f.Add([]byte(`{"messages":null,"turn":null}`))
	f.Add([]byte(`{"messages":[{"role":"user","role":"assistant"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		require.NoError(t, looptest.Reread(data, anthropicloop.ParseConversation))
	})
}
