package park_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// runnerNow is the time the runners of these tests read.
var runnerNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// at returns a clock that always reads t.
func at(t time.Time) func() time.Time { return func() time.Time { return t } }

// quiet is a logger that drops what it is given.
var quiet = slog.New(slog.DiscardHandler)

// deployIn is the input of the deploy tool of these tests.
type deployIn struct {
	Env string `json:"env"`
}

// deployTool asks for an approval, then deploys or reports the refusal;
// runs counts its runs.
func deployTool(runs *atomic.Int32) toolnexus.Tool {
	return toolnexus.ToolFor(func(_ context.Context, in deployIn, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		ans := answers.Latest()
		switch {
		case ans == nil:
			return toolnexus.Pending(toolnexus.Request{ID: "approve-" + in.Env, Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		case !ans.OK:
			return toolnexus.Error("deploy to " + in.Env + " " + ans.Reason)
		}
		return toolnexus.Ok("deployed to " + in.Env)
	})
}

// echo returns the arguments it was given as its output.
func echo(_ context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
	return toolnexus.Ok(string(args))
}

// reread marshals t and reads it back, as another process would.
func reread(t *testing.T, tr toolnexus.Turn) toolnexus.Turn {
	t.Helper()
	stored, err := json.Marshal(tr)
	require.NoError(t, err, "the turn always marshals")
	back, err := toolnexus.ParseTurn(stored, 1<<20)
	require.NoError(t, err, "and reads back")
	return back
}

func TestRunnerRunTurn(t *testing.T) {
	t.Parallel()
	panics := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { panic("secret 42") }
	invalid := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput})
	}
	tools := map[string]toolnexus.Tool{"echo": echo, "panics": panics, "invalid": invalid, "nil": nil}
	tests := []struct {
		name   string
		call   toolnexus.ToolCall
		stored string // the call's arguments as the turn keeps them, "" for none
		output string
		failed bool
	}{
		{"object", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)}, `{"a":1}`, `{"a":1}`, false},
		{"no arguments", toolnexus.ToolCall{Name: "echo"}, "", `{}`, false},
		{"white space", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(" \n")}, "", `{}`, false},
		{"null", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(` null`)}, "", `{}`, false},
		{"not JSON", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env": prod}`)}, `"{\"env\": prod}"`,
			`toolnexus: arguments of "echo" are not JSON: invalid character 'p' looking for beginning of value`, true},
		{"cut short", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env":`)}, `"{\"env\":"`,
			`toolnexus: arguments of "echo" are not JSON: unexpected end of JSON input`, true},
		{"two values", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{} {}`)}, `"{} {}"`,
			`toolnexus: arguments of "echo" are not JSON: more than one JSON value`, true},
		{"not UTF-8", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage("{\"env\":\"\xff\"}")}, `"{\"env\":\"\ufffd\"}"`,
			`toolnexus: arguments of "echo" are not JSON: a string is not valid UTF-8`, true},
		{"lone surrogate", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env":"\ud800"}`)}, `"{\"env\":\"\\ud800\"}"`,
			`toolnexus: arguments of "echo" are not JSON: a string is not valid UTF-8`, true},
		{"array", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`[1]`)}, `[1]`,
			`toolnexus: arguments of "echo" are not a JSON object but an array`, true},
		{"string", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`"prod"`)}, `"prod"`,
			`toolnexus: arguments of "echo" are not a JSON object but a string`, true},
		{"a name twice", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env":"a","env":"b"}`)}, `{"env":"a","env":"b"}`,
			`toolnexus: arguments of "echo" are ambiguous: duplicate JSON key: key "env" appears twice in the top-level object`, true},
		{"unknown tool", toolnexus.ToolCall{Name: "dep\nloy", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: unknown tool "dep\nloy"`, true},
		{"nil tool", toolnexus.ToolCall{Name: "nil", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: nil tool: "nil"`, true},
		{"panic", toolnexus.ToolCall{Name: "panics", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: tool panicked: "panics"`, true},
		{"invalid result", toolnexus.ToolCall{Name: "invalid", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: tool "invalid" returned an invalid result: invalid request: request "r" has no prompt`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			r := park.Runner{Logger: slog.New(slog.NewTextHandler(&log, nil))}
			tt.call.ID = "call_1"
			turn, err := r.RunTurn(context.Background(), tools, tt.call)
			require.NoError(t, err)
			require.Len(t, turn.Calls, 1)
			c := turn.Calls[0]
			assert.Equal(t, tt.stored, string(c.Arguments))
			assert.Equal(t, tt.output, c.Result.Output)
			assert.Equal(t, tt.failed, c.Result.IsError)
			assert.Empty(t, c.Parked, "a call that does not park has no parking")
			assert.NoError(t, turn.Validate())
			assert.Equal(t, tt.stored, string(reread(t, turn).Calls[0].Arguments))

			switch tt.name {
			case "panic":
				assert.Contains(t, log.String(), "secret 42", "the panic goes to the log")
				assert.Contains(t, log.String(), "stack=")
				assert.NotContains(t, c.Result.Output, "secret")
			case "invalid result":
				assert.Contains(t, log.String(), `level=WARN msg="toolnexus: tool returned an invalid result" tool=invalid call=call_1 err="toolnexus: invalid request: request \"r\" has no prompt"`)
			default:
				assert.Empty(t, log.String())
			}
		})
	}
}

func TestRunTurnKeepsOrder(t *testing.T) {
	t.Parallel()
	var order []string
	tool := func(name string) toolnexus.Tool {
		return func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			order = append(order, name)
			return toolnexus.Ok(name)
		}
	}
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"a": tool("a"), "b": tool("b"), "deploy": deployTool(&runs)}
	turn, err := park.RunTurn(context.Background(), tools,
		toolnexus.ToolCall{ID: "1", Name: "b"},
		toolnexus.ToolCall{ID: "2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)},
		toolnexus.ToolCall{ID: "3", Name: "a"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, order)
	assert.False(t, turn.Complete())
	require.Len(t, turn.Waiting(), 1)
	assert.Equal(t, toolnexus.Wait{CallID: "2", Tool: "deploy", Request: turn.Waiting()[0].Request}, turn.Waiting()[0])
	assert.Equal(t, "approve-prod", turn.Waiting()[0].Request.ID)
	assert.Len(t, turn.Calls[1].Parked, 22, "the parked call has a parking")
	assert.Empty(t, turn.Calls[0].Parked)
	assert.Empty(t, turn.Calls[2].Parked)
}

func TestRunTurnRefusesCalls(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"deploy": deployTool(&runs)}
	deploy := func(id string) toolnexus.ToolCall {
		return toolnexus.ToolCall{ID: id, Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)}
	}
	tests := []struct {
		name  string
		calls []toolnexus.ToolCall
		err   string
	}{
		{"no id", []toolnexus.ToolCall{deploy("")}, `toolnexus: invalid turn: call 0 has no id`},
		{"two calls, one id", []toolnexus.ToolCall{deploy("a"), deploy("a")}, `toolnexus: invalid turn: two calls have id "a"`},
		{"no name", []toolnexus.ToolCall{{ID: "a"}}, `toolnexus: invalid turn: call "a" has no tool name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn, err := park.RunTurn(context.Background(), tools, tt.calls...)
			require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
			assert.EqualError(t, err, tt.err)
			assert.Empty(t, turn.Calls)
		})
	}
	assert.Zero(t, runs.Load(), "no tool ran")

	turn, err := park.RunTurn(context.Background(), tools)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, turn, "no calls: the model asked for nothing")
}

func TestRunTurnExpiry(t *testing.T) {
	t.Parallel()
	at2027 := "2027-01-01T00:00:00Z"
	asks := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"},
			toolnexus.Request{ID: "b", Kind: toolnexus.KindApproval, Prompt: "B?", ExpiresAt: at2027},
			toolnexus.Request{ID: "c", Kind: toolnexus.KindApproval, Prompt: "C?"})
	}
	tests := []struct {
		name   string
		expiry time.Duration
		want   string // the ExpiresAt of a and c
	}{
		{"default", 0, "2026-12-01T09:10:00Z"},
		{"configured", time.Hour, "2026-12-01T10:00:00Z"},
		{"none", -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := park.Runner{Expiry: tt.expiry, Time: at(runnerNow)}
			turn, err := r.RunTurn(context.Background(), map[string]toolnexus.Tool{"asks": asks}, toolnexus.ToolCall{ID: "1", Name: "asks"})
			require.NoError(t, err)
			var got []string
			for _, w := range turn.Waiting() {
				got = append(got, w.Request.ExpiresAt)
			}
			assert.Equal(t, []string{tt.want, at2027, tt.want}, got)
			assert.Equal(t, turn.Waiting(), reread(t, turn).Waiting(), "the expiry is stored with the turn")
		})
	}
	assert.Equal(t, 10*time.Minute, park.DefaultExpiry)
}

func TestRunnerResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := runnerNow
	req := toolnexus.Request{ID: "approve-prod", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}
	tests := []struct {
		name   string
		answer toolnexus.Answer
		late   bool
		err    error
		output string
	}{
		{"approved", req.Resolve(nil), false, nil, "deployed to prod"},
		{"declined", req.Decline(toolnexus.ReasonDeclined), false, nil, "deploy to prod declined"},
		{"unknown id", toolnexus.Answer{ID: "nope", OK: true}, false, toolnexus.ErrAnswerMismatch, ""},
		{"no id", toolnexus.Answer{OK: true}, false, toolnexus.ErrAnswerMismatch, ""},
		{"late", req.Resolve(nil), true, toolnexus.ErrExpired, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			tools := map[string]toolnexus.Tool{"deploy": deployTool(&runs), "echo": echo}
			r := park.Runner{Time: at(clock)}
			parked, err := r.RunTurn(ctx, tools,
				toolnexus.ToolCall{ID: "call_1", Name: "echo", Arguments: json.RawMessage(`{}`)},
				toolnexus.ToolCall{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
			require.NoError(t, err)
			require.Equal(t, int32(1), runs.Load())
			assert.Equal(t, "2026-12-01T09:10:00Z", parked.Waiting()[0].Request.ExpiresAt)
			runs.Store(0)
			if tt.late {
				r.Time = at(clock.Add(park.DefaultExpiry))
			}
			turn := reread(t, parked) // another process

			done, err := r.Resume(ctx, tools, turn, tt.answer)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Zero(t, runs.Load(), "a refused answer runs nothing")
				assert.Equal(t, turn, done)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int32(1), runs.Load(), "the tool ran once")
			assert.True(t, done.Complete())
			assert.Equal(t, tt.output, done.Calls[1].Result.Output)
			assert.Equal(t, toolnexus.Answers{tt.answer}, done.Calls[1].Answers)
			assert.Empty(t, done.Calls[1].Parked, "a finished call has no parking")
			assert.Equal(t, turn.Calls[0], done.Calls[0])
			assert.False(t, turn.Complete(), "the turn resumed is not changed")

			_, err = r.Resume(ctx, tools, done, tt.answer)
			assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch, "a finished call takes no answer")
		})
	}
}

// TestResumeUnknownTool resumes a call whose tool the tools given do not
// hold: it gets the error result of an unknown tool.
func TestResumeUnknownTool(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	turn, err := park.RunTurn(context.Background(), map[string]toolnexus.Tool{"deploy": deployTool(&runs)},
		toolnexus.ToolCall{ID: "1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	done, err := park.Resume(context.Background(), map[string]toolnexus.Tool{}, turn, toolnexus.Answer{ID: "approve-prod", OK: true})
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Error(`toolnexus: unknown tool "deploy"`), done.Calls[0].Result)
	assert.Empty(t, done.Calls[0].Parked)
	assert.Equal(t, int32(1), runs.Load())
}

func TestResumeSeveralRequests(t *testing.T) {
	t.Parallel()
	var seen []int
	both := func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		seen = append(seen, len(answers))
		var missing []toolnexus.Request
		for _, id := range []string{"a", "b"} {
			if _, ok := answers.Get(id); !ok {
				missing = append(missing, toolnexus.Request{ID: id, Kind: toolnexus.KindApproval, Prompt: id + "?"})
			}
		}
		if len(missing) > 0 {
			return toolnexus.PendingAll(missing...)
		}
		return toolnexus.Ok("both")
	}
	tools := map[string]toolnexus.Tool{"both": both}
	ctx := context.Background()
	turn, err := park.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "1", Name: "both"})
	require.NoError(t, err)
	require.Len(t, turn.Waiting(), 2)
	first := turn.Calls[0].Parked
	turn, err = park.Resume(ctx, tools, turn, toolnexus.Answer{ID: "b", OK: true})
	require.NoError(t, err)
	require.Len(t, turn.Waiting(), 1)
	assert.Equal(t, "a", turn.Waiting()[0].Request.ID)
	assert.NotEqual(t, first, turn.Calls[0].Parked, "each parking of the call has its own id")
	turn, err = park.Resume(ctx, tools, turn, toolnexus.Answer{ID: "a", OK: true})
	require.NoError(t, err)
	assert.True(t, turn.Complete())
	assert.Equal(t, "both", turn.Calls[0].Result.Output)
	assert.Equal(t, []int{0, 1, 2}, seen)
}

// TestToolForRunsAsTheBridgesDo checks that one tool written against
// Answers.Latest sees the answers a turn gives it as a bridge's ToolFunc
// sees them: nil first, then the latest.
func TestToolForRunsAsTheBridgesDo(t *testing.T) {
	t.Parallel()
	var latest []*toolnexus.Answer
	tools := map[string]toolnexus.Tool{"ask": toolnexus.ToolFor(func(_ context.Context, _ struct{}, as toolnexus.Answers) toolnexus.ToolResult {
		latest = append(latest, as.Latest())
		if as.Latest() == nil {
			return toolnexus.Pending(toolnexus.Request{ID: "q", Kind: toolnexus.KindQuestion, Prompt: "Why?"})
		}
		return toolnexus.Ok("because " + strings.ToLower(as.Latest().Data["answer"].(string)))
	})}
	turn, err := park.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "1", Name: "ask", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	turn, err = park.Resume(context.Background(), tools, turn, toolnexus.Answer{ID: "q", OK: true, Data: map[string]any{"answer": "BECAUSE"}})
	require.NoError(t, err)
	assert.Equal(t, "because because", turn.Calls[0].Result.Output)
	require.Len(t, latest, 2)
	assert.Nil(t, latest[0])
	assert.Equal(t, &toolnexus.Answer{ID: "q", OK: true, Data: map[string]any{"answer": "BECAUSE"}}, latest[1])
}

// TestResumeStoredTwice resumes one stored turn twice, one after the
// other, as two processes that read the same row would: the tool runs
// once, and the second gets the turn with the first run's result.
func TestResumeStoredTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"deploy": deployTool(&runs)}
	r := park.Runner{Store: park.NewMemoryStore(0, 0)}
	parked, err := r.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	ok := toolnexus.Answer{ID: "approve-prod", OK: true}

	first, err := r.Resume(ctx, tools, reread(t, parked), ok)
	require.NoError(t, err)
	second, err := r.Resume(ctx, tools, reread(t, parked), ok)
	require.NoError(t, err)
	assert.Equal(t, int32(2), runs.Load(), "the first run, then one resume")
	assert.Equal(t, toolnexus.Ok("deployed to prod"), first.Calls[0].Result)
	assert.Equal(t, first, second)

	// The same parking answered otherwise gets the result of its one run
	// too: a parking is answered once.
	declined, err := r.Resume(ctx, tools, reread(t, parked), toolnexus.Answer{ID: "approve-prod", Reason: "no"})
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), declined.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load())
}

// TestResumeStoredTwiceAtOnce resumes one stored turn twice while the
// first run still runs: the second gets ErrRunning, and the tool runs
// once.
func TestResumeStoredTwiceAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	slow := func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		if answers.Latest() == nil {
			return toolnexus.Pending(toolnexus.Request{ID: "go", Kind: toolnexus.KindApproval, Prompt: "Go?"})
		}
		close(started)
		<-release
		return toolnexus.Ok("went")
	}
	tools := map[string]toolnexus.Tool{"slow": slow}
	r := park.Runner{Store: park.NewMemoryStore(0, 0)}
	parked, err := r.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "1", Name: "slow"})
	require.NoError(t, err)
	ok := toolnexus.Answer{ID: "go", OK: true}

	var wg sync.WaitGroup
	var first toolnexus.Turn
	var firstErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		first, firstErr = r.Resume(ctx, tools, reread(t, parked), ok)
	}()
	<-started
	turn := reread(t, parked)
	second, err := r.Resume(ctx, tools, turn, ok)
	require.ErrorIs(t, err, park.ErrRunning)
	assert.EqualError(t, err, `toolnexus: the call is still running: retry later: call of "slow"`)
	assert.Equal(t, turn, second, "the turn is given back as it was")
	close(release)
	wg.Wait()
	require.NoError(t, firstErr)
	assert.Equal(t, toolnexus.Ok("went"), first.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load(), "the first run, then one resume")

	// Once the run is done, a retry gets its result.
	again, err := r.Resume(ctx, tools, reread(t, parked), ok)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Equal(t, int32(2), runs.Load())
}

// TestResumeNilTools gives Resume no tools: the answer is refused and not
// spent, and the same answer then runs with the tools.
func TestResumeNilTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"deploy": deployTool(&runs)}
	parked, err := park.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	ok := toolnexus.Answer{ID: "approve-prod", OK: true}

	same, err := park.Resume(ctx, nil, parked, ok)
	require.ErrorIs(t, err, park.ErrNilTool)
	assert.EqualError(t, err, `toolnexus: nil tool: Resume was given no tools: the answer to "approve-prod" is not spent`)
	assert.Equal(t, parked, same)
	assert.Equal(t, int32(1), runs.Load())

	done, err := park.Resume(ctx, tools, parked, ok)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), done.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load())
}

// TestResumeTurnWithoutParking resumes a turn stored before calls carried
// their parking: it is named by what the call waits on, and answered once
// all the same.
func TestResumeTurnWithoutParking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"deploy": deployTool(&runs)}
	parked, err := park.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	parked.Calls[0].Parked = ""
	ok := toolnexus.Answer{ID: "approve-prod", OK: true}
	first, err := park.Resume(ctx, tools, parked, ok)
	require.NoError(t, err)
	second, err := park.Resume(ctx, tools, parked, ok)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Equal(t, toolnexus.Ok("deployed to prod"), second.Calls[0].Result)
	assert.Equal(t, int32(2), runs.Load())
}

// TestRunTurnUnknownKey runs a ToolFor tool with a key it does not take:
// the model reads an error result naming the tool, the key and the keys
// the tool takes, and the tool does not run.
func TestRunTurnUnknownKey(t *testing.T) {
	t.Parallel()
	ran := false
	tools := map[string]toolnexus.Tool{"deploy": toolnexus.ToolFor(func(_ context.Context, in deployIn, _ toolnexus.Answers) toolnexus.ToolResult {
		ran = true
		return toolnexus.Ok("deployed to " + in.Env)
	})}
	turn, err := park.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"Env":"prod"}`)})
	require.NoError(t, err)
	assert.False(t, ran)
	assert.Equal(t, toolnexus.Error(`toolnexus: arguments of "deploy" are not what the tool takes: unknown key "Env": keys are matched exactly, did you mean "env"? (it takes "env")`), turn.Calls[0].Result)
}
