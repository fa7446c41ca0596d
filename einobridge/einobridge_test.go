package einobridge_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/park"
)

// asked is the time at which the deploy tool asks; its request expires an
// hour later.
var asked = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// store is a checkpoint store that keeps copies of the bytes it is given,
// as a database would.
type store struct {
	mu   sync.Mutex
	data map[string][]byte
	sets int
}

func newStore() *store { return &store{data: map[string][]byte{}} }

func (s *store) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.data[id]
	return slices.Clone(b), ok, nil
}

func (s *store) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[id] = slices.Clone(b)
	s.sets++
	return nil
}

// saved returns the bytes s holds under id and how many times it was set.
func (s *store) saved(id string) ([]byte, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.data[id]), s.sets
}

// deployRequest is what the deploy tool asks.
func deployRequest() toolnexus.Request {
	return toolnexus.Request{
		ID: "pnd-deploy", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?",
		Data: map[string]any{"choices": []any{"yes", "no"}, "target": map[string]any{"env": "prod", "replicas": 3.0}},
	}.WithExpiry(asked.Add(time.Hour))
}

// fixture returns the fixture PNG as a part.
func fixture(t *testing.T) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromFile("testdata/fixture.png")
	require.NoError(t, err)
	return p
}

// deployTool returns the deploy tool, which asks for an approval, then
// deploys and returns the fixture PNG; runs counts the runs that deployed.
func deployTool(t *testing.T, runs *atomic.Int32, at time.Time) *einobridge.Tool {
	t.Helper()
	png := fixture(t)
	type in struct {
		Env string `json:"env"`
	}
	tl, err := einobridge.Infer("deploy", "Deploys the service", func(_ context.Context, in in, answers toolnexus.Answers) toolnexus.ToolResult {
		a, ok := answers.Get("pnd-deploy")
		if !ok {
			return toolnexus.Pending(deployRequest())
		}
		if !a.OK {
			return toolnexus.Error("deploy to " + in.Env + " " + a.Reason)
		}
		runs.Add(1)
		return toolnexus.Ok("deployed to "+in.Env, png)
	})
	require.NoError(t, err)
	tl.Park = park.Runner{Time: func() time.Time { return at }, Logger: slog.New(slog.DiscardHandler)}
	return tl
}

// newRunner returns an adk runner of an agent with m and tl on st.
func newRunner(t *testing.T, st *store, m *scriptedModel, tl tool.BaseTool) *adk.Runner {
	t.Helper()
	agent, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "ops", Description: "runs deploys", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{tl}}},
	})
	require.NoError(t, err)
	return adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: agent, CheckPointStore: st})
}

// drain returns the events of iter: the interrupt, if one came, the last
// message's text and the error of the run.
func drain(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) (interrupt *adk.InterruptInfo, text string, err error) {
	t.Helper()
	for {
		ev, ok := iter.Next()
		if !ok {
			return interrupt, text, err
		}
		if ev.Err != nil {
			err = ev.Err
			continue
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			interrupt = ev.Action.Interrupted
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			msg, gerr := ev.Output.MessageOutput.GetMessage()
			require.NoError(t, gerr)
			text = msg.Content
		}
	}
}

// firstRun runs an adk runner over st whose deploy tool suspends, with the
// checkpoint ID id, and returns its interrupt and what it waits on.
func firstRun(t *testing.T, st *store, runs *atomic.Int32, id string) (*adk.InterruptInfo, []einobridge.Wait) {
	t.Helper()
	first := newRunner(t, st, &scriptedModel{}, deployTool(t, runs, asked))
	interrupt, _, err := drain(t, first.Query(context.Background(), "deploy prod", adk.WithCheckPointID(id)))
	require.NoError(t, err)
	require.NotNil(t, interrupt)
	waits := einobridge.Waiting(interrupt.InterruptContexts)
	require.Len(t, waits, 1)
	assert.Equal(t, deployRequest(), waits[0].Request)
	return interrupt, waits
}

// TestRunnerResume runs an adk runner whose tool suspends, then resumes the
// interrupt on a fresh runner over the same store: refused for a wrong
// answer and a late one, run once for the right one, after which the model
// has the fixture PNG as an image.
func TestRunnerResume(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	var runs atomic.Int32

	interrupt, waits := firstRun(t, st, &runs, "chk-1")
	assert.Equal(t, deployRequest(), interrupt.InterruptContexts[0].Info)
	assert.Equal(t, "deploy", waits[0].Tool)
	assert.Equal(t, "call-1", waits[0].CallID)
	assert.Equal(t, int32(0), runs.Load())
	saved, sets := st.saved("chk-1")
	require.NotEmpty(t, saved)

	// What the host stores until the answer comes, read back elsewhere.
	stored, err := json.Marshal(waits[0])
	require.NoError(t, err)
	var wait einobridge.Wait
	require.NoError(t, json.Unmarshal(stored, &wait))
	req := wait.Request

	resume := func(at time.Time, data any) (*adk.InterruptInfo, string, error) {
		t.Helper()
		m := &scriptedModel{}
		r := newRunner(t, st, m, deployTool(t, &runs, at))
		iter, err := r.ResumeWithParams(ctx, "chk-1", &adk.ResumeParams{Targets: map[string]any{wait.InterruptID: data}})
		require.NoError(t, err)
		interrupt, text, err := drain(t, iter)
		if text == "done" {
			msgs := m.toolMessages()
			require.Len(t, msgs, 1)
			checkToolMessage(t, msgs[0])
		}
		return interrupt, text, err
	}

	refusals := []struct {
		name string
		at   time.Time
		data any
		want error
	}{
		{"wrong id", asked.Add(time.Minute), toolnexus.Answer{ID: "pnd-other", OK: true}, toolnexus.ErrAnswerMismatch},
		{"late", asked.Add(2 * time.Hour), req.Resolve(nil), toolnexus.ErrExpired},
		{"at expiry", asked.Add(time.Hour), req.Resolve(nil), toolnexus.ErrExpired},
		{"no answer", asked.Add(time.Minute), nil, toolnexus.ErrAnswerMismatch},
		{"not an answer", asked.Add(time.Minute), "yes", toolnexus.ErrAnswerMismatch},
	}
	for _, tc := range refusals {
		interrupt, text, err := resume(tc.at, tc.data)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, tc.want, tc.name)
		assert.Nil(t, interrupt, tc.name)
		assert.Empty(t, text, tc.name)
		assert.Equal(t, int32(0), runs.Load(), tc.name)
		after, n := st.saved("chk-1")
		assert.Equal(t, saved, after, "%s: the checkpoint stays as it was", tc.name)
		assert.Equal(t, sets, n, tc.name)
	}

	interrupt, text, err := resume(asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Nil(t, interrupt)
	assert.Equal(t, "done", text)
	assert.Equal(t, int32(1), runs.Load())

	// The same checkpoint resumed again, by another runner of the process
	// (whose zero park.Runner shares the process's Store): the model gets
	// the one run's result, fixture PNG and all, and the tool does not run.
	for _, data := range []any{req.Resolve(nil), req.Decline("too late")} {
		interrupt, text, err = resume(asked.Add(2*time.Minute), data)
		require.NoError(t, err)
		assert.Nil(t, interrupt)
		assert.Equal(t, "done", text)
		assert.Equal(t, int32(1), runs.Load(), "a second resume runs nothing")
	}
}

// TestResumeTwiceSharedStore resumes one checkpoint from two runners that
// share a park.Store, as two processes behind one checkpoint store would:
// while the first resume runs the tool, the second fails with
// park.ErrRunning and the checkpoint stays; once the first is done, the
// second gives the model the same result, and the tool ran once. A runner
// whose Store is not shared knows nothing of the run, and runs the tool
// again: the Store is what holds "once" across processes.
func TestResumeTwiceSharedStore(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	claims := park.NewMemoryStore(0, 0)
	var runs atomic.Int32
	started, release := make(chan struct{}, 1), make(chan struct{})
	type in struct {
		Env string `json:"env"`
	}
	newTool := func(store park.Store) *einobridge.Tool {
		tl, err := einobridge.Infer("deploy", "Deploys", func(_ context.Context, in in, answers toolnexus.Answers) toolnexus.ToolResult {
			if _, ok := answers.Get("pnd-deploy"); !ok {
				return toolnexus.Pending(deployRequest())
			}
			if runs.Add(1) == 1 {
				started <- struct{}{}
				<-release
			}
			return toolnexus.Ok("deployed to " + in.Env)
		})
		require.NoError(t, err)
		tl.Park = park.Runner{Time: func() time.Time { return asked.Add(time.Minute) }, Store: store, Logger: slog.New(slog.DiscardHandler)}
		return tl
	}
	// resume resumes the checkpoint with the approval on a runner whose
	// tool claims in store, and returns the model's last text, what the
	// tool said, and the run's error.
	resume := func(store park.Store, id string) (string, string, error) {
		m := &scriptedModel{}
		iter, err := newRunner(t, st, m, newTool(store)).ResumeWithParams(ctx, "chk-shared",
			&adk.ResumeParams{Targets: map[string]any{id: deployRequest().Resolve(nil)}})
		if err != nil {
			return "", "", err
		}
		_, text, err := drain(t, iter)
		if err != nil {
			return "", "", err
		}
		return text, toolText(t, m), nil
	}

	interrupt, _, err := drain(t, newRunner(t, st, &scriptedModel{}, newTool(claims)).Query(ctx, "deploy prod", adk.WithCheckPointID("chk-shared")))
	require.NoError(t, err)
	require.NotNil(t, interrupt)
	id := interrupt.InterruptContexts[0].ID
	saved, _ := st.saved("chk-shared")

	type done struct {
		text, said string
		err        error
	}
	first := make(chan done, 1)
	go func() {
		text, said, err := resume(claims, id)
		first <- done{text, said, err}
	}()
	<-started
	_, _, err = resume(claims, id)
	require.ErrorIs(t, err, park.ErrRunning, "a resume while the first runs")
	assert.Contains(t, err.Error(), `toolnexus: the call is still running: retry later: call of "deploy"`)
	after, _ := st.saved("chk-shared")
	assert.Equal(t, saved, after, "the checkpoint stays, for the retry")
	close(release)
	got := <-first
	require.NoError(t, got.err)
	assert.Equal(t, done{"done", "deployed to prod", nil}, got)
	assert.Equal(t, int32(1), runs.Load())

	text, said, err := resume(claims, id)
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, "deployed to prod", said, "the one run's result")
	assert.Equal(t, int32(1), runs.Load(), "a retry runs nothing")

	_, said, err = resume(park.NewMemoryStore(0, 0), id)
	require.NoError(t, err)
	assert.Equal(t, "deployed to prod", said)
	assert.Equal(t, int32(2), runs.Load(), "a Store not shared does not hold once")
}

// TestProgress runs a tool that reports its progress in a compose graph
// whose ToolsNode streams (Graph.Stream): the reports reach Park's
// Progress with the call's ID, rate-limited by the Runner (one report held
// back, completion always handed on), and the model's tool message holds
// the result alone.
func TestProgress(t *testing.T) {
	t.Parallel()
	type report struct {
		Tool, CallID string
		Done, Total  float64
		Message      string
	}
	var mu sync.Mutex
	var got []report
	tl, err := einobridge.New("build", "Builds", nil, func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		toolnexus.ReportProgress(ctx, 1, 3, "compiling")
		toolnexus.ReportProgress(ctx, 2, 3, "linking")
		toolnexus.ReportProgress(ctx, 3, 3, "built")
		return toolnexus.Ok("build 42 is ready")
	})
	require.NoError(t, err)
	tl.Park = park.Runner{Time: func() time.Time { return asked }, Progress: func(tool, callID string, done, total float64, message string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, report{tool, callID, done, total, message})
	}}

	sr, err := newToolsGraph(t, newStore(), tl).Stream(context.Background(), call("build", "{}"), compose.WithCheckPointID("progress"))
	require.NoError(t, err)
	var chunks [][]*schema.Message
	for {
		msgs, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		chunks = append(chunks, msgs)
	}
	require.Len(t, chunks, 1, "one chunk: the result")
	require.Len(t, chunks[0], 1)
	assert.Equal(t, []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "build 42 is ready"}}, chunks[0][0].UserInputMultiContent)
	assert.Equal(t, []report{
		{"build", "call-1", 1, 3, "compiling"},
		{"build", "call-1", 3, 3, "built"},
	}, got)
}

// checkToolMessage checks that msg, the tool message a model was given,
// holds the deploy tool's text and the fixture PNG as an image.
func checkToolMessage(t *testing.T, msg *schema.Message) {
	t.Helper()
	png, err := os.ReadFile("testdata/fixture.png")
	require.NoError(t, err)
	b64 := base64.StdEncoding.EncodeToString(png)
	assert.Equal(t, "call-1", msg.ToolCallID)
	assert.Equal(t, []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "deployed to prod"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{Base64Data: &b64, MIMEType: "image/png"},
		}},
	}, msg.UserInputMultiContent)
}

// TestRunnerResumeNotTargeted resumes the checkpoint without targeting the
// interrupt: the tool interrupts again, as it was, and does not run.
func TestRunnerResumeNotTargeted(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	var runs atomic.Int32
	firstRun(t, st, &runs, "chk-2")

	iter, err := newRunner(t, st, &scriptedModel{}, deployTool(t, &runs, asked)).Resume(ctx, "chk-2")
	require.NoError(t, err)
	interrupt, _, err := drain(t, iter)
	require.NoError(t, err)
	require.NotNil(t, interrupt)
	waits := einobridge.Waiting(interrupt.InterruptContexts)
	require.Len(t, waits, 1)
	assert.Equal(t, deployRequest(), waits[0].Request)
	assert.Equal(t, int32(0), runs.Load())
}

// newGraph returns a compiled compose graph, a model and a ToolsNode in a
// loop, over st, with compose's default serializer.
func newGraph(t *testing.T, st *store, m *scriptedModel, tl tool.BaseTool) compose.Runnable[[]*schema.Message, *schema.Message] {
	t.Helper()
	ctx := context.Background()
	tools, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{tl}})
	require.NoError(t, err)
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	require.NoError(t, g.AddChatModelNode("model", m))
	require.NoError(t, g.AddToolsNode("tools", tools))
	require.NoError(t, g.AddEdge(compose.START, "model"))
	require.NoError(t, g.AddBranch("model", compose.NewGraphBranch(func(_ context.Context, msg *schema.Message) (string, error) {
		if len(msg.ToolCalls) > 0 {
			return "tools", nil
		}
		return compose.END, nil
	}, map[string]bool{"tools": true, compose.END: true})))
	require.NoError(t, g.AddEdge("tools", "model"))
	r, err := g.Compile(ctx, compose.WithCheckPointStore(st))
	require.NoError(t, err)
	return r
}

// TestGraphResume is TestRunnerResume on a compose graph, whose
// checkpoints go through compose's own serializer.
func TestGraphResume(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	var runs atomic.Int32
	in := []*schema.Message{schema.UserMessage("deploy prod")}

	_, err := newGraph(t, st, &scriptedModel{}, deployTool(t, &runs, asked)).Invoke(ctx, in, compose.WithCheckPointID("chk-3"))
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	waits := einobridge.Waiting(info.InterruptContexts)
	require.Len(t, waits, 1)
	assert.Equal(t, deployRequest(), waits[0].Request)
	saved, _ := st.saved("chk-3")

	late := compose.ResumeWithData(ctx, waits[0].InterruptID, waits[0].Request.Resolve(nil))
	_, err = newGraph(t, st, &scriptedModel{}, deployTool(t, &runs, asked.Add(2*time.Hour))).Invoke(late, in, compose.WithCheckPointID("chk-3"))
	assert.ErrorIs(t, err, toolnexus.ErrExpired)
	_, interrupted := compose.ExtractInterruptInfo(err)
	assert.False(t, interrupted)
	assert.Equal(t, int32(0), runs.Load())
	after, _ := st.saved("chk-3")
	assert.Equal(t, saved, after)

	m := &scriptedModel{}
	answered := compose.ResumeWithData(ctx, waits[0].InterruptID, waits[0].Request.Resolve(nil))
	out, err := newGraph(t, st, m, deployTool(t, &runs, asked.Add(time.Minute))).Invoke(answered, in, compose.WithCheckPointID("chk-3"))
	require.NoError(t, err)
	assert.Equal(t, "done", out.Content)
	assert.Equal(t, int32(1), runs.Load())
	msgs := m.toolMessages()
	require.Len(t, msgs, 1)
	checkToolMessage(t, msgs[0])
}

// newToolsGraph returns a compiled compose graph of a ToolsNode alone over
// st: it takes the model's message and returns the tool messages.
func newToolsGraph(t *testing.T, st *store, tl tool.BaseTool) compose.Runnable[*schema.Message, []*schema.Message] {
	t.Helper()
	ctx := context.Background()
	tools, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{tl}})
	require.NoError(t, err)
	g := compose.NewGraph[*schema.Message, []*schema.Message]()
	require.NoError(t, g.AddToolsNode("tools", tools))
	require.NoError(t, g.AddEdge(compose.START, "tools"))
	require.NoError(t, g.AddEdge("tools", compose.END))
	r, err := g.Compile(ctx, compose.WithCheckPointStore(st))
	require.NoError(t, err)
	return r
}

// call is a model's message calling the tool name with args.
func call(name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "call-1", Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}})
}

// TestPanic runs a tool that panics in an eino graph: the run goes on, the
// model's tool message is an error result that names the tool and not the
// panic, and the logger gets the panic and its stack.
func TestPanic(t *testing.T) {
	t.Parallel()
	tl, err := einobridge.New("deploy", "Deploys", nil, func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		panic(bridgetest.Secret)
	})
	require.NoError(t, err)
	var log bytes.Buffer
	tl.Park.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	out, err := newToolsGraph(t, newStore(), tl).Invoke(context.Background(), call("deploy", "{}"), compose.WithCheckPointID("panic"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, "call-1", out[0].ToolCallID)
	assert.Equal(t, []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: `Error: toolnexus: tool panicked: "deploy"`}}, out[0].UserInputMultiContent)

	require.NoError(t, bridgetest.PanicLogged(log.Bytes(), "deploy", "einobridge_test.TestPanic"))
}

// TestPendingAll asks two requests at once: the interrupt's info lists
// both, an answer to one runs the tool again, which asks the other, and the
// second answer finishes it, the tool having seen both answers.
func TestPendingAll(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	approve := toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}
	region := toolnexus.Request{ID: "region", Kind: toolnexus.KindQuestion, Prompt: "Which region?"}
	var seen []toolnexus.Answers
	tl, err := einobridge.New("deploy", "Deploys", nil, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		seen = append(seen, answers)
		var missing []toolnexus.Request
		for _, r := range []toolnexus.Request{approve, region} {
			if _, ok := answers.Get(r.ID); !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			return toolnexus.PendingAll(missing...)
		}
		where, _ := answers.Get("region")
		return toolnexus.Ok("deployed to " + where.Data["answer"].(string))
	})
	require.NoError(t, err)
	tl.Park.Expiry = -1 // the requests as asked, without an ExpiresAt
	in := call("deploy", "{}")

	_, err = newToolsGraph(t, st, tl).Invoke(ctx, in, compose.WithCheckPointID("all"))
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	require.Len(t, info.InterruptContexts, 1)
	assert.Equal(t, []toolnexus.Request{approve, region}, info.InterruptContexts[0].Info)
	waits := einobridge.Waiting(info.InterruptContexts)
	require.Len(t, waits, 2)
	id := waits[0].InterruptID
	assert.Equal(t, id, waits[1].InterruptID)
	assert.Equal(t, []toolnexus.Request{approve, region}, []toolnexus.Request{waits[0].Request, waits[1].Request})

	yes := approve.Resolve(nil)
	_, err = newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, id, yes), in, compose.WithCheckPointID("all"))
	info, ok = compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	waits = einobridge.Waiting(info.InterruptContexts)
	require.Len(t, waits, 1)
	assert.Equal(t, region, waits[0].Request)

	eu := region.Resolve(map[string]any{"answer": "eu"})
	out, err := newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, waits[0].InterruptID, eu), in, compose.WithCheckPointID("all"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "deployed to eu"}}, out[0].UserInputMultiContent)
	assert.Equal(t, []toolnexus.Answers{nil, {yes}, {yes, eu}}, seen)
}

// TestAnswersAtOnce resumes an interrupt on two requests with both answers
// in one toolnexus.Answers: the tool runs once more and finishes.
func TestAnswersAtOnce(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	a := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}
	b := toolnexus.Request{ID: "b", Kind: toolnexus.KindApproval, Prompt: "B?"}
	var runs int
	tl, err := einobridge.New("both", "", nil, func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs++
		if len(answers) < 2 {
			return toolnexus.PendingAll(a, b)
		}
		return toolnexus.Ok("both granted")
	})
	require.NoError(t, err)
	in := call("both", "")
	_, err = newToolsGraph(t, st, tl).Invoke(ctx, in, compose.WithCheckPointID("ab"))
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	id := info.InterruptContexts[0].ID

	answers := toolnexus.Answers{a.Resolve(nil), b.Resolve(nil)}
	out, err := newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, id, answers), in, compose.WithCheckPointID("ab"))
	require.NoError(t, err)
	assert.Equal(t, "both granted", out[0].UserInputMultiContent[0].Text)
	assert.Equal(t, 2, runs)

	// One answer of the two names no request of the interrupt: refused.
	_, err = newToolsGraph(t, st, tl).Invoke(ctx, in, compose.WithCheckPointID("ab2"))
	info, _ = compose.ExtractInterruptInfo(err)
	bad := toolnexus.Answers{a.Resolve(nil), {ID: "c", OK: true}}
	_, err = newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, info.InterruptContexts[0].ID, bad), in, compose.WithCheckPointID("ab2"))
	assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	assert.ErrorContains(t, err, `toolnexus: answer does not match request: tool "both" waits on request "a", "b", not on "c"`)
	assert.Equal(t, 3, runs)
}

func TestNewInvalid(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("")
	}
	_, err := einobridge.New("", "", nil, ok)
	assert.ErrorIs(t, err, einobridge.ErrInvalidTool)
	assert.EqualError(t, err, "toolnexus: invalid eino tool: the tool has no name")
	_, err = einobridge.New("x", "", nil, nil)
	assert.EqualError(t, err, `toolnexus: invalid eino tool: tool "x" has no function`)
	_, err = einobridge.Infer[struct{}]("x", "", nil)
	assert.ErrorIs(t, err, einobridge.ErrInvalidTool)
	_, err = einobridge.Infer("", "", func(context.Context, struct{}, toolnexus.Answers) toolnexus.ToolResult { return toolnexus.Ok("") })
	assert.ErrorIs(t, err, einobridge.ErrInvalidTool)
}

func TestInfer(t *testing.T) {
	t.Parallel()
	type in struct {
		Env      string `json:"env" jsonschema:"description=where to deploy"`
		Replicas int    `json:"replicas,omitempty"`
	}
	var got []in
	tl, err := einobridge.Infer("deploy", "Deploys", func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
		got = append(got, v)
		return toolnexus.Ok("ok")
	})
	require.NoError(t, err)
	info, err := tl.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "deploy", info.Name)
	assert.Equal(t, "Deploys", info.Desc)
	js, err := info.ToJSONSchema()
	require.NoError(t, err)
	b, err := json.Marshal(js)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"properties":{"env":{"type":"string","description":"where to deploy"},"replicas":{"type":"integer"}},"required":["env"]}`, string(b))

	tests := []struct {
		name, args string
		want       string // what the model reads
		ran        []in
	}{
		{"exact keys", `{"env":"prod","replicas":2}`, "ok", []in{{Env: "prod", Replicas: 2}}},
		{"a key in another case is refused", `{"ENV":"prod","Replicas":2}`, `Error: toolnexus: arguments of "deploy" are not what the tool takes: unknown key "ENV": keys are matched exactly, did you mean "env"? (it takes "env", "replicas")`, nil},
		{"empty arguments are {}", ``, "ok", []in{{}}},
		{"not JSON", `{"env":`, `Error: toolnexus: arguments of "deploy" are not JSON: unexpected end of JSON input`, nil},
		{"not an object", `["prod"]`, `Error: toolnexus: arguments of "deploy" are not a JSON object but an array`, nil},
		{"wrong type", `{"env":7}`, "Error: toolnexus: arguments of \"deploy\" are not what the tool takes: json: cannot unmarshal number into Go struct field in.env of type string", nil},
		{"names one when case is folded", `{"env":"staging","Env":"prod"}`, `Error: toolnexus: arguments of "deploy" are ambiguous: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`, nil},
		{"a name twice", `{"env":"staging","env":"prod"}`, `Error: toolnexus: arguments of "deploy" are ambiguous: duplicate JSON key: key "env" appears twice in the top-level object`, nil},
	}
	for _, tc := range tests {
		got = nil
		res, err := tl.InvokableRun(context.Background(), &schema.ToolArgument{Text: tc.args})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, res.Parts[0].Text, tc.name)
		assert.Equal(t, tc.ran, got, tc.name)
	}
}

// TestInvalidSuspension returns a suspension whose request has no prompt:
// the model reads an error result saying so, and nothing is parked.
func TestInvalidSuspension(t *testing.T) {
	t.Parallel()
	st := newStore()
	tl, err := einobridge.New("bad", "", nil, func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: "p", Kind: toolnexus.KindInput})
	})
	require.NoError(t, err)
	tl.Park.Logger = slog.New(slog.DiscardHandler)
	out, err := newToolsGraph(t, st, tl).Invoke(context.Background(), call("bad", "{}"), compose.WithCheckPointID("bad"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	text := out[0].UserInputMultiContent[0].Text
	assert.True(t, strings.HasPrefix(text, `Error: toolnexus: tool "bad" returned an invalid result: `), text)
	_, sets := st.saved("bad")
	assert.Zero(t, sets)
}

// TestTwoCalls suspends two calls of one model message: resuming one runs
// that call only, the other interrupts again as it was, and resuming it
// finishes the message.
func TestTwoCalls(t *testing.T) {
	ctx := context.Background()
	st := newStore()
	var mu sync.Mutex
	ran := map[string]int{}
	tl, err := einobridge.Infer("deploy", "", func(_ context.Context, in struct {
		Env string `json:"env"`
	}, answers toolnexus.Answers) toolnexus.ToolResult {
		if len(answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		}
		mu.Lock()
		ran[in.Env]++
		mu.Unlock()
		return toolnexus.Ok("deployed to " + in.Env)
	})
	require.NoError(t, err)
	in := schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c-prod", Function: schema.FunctionCall{Name: "deploy", Arguments: `{"env":"prod"}`}},
		{ID: "c-dev", Function: schema.FunctionCall{Name: "deploy", Arguments: `{"env":"dev"}`}},
	})
	_, err = newToolsGraph(t, st, tl).Invoke(ctx, in, compose.WithCheckPointID("two"))
	info, ok := compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	waits := einobridge.Waiting(info.InterruptContexts)
	require.Len(t, waits, 2)
	byCall := map[string]einobridge.Wait{}
	for _, w := range waits {
		byCall[w.CallID] = w
	}
	require.Contains(t, byCall, "c-prod")
	require.Contains(t, byCall, "c-dev")
	assert.Equal(t, "Deploy to prod?", byCall["c-prod"].Request.Prompt)
	assert.NotEqual(t, byCall["c-prod"].InterruptID, byCall["c-dev"].InterruptID)

	prod := byCall["c-prod"]
	_, err = newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, prod.InterruptID, prod.Request.Resolve(nil)), in, compose.WithCheckPointID("two"))
	info, ok = compose.ExtractInterruptInfo(err)
	require.True(t, ok, "%v", err)
	waits = einobridge.Waiting(info.InterruptContexts)
	require.Len(t, waits, 1)
	assert.Equal(t, byCall["c-dev"].Request, waits[0].Request)
	assert.Equal(t, map[string]int{"prod": 1}, ran)

	dev := waits[0]
	out, err := newToolsGraph(t, st, tl).Invoke(compose.ResumeWithData(ctx, dev.InterruptID, dev.Request.Resolve(nil)), in, compose.WithCheckPointID("two"))
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, "deployed to prod", out[0].UserInputMultiContent[0].Text)
	assert.Equal(t, "deployed to dev", out[1].UserInputMultiContent[0].Text)
	assert.Equal(t, map[string]int{"prod": 1, "dev": 1}, ran)
}

// TestResumeInAnotherProcess stores the checkpoint's bytes and the wait in
// files, and resumes them in another process, this test binary run again:
// nothing of the first process, such as a type registered at run time,
// helps the second.
func TestResumeInAnotherProcess(t *testing.T) {
	ctx := context.Background()
	if dir := os.Getenv("EINOBRIDGE_RESUME_DIR"); dir != "" {
		saved, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "wait.json"))
		require.NoError(t, err)
		var wait einobridge.Wait
		require.NoError(t, json.Unmarshal(b, &wait))
		st := newStore()
		require.NoError(t, st.Set(ctx, "chk", saved))
		var runs atomic.Int32
		m := &scriptedModel{}
		iter, err := newRunner(t, st, m, deployTool(t, &runs, asked.Add(time.Minute))).ResumeWithParams(ctx, "chk",
			&adk.ResumeParams{Targets: map[string]any{wait.InterruptID: wait.Request.Resolve(nil)}})
		require.NoError(t, err)
		_, text, err := drain(t, iter)
		require.NoError(t, err)
		assert.Equal(t, "done", text)
		assert.Equal(t, int32(1), runs.Load())
		msgs := m.toolMessages()
		require.Len(t, msgs, 1)
		checkToolMessage(t, msgs[0])
		return
	}

	st := newStore()
	var runs atomic.Int32
	_, waits := firstRun(t, st, &runs, "chk")
	dir := t.TempDir()
	saved, _ := st.saved("chk")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "checkpoint"), saved, 0o600))
	b, err := json.Marshal(waits[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.json"), b, 0o600))

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestResumeInAnotherProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "EINOBRIDGE_RESUME_DIR="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestResumeInAnotherProcess")
	assert.Equal(t, int32(0), runs.Load())
}
