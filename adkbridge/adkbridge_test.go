package adkbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/adkbridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/park"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

const (
	appName = "app"
	userID  = "user"
)

// scripted is a model that answers each request with the next of its
// replies, and records the requests.
type scripted struct {
	mu       sync.Mutex
	replies  []*genai.Content
	requests []*model.LLMRequest
}

func (m *scripted) Name() string { return "scripted" }

func (m *scripted) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		m.mu.Lock()
		m.requests = append(m.requests, req)
		if len(m.replies) == 0 {
			m.mu.Unlock()
			yield(nil, errors.New("scripted: no reply left"))
			return
		}
		c := m.replies[0]
		m.replies = m.replies[1:]
		m.mu.Unlock()
		yield(&model.LLMResponse{Content: c, TurnComplete: true}, nil)
	}
}

// seen returns the requests m was given.
func (m *scripted) seen() []*model.LLMRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// calls is the model's call of the delete tool.
func calls() *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
		ID: "call-1", Name: "delete", Args: map[string]any{"path": "/tmp/x"},
	}}}}
}

// says is a model's text reply.
func says(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleModel) }

// deleteTool is a tool that asks for an approval before it deletes, and
// returns the fixture image once approved; it counts its runs and keeps
// the arguments and answers of its last.
type deleteTool struct {
	runs    atomic.Int32
	mu      sync.Mutex
	args    string
	answers toolnexus.Answers
	image   toolnexus.ContentPart
}

func newDeleteTool(t *testing.T) *deleteTool {
	image, err := toolnexus.PartFromFile("testdata/fixture.png")
	require.NoError(t, err)
	return &deleteTool{image: image}
}

func (d *deleteTool) run(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	d.runs.Add(1)
	d.mu.Lock()
	d.args, d.answers = string(args), answers
	d.mu.Unlock()
	if len(answers) == 0 {
		return toolnexus.Pending(toolnexus.Request{ID: "approve-1", Kind: toolnexus.KindApproval, Prompt: "Delete /tmp/x?"})
	}
	if !answers.Latest().OK {
		return toolnexus.Error("not deleted: declined")
	}
	return toolnexus.Ok("deleted /tmp/x; the screenshot shows it", d.image)
}

// last returns the arguments and answers of d's last run.
func (d *deleteTool) last() (string, toolnexus.Answers) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.args, d.answers
}

// host is a session service with one session, on which each run builds a
// fresh runner, agent and Tool around one tool function, as another
// process would; its Tools share one Store, as processes that share
// redisclaims' do.
type host struct {
	t       *testing.T
	svc     session.Service
	session string
	fn      toolnexus.Tool
	expiry  time.Duration
	clock   *bridgetest.Clock
	store   park.Store
}

func newHost(t *testing.T, fn toolnexus.Tool) *host {
	t.Helper()
	svc := session.InMemoryService()
	created, err := svc.Create(context.Background(), &session.CreateRequest{AppName: appName, UserID: userID})
	require.NoError(t, err)
	return &host{t: t, svc: svc, session: created.Session.ID(), fn: fn, clock: &bridgetest.Clock{}, store: park.NewMemoryStore(0, 0)}
}

// tool returns a fresh Tool around h's function, on h's clock and Store.
func (h *host) tool() *adkbridge.Tool {
	h.t.Helper()
	tl, err := adkbridge.New("delete", "Deletes a file", nil, h.fn)
	require.NoError(h.t, err)
	tl.Park = park.Runner{Time: h.clock.Now, Expiry: h.expiry, Store: h.store, Logger: slog.New(slog.DiscardHandler)}
	return tl
}

// run runs msg on h's session with a fresh runner whose agent has tl and
// a model with replies, and returns the events and the model.
func (h *host) run(tl *adkbridge.Tool, msg *genai.Content, replies ...*genai.Content) ([]*session.Event, *scripted) {
	h.t.Helper()
	m := &scripted{replies: replies}
	a, err := llmagent.New(llmagent.Config{Name: "agent", Model: m, Tools: []tool.Tool{tl}})
	require.NoError(h.t, err)
	r, err := runner.New(runner.Config{AppName: appName, Agent: a, SessionService: h.svc})
	require.NoError(h.t, err)
	var events []*session.Event
	for ev, err := range r.Run(context.Background(), userID, h.session, msg, agent.RunConfig{}) {
		require.NoError(h.t, err)
		events = append(events, ev)
	}
	assert.Empty(h.t, m.replies, "the model was asked as often as scripted")
	return events, m
}

// park runs the model's call of the tool, which parks, and returns what it
// waits on.
func (h *host) park() adkbridge.Wait {
	h.t.Helper()
	events, _ := h.run(h.tool(), genai.NewContentFromText("delete /tmp/x", genai.RoleUser), calls())
	waits := adkbridge.Waiting(events...)
	require.Len(h.t, waits, 1)
	return waits[0]
}

// responses returns the function responses of tools among events.
func responses(events []*session.Event) []*genai.FunctionResponse {
	var out []*genai.FunctionResponse
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name != toolconfirmation.FunctionCallName {
				out = append(out, p.FunctionResponse)
			}
		}
	}
	return out
}

// refusal returns the error text of the single function response of the
// tool among events.
func refusal(t *testing.T, events []*session.Event) string {
	t.Helper()
	frs := responses(events)
	require.Len(t, frs, 1)
	s, _ := frs[0].Response["error"].(string)
	return s
}

func TestParkAndResume(t *testing.T) {
	t.Parallel()
	d := newDeleteTool(t)
	h := newHost(t, d.run)
	w := h.park()
	assert.Equal(t, int32(1), d.runs.Load())
	assert.Equal(t, "delete", w.Tool)
	assert.Equal(t, "call-1", w.CallID)
	assert.JSONEq(t, `{"path":"/tmp/x"}`, string(w.Args))
	assert.Len(t, w.ParkID, 22)
	require.Len(t, w.Requests, 1)
	assert.Equal(t, toolnexus.Request{ID: "approve-1", Kind: toolnexus.KindApproval, Prompt: "Delete /tmp/x?",
		ExpiresAt: "2026-12-01T12:10:00Z"}, w.Requests[0], "park.DefaultExpiry from when the call parked")

	events, m := h.run(h.tool(), w.Reply(w.Requests[0].Resolve(map[string]any{"note": "ok"})), says("deleted it"))
	assert.Equal(t, int32(2), d.runs.Load(), "the tool ran once more")
	args, answers := d.last()
	assert.JSONEq(t, `{"path":"/tmp/x"}`, args, "with the arguments the person saw")
	assert.Equal(t, toolnexus.Answers{{ID: "approve-1", OK: true, Data: map[string]any{"note": "ok"}}}, answers)
	frs := responses(events)
	require.Len(t, frs, 1)
	assert.Equal(t, "deleted /tmp/x; the screenshot shows it", frs[0].Response["output"])

	// The model's next request holds the image as a part of the function
	// response, its bytes and not base64, and no media key.
	reqs := m.seen()
	require.Len(t, reqs, 1)
	var got []*genai.FunctionResponse
	for _, c := range reqs[0].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && len(p.FunctionResponse.Parts) > 0 {
				got = append(got, p.FunctionResponse)
			}
		}
	}
	require.Len(t, got, 1)
	png, err := os.ReadFile("testdata/fixture.png")
	require.NoError(t, err)
	assert.Equal(t, []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: png}}}, got[0].Parts)
	assert.Equal(t, map[string]any{"output": "deleted /tmp/x; the screenshot shows it"}, got[0].Response)

	// The session keeps the media where the next request finds them again.
	again, m2 := h.run(h.tool(), genai.NewContentFromText("thanks", genai.RoleUser), says("you are welcome"))
	assert.Empty(t, responses(again))
	found := 0
	for _, c := range m2.seen()[0].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && len(p.FunctionResponse.Parts) == 1 {
				found++
			}
		}
	}
	assert.Equal(t, 1, found)
	assert.Equal(t, int32(2), d.runs.Load())
}

func TestResumeRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply func(w adkbridge.Wait, c *bridgetest.Clock) *genai.Content
		want  string
	}{
		{"another request", func(w adkbridge.Wait, _ *bridgetest.Clock) *genai.Content {
			return w.Reply(toolnexus.Answer{ID: "approve-2", OK: true})
		}, `toolnexus: answer does not match request: tool "delete" waits on request "approve-1", not on "approve-2"`},
		{"no answer", func(w adkbridge.Wait, _ *bridgetest.Clock) *genai.Content {
			return w.Reply()
		}, `toolnexus: answer does not match request: tool "delete" was resumed without an answer`},
		{"expired", func(w adkbridge.Wait, c *bridgetest.Clock) *genai.Content {
			c.Set(park.DefaultExpiry)
			return w.Reply(w.Requests[0].Resolve(nil))
		}, `toolnexus: request expired: request "approve-1" expired at 2026-12-01T12:10:00Z`},
		{"another park id", func(w adkbridge.Wait, _ *bridgetest.Clock) *genai.Content {
			w.ParkID = "AAAAAAAAAAAAAAAAAAAAAA"
			return w.Reply(w.Requests[0].Resolve(nil))
		}, `toolnexus: answer does not match request: no call of tool "delete" is parked as "AAAAAAAAAAAAAAAAAAAAAA"`},
		{"no park id", func(w adkbridge.Wait, _ *bridgetest.Clock) *genai.Content {
			w.ParkID = ""
			return w.Reply(w.Requests[0].Resolve(nil))
		}, `toolnexus: answer does not match request: tool "delete" was resumed by a confirmation that names no parked call`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDeleteTool(t)
			h := newHost(t, d.run)
			w := h.park()
			events, _ := h.run(h.tool(), tc.reply(w, h.clock), says("it was refused"))
			assert.Equal(t, tc.want, refusal(t, events))
			assert.Equal(t, int32(1), d.runs.Load(), "the tool did not run")
			if tc.name == "expired" {
				return
			}
			// The call still waits: the right answer resumes it.
			h.run(h.tool(), w.Reply(w.Requests[0].Resolve(nil)), says("deleted it"))
			assert.Equal(t, int32(2), d.runs.Load())
		})
	}
}

// TestResumeReplayed gives the reply that resumed a call again: to the
// same Tool, to a fresh one on the same Store, as another process sharing
// it, both get the result of the one run, media included, and to a Tool
// on another Store, as a process that does not share it, ErrReplayed.
// The tool runs once.
func TestResumeReplayed(t *testing.T) {
	t.Parallel()
	d := newDeleteTool(t)
	h := newHost(t, d.run)
	w := h.park()
	reply := w.Reply(w.Requests[0].Resolve(nil))
	same := h.tool()
	first, _ := h.run(same, reply, says("deleted it"))
	require.Equal(t, int32(2), d.runs.Load())
	want := responses(first)
	require.Len(t, want, 1)
	require.Contains(t, want[0].Response, "toolnexus.media")
	for _, tl := range []*adkbridge.Tool{same, h.tool()} {
		events, m := h.run(tl, reply, says("already done"))
		assert.Equal(t, want, responses(events), "the model reads the same result")
		assert.Equal(t, int32(2), d.runs.Load(), "the tool did not run again")
		last := m.seen()[0].Contents
		assert.Len(t, lastResponse(last).Parts, 1, "with its image")
	}

	other := h.tool()
	other.Park.Store = park.NewMemoryStore(0, 0)
	for range 2 {
		events, _ := h.run(other, reply, says("refused"))
		assert.Equal(t, `toolnexus: parked call already resumed: tool "delete", parked as "`+w.ParkID+`" (its run is not recorded in this Runner's Store)`, refusal(t, events))
		assert.Equal(t, int32(2), d.runs.Load(), "the tool did not run again")
	}
}

// lastResponse returns the last function response among contents.
func lastResponse(contents []*genai.Content) *genai.FunctionResponse {
	var fr *genai.FunctionResponse
	for _, c := range contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				fr = p.FunctionResponse
			}
		}
	}
	return fr
}

// TestResumeConcurrent resumes one parked call from two runners at once,
// each with its own Tool on one Store, as two processes sharing redisclaims'
// would: the first is held inside the tool while the second reads the
// session, which does not yet say the call was resumed. The second gets
// park.ErrRunning, the tool runs once, and a retry once the first is done
// gets its result.
func TestResumeConcurrent(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{}, 2)
	release := make(chan struct{})
	d := newDeleteTool(t)
	h := newHost(t, func(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		if len(answers) > 0 {
			entered <- struct{}{}
			<-release
		}
		return d.run(ctx, args, answers)
	})
	w := h.park()
	reply := w.Reply(w.Requests[0].Resolve(nil))
	results := make(chan *genai.FunctionResponse, 2)
	resume := func(tl *adkbridge.Tool) {
		events, _ := h.run(tl, reply, says("done"))
		results <- responses(events)[0]
	}
	go resume(h.tool())
	<-entered
	go resume(h.tool())
	select {
	case fr := <-results:
		assert.Equal(t, `toolnexus: the call is still running: retry later: call of "delete"`, fr.Response["error"])
	case <-entered:
		t.Error("the tool ran twice")
		release <- struct{}{}
		<-results
	}
	close(release)
	done := <-results
	assert.Equal(t, "deleted /tmp/x; the screenshot shows it", done.Response["output"])
	assert.Equal(t, int32(2), d.runs.Load(), "the tool ran once on resume")
	assert.Empty(t, entered)

	events, _ := h.run(h.tool(), reply, says("done"))
	assert.Equal(t, []*genai.FunctionResponse{done}, responses(events), "a retry gets the result")
	assert.Equal(t, int32(2), d.runs.Load())
}

func TestRunPanics(t *testing.T) {
	t.Parallel()
	h := newHost(t, func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		panic("boom")
	})
	var log bytes.Buffer
	tl := h.tool()
	tl.Park.Logger = slog.New(slog.NewTextHandler(&log, nil))
	events, m := h.run(tl, genai.NewContentFromText("delete /tmp/x", genai.RoleUser), calls(), says("it broke"))
	frs := responses(events)
	require.Len(t, frs, 1)
	assert.Equal(t, map[string]any{"error": `toolnexus: tool panicked: "delete"`}, frs[0].Response)
	assert.Contains(t, log.String(), `level=ERROR msg="toolnexus: tool panicked" tool=delete call=call-1 panic=boom stack=`)
	assert.Len(t, m.seen(), 2, "the model read the error")
}

// TestProgress runs a tool that reports its progress: ADK has no channel
// for it, and the reports reach the Runner's Progress with the function
// call's ID, the last always.
func TestProgress(t *testing.T) {
	t.Parallel()
	type report struct {
		Tool, CallID string
		Done, Total  float64
		Message      string
	}
	var mu sync.Mutex
	var got []report
	h := newHost(t, func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		for i := range 3 {
			toolnexus.ReportProgress(ctx, float64(i+1), 3, "step")
		}
		return toolnexus.Ok("done")
	})
	tl := h.tool()
	tl.Park.Progress = func(tool, callID string, done, total float64, message string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, report{tool, callID, done, total, message})
	}
	events, _ := h.run(tl, genai.NewContentFromText("delete /tmp/x", genai.RoleUser), calls(), says("done"))
	assert.Equal(t, "done", responses(events)[0].Response["output"])
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []report{{"delete", "call-1", 1, 3, "step"}, {"delete", "call-1", 3, 3, "step"}}, got,
		"on a clock that stands still, the first and the last")
}

// observed records the kinds and reasons of the events a Runner's Observer
// is given, and the tools it runs.
type observed struct {
	mu   sync.Mutex
	seen []string
}

func (o *observed) Run(ctx context.Context, c park.Call) (context.Context, func(toolnexus.ToolResult, error)) {
	o.add("run " + c.Tool)
	return ctx, func(toolnexus.ToolResult, error) {}
}

func (o *observed) Event(_ context.Context, e park.Event) {
	o.add(strings.TrimSpace(e.Kind + " " + e.Reason))
}

func (o *observed) add(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, s)
}

// TestObserver follows a parked call through the Runner's Observer: it
// parks, an answer to another request is refused before the Runner sees
// it, the right one runs it, and its replay gets the kept result.
func TestObserver(t *testing.T) {
	t.Parallel()
	d := newDeleteTool(t)
	h := newHost(t, d.run)
	o := &observed{}
	tool := func() *adkbridge.Tool {
		tl := h.tool()
		tl.Park.Observer = o
		return tl
	}
	events, _ := h.run(tool(), genai.NewContentFromText("delete /tmp/x", genai.RoleUser), calls())
	w := adkbridge.Waiting(events...)[0]
	h.run(tool(), w.Reply(toolnexus.Answer{ID: "approve-2", OK: true}), says("refused"))
	reply := w.Reply(w.Requests[0].Resolve(nil))
	h.run(tool(), reply, says("deleted"))
	h.run(tool(), reply, says("deleted"))
	o.mu.Lock()
	defer o.mu.Unlock()
	assert.Equal(t, []string{"run delete", "parked", "refused mismatch", "answered", "run delete", "replayed"}, o.seen)
}

// TestResumeExpiry parks a request asked without ExpiresAt on a fake
// clock: it expires the Runner's Expiry after the call parked
// (park.DefaultExpiry when zero), a fresh runner resuming it later is
// refused with ErrExpired and the tool does not run, and one resuming it
// in time runs it once.
func TestResumeExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range bridgetest.Expiries {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			h := newHost(t, bridgetest.ApprovalTool(&runs))
			h.expiry = tc.Expiry
			events, _ := h.run(h.tool(), genai.NewContentFromText("deploy", genai.RoleUser), calls())
			waits := adkbridge.Waiting(events...)
			require.Len(t, waits, 1)
			want := bridgetest.Approval
			want.ExpiresAt = tc.ExpiresAt
			assert.Equal(t, []toolnexus.Request{want}, waits[0].Requests)
			reply := waits[0].Reply(want.Resolve(nil))

			h.clock.Set(tc.Late)
			events, _ = h.run(h.tool(), reply, says("too late"))
			assert.Equal(t, `toolnexus: request expired: request "approve" expired at `+tc.ExpiresAt, refusal(t, events))
			assert.Equal(t, int32(0), runs.Load(), "a late answer does not run the tool")

			h.clock.Set(tc.InTime)
			events, _ = h.run(h.tool(), reply, says("deployed"))
			assert.Equal(t, []*genai.FunctionResponse{{ID: "call-1", Name: "delete", Response: map[string]any{"output": "deployed to prod"}}}, responses(events))
			assert.Equal(t, int32(1), runs.Load())
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	run := (&deleteTool{}).run
	tests := []struct {
		name string
		tool func() (*adkbridge.Tool, error)
		msg  string
	}{
		{"no name", func() (*adkbridge.Tool, error) { return adkbridge.New("", "d", nil, run) }, "toolnexus: invalid ADK tool: the tool has no name"},
		{"no function", func() (*adkbridge.Tool, error) { return adkbridge.New("t", "d", nil, nil) }, `toolnexus: invalid ADK tool: tool "t" has no function`},
		{"infer without a function", func() (*adkbridge.Tool, error) {
			return adkbridge.Infer[struct{}]("t", "d", nil)
		}, `toolnexus: invalid ADK tool: tool "t" has no function`},
		{"infer from a channel", func() (*adkbridge.Tool, error) {
			return adkbridge.Infer("t", "d", func(context.Context, chan int, toolnexus.Answers) toolnexus.ToolResult { return toolnexus.Ok("") })
		}, `toolnexus: invalid ADK tool: tool "t": For[chan int](): type chan int is unsupported by jsonschema`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl, err := tc.tool()
			assert.Nil(t, tl)
			require.ErrorIs(t, err, adkbridge.ErrInvalidTool)
			assert.EqualError(t, err, tc.msg)
		})
	}
}

// TestInfer runs a tool whose parameters are inferred from a struct: the
// model is given their schema, and the arguments are decoded with exact
// keys.
func TestInfer(t *testing.T) {
	t.Parallel()
	type in struct {
		Path string `json:"path" jsonschema:"the file to delete"`
	}
	tl, err := adkbridge.Infer("delete", "Deletes a file", func(_ context.Context, in in, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("deleted " + in.Path)
	})
	require.NoError(t, err)
	assert.False(t, tl.IsLongRunning())
	assert.Equal(t, "Deletes a file", tl.Description())
	b, err := json.Marshal(tl.Declaration())
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"delete","description":"Deletes a file","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string","description":"the file to delete"}},"required":["path"],"additionalProperties":false}}`, string(b))
	h := newHost(t, nil)
	events, m := h.run(tl, genai.NewContentFromText("delete", genai.RoleUser), calls(), says("done"))
	assert.Equal(t, []*genai.FunctionResponse{{ID: "call-1", Name: "delete", Response: map[string]any{"output": "deleted /tmp/x"}}}, responses(events))
	assert.Len(t, m.seen(), 2)
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments), that must print and log no part of it; a
// type that can hold none says why instead.
var leakValues = leaktest.Values{
	"adkbridge.Tool": func(data string) []any {
		tl, err := adkbridge.New("shot", "takes a screenshot", nil, toolnexus.Tool(func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			return toolnexus.Ok(data)
		}))
		if err != nil {
			panic(err)
		}
		return []any{tl}
	},
	"adkbridge.Wait": func(data string) []any {
		return []any{adkbridge.Wait{ConfirmationID: "c", Tool: "shot", CallID: "call-1", Args: json.RawMessage(`{"image":"` + data + `"}`), ParkID: "p",
			Requests: []toolnexus.Request{{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"url": "data:image/png;base64," + data}}}}}
	},
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "adkbridge", leakValues)
}
