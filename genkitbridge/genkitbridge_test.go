package genkitbridge_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genkitbridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/park"
)

// asked is the time at which the deploy tool asks; its request expires an
// hour later.
var asked = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// fakeModel is a model that calls the deploy tool once, then answers
// "done" once it has read the tool's response, which it records.
type fakeModel struct {
	mu   sync.Mutex
	seen []*ai.Message // the tool messages it was given
}

func (m *fakeModel) generate(_ context.Context, req *ai.ModelRequest, _ any, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if last := req.Messages[len(req.Messages)-1]; last.Role == ai.RoleTool {
		m.seen = append(m.seen, last)
		return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage("done"), FinishReason: ai.FinishReasonStop}, nil
	}
	call := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "call-1", Input: map[string]any{"env": "prod"}})
	return &ai.ModelResponse{Request: req, Message: ai.NewModelMessage(call), FinishReason: ai.FinishReasonStop}, nil
}

// toolMessages returns the tool messages m was given.
func (m *fakeModel) toolMessages() []*ai.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seen)
}

// newGenkit returns a genkit instance with m registered as "fake/model".
func newGenkit(m *fakeModel) (*genkit.Genkit, ai.Model) {
	g := genkit.Init(context.Background())
	model := genkit.DefineModelAction(g, "fake/model", &ai.ModelOptions{
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, Media: true},
	}, m.generate)
	return g, model
}

// deployRequest is what the deploy tool asks.
func deployRequest() toolnexus.Request {
	return toolnexus.Request{
		ID: "pnd-deploy", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?",
		Data: map[string]any{"choices": []any{"yes", "no"}},
	}.WithExpiry(asked.Add(time.Hour))
}

// fixture returns the fixture PNG as a part.
func fixture(t *testing.T) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromFile("testdata/fixture.png")
	require.NoError(t, err)
	return p
}

// deployTool returns the deploy tool, which asks for an approval when ask
// is set, then deploys and returns the fixture PNG; runs counts the runs
// that deployed.
func deployTool(t *testing.T, runs *atomic.Int32, at time.Time, ask bool) *genkitbridge.Tool {
	t.Helper()
	png := fixture(t)
	type in struct {
		Env string `json:"env"`
	}
	tl, err := genkitbridge.Infer("deploy", "Deploys the service", func(_ context.Context, in in, answers toolnexus.Answers) toolnexus.ToolResult {
		if _, ok := answers.Get("pnd-deploy"); ask && !ok {
			return toolnexus.Pending(deployRequest())
		}
		runs.Add(1)
		return toolnexus.Ok("deployed to "+in.Env, png)
	})
	require.NoError(t, err)
	tl.Park.Time = func() time.Time { return at }
	return tl
}

// toolResponse returns the response of the one tool message m was given.
func toolResponse(t *testing.T, m *fakeModel) *ai.ToolResponse {
	t.Helper()
	msgs := m.toolMessages()
	require.Len(t, msgs, 1)
	require.Len(t, msgs[0].Content, 1)
	res := msgs[0].Content[0].ToolResponse
	require.NotNil(t, res)
	assert.Equal(t, "deploy", res.Name)
	assert.Equal(t, map[string]any{"output": "deployed to prod"}, res.Output)
	return res
}

// assertPNG asserts that parts are the fixture PNG as a media part.
func assertPNG(t *testing.T, parts []*ai.Part) {
	t.Helper()
	require.Len(t, parts, 1)
	assert.True(t, parts[0].IsMedia())
	assert.Equal(t, "image/png", parts[0].ContentType)
	assert.Equal(t, pngURL(t), parts[0].Text)
}

// pngURL returns the data URL of the fixture PNG.
func pngURL(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/fixture.png")
	require.NoError(t, err)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
}

// TestGenerate runs a tool that does not suspend: the model reads its
// text as the output and the fixture PNG as a media part.
func TestGenerate(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	m := &fakeModel{}
	g, model := newGenkit(m)
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(deployTool(t, &runs, asked, false)))
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Text())
	assert.Equal(t, int32(1), runs.Load())
	res := toolResponse(t, m)
	assert.Equal(t, "call-1", res.Ref)
	assertPNG(t, res.Content)
}

// TestPanic runs a tool that panics, on its first run and on its restart
// after an approval, in a real generation: the process lives on, the model
// reads an error result that names the tool and not the panic, and the
// logger gets the panic and its stack.
func TestPanic(t *testing.T) {
	t.Parallel()
	for _, ask := range []bool{false, true} {
		t.Run(map[bool]string{false: "first run", true: "restart"}[ask], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tl, err := genkitbridge.New("deploy", "Deploys", nil, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
				if _, ok := answers.Get("pnd-deploy"); ask && !ok {
					return toolnexus.Pending(deployRequest())
				}
				panic(bridgetest.Secret)
			})
			require.NoError(t, err)
			tl.Park.Time = func() time.Time { return asked }
			var log bytes.Buffer
			tl.Park.Logger = slog.New(slog.NewJSONHandler(&log, nil))
			m := &fakeModel{}
			g, model := newGenkit(m)
			resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl))
			require.NoError(t, err)
			if ask {
				part, err := tl.Resume(resp.Interrupts()[0], deployRequest().Resolve(nil))
				require.NoError(t, err)
				resp, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolRestarts(part))
				require.NoError(t, err)
			}
			assert.Equal(t, "done", resp.Text())
			msgs := m.toolMessages()
			require.Len(t, msgs, 1)
			require.Len(t, msgs[0].Content, 1)
			res := msgs[0].Content[0].ToolResponse
			require.NotNil(t, res)
			assert.Equal(t, map[string]any{"error": `toolnexus: tool panicked: "deploy"`}, res.Output)
			assert.Empty(t, res.Content)
			history, err := json.Marshal(resp.History())
			require.NoError(t, err)
			assert.NotContains(t, string(history), bridgetest.Secret)

			require.NoError(t, bridgetest.PanicLogged(log.Bytes(), "deploy", "genkitbridge_test.TestPanic"))
		})
	}
}

// TestRestart runs a tool that suspends: the generation stops with one
// interrupt carrying the request; the history, stored as JSON, is restarted
// on a fresh genkit instance with the answer, refused for a wrong answer and
// a late one, and run once for the right one.
func TestRestart(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	g, model := newGenkit(&fakeModel{})
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(deployTool(t, &runs, asked, true)))
	require.NoError(t, err)
	assert.Equal(t, ai.FinishReasonInterrupted, resp.FinishReason)
	interrupts := resp.Interrupts()
	require.Len(t, interrupts, 1)
	reqs, ok := genkitbridge.Requests(interrupts[0])
	require.True(t, ok)
	assert.Equal(t, []toolnexus.Request{deployRequest()}, reqs)
	first, ok := ai.InterruptAs[toolnexus.Request](interrupts[0])
	require.True(t, ok)
	assert.Equal(t, deployRequest(), first)
	assert.Equal(t, int32(0), runs.Load())
	// The interrupt keeps the parking the Runner minted, and when it can
	// no longer be answered.
	meta := interrupts[0].Metadata["interrupt"].(map[string]any)
	assert.Len(t, meta["parked"], 22)
	assert.Equal(t, "2026-12-01T13:00:00Z", meta["until"])

	stored, err := json.Marshal(resp.History())
	require.NoError(t, err)

	// restart reads the stored history in a fresh genkit instance and
	// restarts its interrupt with answer at the time at.
	restart := func(at time.Time, answers ...toolnexus.Answer) (*ai.ModelResponse, *fakeModel, error) {
		t.Helper()
		var history []*ai.Message
		require.NoError(t, json.Unmarshal(stored, &history))
		interrupt := history[len(history)-1].Content[0]
		m := &fakeModel{}
		g, model := newGenkit(m)
		tl := deployTool(t, &runs, at, true)
		part, err := tl.Resume(interrupt, answers...)
		if err != nil {
			return nil, m, err
		}
		resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(history...), ai.WithTools(tl), ai.WithToolRestarts(part))
		return resp, m, err
	}

	refusals := []struct {
		name    string
		at      time.Time
		answers []toolnexus.Answer
		want    error
	}{
		{"wrong id", asked.Add(time.Minute), []toolnexus.Answer{{ID: "pnd-other", OK: true}}, toolnexus.ErrAnswerMismatch},
		{"late", asked.Add(2 * time.Hour), []toolnexus.Answer{first.Resolve(nil)}, toolnexus.ErrExpired},
		{"no answer", asked.Add(time.Minute), nil, toolnexus.ErrAnswerMismatch},
	}
	for _, tc := range refusals {
		_, _, err := restart(tc.at, tc.answers...)
		assert.ErrorIs(t, err, tc.want, tc.name)
		assert.Equal(t, int32(0), runs.Load(), tc.name)
	}

	// genkit's restart keeps the tool's whole multipart response
	// (ai/generate.go, handleResumedToolRequest): the model reads the PNG,
	// and reads it again from a restart sent twice, which does not run the
	// tool again.
	for range 2 {
		resp, m, err := restart(asked.Add(time.Minute), first.Resolve(nil))
		require.NoError(t, err)
		assert.Equal(t, "done", resp.Text())
		assert.Equal(t, int32(1), runs.Load())
		assertPNG(t, toolResponse(t, m).Content)
	}
}

// TestRestartLate restarts the call with a part Resume made in time, but
// runs it after the request expired: the tool refuses the answer and does
// not run, and the generation fails with the reason.
func TestRestartLate(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	g, model := newGenkit(&fakeModel{})
	tl := deployTool(t, &runs, asked, true)
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl))
	require.NoError(t, err)
	interrupt := resp.Interrupts()[0]
	part, err := tl.Resume(interrupt, deployRequest().Resolve(nil))
	require.NoError(t, err)

	tl.Park.Time = func() time.Time { return asked.Add(2 * time.Hour) }
	_, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolRestarts(part))
	require.Error(t, err)
	// genkit writes the tool's error with %v: its text survives, not its
	// chain.
	assert.True(t, strings.Contains(err.Error(), `toolnexus: request expired: request "pnd-deploy" expired at 2026-12-01T13:00:00Z`), err.Error())
	assert.Equal(t, int32(0), runs.Load())
}

// TestAnswer answers the interrupt with Answer, which runs the tool at
// once: the model reads the fixture PNG as a media part, and the tool ran
// once.
func TestAnswer(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	m := &fakeModel{}
	g, model := newGenkit(m)
	tl := deployTool(t, &runs, asked, true)
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl))
	require.NoError(t, err)
	interrupt := resp.Interrupts()[0]

	_, err = tl.Answer(ctx, interrupt, toolnexus.Answer{ID: "pnd-other", OK: true})
	assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	assert.Equal(t, int32(0), runs.Load())

	part, err := tl.Answer(ctx, interrupt, deployRequest().Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, int32(1), runs.Load())
	resp, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolResponses(part))
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Text())
	assert.Equal(t, int32(1), runs.Load())
	assertPNG(t, toolResponse(t, m).Content)
}

// TestPendingAll asks two requests at once: the interrupt carries both,
// both answers restart the tool, which finishes; an answer to one only
// makes the tool ask again, which a resumed generation cannot.
func TestPendingAll(t *testing.T) {
	ctx := context.Background()
	approve := toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}
	region := toolnexus.Request{ID: "region", Kind: toolnexus.KindQuestion, Prompt: "Which region?"}
	var seen []toolnexus.Answers
	tl, err := genkitbridge.New("deploy", "Deploys", nil, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		seen = append(seen, answers)
		if len(answers) < 2 {
			return toolnexus.PendingAll(approve, region)
		}
		where, _ := answers.Get("region")
		return toolnexus.Ok("deployed to " + where.Data["answer"].(string))
	})
	require.NoError(t, err)
	tl.Park.Expiry = -1 // the requests as asked, without an ExpiresAt
	g, model := newGenkit(&fakeModel{})
	// interrupted runs a generation that parks the call.
	interrupted := func() *ai.ModelResponse {
		t.Helper()
		resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy"), ai.WithTools(tl))
		require.NoError(t, err)
		require.Len(t, resp.Interrupts(), 1)
		return resp
	}
	resp := interrupted()
	interrupt := resp.Interrupts()[0]
	reqs, ok := genkitbridge.Requests(interrupt)
	require.True(t, ok)
	assert.Equal(t, []toolnexus.Request{approve, region}, reqs)
	meta := interrupt.Metadata["interrupt"].(map[string]any)
	assert.NotContains(t, meta, "until", "requests that never expire")

	yes, eu := approve.Resolve(nil), region.Resolve(map[string]any{"answer": "eu"})
	part, err := tl.Resume(interrupt, yes, eu)
	require.NoError(t, err)
	resp2, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolRestarts(part))
	require.NoError(t, err)
	assert.Equal(t, "done", resp2.Text())
	assert.Equal(t, []toolnexus.Answers{nil, {yes, eu}}, seen)

	// One answer of two, to a new call: the tool asks again, and genkit
	// fails the restarted generation (ai/generate.go,
	// GenerateWithRequest); Answer of the same interrupt gets that run's
	// suspension again, and reports it.
	resp = interrupted()
	part, err = tl.Resume(resp.Interrupts()[0], yes)
	require.NoError(t, err)
	_, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolRestarts(part))
	assert.ErrorContains(t, err, "One or more tools triggered an interrupt during a restarted execution.")
	_, err = tl.Answer(ctx, resp.Interrupts()[0], yes)
	assert.ErrorIs(t, err, genkitbridge.ErrAskedAgain)
	resp = interrupted()
	_, err = tl.Answer(ctx, resp.Interrupts()[0], yes)
	assert.ErrorIs(t, err, genkitbridge.ErrAskedAgain)
	assert.Len(t, seen, 6, "the replayed suspension does not run the tool")
}

func TestNewInvalid(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("")
	}
	_, err := genkitbridge.New("", "", nil, ok)
	assert.ErrorIs(t, err, genkitbridge.ErrInvalidTool)
	assert.EqualError(t, err, "toolnexus: invalid genkit tool: the tool has no name")
	_, err = genkitbridge.New("x", "", nil, nil)
	assert.EqualError(t, err, `toolnexus: invalid genkit tool: tool "x" has no function`)
	_, err = genkitbridge.Infer[struct{}]("x", "", nil)
	assert.ErrorIs(t, err, genkitbridge.ErrInvalidTool)
}

func TestInfer(t *testing.T) {
	t.Parallel()
	type in struct {
		Env      string `json:"env"`
		Replicas int    `json:"replicas,omitempty"`
	}
	var got []in
	tl, err := genkitbridge.Infer("deploy", "Deploys", func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
		got = append(got, v)
		return toolnexus.Ok("ok")
	})
	require.NoError(t, err)
	def := tl.Definition()
	assert.Equal(t, "deploy", def.Name)
	assert.Equal(t, "Deploys", def.Description)
	assert.Equal(t, map[string]any{"env": map[string]any{"type": "string"}, "replicas": map[string]any{"type": "integer"}}, def.InputSchema["properties"])

	tests := []struct {
		name  string
		input any
		want  map[string]any // what the model reads
		ran   []in
	}{
		{"exact keys", map[string]any{"env": "prod", "replicas": 2}, map[string]any{"output": "ok"}, []in{{Env: "prod", Replicas: 2}}},
		{"an absent key is zero", map[string]any{"env": "prod"}, map[string]any{"output": "ok"}, []in{{Env: "prod"}}},
	}
	for _, tc := range tests {
		got = nil
		res, err := tl.RunRawMultipart(context.Background(), tc.input)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, res.Output, tc.name)
		assert.Equal(t, tc.ran, got, tc.name)
	}
	// genkit checks the input against the schema before the tool runs: a
	// value of the wrong type, a key in another case.
	got = nil
	for _, input := range []map[string]any{{"env": 7}, {"env": "prod", "Replicas": 2}} {
		_, err = tl.RunRawMultipart(context.Background(), input)
		assert.ErrorContains(t, err, "data did not match expected schema")
	}
	assert.Nil(t, got)
}

// TestResumeInvalid resumes what is not an interrupt of the tool, and
// restarts the tool with resumed metadata Resume did not write.
func TestResumeInvalid(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	tl := deployTool(t, &runs, asked, true)
	call := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "c", Input: map[string]any{"env": "prod"}})
	other := ai.NewToolRequestPart(&ai.ToolRequest{Name: "other", Ref: "c"})
	other.Metadata = map[string]any{"interrupt": map[string]any{"id": "a", "kind": "approval", "prompt": "A?"}}
	noPrompt := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "c"})
	noPrompt.Metadata = map[string]any{"interrupt": map[string]any{"id": "a", "kind": "approval"}}
	caseKeys := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "c"})
	caseKeys.Metadata = map[string]any{"interrupt": map[string]any{"ID": "a", "Kind": "approval", "Prompt": "A?"}}
	badPark := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "c"})
	badPark.Metadata = map[string]any{"interrupt": map[string]any{"id": "a", "kind": "approval", "prompt": "A?", "parked": ""}}
	badUntil := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "c"})
	badUntil.Metadata = map[string]any{"interrupt": map[string]any{"id": "a", "kind": "approval", "prompt": "A?", "parked": "p", "until": "tomorrow"}}
	for name, part := range map[string]*ai.Part{"nil": nil, "not interrupted": call, "another tool's": other, "no prompt": noPrompt, "keys in another case": caseKeys,
		"empty parking": badPark, "until not a time": badUntil} {
		_, err := tl.Resume(part, toolnexus.Answer{ID: "a", OK: true})
		assert.ErrorIs(t, err, toolnexus.ErrInvalidRequest, name)
		_, ok := genkitbridge.Requests(part)
		assert.Equal(t, part == other, ok, name)
	}

	ctx := context.Background()
	withoutInterrupt := `toolnexus: answer does not match request: tool "deploy" was restarted without its interrupt; restart it with Tool.Resume`
	for name, tc := range map[string]struct {
		resumed map[string]any
		want    string
	}{
		"no interrupt": {map[string]any{"answers": []any{map[string]any{"id": "pnd-deploy", "ok": true}}}, withoutInterrupt},
		"a true":       {map[string]any{}, withoutInterrupt},
		"answer elsewhere": {map[string]any{"interrupt": map[string]any{"id": "pnd-deploy", "kind": "approval", "prompt": "Deploy?"}, "answer": map[string]any{"id": "pnd-deploy", "ok": true}},
			`toolnexus: answer does not match request: tool "deploy" was resumed without an answer`},
	} {
		g, model := newGenkit(&fakeModel{})
		interrupted := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "call-1", Input: map[string]any{"env": "prod"}})
		interrupted.Metadata = map[string]any{"interrupt": map[string]any{"id": "pnd-deploy", "kind": "approval", "prompt": "Deploy?"}}
		history := []*ai.Message{ai.NewUserTextMessage("deploy prod"), ai.NewModelMessage(interrupted)}
		restart, err := tl.RestartWith(interrupted, ai.WithResumedMetadata[any](tc.resumed))
		require.NoError(t, err)
		_, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(history...), ai.WithTools(tl), ai.WithToolRestarts(restart))
		assert.ErrorContains(t, err, tc.want, name)
		assert.Equal(t, int32(0), runs.Load(), name)
	}
}

// TestRegisterAction registers a Tool in a genkit instance, where genkit
// finds it by name.
func TestRegisterAction(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	g := genkit.Init(context.Background())
	genkit.RegisterAction(g, deployTool(t, &runs, asked, false))
	found := genkit.LookupTool(g, "deploy")
	require.NotNil(t, found)
	res, err := found.RunRawMultipart(context.Background(), map[string]any{"env": "dev"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"output": "deployed to dev"}, res.Output)
	assertPNG(t, res.Content)
}

// resumeVia answers interrupt with answer on tl, as a host does: "restart"
// restarts it in a fresh genkit generation with history, "answer" runs
// Tool.Answer. It returns the tool response the model reads.
func resumeVia(t *testing.T, how string, tl *genkitbridge.Tool, history []*ai.Message, interrupt *ai.Part, answer toolnexus.Answer) (*ai.ToolResponse, error) {
	t.Helper()
	ctx := context.Background()
	if how == "answer" {
		part, err := tl.Answer(ctx, interrupt, answer)
		if err != nil {
			return nil, err
		}
		return part.ToolResponse, nil
	}
	part, err := tl.Resume(interrupt, answer)
	require.NoError(t, err)
	m := &fakeModel{}
	g, model := newGenkit(m)
	if _, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(history...), ai.WithTools(tl), ai.WithToolRestarts(part)); err != nil {
		return nil, err
	}
	msgs := m.toolMessages()
	require.Len(t, msgs, 1)
	require.Len(t, msgs[0].Content, 1)
	return msgs[0].Content[0].ToolResponse, nil
}

// TestOnce answers one interrupt twice, by a restart and by Answer, on one
// Tool and on two that share a Store as two processes share Redis: the
// tool runs once, and the second gets its result, output and media. A
// Tool marked Repeatable runs it each time.
func TestOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		first, second string
		store         bool // two Tools on one shared Store
		repeatable    bool
		runs          int32
	}{
		{"restart twice", "restart", "restart", false, false, 1},
		{"answer twice", "answer", "answer", false, false, 1},
		{"restart, then answer", "restart", "answer", false, false, 1},
		{"answer, then restart", "answer", "restart", false, false, 1},
		{"restart twice, two processes", "restart", "restart", true, false, 1},
		{"answer twice, two processes", "answer", "answer", true, false, 1},
		{"repeatable", "restart", "answer", false, true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			var r park.Runner
			if tc.store {
				r.Store = park.NewMemoryStore(0, 0)
			}
			if tc.repeatable {
				r.Repeatable = []string{"deploy"}
			}
			// newTool returns the deploy tool of one process.
			newTool := func() *genkitbridge.Tool {
				tl := deployTool(t, &runs, asked, true)
				tl.Park.Store, tl.Park.Repeatable = r.Store, r.Repeatable
				return tl
			}
			one, two := newTool(), newTool()
			if !tc.store {
				two = one
			}
			g, model := newGenkit(&fakeModel{})
			resp, err := genkit.Generate(context.Background(), g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(one))
			require.NoError(t, err)
			interrupt := resp.Interrupts()[0]
			for i, how := range []string{tc.first, tc.second} {
				res, err := resumeVia(t, how, []*genkitbridge.Tool{one, two}[i], resp.History(), interrupt, deployRequest().Resolve(nil))
				require.NoError(t, err, how)
				assert.Equal(t, map[string]any{"output": "deployed to prod"}, res.Output, how)
				assertPNG(t, res.Content)
			}
			assert.Equal(t, tc.runs, runs.Load())
		})
	}
}

// TestOnceWithoutParking answers twice an interrupt that carries no
// parking, as one made by hand or stored before interrupts carried one:
// it is parked under what it waits on, and the tool runs once.
func TestOnceWithoutParking(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	tl := deployTool(t, &runs, asked, true)
	tl.Park.Store = park.NewMemoryStore(0, 0)
	interrupt := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Ref: "call-1", Input: map[string]any{"env": "prod"}})
	var meta map[string]any
	b, err := json.Marshal(deployRequest())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &meta))
	interrupt.Metadata = map[string]any{"interrupt": meta}
	for range 2 {
		part, err := tl.Answer(context.Background(), interrupt, deployRequest().Resolve(nil))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"output": "deployed to prod"}, part.ToolResponse.Output)
	}
	assert.Equal(t, int32(1), runs.Load())
}

// TestOnceRunning answers an interrupt again, by Answer and by a restart,
// on a second Tool sharing the first's Store, while the first answer's run
// is still going: each is told the call still runs, and the tool does not
// run again; once the run is done, an answer gets its result.
func TestOnceRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	store := park.NewMemoryStore(0, 0)
	newTool := func() *genkitbridge.Tool {
		tl, err := genkitbridge.New("deploy", "Deploys", nil, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
			if _, ok := answers.Get("pnd-deploy"); !ok {
				return toolnexus.Pending(deployRequest())
			}
			runs.Add(1)
			close(started)
			<-release
			return toolnexus.Ok("deployed to prod")
		})
		require.NoError(t, err)
		tl.Park = park.Runner{Time: func() time.Time { return asked }, Store: store}
		return tl
	}
	one, two := newTool(), newTool()
	g, model := newGenkit(&fakeModel{})
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(one))
	require.NoError(t, err)
	interrupt := resp.Interrupts()[0]
	yes := deployRequest().Resolve(nil)

	done := make(chan *ai.Part)
	go func() {
		part, err := one.Answer(ctx, interrupt, yes)
		assert.NoError(t, err)
		done <- part
	}()
	<-started
	_, err = two.Answer(ctx, interrupt, yes)
	require.ErrorIs(t, err, park.ErrRunning)
	assert.EqualError(t, err, `toolnexus: the call is still running: retry later: call of "deploy"`)
	_, err = resumeVia(t, "restart", two, resp.History(), interrupt, yes)
	require.Error(t, err)
	// genkit writes the tool's error with %v: its text survives.
	assert.Contains(t, err.Error(), park.ErrRunning.Error())
	close(release)
	first := <-done
	assert.Equal(t, map[string]any{"output": "deployed to prod"}, first.ToolResponse.Output)

	again, err := two.Answer(ctx, interrupt, yes)
	require.NoError(t, err)
	assert.Equal(t, first.ToolResponse, again.ToolResponse)
	assert.Equal(t, int32(1), runs.Load())
}

// TestProgress streams a generation whose tool reports progress: the
// stream gets each report the Runner hands on as a partial tool response
// of the call, and Park.Progress gets them too. A restarted tool's reports
// reach Park.Progress alone: genkit v1.12.0 gives a restarted tool no
// stream (ai/generate.go, handleResumedToolRequest).
func TestProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tl, err := genkitbridge.New("deploy", "Deploys", nil, func(ctx context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		toolnexus.ReportProgress(ctx, 1, 3, "built")
		toolnexus.ReportProgress(ctx, 2, 3, "") // held back: within ProgressInterval, and completion follows
		toolnexus.ReportProgress(ctx, 3, 3, "deployed")
		toolnexus.ReportProgress(ctx, 4, 0, "") // held back, then sent as the run ends
		if len(answers) == 0 {
			return toolnexus.Pending(deployRequest())
		}
		return toolnexus.Ok("deployed to prod")
	})
	require.NoError(t, err)
	var mu sync.Mutex
	var host []string
	tl.Park = park.Runner{
		Time: func() time.Time { return asked },
		Progress: func(tool, _ string, done, total float64, message string) {
			mu.Lock()
			defer mu.Unlock()
			host = append(host, fmt.Sprintf("%s %v/%v %s", tool, done, total, message))
		},
	}
	var streamed []*ai.Part
	stream := ai.WithStreaming(func(_ context.Context, chunk *ai.ModelResponseChunk) error {
		for _, p := range chunk.Content {
			if p.IsPartial() {
				streamed = append(streamed, p)
			}
		}
		return nil
	})
	g, model := newGenkit(&fakeModel{})
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl), stream)
	require.NoError(t, err)
	require.Len(t, streamed, 3)
	for _, p := range streamed {
		assert.Equal(t, "deploy", p.ToolResponse.Name)
		assert.Equal(t, "call-1", p.ToolResponse.Ref)
	}
	assert.Equal(t, []any{
		map[string]any{"progress": 1.0, "total": 3.0, "message": "built"},
		map[string]any{"progress": 3.0, "total": 3.0, "message": "deployed"},
		map[string]any{"progress": 4.0},
	}, []any{streamed[0].ToolResponse.Output, streamed[1].ToolResponse.Output, streamed[2].ToolResponse.Output})
	reports := []string{"deploy 1/3 built", "deploy 3/3 deployed", "deploy 4/0 "}
	assert.Equal(t, reports, host)

	streamed, host = nil, nil
	part, err := tl.Resume(resp.Interrupts()[0], deployRequest().Resolve(nil))
	require.NoError(t, err)
	resp, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...), ai.WithTools(tl), ai.WithToolRestarts(part), stream)
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Text())
	assert.Empty(t, streamed)
	assert.Equal(t, reports, host)
}
