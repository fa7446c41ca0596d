package toolnexus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// runnerNow is the time the runners of these tests read.
var runnerNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

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

func TestTurnRunnerRun(t *testing.T) {
	t.Parallel()
	panics := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { panic("secret 42") }
	invalid := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput})
	}
	tools := map[string]toolnexus.Tool{"echo": echo, "panics": panics, "invalid": invalid}
	tests := []struct {
		name     string
		call     toolnexus.ToolCall
		stored   string // the call's arguments as the turn keeps them, "" for none
		output   string
		failed   bool
		parseErr bool
	}{
		{"object", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(` {"a": 1} `)}, `{"a":1}`, `{"a":1}`, false, false},
		{"no arguments", toolnexus.ToolCall{Name: "echo"}, "", `{}`, false, false},
		{"white space", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(" \n")}, "", `{}`, false, false},
		{"null", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(` null`)}, "", `{}`, false, false},
		{"not JSON", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env": prod}`)}, `"{\"env\": prod}"`,
			`toolnexus: arguments of "echo" are not JSON: invalid character 'p' looking for beginning of value`, true, false},
		{"cut short", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env":`)}, `"{\"env\":"`,
			`toolnexus: arguments of "echo" are not JSON: unexpected end of JSON input`, true, false},
		{"two values", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{} {}`)}, `"{} {}"`,
			`toolnexus: arguments of "echo" are not JSON: more than one JSON value`, true, false},
		{"not UTF-8", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage("{\"env\":\"\xff\"}")}, `"{\"env\":\"\ufffd\"}"`,
			`toolnexus: arguments of "echo" are not JSON: a string is not valid UTF-8`, true, false},
		{"lone surrogate", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"env":"\ud800"}`)}, `"{\"env\":\"\\ud800\"}"`,
			`toolnexus: arguments of "echo" are not JSON: a string is not valid UTF-8`, true, false},
		{"array", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`[1]`)}, `[1]`,
			`toolnexus: arguments of "echo" are not a JSON object but an array`, true, false},
		{"string", toolnexus.ToolCall{Name: "echo", Arguments: json.RawMessage(`"prod"`)}, `"prod"`,
			`toolnexus: arguments of "echo" are not a JSON object but a string`, true, false},
		{"unknown tool", toolnexus.ToolCall{Name: "dep\nloy", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: unknown tool "dep\nloy"`, true, false},
		{"panic", toolnexus.ToolCall{Name: "panics", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: tool panicked: "panics"`, true, false},
		{"invalid result", toolnexus.ToolCall{Name: "invalid", Arguments: json.RawMessage(`{}`)}, `{}`,
			`toolnexus: tool "invalid" returned an invalid result: invalid request: request "r" has no prompt`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			r := toolnexus.TurnRunner{Tools: tools, Logger: slog.New(slog.NewTextHandler(&log, nil))}
			tt.call.ID = "call_1"
			turn, err := r.Run(context.Background(), tt.call)
			require.NoError(t, err)
			require.Len(t, turn.Calls, 1)
			c := turn.Calls[0]
			assert.Equal(t, tt.stored, string(c.Arguments))
			assert.Equal(t, tt.output, c.Result.Output)
			assert.Equal(t, tt.failed, c.Result.IsError)
			assert.NoError(t, turn.Validate())

			stored, err := json.Marshal(turn)
			require.NoError(t, err, "the turn always marshals")
			back, err := toolnexus.ParseTurn(stored, 1<<20)
			require.NoError(t, err, "and reads back")
			assert.Equal(t, tt.stored, string(back.Calls[0].Arguments))

			if tt.name == "panic" {
				assert.Contains(t, log.String(), "secret 42", "the panic goes to the log")
				assert.Contains(t, log.String(), "stack=")
				assert.NotContains(t, c.Result.Output, "secret")
			} else {
				assert.Empty(t, log.String())
			}
		})
	}
}

func TestTurnRunnerRunKeepsOrder(t *testing.T) {
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
	turn, err := toolnexus.RunTurn(context.Background(), tools,
		toolnexus.ToolCall{ID: "1", Name: "b"},
		toolnexus.ToolCall{ID: "2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)},
		toolnexus.ToolCall{ID: "3", Name: "a"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, order)
	assert.False(t, turn.Complete())
	require.Len(t, turn.Waiting(), 1)
	assert.Equal(t, toolnexus.Wait{CallID: "2", Tool: "deploy", Request: turn.Waiting()[0].Request}, turn.Waiting()[0])
	assert.Equal(t, "approve-prod", turn.Waiting()[0].Request.ID)
}

func TestTurnRunnerRunRefusesCalls(t *testing.T) {
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
			turn, err := toolnexus.RunTurn(context.Background(), tools, tt.calls...)
			require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
			assert.EqualError(t, err, tt.err)
			assert.Empty(t, turn.Calls)
		})
	}
	assert.Zero(t, runs.Load(), "no tool ran")

	turn, err := toolnexus.RunTurn(context.Background(), tools)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, turn, "no calls: the model asked for nothing")
}

func TestTurnRunnerExpiry(t *testing.T) {
	t.Parallel()
	at := "2027-01-01T00:00:00Z"
	asks := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"},
			toolnexus.Request{ID: "b", Kind: toolnexus.KindApproval, Prompt: "B?", ExpiresAt: at},
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
			r := toolnexus.TurnRunner{Tools: map[string]toolnexus.Tool{"asks": asks}, Expiry: tt.expiry, Time: func() time.Time { return runnerNow }}
			turn, err := r.Run(context.Background(), toolnexus.ToolCall{ID: "1", Name: "asks"})
			require.NoError(t, err)
			var got []string
			for _, w := range turn.Waiting() {
				got = append(got, w.Request.ExpiresAt)
			}
			assert.Equal(t, []string{tt.want, at, tt.want}, got)

			stored, err := json.Marshal(turn)
			require.NoError(t, err)
			back, err := toolnexus.ParseTurn(stored, 1<<20)
			require.NoError(t, err)
			assert.Equal(t, turn.Waiting(), back.Waiting(), "the expiry is stored with the turn")
		})
	}
	assert.Equal(t, 10*time.Minute, toolnexus.DefaultExpiry)
}

func TestTurnRunnerResume(t *testing.T) {
	t.Parallel()
	clock := runnerNow
	var runs atomic.Int32
	r := toolnexus.TurnRunner{
		Tools: map[string]toolnexus.Tool{"deploy": deployTool(&runs), "echo": echo},
		Time:  func() time.Time { return clock },
	}
	parked, err := r.Run(context.Background(),
		toolnexus.ToolCall{ID: "call_1", Name: "echo", Arguments: json.RawMessage(`{}`)},
		toolnexus.ToolCall{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	require.Equal(t, int32(1), runs.Load())
	req := parked.Waiting()[0].Request
	assert.Equal(t, "2026-12-01T09:10:00Z", req.ExpiresAt)

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
			runs.Store(0)
			r := r
			if tt.late {
				r.Time = func() time.Time { return clock.Add(toolnexus.DefaultExpiry) }
			}
			stored, err := json.Marshal(parked)
			require.NoError(t, err)
			turn, err := toolnexus.ParseTurn(stored, 1<<20) // another process
			require.NoError(t, err)

			done, err := r.Resume(context.Background(), turn, tt.answer)
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
			assert.Equal(t, turn.Calls[0], done.Calls[0])
			assert.False(t, turn.Complete(), "the turn resumed is not changed")

			_, err = r.Resume(context.Background(), done, tt.answer)
			assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch, "a finished call takes no answer")
		})
	}
}

func TestTurnResumeSeveralRequests(t *testing.T) {
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
	turn, err := toolnexus.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "1", Name: "both"})
	require.NoError(t, err)
	require.Len(t, turn.Waiting(), 2)
	turn, err = turn.Resume(context.Background(), tools, toolnexus.Answer{ID: "b", OK: true})
	require.NoError(t, err)
	require.Len(t, turn.Waiting(), 1)
	assert.Equal(t, "a", turn.Waiting()[0].Request.ID)
	turn, err = turn.Resume(context.Background(), tools, toolnexus.Answer{ID: "a", OK: true})
	require.NoError(t, err)
	assert.True(t, turn.Complete())
	assert.Equal(t, "both", turn.Calls[0].Result.Output)
	assert.Equal(t, []int{0, 1, 2}, seen)
}

func TestToolFor(t *testing.T) {
	t.Parallel()
	type in struct {
		Env   string `json:"env"`
		Count int64  `json:"count"`
		Tags  []struct {
			Name string `json:"name"`
		} `json:"tags"`
	}
	var got in
	tool := toolnexus.ToolFor(func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
		got = v
		return toolnexus.Ok("ran")
	})
	tests := []struct {
		name   string
		args   string
		want   in
		output string
	}{
		{"exact keys", `{"env":"prod","count":9007199254740993,"tags":[{"name":"a"}]}`,
			in{Env: "prod", Count: 9007199254740993, Tags: []struct {
				Name string `json:"name"`
			}{{"a"}}}, "ran"},
		{"folded keys are ignored", `{"ENV":"prod","ſenv":"x","Count":3,"tags":[{"NAME":"a"}]}`,
			in{Tags: []struct {
				Name string `json:"name"`
			}{{""}}}, "ran"},
		{"unknown keys are ignored", `{"env":"dev","other":1}`, in{Env: "dev"}, "ran"},
		{"no arguments", ``, in{}, "ran"},
		{"wrong type", `{"env":1}`, in{},
			"toolnexus: arguments are not what the tool takes: json: cannot unmarshal number into Go struct field in.env of type string"},
		{"not an object", `[]`, in{}, "toolnexus: arguments are not a JSON object but an array"},
		{"not JSON", `{`, in{}, "toolnexus: arguments are not JSON: unexpected end of JSON input"},
		{"names one when case is folded", `{"env":"staging","Env":"prod"}`, in{},
			`toolnexus: arguments are ambiguous: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"a name twice", `{"tags":[{"name":"a","name":"b"}]}`, in{},
			`toolnexus: arguments are ambiguous: duplicate JSON key: key "name" appears twice in the object at tags[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = in{}
			r := tool(context.Background(), json.RawMessage(tt.args), nil)
			assert.Equal(t, tt.output, r.Output)
			assert.Equal(t, tt.output != "ran", r.IsError)
			assert.Equal(t, tt.want, got)
		})
	}
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
	turn, err := toolnexus.RunTurn(context.Background(), tools, toolnexus.ToolCall{ID: "1", Name: "ask", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	turn, err = turn.Resume(context.Background(), tools, toolnexus.Answer{ID: "q", OK: true, Data: map[string]any{"answer": "BECAUSE"}})
	require.NoError(t, err)
	assert.Equal(t, "because because", turn.Calls[0].Result.Output)
	require.Len(t, latest, 2)
	assert.Nil(t, latest[0])
	assert.Equal(t, &toolnexus.Answer{ID: "q", OK: true, Data: map[string]any{"answer": "BECAUSE"}}, latest[1])
}
