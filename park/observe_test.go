package park_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// progressed is one report of progress as a listener got it.
type progressed struct {
	Tool, CallID string
	Done, Total  float64
	Message      string
}

// TestProgress checks that what a tool reports reaches the carrier's
// listener and the host's, rate-limited by the Runner's clock, with every
// report of completion.
func TestProgress(t *testing.T) {
	t.Parallel()
	var (
		mu         sync.Mutex
		now        = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		fromCall   []progressed
		fromRunner []progressed
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := park.Runner{Time: clock, Progress: func(tool, callID string, done, total float64, message string) {
		fromRunner = append(fromRunner, progressed{tool, callID, done, total, message})
	}}
	tool := func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		for i := range 1000 { // a tight loop: one report passes, and the last
			toolnexus.ReportProgress(ctx, float64(i), 1000, "copying")
		}
		mu.Lock()
		now = now.Add(park.ProgressInterval)
		mu.Unlock()
		toolnexus.ReportProgress(ctx, 999, 1000, "almost")
		toolnexus.ReportProgress(ctx, 1000, 1000, "done")
		toolnexus.ReportProgress(ctx, 1000, 1000, "done, twice")
		toolnexus.ReportProgress(ctx, 1, 3, "cleaning up")      // held back, then dropped for the next
		toolnexus.ReportProgress(ctx, 2, 3, "cleaning up more") // held back, then handed on as the tool returns
		return toolnexus.Ok("copied")
	}
	res, err := r.Exec(context.Background(), park.Call{ID: "call_1", Tool: "copy", Progress: func(done, total float64, message string) {
		fromCall = append(fromCall, progressed{Done: done, Total: total, Message: message})
	}}, tool)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("copied"), res)
	assert.Equal(t, []progressed{
		{Done: 0, Total: 1000, Message: "copying"},
		{Done: 999, Total: 1000, Message: "almost"},
		{Done: 1000, Total: 1000, Message: "done"},
		{Done: 1000, Total: 1000, Message: "done, twice"},
		{Done: 2, Total: 3, Message: "cleaning up more"},
	}, fromCall)
	require.Len(t, fromRunner, 5)
	assert.Equal(t, progressed{"copy", "call_1", 0, 1000, "copying"}, fromRunner[0])
	assert.Equal(t, progressed{"copy", "call_1", 1000, 1000, "done"}, fromRunner[2])
}

// TestProgressWithoutListener runs a tool that reports progress with no
// listener at all: nothing happens, and the tool runs as ever.
func TestProgressWithoutListener(t *testing.T) {
	t.Parallel()
	tool := func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		toolnexus.ReportProgress(ctx, 1, 2, "half")
		return toolnexus.Ok("ran")
	}
	res, err := park.Runner{}.Exec(context.Background(), park.Call{Tool: "t"}, tool)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("ran"), res)
}

// recorder is an Observer that records what it is told.
type recorder struct {
	mu     sync.Mutex
	runs   []string
	events []park.Event
}

func (o *recorder) Run(ctx context.Context, c park.Call) (context.Context, func(toolnexus.ToolResult, error)) {
	return ctx, func(res toolnexus.ToolResult, panicked error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		outcome := "ok"
		switch {
		case panicked != nil:
			outcome = "panic"
		case res.IsPending():
			outcome = "parked"
		case res.IsError:
			outcome = "error"
		}
		o.runs = append(o.runs, c.Tool+" "+outcome)
	}
}

func (o *recorder) Event(_ context.Context, e park.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

// TestObserver follows a parked call through a Turn: parked, answered
// after the time it waited, replayed, and a mismatch refused.
func TestObserver(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	obs := &recorder{}
	r := park.Runner{Time: clock, Observer: obs, Store: park.NewMemoryStore(0, 0)}
	tools := map[string]toolnexus.Tool{"deploy": func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		if len(as) == 0 {
			return toolnexus.PendingAll(
				toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
				toolnexus.Request{ID: "note", Kind: toolnexus.KindInput, Prompt: "Why?"})
		}
		return toolnexus.Ok("deployed")
	}}
	ctx := context.Background()
	parked, err := r.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call_1", Name: "deploy"})
	require.NoError(t, err)
	mu.Lock()
	now = now.Add(42 * time.Second)
	mu.Unlock()
	a := toolnexus.Answer{ID: "approve", OK: true}
	_, err = r.Resume(ctx, tools, parked, a)
	require.NoError(t, err)
	_, err = r.Resume(ctx, tools, parked, a)
	require.NoError(t, err)
	_, err = r.Resume(ctx, tools, parked, toolnexus.Answer{ID: "nobody", OK: true})
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)

	id := parked.Calls[0].Parked
	assert.Equal(t, []string{"deploy parked", "deploy ok"}, obs.runs)
	assert.Equal(t, []park.Event{
		{Kind: "parked", Tool: "deploy", CallID: "call_1", Park: id, Kinds: []string{"approval", "input"}},
		{Kind: "answered", Tool: "deploy", CallID: "call_1", Park: id, Waited: 42 * time.Second},
		{Kind: "replayed", Tool: "deploy", CallID: "call_1", Park: id, Waited: 42 * time.Second},
		{Kind: "refused", Reason: "mismatch"},
	}, obs.events)
}

// TestLimitProgress checks the rule a carrier applies to progress it gets
// from elsewhere: the same as for a tool's own, on the Runner's clock.
func TestLimitProgress(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	var got []progressed
	r := park.Runner{Time: func() time.Time { return now }}
	report, flush := r.LimitProgress(func(done, total float64, message string) {
		got = append(got, progressed{Done: done, Total: total, Message: message})
	})
	report(1, 10, "one")
	report(2, 10, "two")   // held back
	report(3, 10, "three") // held back, in place of two
	now = now.Add(park.ProgressInterval)
	report(4, 10, "four")
	report(5, 0, "five") // held back: no total, no completion
	report(10, 10, "ten")
	flush()
	flush()
	assert.Equal(t, []progressed{
		{Done: 1, Total: 10, Message: "one"},
		{Done: 4, Total: 10, Message: "four"},
		{Done: 10, Total: 10, Message: "ten"},
	}, got, "completion drops the report held back before it, and flush has nothing to hand on")

	report(11, 20, "eleven")
	require.Len(t, got, 3, "within the interval of ten, eleven is held back")
	flush()
	assert.Equal(t, progressed{Done: 11, Total: 20, Message: "eleven"}, got[3], "and handed on by flush")

	report, flush = r.LimitProgress(nil)
	assert.Nil(t, report)
	flush()
}

// TestNewPark checks a parking id a carrier mints with Runner.NewPark: 22
// characters, one of its own each time, and made on the Runner's clock,
// which the time an answer waited is read from.
func TestNewPark(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	obs := &recorder{}
	r := park.Runner{Time: func() time.Time { return now }, Observer: obs, Store: park.NewMemoryStore(0, 0)}
	id := r.NewPark()
	assert.Len(t, id, 22)
	assert.NotEqual(t, id, r.NewPark())
	now = now.Add(5 * time.Minute)
	_, err := r.Run(context.Background(), park.Call{Tool: "t", Park: id, Answers: toolnexus.Answers{{ID: "a", OK: true}}, Until: now.Add(time.Hour)},
		func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			return toolnexus.Ok("ran")
		})
	require.NoError(t, err)
	require.Len(t, obs.events, 1)
	assert.Equal(t, park.EventAnswered, obs.events[0].Kind)
	assert.Equal(t, 5*time.Minute, obs.events[0].Waited, "from when the Runner's clock made the id")
}

// TestDefaultMemoryBounds pins the numbers the docs of DefaultMemoryClaims
// and DefaultMemoryBytes give.
func TestDefaultMemoryBounds(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1<<20, park.DefaultMemoryClaims)
	assert.Equal(t, 256<<20, park.DefaultMemoryBytes)
	assert.Equal(t, 10000, toolnexus.MaxDataDepth)
}
