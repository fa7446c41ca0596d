package anthropicloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/park"
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
			// Each case answers the same parking: a Store of its own.
			ctx := park.NewContext(ctx, park.Runner{Store: park.NewMemoryStore(0, 0)})
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
			turn, err := park.Resume(ctx, tools, tt.c.Turn, tt.answer)
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
	assert.Equal(t, toolnexus.Waits{waits[0]}, c.Turn.Waiting(), "still parked")

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
	for name, reply := range map[string]string{"parked": toolUseJSON, "odd input": oddJSON} {
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

			// Stored a message at a time and the turn apart: resumed from
			// the turn and the model's message alone, then read back
			// message by message, it sends the same body, as the SDK sends it.
			rows := make([][]byte, len(c.Messages))
			for i, m := range c.Messages {
				rows[i] = []byte(mustJSON(t, m))
			}
			turn, more, err := anthropicloop.Resume(ctx, []byte(mustJSON(t, c.Turn)), rows[len(rows)-1], answer, tools)
			require.NoError(t, err)
			assert.True(t, turn.Complete())
			for _, m := range more {
				rows = append(rows, []byte(mustJSON(t, m)))
			}
			var apart anthropicloop.Conversation
			for _, row := range rows {
				m, err := anthropicloop.ParseMessage(row, 1<<20)
				require.NoError(t, err)
				apart.Messages = append(apart.Messages, m)
			}
			require.True(t, apart.Ready())
			body := sent(t, here.Params(params))
			assert.Equal(t, body, sent(t, there.Params(params)), "the body the first process would have sent")
			assert.Equal(t, body, sent(t, apart.Params(params)), "the body the first process would have sent")
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
		`Result:error "Deploy to prod?" metadata=[pending] pending=approval:`+c.Turn.Waiting()[0].Request.ID+` Parked:"`+c.Turn.Calls[1].Parked+`"}]}}`, fmt.Sprint(stored))
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

// TestResumeConversationMismatch checks that a stored conversation whose
// parked turn is not the model's last message's tool_use blocks is
// refused, read back or resumed, and that no tool runs.
func TestResumeConversationMismatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := parked(t)
	answer := c.Turn.Waiting()[0].Request.Resolve(nil)
	with := func(change func(*anthropicloop.Conversation)) anthropicloop.Conversation {
		d := c
		d.Messages = slices.Clone(c.Messages)
		d.Turn.Calls = slices.Clone(c.Turn.Calls)
		change(&d)
		return d
	}
	tests := []struct {
		name string
		c    anthropicloop.Conversation
		msg  string // "" when it agrees
	}{
		{"the model's calls", c, ""},
		{"the same input, otherwise written", with(func(d *anthropicloop.Conversation) {
			d.Turn.Calls[1].Arguments = json.RawMessage(`{"\u0065nv" : "prod"}`)
		}), ""},
		{"other input", with(func(d *anthropicloop.Conversation) { d.Turn.Calls[1].Arguments = json.RawMessage(`{"env":"dev"}`) }),
			`call "toolu_02" has other arguments in the turn than in the model's message`},
		{"other input in the message", with(func(d *anthropicloop.Conversation) {
			d.Messages[1] = param.Override[anthropic.MessageParam](json.RawMessage(strings.Replace(assistantJSON, `"prod"`, `"staging"`, 1)))
		}), `call "toolu_02" has other arguments in the turn than in the model's message`},
		{"another tool", with(func(d *anthropicloop.Conversation) { d.Turn.Calls[0].Name = "deploy" }),
			`call "toolu_01" is a call of "deploy" in the turn, of "screenshot" in the model's message`},
		{"another id", with(func(d *anthropicloop.Conversation) { d.Turn.Calls[1].ID = "toolu_09" }),
			`call 1 is "toolu_09" in the turn, "toolu_02" in the model's message`},
		{"a call the model did not make", with(func(d *anthropicloop.Conversation) {
			extra := d.Turn.Calls[1]
			extra.ID, extra.Arguments = "toolu_03", json.RawMessage(`{"env":"dev"}`)
			extra.Result = toolnexus.Ok("deployed to dev")
			d.Turn.Calls = append(d.Turn.Calls, extra)
		}), "the turn holds 3 calls, the model made 2"},
		{"a call the turn lacks", with(func(d *anthropicloop.Conversation) { d.Turn.Calls = d.Turn.Calls[1:] }),
			"the turn holds 1 calls, the model made 2"},
		{"a last message not the model's", with(func(d *anthropicloop.Conversation) {
			d.Messages = append(d.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock("Go on.")))
		}), "the turn holds 2 calls, the model made 0"},
		{"no message", with(func(d *anthropicloop.Conversation) { d.Messages = nil }), "the model's message is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A Store of the case's own: the cases share the conversation
			// they resume, whose parking the process's store answers once.
			ctx := park.NewContext(ctx, park.Runner{Store: park.NewMemoryStore(0, 0)})
			var ran atomic.Int32
			counted := map[string]toolnexus.Tool{"screenshot": tools["screenshot"], "deploy": func(ctx context.Context, args json.RawMessage, a toolnexus.Answers) toolnexus.ToolResult {
				ran.Add(1)
				return tools["deploy"](ctx, args, a)
			}}
			stored := []byte(mustJSON(t, tt.c))
			got, err := anthropicloop.ResumeConversation(ctx, stored, 1<<20, answer, counted)
			if tt.msg == "" {
				require.NoError(t, err)
				assert.True(t, got.Ready())
				assert.Equal(t, int32(1), ran.Load())
				return
			}
			require.ErrorIs(t, err, anthropicloop.ErrTurnMismatch)
			require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
			assert.EqualError(t, err, "toolnexus: invalid turn: the parked turn is not the model's calls: "+tt.msg)
			_, err = anthropicloop.ParseConversation(stored, 1<<20)
			require.ErrorIs(t, err, anthropicloop.ErrTurnMismatch, "refused as it is read")

			kept, err := tt.c.Resume(ctx, answer, counted)
			require.ErrorIs(t, err, anthropicloop.ErrTurnMismatch)
			assert.Equal(t, string(stored), mustJSON(t, kept), "returned as it was")

			rows := make([][]byte, len(tt.c.Messages)+1)
			for i, m := range tt.c.Messages {
				rows[i+1] = []byte(mustJSON(t, m))
			}
			_, more, err := anthropicloop.Resume(ctx, []byte(mustJSON(t, tt.c.Turn)), rows[len(rows)-1], answer, counted)
			require.ErrorIs(t, err, anthropicloop.ErrTurnMismatch, "stored apart")
			assert.Empty(t, more)
			assert.Zero(t, ran.Load(), "no tool ran")
		})
	}
}

// TestResumeConversationOnce reads one stored conversation back twice, as
// two processes would, and resumes each with the same approval: the
// deploy runs once, and the second resume gets the same conversation.
func TestResumeConversationOnce(t *testing.T) {
	t.Parallel()
	ctx := park.NewContext(context.Background(), park.Runner{Store: park.NewMemoryStore(0, 0)})
	var runs atomic.Int32
	counted := map[string]toolnexus.Tool{"screenshot": tools["screenshot"], "deploy": func(ctx context.Context, args json.RawMessage, a toolnexus.Answers) toolnexus.ToolResult {
		if len(a) > 0 {
			runs.Add(1)
		}
		return tools["deploy"](ctx, args, a)
	}}
	c, err := prompted().Run(ctx, message(t, toolUseJSON), counted)
	require.NoError(t, err)
	stored := []byte(mustJSON(t, c))
	answer := c.Turn.Waiting()[0].Request.Resolve(nil)
	first, err := anthropicloop.ResumeConversation(ctx, stored, 1<<20, answer, counted)
	require.NoError(t, err)
	second, err := anthropicloop.ResumeConversation(ctx, stored, 1<<20, answer, counted)
	require.NoError(t, err)
	assert.Equal(t, int32(1), runs.Load())
	assert.Equal(t, mustJSON(t, first), mustJSON(t, second))
	assert.Contains(t, mustJSON(t, second), "deployed to prod")
}
