package anthropicloop_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/park"
)

// tools are the tools of the examples and tests: screenshot returns the
// repository's 82-byte PNG fixture, deploy waits for an approval.
var tools = looptest.Tools("../testdata")

// exchanges are the requests of the example, as the SDK sends them: the
// prompt, then, once the deploy was approved in another process, the
// conversation and the one user message answering both calls.
var exchanges = []looptest.Exchange{
	{Path: "/v1/messages", Want: `{"max_tokens":1024,"messages":[` + promptJSON + `],"model":"claude-sonnet-5-5",` + toolsJSON + `}`, Reply: toolUseJSON},
	{Path: "/v1/messages", Want: `{"max_tokens":1024,"messages":[` + promptJSON + `,` + assistantJSON + `,` +
		`{"role":"user","content":[` +
		`{"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[{"type":"text","text":"fixture.png (image/png, 82 bytes)"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + looptest.GoldenPNG("../testdata") + `"}}]},` +
		`{"type":"tool_result","tool_use_id":"toolu_02","is_error":false,"content":[{"type":"text","text":"deployed to prod"}]}]}],` +
		`"model":"claude-sonnet-5-5",` + toolsJSON + `}`, Reply: doneJSON},
}

const (
	promptJSON  = `{"content":[{"text":"Show me the screen, then deploy to prod.","type":"text"}],"role":"user"}`
	toolsJSON   = `"tools":[{"input_schema":{"properties":{},"type":"object"},"name":"screenshot"},{"input_schema":{"properties":{"env":{"type":"string"}},"required":["env"],"type":"object"},"name":"deploy"}]`
	toolUseJSON = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use",` +
		`"content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_01","name":"screenshot","input":{}},` +
		`{"type":"tool_use","id":"toolu_02","name":"deploy","input":{"env":"prod"}}],"usage":{"input_tokens":1,"output_tokens":1}}`
	// oddJSON is a reply whose input has keys out of order, a number past
	// float64's precision and characters that JSON may escape: the SDK's
	// own MessageParam would read it back otherwise.
	oddJSON = `{"id":"msg_05","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use","content":[` +
		`{"type":"tool_use","id":"toolu_05","name":"deploy","input":{"env":"prod","big":12345678901234567891,"n":1.0,"note":"<b> & \u2028"}}],` +
		`"usage":{"input_tokens":1,"output_tokens":1}}`
	doneJSON = `{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"end_turn",` +
		`"content":[{"type":"text","text":"Deployed."}],"usage":{"input_tokens":1,"output_tokens":1}}`
	assistantJSON = `{"content":[{"text":"Checking.","type":"text"},{"id":"toolu_01","input":{},"name":"screenshot","type":"tool_use"},{"id":"toolu_02","input":{"env":"prod"},"name":"deploy","type":"tool_use"}],"role":"assistant"}`
)

// message decodes a reply of the API as the SDK does.
func message(t testing.TB, reply string) *anthropic.Message {
	t.Helper()
	var m anthropic.Message
	require.NoError(t, json.Unmarshal([]byte(reply), &m))
	return &m
}

func TestCalls(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []toolnexus.ToolCall{
		{ID: "toolu_01", Name: "screenshot", Arguments: json.RawMessage(`{}`)},
		{ID: "toolu_02", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)},
	}, anthropicloop.Calls(message(t, toolUseJSON)))
	assert.Empty(t, anthropicloop.Calls(message(t, doneJSON)))
	assert.Empty(t, anthropicloop.Calls(nil))
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	done := message(t, doneJSON)
	turn, more, err := anthropicloop.Run(ctx, done, tools)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, turn, "no tool_use: the model is done")
	assert.Equal(t, mustJSON(t, []anthropic.MessageParam{done.ToParam()}), mustJSON(t, more), "the reply, to append")

	toolUse := message(t, toolUseJSON)
	turn, more, err = anthropicloop.Run(ctx, toolUse, tools)
	require.NoError(t, err)
	assert.False(t, turn.Complete())
	assert.Equal(t, mustJSON(t, []anthropic.MessageParam{toolUse.ToParam()}), mustJSON(t, more), "no answer while a call waits")
	_, err = anthropicloop.Message(turn)
	assert.ErrorIs(t, err, toolnexus.ErrIncompleteTurn)

	// A hostile reply: a tool the host does not have, input that is not an
	// object, and two calls with one id.
	hostile := `{"id":"msg_03","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use","content":[` +
		`{"type":"tool_use","id":"toolu_01","name":"rm -rf","input":{}},{"type":"tool_use","id":"toolu_02","name":"deploy","input":"prod"}],"usage":{"input_tokens":1,"output_tokens":1}}`
	turn, more, err = anthropicloop.Run(ctx, message(t, hostile), tools)
	require.NoError(t, err)
	require.True(t, turn.Complete())
	require.Len(t, more, 2)
	out, err := json.Marshal(more[1])
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","content":[`+
		`{"type":"tool_result","tool_use_id":"toolu_01","is_error":true,"content":[{"type":"text","text":"toolnexus: unknown tool \"rm -rf\""}]},`+
		`{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"toolnexus: arguments of \"deploy\" are not a JSON object but a string"}]}]}`, string(out))

	twice := strings.Replace(hostile, `"toolu_02"`, `"toolu_01"`, 1)
	turn, more, err = anthropicloop.Run(ctx, message(t, twice), tools)
	assert.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
	assert.Empty(t, turn.Calls)
	assert.Empty(t, more)
}

func TestResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parked, sent, err := anthropicloop.Run(ctx, message(t, toolUseJSON), tools)
	require.NoError(t, err)
	req := parked.Waiting()[0].Request
	stored, err := json.Marshal(parked)
	require.NoError(t, err)
	last := []byte(mustJSON(t, sent[0]))

	tests := []struct {
		name   string
		stored []byte
		answer toolnexus.Answer
		err    error
		text   string // the deploy's result
	}{
		{"approved", stored, req.Resolve(nil), nil, "deployed to prod"},
		{"declined", stored, req.Decline(toolnexus.ReasonDeclined), nil, "deploy to prod declined"},
		{"another request", stored, toolnexus.Answer{ID: "pnd-other", OK: true}, toolnexus.ErrAnswerMismatch, ""},
		{"not a turn", []byte(`{"calls":"no"}`), req.Resolve(nil), toolnexus.ErrInvalidJSON, ""},
		{"a folded key", []byte(strings.Replace(string(stored), `"calls"`, `"CALLS"`, 1)), req.Resolve(nil), toolnexus.ErrInvalidTurn, ""},
		{"other input", []byte(strings.Replace(string(stored), `"env":"prod"`, `"env":"dev"`, 1)), req.Resolve(nil), anthropicloop.ErrTurnMismatch, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Each case answers the same parking: a Store of its own.
			ctx := park.NewContext(ctx, park.Runner{Store: park.NewMemoryStore(0, 0)})
			turn, more, err := anthropicloop.Resume(ctx, tt.stored, last, tt.answer, tools)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Empty(t, more)
				return
			}
			require.NoError(t, err)
			assert.True(t, turn.Complete())
			assert.Equal(t, tt.text, turn.Calls[1].Result.Output)
			require.Len(t, more, 1)
			out, err := json.Marshal(more[0])
			require.NoError(t, err)
			want, err := turn.AnthropicMessage()
			require.NoError(t, err)
			assert.Equal(t, mustJSON(t, want), string(out), "the message is the turn's, as it is")
		})
	}
}

// TestResumeLate checks that a parked request expires as over MCP: ten
// minutes after it was asked, its answer is refused.
func TestResumeLate(t *testing.T) {
	t.Parallel()
	parked, sent, err := anthropicloop.Run(context.Background(), message(t, toolUseJSON), tools)
	require.NoError(t, err)
	req := parked.Waiting()[0].Request
	expiry, err := req.Expiry()
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(park.DefaultExpiry), expiry, time.Minute)
	req.ExpiresAt = time.Now().Add(-time.Second).UTC().Format(time.RFC3339) // as if ten minutes had passed
	parked.Calls[1].Result = toolnexus.Pending(req)
	stored, err := json.Marshal(parked)
	require.NoError(t, err)
	_, _, err = anthropicloop.Resume(context.Background(), stored, []byte(mustJSON(t, sent[0])), req.Resolve(nil), tools)
	assert.ErrorIs(t, err, toolnexus.ErrExpired)
}

// TestLoop runs a loop of Run and Resume, with the conversation and the
// turn stored apart, against the provider: the bodies are exactly the
// exchanges', and a turn once sent cannot be resumed again.
func TestLoop(t *testing.T) {
	t.Parallel()
	api := looptest.NewProvider(exchanges...)
	defer api.Close()
	ctx := context.Background()
	client := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	converse := func(msgs []anthropic.MessageParam) ([]anthropic.MessageParam, toolnexus.Turn) {
		for {
			resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{Model: params.Model, MaxTokens: params.MaxTokens, Messages: msgs, Tools: defs})
			require.NoError(t, err)
			turn, more, err := anthropicloop.Run(ctx, resp, tools)
			require.NoError(t, err)
			msgs = append(msgs, more...)
			if len(turn.Calls) == 0 || !turn.Complete() {
				return msgs, turn
			}
		}
	}
	prompt := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the screen, then deploy to prod."))}
	msgs, turn := converse(prompt)
	require.False(t, turn.Complete())
	assert.Len(t, msgs, 2)
	stored, err := json.Marshal(turn)
	require.NoError(t, err)
	rows := make([][]byte, len(msgs)) // each message stored on its own
	for i, m := range msgs {
		rows[i] = []byte(mustJSON(t, m))
	}

	answer := turn.Waiting()[0].Request.Resolve(nil)
	done, reply, err := anthropicloop.Resume(ctx, stored, rows[len(rows)-1], answer, tools)
	require.NoError(t, err)
	again := make([]anthropic.MessageParam, len(rows))
	for i, row := range rows {
		again[i], err = anthropicloop.ParseMessage(row, 1<<20)
		require.NoError(t, err)
	}
	msgs, turn = converse(append(again, reply...))
	assert.Empty(t, turn.Calls)
	assert.Len(t, msgs, 4)
	assert.Equal(t, "2 requests, each body as expected", api.Verify())

	sent, err := json.Marshal(done)
	require.NoError(t, err)
	_, _, err = anthropicloop.Resume(ctx, sent, rows[len(rows)-1], answer, tools)
	assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch, "a finished turn takes no answer")
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestParseMessage(t *testing.T) {
	t.Parallel()
	m, err := anthropicloop.ParseMessage([]byte(assistantJSON), 1<<10)
	require.NoError(t, err)
	assert.Equal(t, assistantJSON, mustJSON(t, m), "as it was stored")
	for data, want := range map[string]error{
		`{"content":"hi"}`:                toolnexus.ErrInvalidJSON,
		`{"role":"user","role":"user"}`:   toolnexus.ErrDuplicateKey,
		`{"role":"user","content":"hi"} `: toolnexus.ErrPartTooLarge,
	} {
		_, err := anthropicloop.ParseMessage([]byte(data), 30)
		assert.ErrorIs(t, err, want, data)
	}
}

// sent returns the body of the request the SDK sends with p.
func sent(t *testing.T, p anthropic.MessageNewParams) string {
	t.Helper()
	var body []byte
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doneJSON)
	}))
	defer api.Close()
	client := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	_, err := client.Messages.New(context.Background(), p)
	require.NoError(t, err)
	return string(body)
}

// leakTurn is a parked turn whose call's arguments and result hold data.
func leakTurn(data string) toolnexus.Turn {
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	return toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "tu-1", Name: "shot", Arguments: json.RawMessage(`{"image":"` + data + `"}`), Result: toolnexus.Ok("done", img)},
		{ID: "tu-2", Name: "deploy", Arguments: json.RawMessage(`{"url":"data:image/png;base64,` + data + `"}`),
			Result: toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"image": data}}), Parked: "p"},
	}}
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments), that must print and log no part of it; a
// type that can hold none says why instead.
var leakValues = leaktest.Values{
	"anthropicloop.Conversation": func(data string) []any {
		return []any{anthropicloop.Conversation{
			Messages: []anthropic.MessageParam{
				anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the screen."), anthropic.NewImageBlockBase64("image/png", data)),
				anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("tu-1", map[string]any{"image": data}, "shot"),
					anthropic.NewToolUseBlock("tu-2", json.RawMessage(`{"url":"data:image/png;base64,`+data+`"}`), "deploy")),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock("tu-0", data, false)),
			},
			Turn: leakTurn(data),
		}}
	},
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "anthropicloop", leakValues)
}
