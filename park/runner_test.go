package park_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
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
	"github.com/toolnexus-go/toolnexus/park"
)

// counted returns a tool that counts its runs and returns result.
func counted(runs *atomic.Int32, result toolnexus.ToolResult) toolnexus.Tool {
	return func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return result
	}
}

// newPark returns a parking id of the tests' own, as a carrier that
// mints its own would.
func newPark() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// resumed is a call that resumes a parking of its own.
func resumed() park.Call {
	return park.Call{ID: "call_1", Tool: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`),
		Answers: toolnexus.Answers{{ID: "approve", OK: true}}, Park: newPark()}
}

// store is a park.Store for the tests: a memory store whose calls a test
// can make fail or watch.
type store struct {
	park.Store
	mu          sync.Mutex
	claimErr    error       // returned by every Claim
	finishFails int         // how many Finish calls fail before one succeeds
	landed      bool        // Claim stores rec, then answers as a store that sent it again
	held        []byte      // returned by every Claim, when set
	untils      []time.Time // the until of each Claim
	finishes    int         // the Finish calls made
}

func newStore() *store { return &store{Store: park.NewMemoryStore(0, 0)} }

func (s *store) Claim(ctx context.Context, key string, rec []byte, until time.Time) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.untils = append(s.untils, until)
	switch {
	case s.claimErr != nil:
		return nil, s.claimErr
	case s.held != nil:
		return s.held, nil
	case s.landed:
		if _, err := s.Store.Claim(ctx, key, rec, until); err != nil {
			return nil, err
		}
		return s.Store.Claim(ctx, key, rec, until) // the retry sees its own record
	}
	return s.Store.Claim(ctx, key, rec, until)
}

func (s *store) Finish(ctx context.Context, key string, rec []byte, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishes++
	if s.finishFails > 0 {
		s.finishFails--
		return errors.New("redis: i/o timeout")
	}
	return s.Store.Finish(ctx, key, rec, until)
}

func TestRunAnswersOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	tool := counted(&runs, toolnexus.Ok("deployed"))
	r := park.Runner{Store: park.NewMemoryStore(0, 0)}
	c := resumed()

	first, err := r.Run(ctx, c, tool)
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Ok("deployed")}, first)
	second, err := r.Run(ctx, c, tool)
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Ok("deployed"), Replayed: true}, second)
	assert.Equal(t, int32(1), runs.Load(), "the tool ran once")

	// The same arguments written otherwise are the same call.
	c.Arguments = json.RawMessage(` { "env" : "pr\u006fd" } `)
	third, err := r.Run(ctx, c, tool)
	require.NoError(t, err)
	assert.Equal(t, second, third)
	assert.Equal(t, int32(1), runs.Load())

	// A first run claims nothing: it runs each time.
	c.Park = ""
	for range 2 {
		out, err := r.Run(ctx, c, tool)
		require.NoError(t, err)
		assert.False(t, out.Replayed)
	}
	assert.Equal(t, int32(3), runs.Load())
}

// TestRunParksAgain resumes a call that parks again: its new parking is
// kept with the result, and a replay gets it too.
func TestRunParksAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	more := toolnexus.Pending(toolnexus.Request{ID: "region", Kind: toolnexus.KindInput, Prompt: "Which region?", ExpiresAt: "2027-01-01T00:00:00Z"})
	tool := counted(&runs, more)
	r := park.Runner{Store: park.NewMemoryStore(0, 0)}
	c := resumed()
	first, err := r.Run(ctx, c, tool)
	require.NoError(t, err)
	assert.Equal(t, more, first.Result)
	assert.Len(t, first.Park, 22)
	assert.NotEqual(t, c.Park, first.Park, "a new parking")
	second, err := r.Run(ctx, c, tool)
	require.NoError(t, err)
	assert.Equal(t, first.Park, second.Park)
	assert.True(t, second.Replayed)
	assert.JSONEq(t, mustJSON(t, more), mustJSON(t, second.Result), "the result as it was kept, in JSON")
	req, ok := toolnexus.PendingOf(second.Result)
	require.True(t, ok)
	assert.Equal(t, toolnexus.Request{ID: "region", Kind: toolnexus.KindInput, Prompt: "Which region?", ExpiresAt: "2027-01-01T00:00:00Z"}, req)
	assert.Equal(t, int32(1), runs.Load())
}

func TestRunRepeatable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	s := newStore()
	r := park.Runner{Store: s, Repeatable: []string{"status", "deploy"}}
	c := resumed()
	for range 3 {
		out, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
		require.NoError(t, err)
		assert.Equal(t, park.Outcome{Result: toolnexus.Ok("deployed")}, out)
	}
	assert.Equal(t, int32(3), runs.Load(), "a repeatable tool runs on every resume")
	assert.Empty(t, s.untils, "and claims nothing")

	c.Tool = "rm"
	for range 2 {
		_, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("removed")))
		require.NoError(t, err)
	}
	assert.Equal(t, int32(4), runs.Load(), "another tool runs once")
}

func TestRunResultTooLarge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	res := toolnexus.Ok(strings.Repeat("x", 100))
	payload, err := json.Marshal(park.Outcome{Result: res})
	require.NoError(t, err)
	tests := []struct {
		name  string
		limit int
		kept  bool
	}{
		{"over the limit", len(payload) - 1, false},
		{"at the limit", len(payload), true},
		{"the default limit", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			r := park.Runner{Store: park.NewMemoryStore(0, 0), ResultLimit: tt.limit}
			c := resumed()
			out, err := r.Run(ctx, c, counted(&runs, res))
			require.NoError(t, err)
			assert.Equal(t, res, out.Result, "the first run gets its result whatever its size")
			again, err := r.Run(ctx, c, counted(&runs, res))
			assert.Equal(t, int32(1), runs.Load(), "the tool does not run again")
			if tt.kept {
				require.NoError(t, err)
				assert.Equal(t, park.Outcome{Result: res, Replayed: true}, again)
				return
			}
			require.ErrorIs(t, err, park.ErrResultTooLarge)
			assert.EqualError(t, err, fmt.Sprintf(`toolnexus: the call has run, and its result is too large to replay: call of "deploy": its result's SHA-256 is %x`, sha256.Sum256(payload)))
			assert.Equal(t, park.Outcome{}, again)
		})
	}
	assert.Zero(t, runs.Load())
	assert.Equal(t, 1<<20, park.DefaultResultLimit)
}

func TestRunStoreFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := errors.New("redis: connection refused")
	var runs atomic.Int32
	s := newStore()
	s.claimErr = down
	r := park.Runner{Store: s}
	out, err := r.Run(ctx, resumed(), counted(&runs, toolnexus.Ok("deployed")))
	require.ErrorIs(t, err, park.ErrStore)
	require.ErrorIs(t, err, down)
	assert.EqualError(t, err, `toolnexus: cannot record the claim of a parked call: call of "deploy": redis: connection refused`)
	assert.Equal(t, park.Outcome{}, out)
	assert.Zero(t, runs.Load(), "a claim that cannot be recorded runs nothing")

	// A first run claims nothing, and runs.
	c := resumed()
	c.Park = ""
	_, err = r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
	require.NoError(t, err)
	assert.Equal(t, int32(1), runs.Load())

	// A full memory store refuses a claim rather than forget one.
	full := park.Runner{Store: park.NewMemoryStore(1, 0)}
	_, err = full.Run(ctx, resumed(), counted(&runs, toolnexus.Ok("deployed")))
	require.NoError(t, err)
	_, err = full.Run(ctx, resumed(), counted(&runs, toolnexus.Ok("deployed")))
	require.ErrorIs(t, err, park.ErrStore)
	assert.EqualError(t, err, `toolnexus: cannot record the claim of a parked call: call of "deploy": toolnexus: memory claim store is full: it holds 1 live claims, its capacity`)
	assert.Equal(t, int32(2), runs.Load())
}

// TestRunStoreHoldsOther gives the Runner a store that holds a record it
// did not write: the call does not run.
func TestRunStoreHoldsOther(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	s := newStore()
	s.held = []byte("something else")
	_, err := park.Runner{Store: s}.Run(context.Background(), resumed(), counted(&runs, toolnexus.Ok("deployed")))
	require.ErrorIs(t, err, park.ErrStore)
	assert.EqualError(t, err, `toolnexus: cannot record the claim of a parked call: call of "deploy": the store holds a record that is not a claim`)
	assert.Zero(t, runs.Load())
}

func TestRunFinishRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name     string
		fails    int
		finishes int
		kept     bool
	}{
		{"succeeds", 0, 1, true},
		{"fails once", 1, 2, true},
		{"fails twice", 2, 3, true},
		{"always fails", 3, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			var log bytes.Buffer
			s := newStore()
			s.finishFails = tt.fails
			r := park.Runner{Store: s, Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: dropTime}))}
			c := resumed()
			out, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			require.NoError(t, err, "the run happened: its result is given")
			assert.Equal(t, toolnexus.Ok("deployed"), out.Result)
			assert.Equal(t, tt.finishes, s.finishes)
			again, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			assert.Equal(t, int32(1), runs.Load(), "the tool never runs twice")
			if tt.kept {
				require.NoError(t, err)
				assert.True(t, again.Replayed)
				assert.Empty(t, log.String())
				return
			}
			assert.ErrorIs(t, err, park.ErrRunning, "a result not kept leaves its claim held")
			assert.Equal(t, `level=ERROR msg="toolnexus: the result of a resumed call was not kept" tool=deploy err="toolnexus: cannot record the claim of a parked call: keeping a result: redis: i/o timeout"`+"\n", log.String())
		})
	}
}

// mustJSON returns v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// dropTime drops the time of a log line.
func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// TestRunClaimLanded gives the Runner a store that sent its claim again
// after an error, and whose first attempt landed: it returns the record
// the Runner asked to store, which the Runner knows as its own.
func TestRunClaimLanded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	s := newStore()
	s.landed = true
	r := park.Runner{Store: s}
	c := resumed()
	out, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Ok("deployed")}, out, "its own claim: the tool runs")
	assert.Equal(t, int32(1), runs.Load())

	// A retry whose claim landed before finds the finished record.
	again, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
	require.NoError(t, err)
	assert.True(t, again.Replayed)
	assert.Equal(t, int32(1), runs.Load())
}

func TestRunOtherCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		other func(park.Call) park.Call
	}{
		{"other arguments", func(c park.Call) park.Call { c.Arguments = json.RawMessage(`{"env":"staging"}`); return c }},
		{"a number written otherwise", func(c park.Call) park.Call { c.Arguments = json.RawMessage(`{"env":"prod","n":1.0}`); return c }},
		{"another tool", func(c park.Call) park.Call { c.Tool = "rm"; return c }},
		{"another principal", func(c park.Call) park.Call { c.Principal = "mallory"; return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			var log bytes.Buffer
			r := park.Runner{Store: park.NewMemoryStore(0, 0), Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: dropTime}))}
			c := resumed()
			c.Principal = "alice"
			if tt.name == "a number written otherwise" {
				c.Arguments = json.RawMessage(`{"env":"prod","n":1}`)
			}
			_, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			require.NoError(t, err)
			other := tt.other(c)
			out, err := r.Run(ctx, other, counted(&runs, toolnexus.Ok("deployed")))
			require.ErrorIs(t, err, park.ErrOtherCall)
			require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
			assert.EqualError(t, err, `toolnexus: the parking was answered for another call: parking of `+fmt.Sprintf("%q", other.Tool))
			assert.Equal(t, park.Outcome{}, out)
			assert.Equal(t, int32(1), runs.Load())
			assert.Contains(t, log.String(), `level=WARN msg="toolnexus: resume refused" tool=`+other.Tool+` call=call_1 err="toolnexus: the parking was answered for another call"`)
		})
	}

	// A parking whose run has not finished is refused for another call
	// too, not told to wait.
	s := newStore()
	r := park.Runner{Store: s, Logger: quiet}
	c := resumed()
	cl, held, err := r.Claim(ctx, c)
	require.NoError(t, err)
	require.NotNil(t, cl)
	assert.Nil(t, held)
	c.Arguments = json.RawMessage(`{"env":"staging"}`)
	_, _, err = r.Claim(ctx, c)
	assert.ErrorIs(t, err, park.ErrOtherCall)
}

func TestRunPanics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var log bytes.Buffer
	r := park.Runner{Store: park.NewMemoryStore(0, 0), Logger: slog.New(slog.NewTextHandler(&log, nil))}
	boom := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { panic("secret 42") }
	res, err := r.Exec(ctx, park.Call{ID: "call_1", Tool: "boom"}, boom)
	require.ErrorIs(t, err, toolnexus.ErrToolPanicked)
	assert.Equal(t, toolnexus.Error(`toolnexus: tool panicked: "boom"`), res)
	assert.EqualError(t, err, `toolnexus: tool panicked: "boom": secret 42`, "the error holds the panic, the result does not")
	assert.Contains(t, log.String(), `level=ERROR msg="toolnexus: tool panicked" tool=boom call=call_1 panic="secret 42" stack=`)
	assert.Contains(t, log.String(), "runner_test.go", "the stack goes to the log")

	// Run makes it a result, kept as any other.
	c := resumed()
	c.Tool = "boom"
	out, err := r.Run(ctx, c, boom)
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Error(`toolnexus: tool panicked: "boom"`)}, out)
	again, err := r.Run(ctx, c, boom)
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Error(`toolnexus: tool panicked: "boom"`), Replayed: true}, again)
}

func TestRunNilTool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := park.Runner{}.Exec(ctx, park.Call{Tool: "dep\nloy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Error(`toolnexus: nil tool: "dep\nloy"`), res)
	out, err := park.Runner{}.Run(ctx, park.Call{Tool: "deploy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, park.Outcome{Result: toolnexus.Error(`toolnexus: nil tool: "deploy"`)}, out)
	assert.Equal(t, "toolnexus: nil tool", park.ErrNilTool.Error())
}

func TestExecArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args, got, output string
	}{
		{"object", `{"env":"prod"}`, `{"env":"prod"}`, ""},
		{"none", ``, `{}`, ""},
		{"null", ` null `, `{}`, ""},
		{"array", `[]`, "", `toolnexus: arguments of "deploy" are not a JSON object but an array`},
		{"not JSON", `{"env":`, "", `toolnexus: arguments of "deploy" are not JSON: unexpected end of JSON input`},
		{"names one when case is folded", `{"env":"a","ENV":"b"}`, "",
			`toolnexus: arguments of "deploy" are ambiguous: duplicate JSON key: keys "env" and "ENV" in the top-level object are one key when case is folded, as encoding/json folds it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got string
			res, err := park.Runner{}.Exec(context.Background(), park.Call{Tool: "deploy", Arguments: json.RawMessage(tt.args)},
				func(_ context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
					got = string(args)
					return toolnexus.Ok("ran")
				})
			require.NoError(t, err)
			assert.Equal(t, tt.got, got)
			if tt.output == "" {
				assert.Equal(t, toolnexus.Ok("ran"), res)
				return
			}
			assert.Equal(t, toolnexus.Error(tt.output), res, "the tool does not run")
		})
	}
}

func TestExecStampsExpiry(t *testing.T) {
	t.Parallel()
	given := "2027-01-01T00:00:00Z"
	asks := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"},
			toolnexus.Request{ID: "b", Kind: toolnexus.KindApproval, Prompt: "B?", ExpiresAt: given})
	}
	tests := []struct {
		name   string
		expiry time.Duration
		want   string
	}{
		{"default", 0, "2026-12-01T09:10:00Z"},
		{"set", 90 * time.Second, "2026-12-01T09:01:30Z"},
		{"negative: none", -time.Second, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := park.Runner{Expiry: tt.expiry, Time: at(runnerNow)}
			res, err := r.Exec(context.Background(), park.Call{Tool: "asks"}, asks)
			require.NoError(t, err)
			reqs, ok := toolnexus.PendingAllOf(res)
			require.True(t, ok)
			require.Len(t, reqs, 2)
			assert.Equal(t, tt.want, reqs[0].ExpiresAt)
			assert.Equal(t, given, reqs[1].ExpiresAt, "a request's own expiry is kept")

			in := []toolnexus.Request{{ID: "a"}, {ID: "b", ExpiresAt: given}}
			stamped := r.Stamp(in)
			assert.Equal(t, []string{tt.want, given}, []string{stamped[0].ExpiresAt, stamped[1].ExpiresAt})
			assert.Empty(t, in[0].ExpiresAt, "Stamp changes a copy")
		})
	}

	// The result of a tool is not changed: its metadata is cloned.
	res := toolnexus.Pending(toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"})
	out, err := park.Runner{Time: at(runnerNow)}.Exec(context.Background(), park.Call{Tool: "t"},
		func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { return res })
	require.NoError(t, err)
	req, _ := toolnexus.PendingOf(out)
	assert.Equal(t, "2026-12-01T09:10:00Z", req.ExpiresAt)
	req, _ = toolnexus.PendingOf(res)
	assert.Empty(t, req.ExpiresAt)
}

// TestClaimUntil checks how long a claim is kept: until its parking can
// no longer be answered, and the clock skew after; forever without one.
func TestClaimUntil(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore()
	r := park.Runner{Store: s, Time: at(runnerNow)}
	c := resumed()
	c.Until = runnerNow.Add(time.Hour)
	_, _, err := r.Claim(ctx, c)
	require.NoError(t, err)
	_, _, err = r.Claim(ctx, resumed())
	require.NoError(t, err)
	require.Len(t, s.untils, 2)
	assert.WithinDuration(t, time.Now().Add(time.Hour+park.ClockSkew), s.untils[0], time.Minute,
		"Until is read by the Runner's clock, and kept by the store's")
	assert.True(t, s.untils[1].IsZero(), "no Until: kept as long as the store lasts")
	assert.Equal(t, 5*time.Minute, park.ClockSkew)
}

// TestClaimCarrier runs a call as a carrier that sends its own payload
// does: it claims, runs, and finishes with what it sent; a retry gets that
// payload.
func TestClaimCarrier(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := park.Runner{Store: park.NewMemoryStore(0, 0), ResultLimit: 16}
	c := resumed()
	c.Park = ""
	cl, held, err := r.Claim(ctx, c)
	require.NoError(t, err)
	assert.Nil(t, cl, "a first run claims nothing")
	assert.Nil(t, held)

	c.Park = newPark()
	cl, held, err = r.Claim(ctx, c)
	require.NoError(t, err)
	require.NotNil(t, cl)
	assert.Nil(t, held)
	_, _, err = r.Claim(ctx, c)
	require.ErrorIs(t, err, park.ErrRunning)
	require.NoError(t, cl.Finish(ctx, []byte(`{"sent":true}`)))
	cl, held, err = r.Claim(ctx, c)
	require.NoError(t, err)
	assert.Nil(t, cl)
	assert.Equal(t, `{"sent":true}`, string(held))

	c.Park = newPark()
	cl, _, err = r.Claim(ctx, c)
	require.NoError(t, err)
	require.NoError(t, cl.Finish(ctx, []byte(`{"sent":"a payload over 16 bytes"}`)))
	_, _, err = r.Claim(ctx, c)
	assert.ErrorIs(t, err, park.ErrResultTooLarge)
}

// TestStores runs one parking with two Runners: with stores of their own
// each runs the tool, sharing the process's store they run it once.
func TestStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		a, b park.Runner
		runs int32
	}{
		{"stores of their own", park.Runner{Store: park.NewMemoryStore(0, 0)}, park.Runner{Store: park.NewMemoryStore(0, 0)}, 2},
		{"a store of its own and the process's", park.Runner{Store: park.NewMemoryStore(0, 0)}, park.Runner{}, 2},
		{"the process's", park.Runner{}, park.Runner{Expiry: time.Hour, Logger: quiet}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			c := resumed()
			_, err := tt.a.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			require.NoError(t, err)
			out, err := tt.b.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			require.NoError(t, err)
			assert.Equal(t, toolnexus.Ok("deployed"), out.Result)
			assert.Equal(t, tt.runs, runs.Load())
			assert.Equal(t, tt.runs == 1, out.Replayed)
		})
	}
}

func TestFromContext(t *testing.T) {
	t.Parallel()
	_, ok := park.FromContext(context.Background())
	assert.False(t, ok, "outside a run")
	r := park.Runner{Expiry: time.Hour, Time: at(runnerNow), Repeatable: []string{"t"}}
	var got park.Runner
	_, err := r.Exec(context.Background(), park.Call{Tool: "t"}, func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		got, ok = park.FromContext(ctx)
		return toolnexus.Ok("")
	})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, time.Hour, got.Expiry)
	assert.Equal(t, runnerNow, got.Now())
	assert.Equal(t, []string{"t"}, got.Repeatable)
}

func TestRunnerDefaults(t *testing.T) {
	t.Parallel()
	var r park.Runner
	assert.WithinDuration(t, time.Now(), r.Now(), time.Minute, "the zero Runner reads time.Now")
	assert.Same(t, slog.Default(), r.Log())
	assert.Equal(t, runnerNow, park.Runner{Time: at(runnerNow)}.Now())
	assert.Same(t, quiet, park.Runner{Logger: quiet}.Log())
}

// TestRunConcurrent resumes one parking from many goroutines at once: the
// tool runs once, and every other resume gets its result or ErrRunning.
func TestRunConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	r := park.Runner{Store: park.NewMemoryStore(0, 0)}
	c := resumed()
	var wg sync.WaitGroup
	var replayed, running atomic.Int32
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := r.Run(ctx, c, counted(&runs, toolnexus.Ok("deployed")))
			switch {
			case errors.Is(err, park.ErrRunning):
				running.Add(1)
			case err == nil && out.Replayed:
				replayed.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), runs.Load())
	assert.Equal(t, int32(15), replayed.Load()+running.Load())
}
