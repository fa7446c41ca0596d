package toolnexus_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// approvalReq is the request the deploy call of parkedTurn waits on.
var approvalReq = toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}

// parkedTurn is a turn of two calls: a screenshot that finished with an
// image, and a deploy that waits for approval.
func parkedTurn() toolnexus.Turn {
	return toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_1", Name: "screenshot", Arguments: json.RawMessage(`{}`), Result: toolnexus.Ok("shot.png", imagePNG)},
		{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Result: toolnexus.Pending(approvalReq)},
	}}
}

// completeTurn is parkedTurn once the deploy ran again with its approval.
func completeTurn(t *testing.T) toolnexus.Turn {
	t.Helper()
	tr := parkedTurn()
	c, err := tr.Answer(approvalReq.Resolve(nil), time.Now())
	require.NoError(t, err)
	c.Result = toolnexus.Ok("deployed")
	tr, err = tr.WithCall(c)
	require.NoError(t, err)
	return tr
}

const parkedJSON = `{"calls":[` +
	`{"id":"call_1","name":"screenshot","arguments":{},"result":{"output":"shot.png","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}},` +
	`{"id":"call_2","name":"deploy","arguments":{"env":"prod"},"result":{"output":"Deploy to prod?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"approval","prompt":"Deploy to prod?"}}}}]}`

func TestTurnJSON(t *testing.T) {
	t.Parallel()
	assert.Equal(t, parkedJSON, mustJSON(t, parkedTurn()))

	var decoded toolnexus.Turn
	require.NoError(t, json.Unmarshal([]byte(parkedJSON), &decoded))
	parsed, err := toolnexus.ParseTurn([]byte(parkedJSON), 1<<20)
	require.NoError(t, err)
	for name, tr := range map[string]toolnexus.Turn{"json.Unmarshal": decoded, "ParseTurn": parsed} {
		assert.Equal(t, parkedJSON, mustJSON(t, tr), name)
		assert.Equal(t, toolnexus.Waits{{CallID: "call_2", Tool: "deploy", Request: approvalReq}}, tr.Waiting(), name)
		assert.False(t, tr.Complete(), name)
	}
	assert.Equal(t, decoded, parsed)

	done := completeTurn(t)
	b := mustJSON(t, done)
	assert.Contains(t, b, `"answers":[{"id":"req-1","ok":true}]`)
	back, err := toolnexus.ParseTurn([]byte(b), 0)
	require.NoError(t, err)
	assert.Equal(t, done, back)
	assert.True(t, back.Complete())
}

func TestParseTurn(t *testing.T) {
	t.Parallel()
	call := func(s string) string { return `{"calls":[` + s + `]}` }
	ok := `{"output":"ok","isError":false}`
	tests := []struct {
		name    string
		data    string
		max     int64
		want    toolnexus.Turn
		wantErr error
		msg     string
	}{
		{"one call", call(`{"id":"c","name":"t","result":` + ok + `,"extra":1}`), 0,
			toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Result: toolnexus.Ok("ok")}}}, nil, ""},
		{"null arguments and answers", call(`{"id":"c","name":"t","arguments":null,"answers":null,"result":` + ok + `}`), 0,
			toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Result: toolnexus.Ok("ok")}}}, nil, ""},
		{"a key in another case is unknown", call(`{"id":"c","ID":"d","name":"t","NAME":"u","result":` + ok + `}`), 0,
			toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Result: toolnexus.Ok("ok")}}}, nil, ""},
		{"result keys exact", call(`{"id":"c","name":"t","result":{"output":"x","isError":true,"ISERROR":false}}`), 0,
			toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Result: toolnexus.Error("x")}}}, nil, ""},
		{"CALLS is not calls", `{"CALLS":[{"id":"c","name":"t"}]}`, 0, toolnexus.Turn{}, toolnexus.ErrInvalidTurn, "toolnexus: invalid turn: no calls"},
		{"too large", parkedJSON, 10, toolnexus.Turn{}, toolnexus.ErrPartTooLarge, ""},
		{"not an object", `[]`, 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: want a JSON object, got an array"},
		{"not JSON", `{"calls":`, 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON, ""},
		{"JSON too deep", `{"calls":[` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `]}`, 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: the input nests more than 10000 levels deep at byte 10009 of 20012, deeper than JSON is read here"},
		{"calls not an array", `{"calls":{}}`, 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: "calls" is an object, not an array`},
		{"id not a string", call(`{"id":1,"name":"t"}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: calls[0]: "id" is a number, not a string`},
		{"answer not an object", call(`{"id":"c","name":"t","answers":[true]}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: calls[0]: answers[0]: "answer" is a boolean, not an object`},
		{"no id", call(`{"name":"t","result":` + ok + `}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidTurn, "toolnexus: invalid turn: call 0 has no id"},
		{"no name", call(`{"id":"c","result":` + ok + `}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidTurn, `toolnexus: invalid turn: call "c" has no tool name`},
		{"id twice", call(`{"id":"c","name":"t"},{"id":"c","name":"u"}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidTurn,
			`toolnexus: invalid turn: two calls have id "c"`},
		{"answer without id", call(`{"id":"c","name":"t","answers":[{"ok":true}]}`), 0, toolnexus.Turn{}, toolnexus.ErrInvalidTurn,
			`toolnexus: invalid turn: call "c" holds an answer without id`},
		{"invalid part", call(`{"id":"c","name":"t","result":{"output":"","parts":[{"type":"image","mimeType":"image/png"}]}}`), 0,
			toolnexus.Turn{}, toolnexus.ErrInvalidPart, ""},
		{"suspension without prompt", call(`{"id":"c","name":"t","result":{"output":"","metadata":{"pending":{"id":"r","kind":"input"}}}}`), 0,
			toolnexus.Turn{}, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "r" has no prompt (call "c")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.ParseTurn([]byte(tt.data), tt.max)
			assertErr(t, err, tt.wantErr, tt.msg)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTurnValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		turn    toolnexus.Turn
		wantErr error
		msg     string
	}{
		{"parked", parkedTurn(), nil, ""},
		{"empty", toolnexus.Turn{}, toolnexus.ErrInvalidTurn, "toolnexus: invalid turn: no calls"},
		{"arguments not JSON", toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Arguments: json.RawMessage(`{"a":`)}}},
			toolnexus.ErrInvalidTurn, `toolnexus: invalid turn: the arguments of call "c" are not JSON`},
		{"long id quoted short", toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: strings.Repeat("x", 100)}}},
			toolnexus.ErrInvalidTurn, `toolnexus: invalid turn: call "` + strings.Repeat("x", 40) + `"… (100 bytes) has no tool name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.turn.Validate(), tt.wantErr, tt.msg)
		})
	}
}

func TestTurnAnswer(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	dated := approvalReq.WithExpiry(now)
	datedTurn := parkedTurn()
	datedTurn.Calls[1].Result = toolnexus.Pending(dated)
	tests := []struct {
		name    string
		turn    toolnexus.Turn
		answer  toolnexus.Answer
		wantErr error
		msg     string
	}{
		{"granted", parkedTurn(), approvalReq.Resolve(map[string]any{"by": "ops"}), nil, ""},
		{"declined", parkedTurn(), approvalReq.Decline(toolnexus.ReasonDeclined), nil, ""},
		{"before expiry", datedTurn, toolnexus.Answer{ID: "req-1", OK: true}, nil, ""},
		{"unknown id", parkedTurn(), toolnexus.Answer{ID: "req-9", OK: true}, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: no call of the turn waits on request "req-9"`},
		{"no id", parkedTurn(), toolnexus.Answer{OK: true}, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: no call of the turn waits on request ""`},
		{"finished call", completeTurn(t), approvalReq.Resolve(nil), toolnexus.ErrAnswerMismatch, ""},
		{"expired", datedTurn, approvalReq.Resolve(nil), toolnexus.ErrExpired,
			`toolnexus: request expired: request "req-1" expired at 2026-12-01T00:00:00Z`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := mustJSON(t, tt.turn)
			when := now.Add(-time.Second)
			if tt.wantErr == toolnexus.ErrExpired {
				when = now
			}
			c, err := tt.turn.Answer(tt.answer, when)
			assertErr(t, err, tt.wantErr, tt.msg)
			assert.Equal(t, before, mustJSON(t, tt.turn), "Answer does not change the turn")
			if tt.wantErr != nil {
				assert.Equal(t, toolnexus.ToolCall{}, c)
				return
			}
			want := tt.turn.Calls[1]
			want.Answers = toolnexus.Answers{tt.answer}
			assert.Equal(t, want, c)
		})
	}
}

// TestTurnResume runs the whole round: park, answer, re-run, record.
func TestTurnResume(t *testing.T) {
	t.Parallel()
	tr := parkedTurn()
	_, err := tr.AnthropicMessage()
	assertErr(t, err, toolnexus.ErrIncompleteTurn, `toolnexus: turn not complete: call "call_2" waits on request "req-1"`)

	// A second answer to the same request replaces the first.
	c, err := tr.Answer(approvalReq.Decline(toolnexus.ReasonDeclined), time.Now())
	require.NoError(t, err)
	c.Result = toolnexus.Pending(toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Why?"})
	again, err := tr.WithCall(c)
	require.NoError(t, err)
	assert.Equal(t, parkedJSON, mustJSON(t, tr), "WithCall does not change the turn")
	assert.Equal(t, toolnexus.Waits{{CallID: "call_2", Tool: "deploy",
		Request: toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Why?"}}}, again.Waiting())
	_, err = again.Answer(approvalReq.Resolve(nil), time.Now())
	assertErr(t, err, toolnexus.ErrAnswerMismatch, "")

	c, err = again.Answer(toolnexus.Answer{ID: "req-2", OK: true, Data: map[string]any{"answer": "audit"}}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Answers{approvalReq.Decline(toolnexus.ReasonDeclined),
		{ID: "req-2", OK: true, Data: map[string]any{"answer": "audit"}}}, c.Answers, "answers so far, earliest first")
	c.Result = toolnexus.Ok("deployed")
	done, err := again.WithCall(c)
	require.NoError(t, err)
	assert.True(t, done.Complete())
	assert.Empty(t, done.Waiting())
	assert.Equal(t, toolnexus.Ok("shot.png", imagePNG), done.Calls[0].Result, "the finished call is kept")
}

func TestTurnWithCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call toolnexus.ToolCall
		msg  string
	}{
		{"unknown id", toolnexus.ToolCall{ID: "call_9", Name: "deploy"}, `toolnexus: invalid turn: no call has id "call_9"`},
		{"other tool", toolnexus.ToolCall{ID: "call_2", Name: "destroy", Arguments: json.RawMessage(`{"env":"prod"}`)},
			`toolnexus: invalid turn: call "call_2" is a call of "deploy", not "destroy"`},
		{"other arguments", toolnexus.ToolCall{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`)},
			`toolnexus: invalid turn: call "call_2" was made with other arguments`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parkedTurn().WithCall(tt.call)
			assertErr(t, err, toolnexus.ErrInvalidTurn, tt.msg)
			assert.Equal(t, parkedJSON, mustJSON(t, got))
		})
	}
}

func TestTurnSend(t *testing.T) {
	t.Parallel()
	done := completeTurn(t)
	// A third call whose result has a PDF and an audio clip.
	done.Calls = append(done.Calls, toolnexus.ToolCall{ID: "call_3", Name: "report", Result: toolnexus.Ok("report", pdfNamed, audioWAV)})
	sends := map[string]func(toolnexus.Turn) (any, error){
		"anthropic":        func(tr toolnexus.Turn) (any, error) { return tr.AnthropicMessage() },
		"openai chat":      func(tr toolnexus.Turn) (any, error) { return tr.OpenAIChatMessages() },
		"openai responses": func(tr toolnexus.Turn) (any, error) { return tr.OpenAIResponsesInput() },
		"gemini":           func(tr toolnexus.Turn) (any, error) { return tr.GeminiContent() },
		"vertex":           func(tr toolnexus.Turn) (any, error) { return tr.VertexContent() },
	}
	want := map[string]string{
		"anthropic": `{"role":"user","content":[` +
			`{"type":"tool_result","tool_use_id":"call_1","is_error":false,"content":[{"type":"text","text":"shot.png"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},` +
			`{"type":"tool_result","tool_use_id":"call_2","is_error":false,"content":[{"type":"text","text":"deployed"}]},` +
			`{"type":"tool_result","tool_use_id":"call_3","is_error":false,"content":[{"type":"text","text":"report"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdfB64 + `"},"title":"report.pdf"}]}]}`,
		"openai chat": `[{"role":"tool","tool_call_id":"call_1","content":"shot.png"},` +
			`{"role":"tool","tool_call_id":"call_2","content":"deployed"},` +
			`{"role":"tool","tool_call_id":"call_3","content":"report"},` +
			`{"role":"user","content":[{"type":"text","text":"Output of tool screenshot (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},` +
			`{"type":"text","text":"Output of tool report (call_3):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,` + pdfB64 + `","filename":"report.pdf"}},{"type":"input_audio","input_audio":{"data":"` + wavB64 + `","format":"wav"}}]}]`,
		"openai responses": `[{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"shot.png"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]},` +
			`{"type":"function_call_output","call_id":"call_2","output":"deployed"},` +
			`{"type":"function_call_output","call_id":"call_3","output":[{"type":"input_text","text":"report"},{"type":"input_text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"input_file","file_data":"data:application/pdf;base64,` + pdfB64 + `","filename":"report.pdf"}]}]`,
		"gemini": `{"role":"user","parts":[` +
			`{"functionResponse":{"id":"call_1","name":"screenshot","response":{"output":"shot.png"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}},` +
			`{"functionResponse":{"id":"call_2","name":"deploy","response":{"output":"deployed"}}},` +
			`{"functionResponse":{"id":"call_3","name":"report","response":{"output":"report"},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"` + pdfB64 + `"}},{"inlineData":{"mimeType":"audio/wav","data":"` + wavB64 + `"}}]}}]}`,
	}
	want["vertex"] = want["gemini"] // no part by URL, which only Vertex AI takes
	dup := completeTurn(t)
	dup.Calls[1].ID = "call_1"
	for name, send := range sends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := send(done)
			require.NoError(t, err)
			assert.Equal(t, want[name], mustJSON(t, got))

			for _, bad := range []struct {
				turn toolnexus.Turn
				err  error
			}{
				{parkedTurn(), toolnexus.ErrIncompleteTurn},
				{toolnexus.Turn{}, toolnexus.ErrInvalidTurn},
				{dup, toolnexus.ErrInvalidTurn},
			} {
				_, err := send(bad.turn)
				assertErr(t, err, bad.err, "")
			}
		})
	}
}

// TestTurnOpenAIChatWithoutMedia sends no user message when no call has
// media.
func TestTurnOpenAIChatWithoutMedia(t *testing.T) {
	t.Parallel()
	tr := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "a", Name: "x", Result: toolnexus.Ok("1")},
		{ID: "b", Name: "y", Result: toolnexus.Error("no", audio("audio/ogg", "T2dnUw=="))},
	}}
	msgs, err := tr.OpenAIChatMessages()
	require.NoError(t, err)
	assert.Equal(t, `[{"role":"tool","tool_call_id":"a","content":"1"},`+
		`{"role":"tool","tool_call_id":"b","content":[{"type":"text","text":"no"},{"type":"text","text":"[unsupported audio part (audio/ogg, 4 bytes)]"}]}]`,
		mustJSON(t, msgs))
}

// TestTurnSeveralRequests runs a call whose suspension asks two requests at
// once: it is run again with each answer as it comes, and asks again for
// what is missing.
func TestTurnSeveralRequests(t *testing.T) {
	t.Parallel()
	login := toolnexus.Request{ID: "req-a", Kind: toolnexus.KindAuthorization, Prompt: "Log in", URL: "https://example.com/login"}
	deploy := func(answers toolnexus.Answers) toolnexus.ToolResult {
		var missing []toolnexus.Request
		for _, req := range []toolnexus.Request{login, approvalReq} {
			if _, ok := answers.Get(req.ID); !ok {
				missing = append(missing, req)
			}
		}
		if len(missing) > 0 {
			return toolnexus.PendingAll(missing...)
		}
		return toolnexus.Ok("deployed")
	}
	tr := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_1", Name: "status", Result: toolnexus.Ok("green")},
		{ID: "call_2", Name: "deploy", Result: deploy(nil)},
	}}
	stored, err := json.Marshal(tr)
	require.NoError(t, err)
	tr, err = toolnexus.ParseTurn(stored, 0)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Waits{{CallID: "call_2", Tool: "deploy", Request: login}, {CallID: "call_2", Tool: "deploy", Request: approvalReq}}, tr.Waiting())

	c, err := tr.Answer(approvalReq.Resolve(nil), time.Now())
	require.NoError(t, err)
	c.Result = deploy(c.Answers)
	tr, err = tr.WithCall(c)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Waits{{CallID: "call_2", Tool: "deploy", Request: login}}, tr.Waiting())
	_, err = tr.OpenAIResponsesInput()
	assertErr(t, err, toolnexus.ErrIncompleteTurn, `toolnexus: turn not complete: call "call_2" waits on request "req-a"`)

	c, err = tr.Answer(login.Resolve(nil), time.Now())
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Answers{approvalReq.Resolve(nil), login.Resolve(nil)}, c.Answers)
	c.Result = deploy(c.Answers)
	tr, err = tr.WithCall(c)
	require.NoError(t, err)
	assert.True(t, tr.Complete())
	items, err := tr.OpenAIResponsesInput()
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"function_call_output","call_id":"call_1","output":"green"},{"type":"function_call_output","call_id":"call_2","output":"deployed"}]`, mustJSON(t, items))
}

// TestTurnPrintsNoPayload prints a turn every way fmt can: no part's data
// shows.
func TestTurnPrintsNoPayload(t *testing.T) {
	t.Parallel()
	tr := completeTurn(t)
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(format, tr), pngB64, format)
	}
	assert.NotContains(t, mustJSON(t, tr.Waiting()), pngB64)
}

// TestTurnVertexContent sends a part by URL to Vertex AI, which takes it,
// and to the Gemini API, which does not.
func TestTurnVertexContent(t *testing.T) {
	t.Parallel()
	tr := toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c1", Name: "scan", Result: toolnexus.Ok("scanned", pdfAt("gs://scans/a.pdf"))}}}
	vertex, err := tr.VertexContent()
	require.NoError(t, err)
	gemini, err := tr.GeminiContent()
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"scan","response":{"output":"scanned"},"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"gs://scans/a.pdf"}}]}}]}`, mustJSON(t, vertex))
	assert.Equal(t, `{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"scan","response":{"output":"scanned\n[unsupported file part (application/pdf, url gs://scans/a.pdf)]"}}}]}`, mustJSON(t, gemini))
}

// TestTurnOneWaitPerRequest checks that no two calls of a turn may wait on
// one request ID (a tool that asks with a fixed ID, called twice): an
// Answer names its request, and would reach the first of them.
func TestTurnOneWaitPerRequest(t *testing.T) {
	t.Parallel()
	confirm := toolnexus.Request{ID: "confirm", Kind: toolnexus.KindApproval, Prompt: "Sure?"}
	two := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_1", Name: "rm", Arguments: json.RawMessage(`{"path":"a"}`), Result: toolnexus.Pending(confirm)},
		{ID: "call_2", Name: "rm", Arguments: json.RawMessage(`{"path":"b"}`), Result: toolnexus.PendingAll(approvalReq, confirm)},
	}}
	const msg = `toolnexus: invalid turn: calls "call_1" and "call_2" both wait on request "confirm": an answer could not tell them apart`
	assertErr(t, two.Validate(), toolnexus.ErrInvalidTurn, msg)
	data, err := json.Marshal(two)
	require.NoError(t, err)
	_, err = toolnexus.ParseTurn(data, 0)
	assertErr(t, err, toolnexus.ErrInvalidTurn, msg)

	// A turn that is valid cannot be made ambiguous by WithCall.
	tr := parkedTurn()
	c := tr.Calls[0]
	c.Result = toolnexus.Pending(approvalReq)
	_, err = tr.WithCall(c)
	assertErr(t, err, toolnexus.ErrInvalidTurn, `toolnexus: invalid turn: calls "call_1" and "call_2" both wait on request "req-1": an answer could not tell them apart`)

	// One call may ask again what it asked before.
	c = tr.Calls[1]
	c.Result = toolnexus.Pending(approvalReq)
	_, err = tr.WithCall(c)
	require.NoError(t, err)
}

// TestTurnWithCallArguments checks that WithCall takes the call with its
// arguments written another way, as a state binds them, and no other.
func TestTurnWithCallArguments(t *testing.T) {
	t.Parallel()
	tr := parkedTurn()
	for _, tt := range []struct {
		args string
		msg  string // "" for the same arguments
	}{
		{`{"env":"prod"}`, ""},
		{` { "env" : "\u0070rod" } `, ""},
		{`{"env":"staging"}`, `toolnexus: invalid turn: call "call_2" was made with other arguments`},
		{`{"env":"prod","Env":"staging"}`, `toolnexus: invalid turn: call "call_2": duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":`, `toolnexus: invalid turn: call "call_2": invalid JSON: arguments: unexpected EOF`},
	} {
		c := tr.Calls[1]
		c.Arguments = json.RawMessage(tt.args)
		c.Result = toolnexus.Ok("deployed")
		got, err := tr.WithCall(c)
		if tt.msg == "" {
			require.NoError(t, err, tt.args)
			assert.Equal(t, c, got.Calls[1])
			continue
		}
		assertErr(t, err, toolnexus.ErrInvalidTurn, tt.msg)
	}
	c := tr.Calls[0]
	c.Arguments = nil // {} and none are one call
	_, err := tr.WithCall(c)
	assert.NoError(t, err)
}

func TestNewTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args, stored string
	}{
		{"an object", ` {"a": 1} `, `{"a":1}`},
		{"escaped as json.Marshal escapes", `{"a":"<&>"}`, `{"a":"\u003c\u0026\u003e"}`},
		{"none", ``, ``},
		{"white space", " \n", ``},
		{"null", ` null `, ``},
		{"not JSON", `{"env": prod}`, `"{\"env\": prod}"`},
		{"not UTF-8", "{\"env\":\"\xff\"}", `"{\"env\":\"\ufffd\"}"`},
		{"an array", `[1]`, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := toolnexus.NewTurn(toolnexus.ToolCall{ID: "1", Name: "t", Arguments: json.RawMessage(tt.args)})
			require.NoError(t, err)
			require.Len(t, tr.Calls, 1)
			assert.Equal(t, tt.stored, string(tr.Calls[0].Arguments))
			b, err := json.Marshal(tr)
			require.NoError(t, err)
			back, err := toolnexus.ParseTurn(b, 0)
			require.NoError(t, err)
			assert.Equal(t, tr, back, "the turn equals what is read back from its JSON")
		})
	}
	for _, tt := range []struct {
		name  string
		calls []toolnexus.ToolCall
		err   string
	}{
		{"no id", []toolnexus.ToolCall{{Name: "t"}}, `toolnexus: invalid turn: call 0 has no id`},
		{"two calls, one id", []toolnexus.ToolCall{{ID: "a", Name: "t"}, {ID: "a", Name: "t"}}, `toolnexus: invalid turn: two calls have id "a"`},
		{"no name", []toolnexus.ToolCall{{ID: "a"}}, `toolnexus: invalid turn: call "a" has no tool name`},
	} {
		tr, err := toolnexus.NewTurn(tt.calls...)
		require.ErrorIs(t, err, toolnexus.ErrInvalidTurn, tt.name)
		assert.EqualError(t, err, tt.err, tt.name)
		assert.Equal(t, toolnexus.Turn{}, tr, tt.name)
	}
	tr, err := toolnexus.NewTurn()
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, tr, "no calls: the model asked for nothing")
}

// TestWaitsLog logs what a turn waits on through both slog handlers and
// every fmt verb: a sampling request's image is its size, as each Wait
// logs it.
func TestWaitsLog(t *testing.T) {
	t.Parallel()
	image := secretPayload()[:4096]
	req := toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "Describe it",
		Data: map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "image", "mimeType": "image/png", "data": image}}}}}
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "call_1", Name: "look", Result: toolnexus.Pending(req)}}}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("waiting", "waits", turn.Waiting())
	slog.New(slog.NewTextHandler(&buf, nil)).Info("waiting", "waits", turn.Waiting())
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		fmt.Fprintf(&buf, verb+"\n", turn.Waiting())
	}
	out := buf.String()
	assert.NotContains(t, out, image[:64])
	assert.Contains(t, out, `"waits":{"0":{"callId":"call_1","tool":"look","request":{"id":"s","kind":"sampling","prompt":"Describe it","data":"map[string]interface {}(len 1)"}}}`)
}

// TestNilSlicesGoString checks that nil Answers and Waits print in Go
// syntax as a nil of their type, as fmt prints a nil slice.
func TestNilSlicesGoString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "toolnexus.Answers(nil)", fmt.Sprintf("%#v", toolnexus.Answers(nil)))
	assert.Equal(t, "toolnexus.Waits(nil)", fmt.Sprintf("%#v", toolnexus.Waits(nil)))
	assert.Equal(t, fmt.Sprintf("%#v", []int(nil)), "[]int(nil)")
}
