package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/park"
)

// gateNow is the time the runners of these tests read, unless a test
// moves its own clock.
var gateNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// quiet is a runner whose refusals go nowhere.
var quiet = park.Runner{Logger: slog.New(slog.DiscardHandler)}

// deployIn is the input of the deploy tool of these tests.
type deployIn struct {
	Env string `json:"env"`
	N   int    `json:"n,omitempty"`
}

// echo returns the arguments it was given as its output.
func echo(_ context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
	return toolnexus.Ok(string(args))
}

// refusals records the errors a gate logs.
type refusals struct {
	mu   sync.Mutex
	errs []error
}

func (r *refusals) Enabled(context.Context, slog.Level) bool { return true }
func (r *refusals) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *refusals) WithGroup(string) slog.Handler            { return r }
func (r *refusals) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "err" {
			r.mu.Lock()
			r.errs = append(r.errs, err)
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

// last returns the error logged last, or nil.
func (r *refusals) last() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) == 0 {
		return nil
	}
	return r.errs[len(r.errs)-1]
}

// gated is a deploy tool behind an approval, its runs counted, and the
// Runner that runs it.
type gated struct {
	tool     toolnexus.Tool
	runner   park.Runner
	runs     atomic.Int32
	mu       sync.Mutex
	answers  []toolnexus.Answers // what each run of the inner tool was given
	refusals *refusals
}

// newGated returns a deploy tool that runs once it is approved, gated
// with opts and run by runner (its Time and Logger set when they are not).
func newGated(t *testing.T, runner park.Runner, opts *approval.Options) *gated {
	t.Helper()
	g := &gated{refusals: &refusals{}}
	inner := toolnexus.ToolFor(func(_ context.Context, in deployIn, answers toolnexus.Answers) toolnexus.ToolResult {
		g.runs.Add(1)
		g.mu.Lock()
		g.answers = append(g.answers, answers)
		g.mu.Unlock()
		return toolnexus.Ok("deployed to " + in.Env)
	})
	if runner.Time == nil {
		runner.Time = func() time.Time { return gateNow }
	}
	if runner.Logger == nil {
		runner.Logger = slog.New(g.refusals)
	}
	tool, err := approval.Gate(inner, approval.Require("Deploy?"), opts)
	require.NoError(t, err)
	g.tool, g.runner = tool, runner
	return g
}

// exec runs the gated tool once with args and answers, as a carrier runs
// it: through its Runner.
func (g *gated) exec(args string, answers ...toolnexus.Answer) toolnexus.ToolResult {
	return execTool(g.runner, g.tool, args, answers...)
}

// direct runs the gated tool in its Runner's context with args as they
// are, unchecked, as a carrier that hands a tool what it was sent would.
func (g *gated) direct(args string, answers ...toolnexus.Answer) toolnexus.ToolResult {
	res, _ := g.runner.Exec(context.Background(), park.Call{Tool: "deploy"}, func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		return g.tool(ctx, json.RawMessage(args), answers)
	})
	return res
}

// execTool runs tool once with args and answers through r.
func execTool(r park.Runner, tool toolnexus.Tool, args string, answers ...toolnexus.Answer) toolnexus.ToolResult {
	var as toolnexus.Answers
	if len(answers) > 0 {
		as = answers
	}
	res, _ := r.Exec(context.Background(), park.Call{Tool: "deploy", Arguments: json.RawMessage(args), Answers: as}, tool)
	return res
}

// asked runs g with args and no answer and returns the request it asks.
func (g *gated) asked(t *testing.T, args string) toolnexus.Request {
	t.Helper()
	r := g.exec(args)
	req, ok := toolnexus.PendingOf(r)
	require.True(t, ok, "the first run asks: %v", r)
	require.NoError(t, r.Validate())
	return req
}

// refused asserts that r is the error result of err, which the gate
// logged, matching sentinel.
func (g *gated) refused(t *testing.T, r toolnexus.ToolResult, sentinel error) {
	t.Helper()
	err := g.refusals.last()
	require.Error(t, err)
	assert.ErrorIs(t, err, sentinel)
	assert.Equal(t, toolnexus.Error(err.Error()), r)
	_, pending := toolnexus.PendingOf(r)
	assert.False(t, pending)
}

func TestGateTurn(t *testing.T) {
	t.Parallel()
	g := newGated(t, park.Runner{}, nil)
	tools := map[string]toolnexus.Tool{"deploy": g.tool}
	ctx := context.Background()

	parked, err := g.runner.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call-1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	require.False(t, parked.Complete())
	assert.Zero(t, g.runs.Load(), "nothing runs until approved")
	waits := parked.Waiting()
	require.Len(t, waits, 1)
	req := waits[0].Request
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy?", req.Prompt)
	assert.True(t, strings.HasPrefix(req.ID, "gate-"), req.ID)
	assert.Equal(t, "2026-12-01T09:10:00Z", req.ExpiresAt, "DefaultExpiry from the run that asked")

	done, err := g.runner.Resume(ctx, tools, parked, req.Resolve(nil))
	require.NoError(t, err)
	require.True(t, done.Complete())
	assert.Equal(t, toolnexus.Ok("deployed to prod"), done.Calls[0].Result)
	assert.Equal(t, int32(1), g.runs.Load())
	assert.Equal(t, []toolnexus.Answers{nil}, g.answers, "the tool never sees the approval")

	// The finished turn takes no answer; the parked one, kept by a host,
	// is resumed again with the same approval: it gets the first run's
	// result, and the tool does not run again.
	_, err = g.runner.Resume(ctx, tools, done, req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	replayed, err := g.runner.Resume(ctx, tools, parked, req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, done, replayed)
	// Run outside the turn, the gated tool refuses the used approval.
	g.refused(t, g.exec(`{"env":"prod"}`, req.Resolve(nil)), approval.ErrUsed)
	assert.Equal(t, int32(1), g.runs.Load(), "a replayed approval runs nothing")

	// A stored turn whose arguments were changed after the approval was
	// asked, and whose parking is unknown: the approval is refused for
	// them.
	edited := parked
	edited.Calls = []toolnexus.ToolCall{parked.Calls[0]}
	edited.Calls[0].Arguments = json.RawMessage(`{"env":"staging"}`)
	edited.Calls[0].Parked = "another parking"
	other, err := g.runner.Resume(ctx, tools, edited, req.Resolve(nil))
	require.NoError(t, err)
	g.refused(t, other.Calls[0].Result, approval.ErrMismatch)
	assert.Equal(t, int32(1), g.runs.Load())

	// With the parking it was asked in, the kernel refuses them first.
	edited.Calls[0].Parked = parked.Calls[0].Parked
	_, err = g.runner.Resume(ctx, tools, edited, req.Resolve(nil))
	require.ErrorIs(t, err, park.ErrOtherCall)
	assert.Equal(t, int32(1), g.runs.Load())
}

func TestGateArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, asked, run string
		sentinel         error // nil: the approval runs the tool
	}{
		{"same arguments", `{"env":"prod","n":1}`, `{"env":"prod","n":1}`, nil},
		{"keys in another order, other spacing and escapes", `{"env":"prod","n":1}`, ` { "n" : 1 , "env" : "pr\u006fd" } `, nil},
		{"other keys", `{"env":"prod"}`, `{"region":"prod"}`, approval.ErrMismatch},
		{"the same keys with other values", `{"env":"prod","n":1}`, `{"env":"staging","n":1}`, approval.ErrMismatch},
		{"a number written otherwise", `{"env":"prod","n":1}`, `{"env":"prod","n":1.0}`, approval.ErrMismatch},
		{"one more key", `{"env":"prod"}`, `{"env":"prod","force":true}`, approval.ErrMismatch},
		{"a repeated name", `{"env":"prod"}`, `{"env":"prod","env":"staging"}`, toolnexus.ErrDuplicateKey},
		{"names one when case is folded", `{"env":"prod"}`, `{"env":"prod","Env":"staging"}`, toolnexus.ErrDuplicateKey},
		{"not JSON", `{"env":"prod"}`, `{"env":`, toolnexus.ErrInvalidJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGated(t, park.Runner{}, nil)
			req := g.asked(t, tt.asked)
			switch {
			case tt.sentinel == nil:
				assert.Equal(t, toolnexus.Ok("deployed to prod"), g.exec(tt.run, req.Resolve(nil)))
				assert.Equal(t, int32(1), g.runs.Load())
				return
			case errors.Is(tt.sentinel, toolnexus.ErrDuplicateKey) || errors.Is(tt.sentinel, toolnexus.ErrInvalidJSON):
				// A Runner refuses such arguments before the gate runs;
				// the gate refuses them too, handed them as they are.
				r := g.exec(tt.run, req.Resolve(nil))
				assert.True(t, r.IsError)
				assert.True(t, strings.HasPrefix(r.Output, `toolnexus: arguments of "deploy" are `), r.Output)
				assert.Nil(t, g.refusals.last())
				g.refused(t, g.direct(tt.run, req.Resolve(nil)), tt.sentinel)
			default:
				g.refused(t, g.exec(tt.run, req.Resolve(nil)), tt.sentinel)
			}
			assert.Zero(t, g.runs.Load())
		})
	}
}

func TestGateEmptyArguments(t *testing.T) {
	t.Parallel()
	tool, err := approval.Gate(echo, approval.Require("Go?"), nil)
	require.NoError(t, err)
	for _, asked := range []string{``, `null`, ` {} `} {
		req, ok := toolnexus.PendingOf(execTool(quiet, tool, asked))
		require.True(t, ok)
		assert.Equal(t, toolnexus.Ok(`{}`), execTool(quiet, tool, `{}`, req.Resolve(nil)), "%q and {} are one call", asked)
	}
}

func TestGateDuplicateNamesNeverAsk(t *testing.T) {
	t.Parallel()
	g := newGated(t, park.Runner{}, nil)
	r := g.direct(`{"env":"prod","ENV":"staging"}`)
	g.refused(t, r, toolnexus.ErrDuplicateKey)
	assert.Equal(t, `toolnexus: duplicate JSON key: keys "env" and "ENV" in the top-level object are one key when case is folded, as encoding/json folds it`, r.Output)
	assert.Zero(t, g.runs.Load())
}

func TestGateDecline(t *testing.T) {
	t.Parallel()
	tests := []struct{ reason, output string }{
		{toolnexus.ReasonDeclined, "toolnexus: approval declined: declined"},
		{toolnexus.ReasonCancelled, "toolnexus: approval declined: cancelled"},
		{"not on a Friday", "toolnexus: approval declined: not on a Friday"},
		{"", "toolnexus: approval declined: declined"},
	}
	for _, tt := range tests {
		t.Run(tt.output, func(t *testing.T) {
			t.Parallel()
			g := newGated(t, park.Runner{}, nil)
			req := g.asked(t, `{"env":"prod"}`)
			r := g.exec(`{"env":"prod"}`, req.Decline(tt.reason))
			assert.Equal(t, toolnexus.Error(tt.output), r)
			assert.Zero(t, g.runs.Load(), "a declined call never runs")
			// The decline is final: the request it answered still runs nothing.
			r = g.exec(`{"env":"prod"}`, req.Decline(tt.reason))
			assert.Equal(t, toolnexus.Error(tt.output), r)
			assert.Zero(t, g.runs.Load())
		})
	}
}

func TestGateExpiry(t *testing.T) {
	t.Parallel()
	var now atomic.Pointer[time.Time]
	now.Store(&gateNow)
	clock := func() time.Time { return *now.Load() }
	g := newGated(t, park.Runner{Expiry: time.Hour, Time: clock}, nil)
	req := g.asked(t, `{"env":"prod"}`)
	assert.Equal(t, "2026-12-01T10:00:00Z", req.ExpiresAt)
	late := gateNow.Add(time.Hour)
	now.Store(&late)
	r := g.exec(`{"env":"prod"}`, req.Resolve(nil))
	g.refused(t, r, toolnexus.ErrExpired)
	assert.Equal(t, `toolnexus: request expired: approval "`+req.ID+`" expired at 2026-12-01T10:00:00Z`, r.Output)
	assert.Zero(t, g.runs.Load(), "a stale approval fails closed")

	// A request the policy gives an earlier expiry keeps it; a later one
	// is cut to the Runner's; a Runner that sets none leaves the policy's,
	// or none.
	for _, tt := range []struct {
		policy string
		expiry time.Duration
		want   string
	}{
		{"2026-12-01T09:30:00Z", time.Hour, "2026-12-01T09:30:00Z"},
		{"2026-12-02T09:00:00Z", time.Hour, "2026-12-01T10:00:00Z"},
		{"", 0, "2026-12-01T09:10:00Z"},
		{"2026-12-02T09:00:00Z", -1, "2026-12-02T09:00:00Z"},
		{"", -1, "9999-01-01T00:00:00Z"},
	} {
		tool, err := approval.Gate(echo, func(context.Context, json.RawMessage) (toolnexus.Request, bool) {
			return toolnexus.Request{Prompt: "Go?", ExpiresAt: tt.policy}, true
		}, nil)
		require.NoError(t, err)
		req, ok := toolnexus.PendingOf(execTool(park.Runner{Expiry: tt.expiry, Time: func() time.Time { return gateNow }}, tool, ``))
		require.True(t, ok)
		assert.Equal(t, tt.want, req.ExpiresAt, "policy %q, expiry %v", tt.policy, tt.expiry)
	}
}

func TestGateOtherGate(t *testing.T) {
	t.Parallel()
	a := newGated(t, park.Runner{}, nil)
	b := newGated(t, park.Runner{}, nil)
	req := a.asked(t, `{"env":"prod"}`)
	b.refused(t, b.exec(`{"env":"prod"}`, req.Resolve(nil)), approval.ErrMismatch)
	assert.Zero(t, b.runs.Load(), "a gate with its own key takes no other gate's approval")

	// A forged ID, or one cut short, is no approval of the gate either.
	forged := req
	forged.ID = req.ID[:len(req.ID)-2] + "AA"
	a.refused(t, a.exec(`{"env":"prod"}`, forged.Resolve(nil)), approval.ErrMismatch)
	forged.ID = req.ID[:len(req.ID)-1]
	a.refused(t, a.exec(`{"env":"prod"}`, forged.Resolve(nil)), approval.ErrMismatch)
	assert.Zero(t, a.runs.Load())

	// Processes that share keys and a store take each other's approvals,
	// once.
	key := []byte("0123456789abcdef0123456789abcdef")
	store := &countingStore{Store: park.NewMemoryStore(0, 0)}
	one := newGated(t, park.Runner{Store: store}, &approval.Options{Keys: [][]byte{key}})
	two := newGated(t, park.Runner{Store: store}, &approval.Options{Keys: [][]byte{key}})
	req = one.asked(t, `{"env":"prod"}`)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), two.exec(`{"env":"prod"}`, req.Resolve(nil)))
	one.refused(t, one.exec(`{"env":"prod"}`, req.Resolve(nil)), approval.ErrUsed)
	assert.Equal(t, int32(1), one.runs.Load()+two.runs.Load())
	require.Len(t, store.untils, 2)
	assert.WithinDuration(t, time.Now().Add(15*time.Minute), store.untils[0], time.Minute, "remembered past the expiry by the clock skew")

	// A gate of another name, or of other keys, takes none of them.
	other := newGated(t, park.Runner{Store: store}, &approval.Options{Keys: [][]byte{key}, Name: "rm"})
	req = one.asked(t, `{"env":"prod"}`)
	other.refused(t, other.exec(`{"env":"prod"}`, req.Resolve(nil)), approval.ErrMismatch)
	assert.Zero(t, other.runs.Load())

	// Rotated keys: a gate whose ring holds the old key second takes its
	// approvals, and binds new ones with the new key.
	newKey := []byte("fedcba9876543210fedcba9876543210")
	rotated := newGated(t, park.Runner{Store: store}, &approval.Options{Keys: [][]byte{newKey, key}})
	req = one.asked(t, `{"env":"prod"}`)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), rotated.exec(`{"env":"prod"}`, req.Resolve(nil)))
	fresh := rotated.asked(t, `{"env":"prod"}`)
	one.refused(t, one.exec(`{"env":"prod"}`, fresh.Resolve(nil)), approval.ErrMismatch)
}

// countingStore is a park.Store that records the until of each claim, or
// fails with err.
type countingStore struct {
	park.Store
	mu     sync.Mutex
	untils []time.Time
	err    error
}

func (s *countingStore) Claim(ctx context.Context, key string, rec []byte, until time.Time) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	s.untils = append(s.untils, until)
	return s.Store.Claim(ctx, key, rec, until)
}

func TestGateStoreFails(t *testing.T) {
	t.Parallel()
	down := errors.New("redis: connection refused")
	g := newGated(t, park.Runner{Store: &countingStore{Store: park.NewMemoryStore(0, 0), err: down}}, nil)
	req := g.asked(t, `{"env":"prod"}`)
	r := g.exec(`{"env":"prod"}`, req.Resolve(nil))
	g.refused(t, r, approval.ErrStore)
	assert.ErrorIs(t, g.refusals.last(), down)
	assert.ErrorIs(t, g.refusals.last(), park.ErrStore)
	assert.Equal(t, `toolnexus: cannot record the use of an approval: approval "`+req.ID+`": toolnexus: cannot record the claim of a parked call: call of "approval": redis: connection refused`, r.Output)
	assert.Zero(t, g.runs.Load(), "a use that cannot be recorded runs nothing")
}

func TestGateSingleUseConcurrent(t *testing.T) {
	t.Parallel()
	g := newGated(t, park.Runner{}, nil)
	req := g.asked(t, `{"env":"prod"}`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.exec(`{"env":"prod"}`, req.Resolve(nil))
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), g.runs.Load())
}

// TestGateApprovalRepeated gives the gated tool its approval twice over:
// the copies are one approval, used once, not a round of their own.
func TestGateApprovalRepeated(t *testing.T) {
	t.Parallel()
	g := newGated(t, park.Runner{}, nil)
	req := g.asked(t, `{"env":"prod"}`)
	ok := req.Resolve(nil)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), g.exec(`{"env":"prod"}`, ok))
	for _, again := range []toolnexus.Answers{{ok, ok}, {ok, ok, ok}} {
		g.refused(t, g.exec(`{"env":"prod"}`, again...), approval.ErrUsed)
	}
	assert.Equal(t, int32(1), g.runs.Load())
	assert.Equal(t, []toolnexus.Answers{nil}, g.answers, "the inner tool never sees its approval")
}

func TestGateToolAsksAfterApproval(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	inner := func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		if a, ok := answers.Get("region"); ok {
			return toolnexus.Ok("deployed to " + a.Data["answer"].(string))
		}
		return toolnexus.Pending(toolnexus.Request{ID: "region", Kind: toolnexus.KindInput, Prompt: "Which region?"})
	}
	tool, err := approval.Gate(inner, approval.Require("Deploy?"), nil)
	require.NoError(t, err)
	tools := map[string]toolnexus.Tool{"deploy": tool}
	ctx := context.Background()
	turn, err := quiet.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "c", Name: "deploy", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	ok := turn.Waiting()[0].Request.Resolve(nil)
	asking, err := quiet.Resume(ctx, tools, turn, ok)
	require.NoError(t, err)
	require.Equal(t, int32(1), runs.Load())
	region := asking.Waiting()[0].Request
	assert.Equal(t, "region", region.ID, "the tool's own request, after its approval")
	done, err := quiet.Resume(ctx, tools, asking, region.Resolve(map[string]any{"answer": "eu-west-1"}))
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("deployed to eu-west-1"), done.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load())

	// Each round runs once: resuming either parked turn again gets the
	// result of its one run, whatever the answer.
	again, err := quiet.Resume(ctx, tools, turn, ok)
	require.NoError(t, err)
	assert.JSONEq(t, mustJSON(t, asking), mustJSON(t, again))
	again, err = quiet.Resume(ctx, tools, asking, region.Resolve(map[string]any{"answer": "us-east-1"}))
	require.NoError(t, err)
	assert.Equal(t, done.Calls[0].Result, again.Calls[0].Result)
	// Run outside the turn, neither the approval alone nor the approval
	// with the region runs the tool again.
	for _, answers := range []toolnexus.Answers{{ok}, {ok, region.Resolve(map[string]any{"answer": "us-east-1"})}} {
		r := execTool(quiet, tool, `{}`, answers...)
		assert.True(t, strings.HasPrefix(r.Output, approval.ErrUsed.Error()), r.Output)
	}
	assert.Equal(t, int32(2), runs.Load())
}

// TestGateRoundInAnyOrder gives the inner tool the answers of one round,
// the two requests it asked at once, in either order, and with its
// approval anywhere among them: they are one round, run once.
// mustJSON returns v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestGateRoundInAnyOrder(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	var seen []toolnexus.Answers
	var mu sync.Mutex
	inner := func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		mu.Lock()
		seen = append(seen, answers)
		mu.Unlock()
		if len(answers) < 2 {
			return toolnexus.PendingAll(
				toolnexus.Request{ID: "region", Kind: toolnexus.KindInput, Prompt: "Which region?"},
				toolnexus.Request{ID: "size", Kind: toolnexus.KindInput, Prompt: "Which size?"})
		}
		return toolnexus.Ok("deployed")
	}
	tool, err := approval.Gate(inner, approval.Require("Deploy?"), nil)
	require.NoError(t, err)
	req, ok := toolnexus.PendingOf(execTool(quiet, tool, `{}`))
	require.True(t, ok)
	approve := req.Resolve(nil)
	region := toolnexus.Answer{ID: "region", OK: true, Data: map[string]any{"answer": "eu"}}
	size := toolnexus.Answer{ID: "size", OK: true, Data: map[string]any{"answer": "xl"}}

	_, parked := toolnexus.PendingAllOf(execTool(quiet, tool, `{}`, approve))
	assert.True(t, parked, "the approval runs the tool, which asks two things")
	assert.Equal(t, toolnexus.Ok("deployed"), execTool(quiet, tool, `{}`, approve, region, size))
	for _, answers := range []toolnexus.Answers{
		{approve, size, region},
		{size, approve, region},
		{region, size, approve},
		{approve, region, size, region},
	} {
		r := execTool(quiet, tool, `{}`, answers...)
		assert.True(t, strings.HasPrefix(r.Output, approval.ErrUsed.Error()), "%v: %s", answers, r.Output)
	}
	assert.Equal(t, int32(2), runs.Load(), "the round ran once")
	assert.Equal(t, []toolnexus.Answers{nil, {region, size}}, seen)

	// Other answers are another round.
	_, parked = toolnexus.PendingAllOf(execTool(quiet, tool, `{}`, region, approve))
	assert.True(t, parked)
	assert.Equal(t, int32(3), runs.Load())
	assert.Equal(t, toolnexus.Answers{region}, seen[2])
}

func TestGatePolicy(t *testing.T) {
	t.Parallel()
	// Only production needs a person, who types its name.
	policy := func(_ context.Context, args json.RawMessage) (toolnexus.Request, bool) {
		var in deployIn
		if err := toolnexus.DecodeArguments(args, &in); err != nil || in.Env == "prod" {
			return toolnexus.Request{ID: "mine", Kind: toolnexus.KindInput, Prompt: "Type prod to deploy there", Data: map[string]any{"choices": []string{"prod"}}}, true
		}
		return toolnexus.Request{}, false
	}
	var runs atomic.Int32
	tool, err := approval.Gate(func(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok(string(args))
	}, policy, nil)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok(`{"env":"dev"}`), execTool(quiet, tool, `{"env":"dev"}`))
	assert.Equal(t, int32(1), runs.Load(), "a call the policy lets through runs at once")
	req, ok := toolnexus.PendingOf(execTool(quiet, tool, `{"env":"prod"}`))
	require.True(t, ok)
	assert.NotEqual(t, "mine", req.ID, "the gate makes the ID")
	assert.Equal(t, toolnexus.KindInput, req.Kind)
	assert.Equal(t, map[string]any{"choices": []string{"prod"}}, req.Data)
	assert.Equal(t, toolnexus.Ok(`{"env":"prod"}`), execTool(quiet, tool, `{"env":"prod"}`, req.Resolve(map[string]any{"answer": "prod"})))
	assert.Equal(t, int32(2), runs.Load())

	// A policy whose request is not one refuses the call.
	bad, err := approval.Gate(echo, func(context.Context, json.RawMessage) (toolnexus.Request, bool) {
		return toolnexus.Request{Kind: toolnexus.KindApproval}, true
	}, nil)
	require.NoError(t, err)
	r := execTool(quiet, bad, ``)
	assert.True(t, r.IsError)
	assert.True(t, strings.HasPrefix(r.Output, toolnexus.ErrInvalidRequest.Error()), r.Output)
}

func TestGateNested(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	inner := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok("done")
	}
	security, err := approval.Gate(inner, approval.Require("Security: go?"), nil)
	require.NoError(t, err)
	owner, err := approval.Gate(security, approval.Require("Owner: go?"), nil)
	require.NoError(t, err)
	tools := map[string]toolnexus.Tool{"t": owner}
	turn, err := quiet.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "c", Name: "t"})
	require.NoError(t, err)
	for _, prompt := range []string{"Owner: go?", "Security: go?"} {
		w := turn.Waiting()
		require.Len(t, w, 1)
		assert.Equal(t, prompt, w[0].Request.Prompt)
		turn, err = quiet.Resume(context.Background(), tools, turn, w[0].Request.Resolve(nil))
		require.NoError(t, err)
	}
	assert.Equal(t, toolnexus.Ok("done"), turn.Calls[0].Result)
	assert.Equal(t, int32(1), runs.Load())
}

// TestGateOutsideRunner runs a gated tool outside any Runner: it reads
// the zero Runner's clock, expiry and store.
func TestGateOutsideRunner(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	tool, err := approval.Gate(func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok("ran")
	}, approval.Require("Go?"), nil)
	require.NoError(t, err)
	ctx := context.Background()
	req, ok := toolnexus.PendingOf(tool(ctx, json.RawMessage(`{}`), nil))
	require.True(t, ok)
	at, err := req.Expiry()
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(park.DefaultExpiry), at, time.Minute)
	assert.Equal(t, toolnexus.Ok("ran"), tool(ctx, json.RawMessage(`{}`), toolnexus.Answers{req.Resolve(nil)}))
	assert.True(t, tool(ctx, json.RawMessage(`{}`), toolnexus.Answers{req.Resolve(nil)}).IsError, "used once, in the process's store")
	assert.Equal(t, int32(1), runs.Load())
}

func TestGateInvalid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		tool   toolnexus.Tool
		policy approval.Policy
		opts   *approval.Options
		err    string
	}{
		{"no tool", nil, approval.Require("Go?"), nil, "toolnexus: invalid gate: no tool"},
		{"no policy", echo, nil, nil, "toolnexus: invalid gate: no policy"},
		{"short key", echo, approval.Require("Go?"), &approval.Options{Keys: [][]byte{make([]byte, 31)}}, "toolnexus: invalid gate: key 1 of 1 has 31 bytes, fewer than 32"},
		{"a short key among others", echo, approval.Require("Go?"), &approval.Options{Keys: [][]byte{make([]byte, 32), nil}}, "toolnexus: invalid gate: key 2 of 2 has 0 bytes, fewer than 32"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool, err := approval.Gate(tt.tool, tt.policy, tt.opts)
			assert.Nil(t, tool)
			require.ErrorIs(t, err, approval.ErrInvalidGate)
			assert.EqualError(t, err, tt.err)
		})
	}
}

func TestOptionsHideKeys(t *testing.T) {
	t.Parallel()
	o := approval.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Name: "deploy"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		assert.NotContains(t, fmt.Sprintf(verb, o), "0123456789abcdef", verb)
		assert.NotContains(t, fmt.Sprintf(verb, o), "3031323334", verb)
	}
}

// events is an Observer that keeps each event's kind and tool.
type events struct {
	mu   sync.Mutex
	seen []string
}

func (o *events) Run(ctx context.Context, _ park.Call) (context.Context, func(toolnexus.ToolResult, error)) {
	return ctx, func(toolnexus.ToolResult, error) {}
}

func (o *events) Event(_ context.Context, e park.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, e.Kind+" "+e.Tool)
}

// TestGateObserved checks what a Runner's Observer sees of a gated call:
// the parking of the call, its answer and its replay, under the gated
// tool's name, and nothing of the approval's own claim, which is not a
// tool's.
func TestGateObserved(t *testing.T) {
	t.Parallel()
	obs := &events{}
	g := newGated(t, park.Runner{Observer: obs, Store: park.NewMemoryStore(0, 0)}, nil)
	tools := map[string]toolnexus.Tool{"deploy": g.tool}
	ctx := context.Background()
	parked, err := g.runner.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call-1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	req := parked.Waiting()[0].Request
	for range 2 {
		_, err = g.runner.Resume(ctx, tools, parked, req.Resolve(nil))
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), g.runs.Load())
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, []string{"parked deploy", "answered deploy", "replayed deploy"}, obs.seen)
}
