package adkbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/adkbridge"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/park"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

// TestParkAgain parks a call twice: once on two requests at once, then,
// answered, on a third. Each park has its own id, the answers add up, and
// the first reply, given again, runs nothing and gets the second parking
// again.
func TestParkAgain(t *testing.T) {
	t.Parallel()
	a := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}
	b := toolnexus.Request{ID: "b", Kind: toolnexus.KindInput, Prompt: "B?"}
	c := toolnexus.Request{ID: "c", Kind: toolnexus.KindQuestion, Prompt: "C?"}
	var runs atomic.Int32
	var got toolnexus.Answers
	h := newHost(t, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		got = answers
		switch len(answers) {
		case 0:
			return toolnexus.PendingAll(a, b)
		case 2:
			return toolnexus.Pending(c)
		}
		return toolnexus.Ok("all answered")
	})
	first := h.park()
	require.Len(t, first.Requests, 2)
	assert.Equal(t, []string{"a", "b"}, []string{first.Requests[0].ID, first.Requests[1].ID})
	reply := first.Reply(a.Resolve(nil), b.Decline(toolnexus.ReasonDeclined))
	events, m := h.run(h.tool(), reply, says("I need your answer to C"))
	assert.Len(t, m.seen(), 1, "ADK asks the model after a resumed call that parks again")
	waits := adkbridge.Waiting(events...)
	require.Len(t, waits, 1)
	second := waits[0]
	assert.NotEqual(t, first.ParkID, second.ParkID)
	assert.Equal(t, first.ConfirmationID, second.ConfirmationID, "its reply answers the confirmation that resumed it")
	assert.Equal(t, "call-1", second.CallID)
	assert.JSONEq(t, `{"path":"/tmp/x"}`, string(second.Args))
	assert.Equal(t, "C?", second.Requests[0].Prompt)
	assert.Equal(t, toolnexus.Answers{a.Resolve(nil), b.Decline(toolnexus.ReasonDeclined)}, got)

	events, _ = h.run(h.tool(), reply, says("I still need your answer to C"))
	assert.Equal(t, []adkbridge.Wait{second}, adkbridge.Waiting(events...), "the first reply, again, gets the same parking")
	require.Equal(t, int32(2), runs.Load())

	events, _ = h.run(h.tool(), second.Reply(c.Resolve(nil)), says("done"))
	assert.Equal(t, "all answered", responses(events)[0].Response["output"])
	assert.Equal(t, int32(3), runs.Load())
	assert.Equal(t, toolnexus.Answers{a.Resolve(nil), b.Decline(toolnexus.ReasonDeclined), c.Resolve(nil)}, got)
}

// TestGate serves a tool behind approval.Gate as an ADK tool: the call
// parks on the gate's approval, a fresh runner given the approval runs the
// tool once, and the approval given again runs nothing: a Tool on the same
// Store gets the result, one on another Store ErrReplayed, and one whose
// Runner lets the tool repeat meets the gate's own once.
func TestGate(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	deploy := toolnexus.ToolFor(func(_ context.Context, in struct {
		Env string `json:"env"`
	}, _ toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok("deployed to " + in.Env)
	})
	gated, err := approval.Gate(deploy, approval.Require("Deploy?"), nil)
	require.NoError(t, err)
	h := newHost(t, gated)
	serve := func(r park.Runner) *adkbridge.Tool {
		tl, err := adkbridge.New("deploy", "Deploys the service", nil, gated)
		require.NoError(t, err)
		tl.Park = r
		return tl
	}
	shared := park.Runner{Store: h.store, Time: h.clock.Now, Logger: slog.New(slog.DiscardHandler)}
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
		ID: "call-1", Name: "deploy", Args: map[string]any{"env": "prod"},
	}}}}

	events, _ := h.run(serve(shared), genai.NewContentFromText("deploy to prod", genai.RoleUser), call)
	waits := adkbridge.Waiting(events...)
	require.Len(t, waits, 1)
	w := waits[0]
	require.Len(t, w.Requests, 1)
	assert.Equal(t, "Deploy?", w.Requests[0].Prompt)
	assert.Equal(t, toolnexus.KindApproval, w.Requests[0].Kind)
	assert.Equal(t, "2026-12-01T12:10:00Z", w.Requests[0].ExpiresAt, "the Runner's expiry")
	assert.Equal(t, int32(0), runs.Load(), "asked before it runs")

	reply := w.Reply(w.Requests[0].Resolve(nil))
	want := []*genai.FunctionResponse{{ID: "call-1", Name: "deploy", Response: map[string]any{"output": "deployed to prod"}}}
	events, _ = h.run(serve(shared), reply, says("deployed"))
	assert.Equal(t, want, responses(events))
	assert.Equal(t, int32(1), runs.Load())

	events, _ = h.run(serve(shared), reply, says("deployed"))
	assert.Equal(t, want, responses(events), "a replay gets the result")

	other := shared
	other.Store = park.NewMemoryStore(0, 0)
	events, _ = h.run(serve(other), reply, says("refused"))
	assert.Equal(t, `toolnexus: parked call already resumed: tool "deploy", parked as "`+w.ParkID+`" (its run is not recorded in this Runner's Store)`, refusal(t, events))

	repeat := shared
	repeat.Repeatable = []string{"deploy"}
	events, _ = h.run(serve(repeat), reply, says("refused"))
	assert.Equal(t, `toolnexus: approval already used: approval "`+w.Requests[0].ID+`" has run its tool`, refusal(t, events))
	assert.Equal(t, int32(1), runs.Load(), "the tool ran once")
}

// TestResumeOtherArguments resumes a call whose arguments in the session
// are no longer those it was parked with, as a store that was written to
// would give them: the tool does not run.
func TestResumeOtherArguments(t *testing.T) {
	t.Parallel()
	d := newDeleteTool(t)
	h := newHost(t, d.run)
	w := h.park()
	got, err := h.svc.Get(context.Background(), &session.GetRequest{AppName: appName, UserID: userID, SessionID: h.session})
	require.NoError(t, err)
	changed := 0
	for ev := range got.Session.Events().All() {
		for _, p := range ev.Content.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name == toolconfirmation.FunctionCallName {
				orig, err := toolconfirmation.OriginalCallFrom(p.FunctionCall)
				require.NoError(t, err)
				orig.Args["path"] = "/etc"
				changed++
			}
		}
	}
	require.Equal(t, 1, changed)
	events, _ := h.run(h.tool(), w.Reply(w.Requests[0].Resolve(nil)), says("refused"))
	assert.Equal(t, `toolnexus: answer does not match request: tool "delete" was resumed with arguments other than those it was parked with`, refusal(t, events))
	assert.Equal(t, int32(1), d.runs.Load())
}

func TestWaiting(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "r", Kind: toolnexus.KindApproval, Prompt: "OK?"}
	confirm := func(id string, payload any) *genai.Part {
		return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: toolconfirmation.FunctionCallName, Args: map[string]any{
			"originalFunctionCall": &genai.FunctionCall{ID: "call-" + id, Name: "delete", Args: map[string]any{"path": "/tmp/x"}},
			"toolConfirmation":     toolconfirmation.ToolConfirmation{Hint: "OK?", Payload: payload},
		}}}
	}
	park := "AAAAAAAAAAAAAAAAAAAAAA"
	ours := map[string]any{"parkId": park, "requests": []any{map[string]any{"id": "r", "kind": "approval", "prompt": "OK?"}}}
	ev := &session.Event{LLMResponse: model.LLMResponse{Content: &genai.Content{Parts: []*genai.Part{
		{Text: "hello"},
		{FunctionCall: &genai.FunctionCall{ID: "x", Name: "delete"}},
		confirm("1", ours),
		confirm("2", nil), // ADK's own RequireConfirmation
		confirm("3", map[string]any{"parkId": "short", "requests": ours["requests"]}),
		confirm("4", map[string]any{"parkId": park}),
		confirm("5", map[string]any{"parkId": park, "requests": ours["requests"], "ParkId": "x"}),
		{FunctionCall: &genai.FunctionCall{ID: "6", Name: toolconfirmation.FunctionCallName}},
	}}}}
	want := []adkbridge.Wait{{ConfirmationID: "1", Tool: "delete", CallID: "call-1", Args: json.RawMessage(`{"path":"/tmp/x"}`),
		ParkID: park, Requests: []toolnexus.Request{req}}}
	assert.Equal(t, want, adkbridge.Waiting(nil, &session.Event{}, ev))

	b, err := json.Marshal(want[0])
	require.NoError(t, err)
	assert.Equal(t, `{"confirmationId":"1","tool":"delete","callId":"call-1","args":{"path":"/tmp/x"},"parkId":"`+park+`","requests":[{"id":"r","kind":"approval","prompt":"OK?"}]}`, string(b))
	var back adkbridge.Wait
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, want[0], back)
}

// TestWaitPrints prints and logs a Wait whose arguments and request hold
// a secret: only sizes show.
func TestWaitPrints(t *testing.T) {
	t.Parallel()
	w := adkbridge.Wait{ConfirmationID: "c", Tool: "login", CallID: "call-1", Args: json.RawMessage(`{"password":"hunter2"}`),
		ParkID: "p", Requests: []toolnexus.Request{{ID: "r", Kind: toolnexus.KindInput, Prompt: "hunter2?", Data: map[string]any{"k": "hunter2"}}}}
	want := `Wait{tool "login", call "call-1", park "p", 1 requests, 22 bytes of arguments}`
	assert.Equal(t, want, w.String())
	assert.Equal(t, want, fmt.Sprint(w))
	assert.Equal(t, strconv.Quote(want), fmt.Sprintf("%q", w))
	assert.Equal(t, `adkbridge.Wait{ConfirmationID:"c", Tool:"login", CallID:"call-1", Args:json.RawMessage(22 bytes), ParkID:"p", `+
		`Requests:[]toolnexus.Request(len 1)}`, fmt.Sprintf("%#v", w))
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Info("parked", "wait", w)
	assert.Equal(t, "level=INFO msg=parked wait.tool=login wait.callId=call-1 wait.parkId=p wait.requests=1 wait.argsBytes=22\n", buf.String())
}

func TestReply(t *testing.T) {
	t.Parallel()
	w := adkbridge.Wait{ConfirmationID: "c-1", ParkID: "p"}
	tests := []struct {
		name    string
		answers toolnexus.Answers
		want    string
	}{
		{"resolved", toolnexus.Answers{{ID: "a", OK: true}, {ID: "b", OK: true, Data: map[string]any{"n": 1}}},
			`{"parts":[{"functionResponse":{"id":"c-1","name":"adk_request_confirmation","response":{"confirmed":true,"payload":{"parkId":"p","answers":[{"id":"a","ok":true},{"id":"b","ok":true,"data":{"n":1}}],"confirmationId":"c-1"}}}}],"role":"user"}`},
		{"one declined", toolnexus.Answers{{ID: "a", OK: true}, {ID: "b", Reason: toolnexus.ReasonDeclined}},
			`{"parts":[{"functionResponse":{"id":"c-1","name":"adk_request_confirmation","response":{"confirmed":false,"payload":{"parkId":"p","answers":[{"id":"a","ok":true},{"id":"b","ok":false,"reason":"declined"}],"confirmationId":"c-1"}}}}],"role":"user"}`},
		{"none", nil,
			`{"parts":[{"functionResponse":{"id":"c-1","name":"adk_request_confirmation","response":{"confirmed":false,"payload":{"parkId":"p","confirmationId":"c-1"}}}}],"role":"user"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(w.Reply(tc.answers...))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
		})
	}
}
