package toolnexus_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// gateNow is the time the gates of these tests read, unless a test moves
// its own clock.
var gateNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// quiet is the options of a gate whose refusals go nowhere.
var quiet = &toolnexus.GateOptions{Logger: slog.New(slog.DiscardHandler)}

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

// gated is a deploy tool behind an approval, its runs counted.
type gated struct {
	tool     toolnexus.Tool
	runs     atomic.Int32
	answers  []toolnexus.Answers // what each run of the inner tool was given
	mu       sync.Mutex
	refusals *refusals
}

// newGated returns a deploy tool that runs once it is approved, with the
// gate options opts (its Time and Logger set when they are not).
func newGated(t *testing.T, opts toolnexus.GateOptions) *gated {
	t.Helper()
	g := &gated{refusals: &refusals{}}
	inner := toolnexus.ToolFor(func(_ context.Context, in deployIn, answers toolnexus.Answers) toolnexus.ToolResult {
		g.runs.Add(1)
		g.mu.Lock()
		g.answers = append(g.answers, answers)
		g.mu.Unlock()
		return toolnexus.Ok("deployed to " + in.Env)
	})
	if opts.Time == nil {
		opts.Time = func() time.Time { return gateNow }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(g.refusals)
	}
	tool, err := toolnexus.Gate(inner, toolnexus.RequireApproval("Deploy?"), &opts)
	require.NoError(t, err)
	g.tool = tool
	return g
}

// asked runs g with args and no answer and returns the request it asks.
func (g *gated) asked(t *testing.T, args string) toolnexus.Request {
	t.Helper()
	r := g.tool(context.Background(), json.RawMessage(args), nil)
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
	g := newGated(t, toolnexus.GateOptions{})
	runner := toolnexus.TurnRunner{Tools: map[string]toolnexus.Tool{"deploy": g.tool}, Time: func() time.Time { return gateNow }}
	ctx := context.Background()

	parked, err := runner.Run(ctx, toolnexus.ToolCall{ID: "call-1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
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

	done, err := runner.Resume(ctx, parked, req.Resolve(nil))
	require.NoError(t, err)
	require.True(t, done.Complete())
	assert.Equal(t, toolnexus.Ok("deployed to prod"), done.Calls[0].Result)
	assert.Equal(t, int32(1), g.runs.Load())
	assert.Equal(t, []toolnexus.Answers{nil}, g.answers, "the tool never sees the approval")

	// The finished turn takes no answer; the parked one, kept by a host,
	// runs the gated tool again with the same approval: refused.
	_, err = runner.Resume(ctx, done, req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	replayed, err := runner.Resume(ctx, parked, req.Resolve(nil))
	require.NoError(t, err)
	g.refused(t, replayed.Calls[0].Result, toolnexus.ErrApprovalUsed)
	g.refused(t, g.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)}), toolnexus.ErrApprovalUsed)
	assert.Equal(t, int32(1), g.runs.Load(), "a replayed approval runs nothing")

	// A stored turn whose arguments were changed after the approval was
	// asked: the approval is refused for them.
	edited := parked
	edited.Calls = []toolnexus.ToolCall{parked.Calls[0]}
	edited.Calls[0].Arguments = json.RawMessage(`{"env":"staging"}`)
	other, err := runner.Resume(ctx, edited, req.Resolve(nil))
	require.NoError(t, err)
	g.refused(t, other.Calls[0].Result, toolnexus.ErrApprovalMismatch)
	assert.Equal(t, int32(1), g.runs.Load())
}

func TestGateArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name, asked, run string
		sentinel         error // nil: the approval runs the tool
	}{
		{"same arguments", `{"env":"prod","n":1}`, `{"env":"prod","n":1}`, nil},
		{"keys in another order, other spacing and escapes", `{"env":"prod","n":1}`, ` { "n" : 1 , "env" : "pr\u006fd" } `, nil},
		{"other keys", `{"env":"prod"}`, `{"region":"prod"}`, toolnexus.ErrApprovalMismatch},
		{"the same keys with other values", `{"env":"prod","n":1}`, `{"env":"staging","n":1}`, toolnexus.ErrApprovalMismatch},
		{"a number written otherwise", `{"env":"prod","n":1}`, `{"env":"prod","n":1.0}`, toolnexus.ErrApprovalMismatch},
		{"one more key", `{"env":"prod"}`, `{"env":"prod","force":true}`, toolnexus.ErrApprovalMismatch},
		{"a repeated name", `{"env":"prod"}`, `{"env":"prod","env":"staging"}`, toolnexus.ErrDuplicateKey},
		{"names one when case is folded", `{"env":"prod"}`, `{"env":"prod","Env":"staging"}`, toolnexus.ErrDuplicateKey},
		{"not JSON", `{"env":"prod"}`, `{"env":`, toolnexus.ErrInvalidJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGated(t, toolnexus.GateOptions{})
			req := g.asked(t, tt.asked)
			r := g.tool(ctx, json.RawMessage(tt.run), toolnexus.Answers{req.Resolve(nil)})
			if tt.sentinel == nil {
				assert.Equal(t, toolnexus.Ok("deployed to prod"), r)
				assert.Equal(t, int32(1), g.runs.Load())
				return
			}
			g.refused(t, r, tt.sentinel)
			assert.Zero(t, g.runs.Load())
		})
	}
}

func TestGateEmptyArguments(t *testing.T) {
	t.Parallel()
	tool, err := toolnexus.Gate(echo, toolnexus.RequireApproval("Go?"), quiet)
	require.NoError(t, err)
	for _, asked := range []string{``, `null`, ` {} `} {
		req, ok := toolnexus.PendingOf(tool(context.Background(), json.RawMessage(asked), nil))
		require.True(t, ok)
		assert.Equal(t, toolnexus.Ok(`{}`), tool(context.Background(), json.RawMessage(`{}`), toolnexus.Answers{req.Resolve(nil)}), "%q and {} are one call", asked)
	}
}

func TestGateDuplicateNamesNeverAsk(t *testing.T) {
	t.Parallel()
	g := newGated(t, toolnexus.GateOptions{})
	r := g.tool(context.Background(), json.RawMessage(`{"env":"prod","ENV":"staging"}`), nil)
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
			g := newGated(t, toolnexus.GateOptions{})
			req := g.asked(t, `{"env":"prod"}`)
			r := g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Decline(tt.reason)})
			assert.Equal(t, toolnexus.Error(tt.output), r)
			assert.Zero(t, g.runs.Load(), "a declined call never runs")
			// The decline is final: the request it answered still runs nothing.
			r = g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Decline(tt.reason)})
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
	g := newGated(t, toolnexus.GateOptions{Expiry: time.Hour, Time: clock})
	req := g.asked(t, `{"env":"prod"}`)
	assert.Equal(t, "2026-12-01T10:00:00Z", req.ExpiresAt)
	late := gateNow.Add(time.Hour)
	now.Store(&late)
	r := g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)})
	g.refused(t, r, toolnexus.ErrExpired)
	assert.Equal(t, `toolnexus: request expired: approval "`+req.ID+`" expired at 2026-12-01T10:00:00Z`, r.Output)
	assert.Zero(t, g.runs.Load(), "a stale approval fails closed")

	// A request the policy gives an earlier expiry keeps it; a later one
	// is cut to the gate's.
	for _, tt := range []struct{ policy, want string }{
		{"2026-12-01T09:30:00Z", "2026-12-01T09:30:00Z"},
		{"2026-12-02T09:00:00Z", "2026-12-01T10:00:00Z"},
	} {
		tool, err := toolnexus.Gate(echo, func(context.Context, json.RawMessage) (toolnexus.Request, bool) {
			return toolnexus.Request{Prompt: "Go?", ExpiresAt: tt.policy}, true
		}, &toolnexus.GateOptions{Expiry: time.Hour, Time: func() time.Time { return gateNow }})
		require.NoError(t, err)
		req, ok := toolnexus.PendingOf(tool(context.Background(), nil, nil))
		require.True(t, ok)
		assert.Equal(t, tt.want, req.ExpiresAt)
	}
}

func TestGateOtherGate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newGated(t, toolnexus.GateOptions{})
	b := newGated(t, toolnexus.GateOptions{})
	req := a.asked(t, `{"env":"prod"}`)
	b.refused(t, b.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)}), toolnexus.ErrApprovalMismatch)
	assert.Zero(t, b.runs.Load(), "a gate with its own key takes no other gate's approval")

	// A forged ID, or one cut short, is no approval of the gate either.
	forged := req
	forged.ID = req.ID[:len(req.ID)-2] + "AA"
	a.refused(t, a.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{forged.Resolve(nil)}), toolnexus.ErrApprovalMismatch)
	forged.ID = req.ID[:len(req.ID)-1]
	a.refused(t, a.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{forged.Resolve(nil)}), toolnexus.ErrApprovalMismatch)
	assert.Zero(t, a.runs.Load())

	// Processes that share a key and a store take each other's approvals,
	// once.
	key := []byte("0123456789abcdef0123456789abcdef")
	store := &countingStore{ids: map[string]bool{}}
	one := newGated(t, toolnexus.GateOptions{Key: key, Claims: store})
	two := newGated(t, toolnexus.GateOptions{Key: key, Claims: store})
	req = one.asked(t, `{"env":"prod"}`)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), two.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)}))
	one.refused(t, one.tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)}), toolnexus.ErrApprovalUsed)
	assert.Equal(t, int32(1), one.runs.Load()+two.runs.Load())
	assert.Equal(t, []time.Time{gateNow.Add(15 * time.Minute)}, store.untils, "remembered past the expiry by the clock skew")
}

// countingStore is a ClaimStore in a map that records each claim's time,
// or fails with err.
type countingStore struct {
	mu     sync.Mutex
	ids    map[string]bool
	untils []time.Time
	err    error
}

func (s *countingStore) Claim(_ context.Context, id string, until time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false, s.err
	}
	if s.ids[id] {
		return false, nil
	}
	s.ids[id] = true
	s.untils = append(s.untils, until)
	return true, nil
}

func TestGateStoreFails(t *testing.T) {
	t.Parallel()
	down := errors.New("redis: connection refused")
	g := newGated(t, toolnexus.GateOptions{Claims: &countingStore{err: down}})
	req := g.asked(t, `{"env":"prod"}`)
	r := g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)})
	g.refused(t, r, toolnexus.ErrApprovalStore)
	assert.ErrorIs(t, g.refusals.last(), down)
	assert.Zero(t, g.runs.Load(), "a use that cannot be recorded runs nothing")
}

func TestGateSingleUseConcurrent(t *testing.T) {
	t.Parallel()
	g := newGated(t, toolnexus.GateOptions{})
	req := g.asked(t, `{"env":"prod"}`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(nil)})
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), g.runs.Load())
}

// TestGateApprovalRepeated gives the gated tool its approval twice over:
// the copies are one approval, used once, not a round of their own.
func TestGateApprovalRepeated(t *testing.T) {
	t.Parallel()
	g := newGated(t, toolnexus.GateOptions{})
	req := g.asked(t, `{"env":"prod"}`)
	ok := req.Resolve(nil)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{ok}))
	for _, again := range []toolnexus.Answers{{ok, ok}, {ok, ok, ok}} {
		g.refused(t, g.tool(context.Background(), json.RawMessage(`{"env":"prod"}`), again), toolnexus.ErrApprovalUsed)
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
	tool, err := toolnexus.Gate(inner, toolnexus.RequireApproval("Deploy?"), quiet)
	require.NoError(t, err)
	runner := toolnexus.TurnRunner{Tools: map[string]toolnexus.Tool{"deploy": tool}}
	ctx := context.Background()
	turn, err := runner.Run(ctx, toolnexus.ToolCall{ID: "c", Name: "deploy", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	approval := turn.Waiting()[0].Request
	asking, err := runner.Resume(ctx, turn, approval.Resolve(nil))
	require.NoError(t, err)
	require.Equal(t, int32(1), runs.Load())
	region := asking.Waiting()[0].Request
	assert.Equal(t, "region", region.ID, "the tool's own request, after its approval")
	done, err := runner.Resume(ctx, asking, region.Resolve(map[string]any{"answer": "eu-west-1"}))
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("deployed to eu-west-1"), done.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load())

	// Each round runs once: neither the approval alone nor the approval
	// with the region runs the tool again.
	for _, parked := range []toolnexus.Turn{turn, asking} {
		a := approval.Resolve(nil)
		if parked.Calls[0].Answers != nil {
			a = region.Resolve(map[string]any{"answer": "us-east-1"})
		}
		again, err := runner.Resume(ctx, parked, a)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(again.Calls[0].Result.Output, toolnexus.ErrApprovalUsed.Error()), again.Calls[0].Result.Output)
	}
	assert.Equal(t, int32(2), runs.Load())
}

func TestGatePolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Only production needs a person, who types its name.
	policy := func(_ context.Context, args json.RawMessage) (toolnexus.Request, bool) {
		var in deployIn
		if err := toolnexus.DecodeArguments(args, &in); err != nil || in.Env == "prod" {
			return toolnexus.Request{ID: "mine", Kind: toolnexus.KindInput, Prompt: "Type prod to deploy there", Data: map[string]any{"choices": []string{"prod"}}}, true
		}
		return toolnexus.Request{}, false
	}
	var runs atomic.Int32
	tool, err := toolnexus.Gate(func(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok(string(args))
	}, policy, quiet)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok(`{"env":"dev"}`), tool(ctx, json.RawMessage(`{"env":"dev"}`), nil))
	assert.Equal(t, int32(1), runs.Load(), "a call the policy lets through runs at once")
	req, ok := toolnexus.PendingOf(tool(ctx, json.RawMessage(`{"env":"prod"}`), nil))
	require.True(t, ok)
	assert.NotEqual(t, "mine", req.ID, "the gate makes the ID")
	assert.Equal(t, toolnexus.KindInput, req.Kind)
	assert.Equal(t, map[string]any{"choices": []string{"prod"}}, req.Data)
	assert.Equal(t, toolnexus.Ok(`{"env":"prod"}`), tool(ctx, json.RawMessage(`{"env":"prod"}`), toolnexus.Answers{req.Resolve(map[string]any{"answer": "prod"})}))
	assert.Equal(t, int32(2), runs.Load())

	// A policy whose request is not one refuses the call.
	bad, err := toolnexus.Gate(echo, func(context.Context, json.RawMessage) (toolnexus.Request, bool) {
		return toolnexus.Request{Kind: toolnexus.KindApproval}, true
	}, quiet)
	require.NoError(t, err)
	r := bad(ctx, nil, nil)
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
	security, err := toolnexus.Gate(inner, toolnexus.RequireApproval("Security: go?"), quiet)
	require.NoError(t, err)
	owner, err := toolnexus.Gate(security, toolnexus.RequireApproval("Owner: go?"), quiet)
	require.NoError(t, err)
	turn, err := toolnexus.RunTurn(context.Background(), map[string]toolnexus.Tool{"t": owner}, toolnexus.ToolCall{ID: "c", Name: "t"})
	require.NoError(t, err)
	for _, prompt := range []string{"Owner: go?", "Security: go?"} {
		w := turn.Waiting()
		require.Len(t, w, 1)
		assert.Equal(t, prompt, w[0].Request.Prompt)
		turn, err = turn.Resume(context.Background(), map[string]toolnexus.Tool{"t": owner}, w[0].Request.Resolve(nil))
		require.NoError(t, err)
	}
	assert.Equal(t, toolnexus.Ok("done"), turn.Calls[0].Result)
	assert.Equal(t, int32(1), runs.Load())
}

func TestGateInvalid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		tool   toolnexus.Tool
		policy toolnexus.Policy
		opts   *toolnexus.GateOptions
		err    string
	}{
		{"no tool", nil, toolnexus.RequireApproval("Go?"), nil, "toolnexus: invalid gate: no tool"},
		{"no policy", echo, nil, nil, "toolnexus: invalid gate: no policy"},
		{"short key", echo, toolnexus.RequireApproval("Go?"), &toolnexus.GateOptions{Key: make([]byte, 31)}, "toolnexus: invalid gate: a key of 31 bytes, shorter than 32"},
		{"negative expiry", echo, toolnexus.RequireApproval("Go?"), &toolnexus.GateOptions{Expiry: -time.Second}, "toolnexus: invalid gate: Expiry -1s is negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool, err := toolnexus.Gate(tt.tool, tt.policy, tt.opts)
			assert.Nil(t, tool)
			require.ErrorIs(t, err, toolnexus.ErrInvalidGate)
			assert.EqualError(t, err, tt.err)
		})
	}
}
