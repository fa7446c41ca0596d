package mcpcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	serveKey   = bytes.Repeat([]byte{7}, 32)
	serveOther = bytes.Repeat([]byte{9}, 32)
	serveNow   = time.Now().UTC().Truncate(time.Millisecond) // memory claims read the wall clock
	// newClient and oldClient take every kind of input request, on
	// 2026-07-28 and on 2025-11-25.
	newClient = mcpcall.Client{Protocol: "2026-07-28", ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true}
	oldClient = mcpcall.Client{Protocol: "2025-11-25", ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true}
)

// The exact JSON of what the tools of these tests ask and of the answers a
// client gives.
const (
	askName      = `{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Your name?"}},"required":["answer"]}}}`
	acceptAlice  = `{"action":"accept","content":{"answer":"Alice"}}`
	acceptBlue   = `{"action":"accept","content":{"answer":"blue"}}`
	invalidState = `{"reason":"invalid_request_state"}`
)

// newRunner returns a runner sealing with serveKey for audience "test",
// as so and ro configure it beyond that, and the log it writes. Its clock
// reads serveNow unless ro sets another.
func newRunner(t *testing.T, so requeststate.Options, ro mcpcall.Options) (*mcpcall.Runner, *bridgetest.Log) {
	t.Helper()
	if so.Keys == nil {
		so.Keys = [][]byte{serveKey}
	}
	if so.Audience == "" {
		so.Audience = "test"
	}
	sealer, err := requeststate.NewSealer(so)
	require.NoError(t, err)
	log := &bridgetest.Log{}
	if ro.Park.Logger == nil {
		ro.Park.Logger = log.Logger()
	}
	if ro.Park.Time == nil {
		ro.Park.Time = func() time.Time { return serveNow }
	}
	r, err := mcpcall.NewRunner(sealer, ro)
	require.NoError(t, err)
	return r, log
}

// runnerWith is newRunner with the Runner's default options.
func runnerWith(t *testing.T, o requeststate.Options) (*mcpcall.Runner, *bridgetest.Log) {
	t.Helper()
	return newRunner(t, o, mcpcall.Options{})
}

// nameTool asks for a name, then greets whoever answered.
func nameTool(runs *int) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		if runs != nil {
			*runs++
		}
		a, ok := as.Get("name")
		if !ok {
			return toolnexus.Pending(toolnexus.Request{ID: "name", Kind: toolnexus.KindInput, Prompt: "Your name?"})
		}
		if !a.OK {
			return toolnexus.Error("no name: " + a.Reason)
		}
		return toolnexus.Ok(fmt.Sprintf("Hello, %v!", a.Data["answer"]))
	}
}

// wire returns the JSON of res with its requestState replaced by STATE.
func wire(t *testing.T, res toolnexus.MCPCallToolResult) string {
	t.Helper()
	if res.RequestState != "" {
		res.RequestState = "STATE"
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b)
}

// retry returns the call that answers res with responses.
func retry(c mcpcall.Call, res toolnexus.MCPCallToolResult, responses map[string]string) mcpcall.Call {
	c.RequestState = res.RequestState
	c.InputResponses = map[string]json.RawMessage{}
	for id, r := range responses {
		c.InputResponses[id] = json.RawMessage(r)
	}
	return c
}

func TestRunnerRunRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		client mcpcall.Client
		done   string
	}{
		{"2026-07-28", newClient, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`},
		{"2025-11-25", oldClient, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			runs := 0
			c := mcpcall.Call{Tool: "greet", Arguments: json.RawMessage(`{"lang":"en"}`), Client: tc.client}
			res, err := s.Run(context.Background(), c, nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, `{"content":null,"isError":false,"resultType":"input_required","inputRequests":{"name":`+askName+`},"requestState":"STATE"}`, wire(t, res))

			// The arguments are compared in their canonical form.
			c.Arguments = json.RawMessage(` { "lang" : "en" } `)
			res, err = s.Run(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, tc.done, wire(t, res))
			assert.Equal(t, 2, runs)
		})
	}
}

func TestRunnerRunInvalidState(t *testing.T) {
	t.Parallel()
	call := mcpcall.Call{Tool: "greet", Arguments: json.RawMessage(`{"lang":"en"}`), Principal: "alice", Client: newClient}
	for _, tc := range []struct {
		name   string
		opts   requeststate.Options // of the server that gets the retry
		change func(c *mcpcall.Call)
		at     time.Duration // after serveNow
		want   error
	}{
		{name: "tampered", change: func(c *mcpcall.Call) { c.RequestState += "-TAMPERED" }, want: requeststate.ErrInvalidState},
		{name: "flipped", change: func(c *mcpcall.Call) { c.RequestState = flip(c.RequestState) }, want: requeststate.ErrInvalidState},
		{name: "malformed", change: func(c *mcpcall.Call) { c.RequestState = "not a state" }, want: requeststate.ErrInvalidState},
		{name: "another key", opts: requeststate.Options{Keys: [][]byte{serveOther}}, want: requeststate.ErrInvalidState},
		{name: "another audience", opts: requeststate.Options{Audience: "other"}, want: requeststate.ErrMismatch},
		{name: "another tool", change: func(c *mcpcall.Call) { c.Tool = "deploy" }, want: requeststate.ErrMismatch},
		{name: "other arguments", change: func(c *mcpcall.Call) { c.Arguments = json.RawMessage(`{"lang":"fr"}`) }, want: requeststate.ErrMismatch},
		{name: "another principal", change: func(c *mcpcall.Call) { c.Principal = "mallory" }, want: requeststate.ErrMismatch},
		{name: "no principal", change: func(c *mcpcall.Call) { c.Principal = "" }, want: requeststate.ErrMismatch},
		{name: "expired", at: requeststate.DefaultMaxAge, want: toolnexus.ErrExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			runs := 0
			res, err := s.Run(context.Background(), call, nameTool(&runs))
			require.NoError(t, err)

			other, log := newRunner(t, tc.opts, mcpcall.Options{Park: park.Runner{Time: func() time.Time { return serveNow.Add(tc.at) }}})
			c := retry(call, res, map[string]string{"name": acceptAlice})
			if tc.change != nil {
				tc.change(&c)
			}
			_, err = other.Run(context.Background(), c, nameTool(&runs))
			assertInvalidState(t, err, tc.want)
			assert.Equal(t, 1, runs, "the tool ran on a state that does not open")
			assert.Contains(t, log.String(), "request state refused")
			assert.Contains(t, log.String(), strings.TrimPrefix(tc.want.Error(), "toolnexus: "))
		})
	}
}

// assertInvalidState asserts that err is the JSON-RPC error of a state that
// does not open, for the reason want.
func assertInvalidState(t *testing.T, err error, want error) {
	t.Helper()
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32602, e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.JSONEq(t, invalidState, string(e.Data))
	assert.Equal(t, invalidState, string(e.Data))
	assert.ErrorIs(t, err, want)
}

// flip returns state with one character of its middle changed.
func flip(state string) string {
	b := []byte(state)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestRunnerRunSingleUse(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	runs := 0
	call := mcpcall.Call{Tool: "greet", Client: newClient}
	res, err := s.Run(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	answer := retry(call, res, map[string]string{"name": acceptAlice})

	// A malformed answer does not use the state up.
	_, err = s.Run(context.Background(), retry(call, res, map[string]string{"name": `{"action":"maybe"}`}), nameTool(&runs))
	require.Error(t, err)
	done, err := s.Run(context.Background(), answer, nameTool(&runs))
	require.NoError(t, err)
	const hello = `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`
	assert.Equal(t, hello, wire(t, done))

	// By default, a retry of the answered state gets the first run's
	// result, the same bytes, and the tool does not run again; another
	// Runner that shares nothing with s is another deployment.
	for range 3 {
		again, err := s.Run(context.Background(), answer, nameTool(&runs))
		require.NoError(t, err)
		assert.Equal(t, hello, wire(t, again))
	}
	assert.Equal(t, 2, runs, "the first call, and the answer's one run")
	assert.Contains(t, log.String(), "kept reply")

	// The same answered state with other responses is the same parking:
	// it gets the same result.
	other, err := s.Run(context.Background(), retry(call, res, map[string]string{"name": `{"action":"accept","content":{"answer":"Bob"}}`}), nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, hello, wire(t, other))
	assert.Equal(t, 2, runs)
}

// TestRunnerRunRetryWhileRunning retries an answered state while its
// first run still goes on: the retry is told to come back, the tool runs
// once, and a retry after it ends gets its result.
func TestRunnerRunRetryWhileRunning(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	slow := func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		if len(answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{ID: "go", Kind: toolnexus.KindApproval, Prompt: "Go?"})
		}
		runs.Add(1)
		close(started)
		<-release
		return toolnexus.Ok("went")
	}
	call := mcpcall.Call{Tool: "slow", Client: newClient}
	res, err := s.Run(context.Background(), call, slow)
	require.NoError(t, err)
	answer := retry(call, res, map[string]string{"go": `{"action":"accept"}`})
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), answer, slow)
		done <- err
	}()
	<-started
	_, err = s.Run(context.Background(), answer, slow)
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, "Call still running: retry later", e.Message)
	assert.JSONEq(t, `{"reason":"call_in_progress"}`, string(e.Data))
	assert.ErrorIs(t, err, park.ErrRunning)
	close(release)
	require.NoError(t, <-done)
	again, err := s.Run(context.Background(), answer, slow)
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"went"}],"isError":false,"resultType":"complete"}`, wire(t, again))
	assert.Equal(t, int32(1), runs.Load())
}

// downClaims is a claim store that cannot be reached.
type downClaims struct{}

func (downClaims) Claim(context.Context, string, []byte, time.Time) ([]byte, error) {
	return nil, errors.New("connection refused")
}

func (downClaims) Finish(context.Context, string, []byte, time.Time) error {
	return errors.New("connection refused")
}

func TestRunnerRunClaimStoreDown(t *testing.T) {
	t.Parallel()
	s, log := newRunner(t, requeststate.Options{}, mcpcall.Options{Park: park.Runner{Store: downClaims{}}})
	runs := 0
	call := mcpcall.Call{Tool: "greet", Client: newClient}
	res, err := s.Run(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	_, err = s.Run(context.Background(), retry(call, res, map[string]string{"name": acceptAlice}), nameTool(&runs))
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.Nil(t, e.Data)
	assert.ErrorIs(t, err, park.ErrStore)
	assert.Equal(t, 1, runs, "the tool did not run unchecked")
	assert.Contains(t, log.String(), "connection refused")
}

func TestRunnerRunReasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		responses map[string]string
	}{
		{"no answer", nil},
		{"empty", map[string]string{}},
		{"other ids only", map[string]string{"wrong_key": acceptAlice}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			runs := 0
			call := mcpcall.Call{Tool: "greet", Client: newClient}
			first, err := s.Run(context.Background(), call, nameTool(&runs))
			require.NoError(t, err)
			again, err := s.Run(context.Background(), retry(call, first, tc.responses), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, wire(t, first), wire(t, again))
			assert.NotEqual(t, first.RequestState, again.RequestState)
			assert.Equal(t, 1, runs, "the tool ran again without its answer")

			// The new state works.
			done, err := s.Run(context.Background(), retry(call, again, map[string]string{"name": acceptAlice}), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
		})
	}
}

func TestRunnerRunIgnoresExtraKeys(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	call := mcpcall.Call{Tool: "greet", Client: newClient}
	first, err := s.Run(context.Background(), call, nameTool(nil))
	require.NoError(t, err)
	extra := map[string]string{"name": acceptAlice, "unknown_extra_key": `{"action":"accept","content":{"foo":"bar"}}`, "another": `12345`}
	done, err := s.Run(context.Background(), retry(call, first, extra), nameTool(nil))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
}

func TestRunnerRunAnsweredUpFront(t *testing.T) {
	t.Parallel()
	// A first call whose inputResponses answer what the tool asks
	// completes, as the conformance suite's ignore-extra-params expects.
	s, _ := runnerWith(t, requeststate.Options{})
	runs := 0
	call := retry(mcpcall.Call{Tool: "greet", Client: newClient}, toolnexus.MCPCallToolResult{},
		map[string]string{"name": acceptAlice, "unknown_extra_key": acceptBlue})
	done, err := s.Run(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
	assert.Equal(t, 2, runs)
}

// envTool asks for an environment with a schema, then reports the
// answer's data.
func envTool(runs *int) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		*runs++
		a, ok := as.Get("env")
		if !ok {
			return toolnexus.Pending(toolnexus.Request{ID: "env", Kind: toolnexus.KindInput, Prompt: "Where to?", Data: map[string]any{"schema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"env":   map[string]any{"type": "string", "enum": []any{"dev", "prod"}},
					"count": map[string]any{"type": "integer", "minimum": 1, "default": 1},
				},
				"required": []any{"env"},
			}}})
		}
		b, _ := json.Marshal(a.Data)
		return toolnexus.Ok(string(b))
	}
}

func TestRunnerRunRefusedAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, response string
		want           error
	}{
		{"unknown action", `{"action":"maybe"}`, toolnexus.ErrInvalidMCP},
		{"not an object", `12345`, toolnexus.ErrInvalidMCP},
		{"null", `null`, toolnexus.ErrInvalidMCP},
		{"wrong type", `{"action":"accept","content":{"env":42}}`, toolnexus.ErrInvalidAnswer},
		{"missing required", `{"action":"accept","content":{"count":2}}`, toolnexus.ErrInvalidAnswer},
		{"outside the enum", `{"action":"accept","content":{"env":"qa"}}`, toolnexus.ErrInvalidAnswer},
		{"an operator object", `{"action":"accept","content":{"env":{"$ne":""}}}`, toolnexus.ErrInvalidAnswer},
		{"under the minimum", `{"action":"accept","content":{"env":"dev","count":0}}`, toolnexus.ErrInvalidAnswer},
		{"unknown field only", `{"action":"accept","content":{"answer":"prod"}}`, toolnexus.ErrInvalidAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, log := runnerWith(t, requeststate.Options{})
			runs := 0
			call := mcpcall.Call{Tool: "env", Client: newClient}
			first, err := s.Run(context.Background(), call, envTool(&runs))
			require.NoError(t, err)
			_, err = s.Run(context.Background(), retry(call, first, map[string]string{"env": tc.response}), envTool(&runs))
			var e *mcpcall.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, -32602, e.Code)
			assert.True(t, strings.HasPrefix(e.Message, `Invalid inputResponses: `), e.Message)
			assert.Contains(t, e.Message, `request "env"`)
			assert.NotContains(t, e.Message, "toolnexus:")
			assert.NotContains(t, e.Message, "$ne", "the message quotes no answer")
			assert.Nil(t, e.Data)
			assert.ErrorIs(t, err, tc.want)
			assert.Equal(t, 1, runs, "the tool ran on an answer it did not ask for")
			assert.Contains(t, log.String(), "call refused")
		})
	}
	t.Run("defaults applied", func(t *testing.T) {
		t.Parallel()
		s, _ := runnerWith(t, requeststate.Options{})
		runs := 0
		call := mcpcall.Call{Tool: "env", Client: oldClient}
		first, err := s.Run(context.Background(), call, envTool(&runs))
		require.NoError(t, err)
		done, err := s.Run(context.Background(), retry(call, first, map[string]string{"env": `{"action":"accept","content":{"env":"prod"}}`}), envTool(&runs))
		require.NoError(t, err)
		assert.Equal(t, `{"content":[{"type":"text","text":"{\"count\":1,\"env\":\"prod\"}"}],"isError":false}`, wire(t, done))
	})
}

func TestRunnerRunSamplingAndRoots(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	var seen toolnexus.Answers
	tool := func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		seen = as
		if len(as) > 0 {
			return toolnexus.Ok("done")
		}
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "greeting", Kind: toolnexus.KindSampling, Prompt: "A greeting", Data: map[string]any{
				"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Generate a greeting"}}}, "maxTokens": 50}},
			toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Your roots"},
		)
	}
	call := mcpcall.Call{Tool: "t", Client: newClient}
	first, err := s.Run(context.Background(), call, tool)
	require.NoError(t, err)
	assert.Equal(t, `{"content":null,"isError":false,"resultType":"input_required","inputRequests":{`+
		`"client_roots":{"method":"roots/list","params":{}},`+
		`"greeting":{"method":"sampling/createMessage","params":{"maxTokens":50,"messages":[{"content":{"text":"Generate a greeting","type":"text"},"role":"user"}]}}},"requestState":"STATE"}`, wire(t, first))
	done, err := s.Run(context.Background(), retry(call, first, map[string]string{
		"greeting":     `{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"m"}`,
		"client_roots": `{"roots":[{"uri":"file:///work","name":"work"}]}`,
	}), tool)
	require.NoError(t, err)
	assert.Equal(t, "complete", done.ResultType)
	b, err := json.Marshal(seen)
	require.NoError(t, err)
	assert.Equal(t, `[{"id":"greeting","ok":true,"data":{"content":{"text":"Hello there!","type":"text"},"model":"m","role":"assistant"}},`+
		`{"id":"client_roots","ok":true,"data":{"roots":[{"name":"work","uri":"file:///work"}]}}]`, string(b))
}

func TestRunnerRunCapabilities(t *testing.T) {
	t.Parallel()
	login := toolnexus.AuthRequired("https://example.com/login", "Log in")
	sampling := toolnexus.Pending(toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "Summarise",
		Data: map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hi"}}}, "maxTokens": 10}})
	roots := toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindRoots, Prompt: "Your roots"})
	form := toolnexus.Pending(toolnexus.Request{ID: "f", Kind: toolnexus.KindApproval, Prompt: "Deploy?"})
	all := toolnexus.PendingAll(
		toolnexus.Request{ID: "f", Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
		toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "Summarise", Data: map[string]any{"messages": []any{}, "maxTokens": 10}},
		toolnexus.Request{ID: "u", Kind: toolnexus.KindAuthorization, Prompt: "Log in", URL: "https://example.com/login"},
		toolnexus.Request{ID: "r", Kind: toolnexus.KindRoots, Prompt: "Your roots"},
	)
	for _, tc := range []struct {
		name    string
		client  mcpcall.Client
		result  toolnexus.ToolResult
		message string
		data    string
	}{
		{"form without elicitation", mcpcall.Client{Sampling: true, Roots: true}, form,
			"Missing required client capability: elicitation.form", `{"requiredCapabilities":{"roots":{},"elicitation":{"form":{}}}}`},
		{"url with form only", mcpcall.Client{ElicitForm: true}, login,
			"Missing required client capability: elicitation.url", `{"requiredCapabilities":{"roots":{},"elicitation":{"url":{}}}}`},
		{"sampling", mcpcall.Client{ElicitForm: true}, sampling,
			"Missing required client capability: sampling", `{"requiredCapabilities":{"roots":{},"sampling":{}}}`},
		{"roots", mcpcall.Client{ElicitForm: true}, roots,
			"Missing required client capability: roots", `{"requiredCapabilities":{"roots":{}}}`},
		{"every kind", mcpcall.Client{}, all,
			"Missing required client capability: elicitation.form, sampling, elicitation.url, roots", `{"requiredCapabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			tool := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { return tc.result }

			c := mcpcall.Call{Tool: "t", Client: tc.client}
			c.Client.Protocol = "2026-07-28"
			_, err := s.Run(context.Background(), c, tool)
			var e *mcpcall.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, -32021, e.Code)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, tc.data, string(e.Data))
			assert.ErrorIs(t, err, mcpcall.ErrMissingCapability)

			// An older protocol gets the suspension's text.
			c.Client.Protocol = "2025-11-25"
			res, err := s.Run(context.Background(), c, tool)
			require.NoError(t, err)
			assert.Equal(t, wire(t, tc.result.MCPCallToolResult()), wire(t, res))
			assert.True(t, res.IsError)
			assert.Empty(t, res.ResultType)
		})
	}
}

func TestRunnerRunURLElicitation(t *testing.T) {
	t.Parallel()
	login := toolnexus.AuthRequired("https://example.com/login", "Log in")
	req, _ := toolnexus.PendingOf(login)
	tool := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { return login }
	for _, tc := range []struct {
		name   string
		client mcpcall.Client
		params string
	}{
		{"2026-07-28", newClient, `{"mode":"url","message":"Log in","url":"https://example.com/login"}`},
		{"2025-11-25", oldClient, `{"mode":"url","message":"Log in","url":"https://example.com/login","elicitationId":"` + req.ID + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			res, err := s.Run(context.Background(), mcpcall.Call{Tool: "login", Client: tc.client}, tool)
			require.NoError(t, err)
			require.Contains(t, res.InputRequests, req.ID)
			assert.Equal(t, "elicitation/create", res.InputRequests[req.ID].Method)
			assert.Equal(t, tc.params, string(res.InputRequests[req.ID].Params))
		})
	}
}

func TestRunnerRunSeveralRequests(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	var seen toolnexus.Answers
	tool := func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		seen = as
		_, name := as.Get("name")
		_, color := as.Get("color")
		if name && color {
			return toolnexus.Ok("done")
		}
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "name", Kind: toolnexus.KindInput, Prompt: "Your name?"},
			toolnexus.Request{ID: "color", Kind: toolnexus.KindInput, Prompt: "Your color?"},
		)
	}
	call := mcpcall.Call{Tool: "t", Client: newClient}
	first, err := s.Run(context.Background(), call, tool)
	require.NoError(t, err)
	assert.Len(t, first.InputRequests, 2)

	// One of two answers: the other is asked again, alone.
	half, err := s.Run(context.Background(), retry(call, first, map[string]string{"name": acceptAlice}), tool)
	require.NoError(t, err)
	assert.Equal(t, []string{"color"}, keys(half.InputRequests))
	assert.Empty(t, seen)

	done, err := s.Run(context.Background(), retry(call, half, map[string]string{"color": acceptBlue}), tool)
	require.NoError(t, err)
	assert.Equal(t, "complete", done.ResultType)
	assert.Equal(t, toolnexus.Answers{
		{ID: "name", OK: true, Data: map[string]any{"answer": "Alice"}},
		{ID: "color", OK: true, Data: map[string]any{"answer": "blue"}},
	}, seen)
}

// keys returns the keys of m, sorted.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	if len(out) == 2 && out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// stepsTool asks for a name, then for a color, then reports both and
// every answer it was given.
func stepsTool(seen *toolnexus.Answers) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		*seen = as
		name, ok := as.Get("step1")
		if !ok {
			return toolnexus.Pending(toolnexus.Request{ID: "step1", Kind: toolnexus.KindInput, Prompt: "Your name?"})
		}
		color, ok := as.Get("step2")
		if !ok {
			return toolnexus.Pending(toolnexus.Request{ID: "step2", Kind: toolnexus.KindInput, Prompt: "Your color?"})
		}
		return toolnexus.Ok(fmt.Sprintf("%v likes %v", name.Data["answer"], color.Data["answer"]))
	}
}

func TestRunnerRunMultiRound(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	var seen toolnexus.Answers
	call := mcpcall.Call{Tool: "steps", Client: newClient}
	r1, err := s.Run(context.Background(), call, stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step1"}, keys(r1.InputRequests))
	r2, err := s.Run(context.Background(), retry(call, r1, map[string]string{"step1": acceptAlice}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step2"}, keys(r2.InputRequests))
	assert.NotEqual(t, r1.RequestState, r2.RequestState)
	assert.NotContains(t, r2.RequestState, "Alice")
	r3, err := s.Run(context.Background(), retry(call, r2, map[string]string{"step2": acceptBlue}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Alice likes blue"}],"isError":false,"resultType":"complete"}`, wire(t, r3))
	assert.Len(t, seen, 2)

	// The first round's state answered again is a new call of round 2.
	again, err := s.Run(context.Background(), retry(call, r1, map[string]string{"step1": acceptBlue}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step2"}, keys(again.InputRequests))
}

func TestRunnerRunAsk(t *testing.T) {
	t.Parallel()
	// A client on an older protocol is asked through its session, round
	// after round, within one call.
	s, _ := runnerWith(t, requeststate.Options{})
	var (
		seen  toolnexus.Answers
		asked []string
	)
	c := mcpcall.Call{Tool: "steps", Client: oldClient,
		Ask: func(_ context.Context, id string, r toolnexus.MCPInputRequest) (json.RawMessage, error) {
			asked = append(asked, id+" "+r.Method)
			if id == "step1" {
				return json.RawMessage(acceptAlice), nil
			}
			return json.RawMessage(acceptBlue), nil
		}}
	res, err := s.Run(context.Background(), c, stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Alice likes blue"}],"isError":false}`, wire(t, res))
	assert.Equal(t, []string{"step1 elicitation/create", "step2 elicitation/create"}, asked)
	assert.Len(t, seen, 2)
}

func TestRunnerRunAskFails(t *testing.T) {
	t.Parallel()
	refused := &mcpcall.Error{Code: -32602, Message: "Invalid elicitation result", Err: toolnexus.ErrInvalidMCP}
	for _, tc := range []struct {
		name    string
		err     error
		code    int
		message string
	}{
		{"transport", errors.New("connection closed"), -32603, "Internal error"},
		{"refused answer", refused, -32602, "Invalid elicitation result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := runnerWith(t, requeststate.Options{})
			runs := 0
			c := mcpcall.Call{Tool: "greet", Client: oldClient,
				Ask: func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) { return nil, tc.err }}
			_, err := s.Run(context.Background(), c, nameTool(&runs))
			var e *mcpcall.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, 1, runs)
		})
	}
}

func TestRunnerRunAskBounded(t *testing.T) {
	t.Parallel()
	s, _ := runnerWith(t, requeststate.Options{})
	asks := 0
	c := mcpcall.Call{Tool: "greet", Client: oldClient,
		Ask: func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) {
			asks++
			return json.RawMessage(acceptAlice), nil
		}}
	// A tool that never finishes asking.
	tool := func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: fmt.Sprint("q", len(as)), Kind: toolnexus.KindInput, Prompt: "Again?"})
	}
	_, err := s.Run(context.Background(), c, tool)
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, 9, asks)
}

func TestRunnerRunPanic(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	tool := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { panic("boom") }
	res, err := s.Run(context.Background(), mcpcall.Call{Tool: "t", Client: newClient}, tool)
	require.NoError(t, err, "a panic is an error result, as on every carrier")
	assert.Equal(t, `{"content":[{"type":"text","text":"toolnexus: tool panicked: \"t\""}],"isError":true,"resultType":"complete"}`, wire(t, res))
	assert.Contains(t, log.String(), "panic=boom")
	assert.Contains(t, log.String(), "runner_test.go")
}

// TestRunnerExpiry checks how long a request asked without ExpiresAt can
// be answered: the park.Runner's Expiry, park.DefaultExpiry when it is zero,
// and never past the Sealer's maximum age.
func TestRunnerExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		so     requeststate.Options
		expiry time.Duration
		want   time.Duration
	}{
		{"a minute", requeststate.Options{}, time.Minute, time.Minute},
		{"the default", requeststate.Options{}, 0, park.DefaultExpiry},
		{"an hour", requeststate.Options{}, time.Hour, time.Hour},
		{"past the maximum age", requeststate.Options{MaxAge: 2 * time.Hour}, 3 * time.Hour, 2 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			now := serveNow
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			s, _ := newRunner(t, tc.so, mcpcall.Options{Park: park.Runner{Expiry: tc.expiry, Time: clock}})
			call := mcpcall.Call{Tool: "greet", Client: newClient}
			res, err := s.Run(context.Background(), call, nameTool(nil))
			require.NoError(t, err)
			at, err := requeststate.Expiry(res.RequestState)
			require.NoError(t, err)
			assert.Equal(t, serveNow.Add(tc.want), at)

			mu.Lock()
			now = serveNow.Add(tc.want - time.Millisecond)
			mu.Unlock()
			done, err := s.Run(context.Background(), retry(call, res, map[string]string{"name": acceptAlice}), nameTool(nil))
			require.NoError(t, err)
			assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
			mu.Lock()
			now = serveNow.Add(tc.want)
			mu.Unlock()
			_, err = s.Run(context.Background(), retry(call, res, map[string]string{"name": acceptAlice}), nameTool(nil))
			assertInvalidState(t, err, toolnexus.ErrExpired)
		})
	}
}

func TestRunnerRunBrokenSuspension(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		r       toolnexus.ToolResult
		want    string
		invalid bool // the result fails Validate
	}{
		{"no prompt", toolnexus.Pending(toolnexus.Request{ID: "q", Kind: toolnexus.KindInput}), `request \"q\" has no prompt`, true},
		{"an ID twice", toolnexus.PendingAll(
			toolnexus.Request{ID: "q", Kind: toolnexus.KindApproval, Prompt: "Go?"},
			toolnexus.Request{ID: "q", Kind: toolnexus.KindApproval, Prompt: "Really?"}), `returned an invalid result`, true},
		{"sampling without messages", toolnexus.Pending(toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "Hi"}), `request "s"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, log := runnerWith(t, requeststate.Options{})
			res, err := s.Run(context.Background(), mcpcall.Call{Tool: "t", Client: newClient},
				func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { return tc.r })
			if tc.invalid {
				// The model reads why, as on every carrier.
				require.NoError(t, err)
				assert.True(t, res.IsError)
				assert.Contains(t, wire(t, res), tc.want)
				assert.Contains(t, log.String(), "tool returned an invalid result")
				return
			}
			var e *mcpcall.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, -32603, e.Code)
			assert.Equal(t, "Internal error", e.Message)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidRequest)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, log.String(), "MCP call failed")
		})
	}
}

// TestRunnerZero checks that the zero Runner, which has no Sealer,
// answers every call with an internal error, and runs no tool.
func TestRunnerZero(t *testing.T) {
	t.Parallel()
	var s mcpcall.Runner
	runs := 0
	_, err := s.Run(context.Background(), mcpcall.Call{Tool: "t"}, nameTool(&runs))
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.Zero(t, runs)
}

func TestNewRunner(t *testing.T) {
	t.Parallel()
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{serveKey}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		sealer  *requeststate.Sealer
		o       mcpcall.Options
		wantMsg string
	}{
		{"no sealer", nil, mcpcall.Options{}, "toolnexus: invalid MCP runner options: no Sealer"},
		{"negative refusal lines", sealer, mcpcall.Options{RefusalLines: -1}, "toolnexus: invalid MCP runner options: RefusalLines -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := mcpcall.NewRunner(tc.sealer, tc.o)
			require.ErrorIs(t, err, mcpcall.ErrInvalidOptions)
			assert.EqualError(t, err, tc.wantMsg)
			assert.Nil(t, s)
		})
	}
}

// TestRunnerKeys answers, on a runner whose Sealer rotated its key, a
// state sealed before the rotation with the older key.
func TestRunnerKeys(t *testing.T) {
	t.Parallel()
	old, _ := runnerWith(t, requeststate.Options{})
	s, _ := runnerWith(t, requeststate.Options{Keys: [][]byte{serveOther, serveKey}})

	c := mcpcall.Call{Tool: "greet", Arguments: json.RawMessage(`{}`), Client: newClient}
	res, err := old.Run(context.Background(), c, nameTool(nil))
	require.NoError(t, err)
	done, err := s.Run(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(nil))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))

	// Sealed with the new key, the state no longer opens on the old server.
	res, err = s.Run(context.Background(), c, nameTool(nil))
	require.NoError(t, err)
	_, err = old.Run(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(nil))
	var mcpErr *mcpcall.Error
	require.ErrorAs(t, err, &mcpErr)
	assert.Equal(t, -32602, mcpErr.Code)
}

// TestRunnerRunRefusesAmbiguousArguments checks that arguments whose
// objects repeat a name, or hold names that are one when case is folded,
// are refused with -32602 on the first call and on a retry whose state was
// sealed for the unambiguous arguments, and that the tool never runs with
// them.
func TestRunnerRunRefusesAmbiguousArguments(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	runs := 0
	tool := nameTool(&runs)
	first, err := s.Run(context.Background(), mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"staging"}`), Client: newClient}, tool)
	require.NoError(t, err)
	require.Equal(t, 1, runs)
	for _, tt := range []struct {
		name, args, msg string
	}{
		{"folded", `{"env":"staging","Env":"prod"}`,
			`Invalid arguments: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"escaped and folded", `{"\u0045nv":"prod","env":"staging"}`,
			`Invalid arguments: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"Kelvin sign", `{"env":"staging","o":{"k":1,"\u212a":2}}`,
			`Invalid arguments: duplicate JSON key: keys "k" and "\u212a" in the object at o are one key when case is folded, as encoding/json folds it`},
		{"twice", `{"env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: key "env" appears twice in the top-level object`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []mcpcall.Call{
				{Tool: "deploy", Arguments: json.RawMessage(tt.args), Client: newClient},
				retry(mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(tt.args), Client: newClient}, first, map[string]string{"name": acceptAlice}),
			} {
				_, err := s.Run(context.Background(), c, tool)
				var e *mcpcall.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, mcpcall.CodeInvalidParams, e.Code)
				assert.Equal(t, tt.msg, e.Message)
				assert.ErrorIs(t, err, toolnexus.ErrDuplicateKey)
			}
			assert.Equal(t, 1, runs, "the tool never runs with them")
		})
	}
	assert.Contains(t, log.String(), "duplicate JSON key")
	// The unambiguous retry still finishes.
	res, err := s.Run(context.Background(), retry(mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(`{ "env" : "staging" }`), Client: newClient}, first, map[string]string{"name": acceptAlice}), tool)
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, res))
}

// TestRunnerThrottlesRefusals checks that a client's refused states log
// at most DefaultRefusalLines lines a second, the next line counting those left
// out, and that a replay logs apart from a forged state.
func TestRunnerThrottlesRefusals(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := serveNow
	s, log := newRunner(t, requeststate.Options{},
		mcpcall.Options{Park: park.Runner{Time: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}})
	forged := mcpcall.Call{Tool: "name", RequestState: "tn1.forged", Client: newClient}
	for range 25 {
		_, err := s.Run(context.Background(), forged, nameTool(nil))
		require.ErrorIs(t, err, requeststate.ErrInvalidState)
	}
	assert.Equal(t, mcpcall.DefaultRefusalLines, strings.Count(log.String(), "msg=\"toolnexus: MCP request state refused\""))
	assert.NotContains(t, log.String(), "suppressed")
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()

	first, err := s.Run(context.Background(), mcpcall.Call{Tool: "name", Client: newClient}, nameTool(nil))
	require.NoError(t, err)
	again := retry(mcpcall.Call{Tool: "name", Client: newClient}, first, map[string]string{"name": acceptAlice})
	_, err = s.Run(context.Background(), again, nameTool(nil))
	require.NoError(t, err)
	_, err = s.Run(context.Background(), again, nameTool(nil))
	require.NoError(t, err, "a retry gets the first run's result")
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	last := lines[len(lines)-1]
	assert.Contains(t, last, `level=INFO msg="toolnexus: MCP retry answered with the kept reply" tool=name`)
	assert.Contains(t, last, "suppressed=15")
	assert.Equal(t, mcpcall.DefaultRefusalLines+1, len(lines))
}

// TestRunnerRunAuthenticatedWithoutPrincipal refuses an authenticated
// call that names no user with -32603, and never runs the tool.
func TestRunnerRunAuthenticatedWithoutPrincipal(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	runs := 0
	_, err := s.Run(context.Background(), mcpcall.Call{Tool: "name", Authenticated: true, Client: newClient}, nameTool(&runs))
	var e *mcpcall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, mcpcall.CodeInternalError, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.ErrorIs(t, err, mcpcall.ErrNoPrincipal)
	assert.Equal(t, 0, runs)
	assert.Contains(t, log.String(), `err="toolnexus: authenticated call without a principal: call of \"name\": its token names no subject"`)
	_, err = s.Run(context.Background(), mcpcall.Call{Tool: "name", Authenticated: true, Principal: requeststate.Principal("https://issuer.example", "alice"), Client: newClient}, nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, 1, runs)
}

// TestRunnerPanicKeepsClaim runs a tool that panics once it has its
// answer: the call is the error result, and its state stays claimed, so
// the same retry gets the same result, and the tool does not run again.
func TestRunnerPanicKeepsClaim(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	runs := 0
	tool := func(ctx context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		if len(as) > 0 {
			runs++
			panic("after it acted")
		}
		return nameTool(nil)(ctx, nil, as)
	}
	c := mcpcall.Call{Tool: "name", Client: newClient}
	first, err := s.Run(context.Background(), c, tool)
	require.NoError(t, err)
	again := retry(c, first, map[string]string{"name": acceptAlice})
	const panicked = `{"content":[{"type":"text","text":"toolnexus: tool panicked: \"name\""}],"isError":true,"resultType":"complete"}`
	res, err := s.Run(context.Background(), again, tool)
	require.NoError(t, err)
	assert.Equal(t, panicked, wire(t, res))
	res, err = s.Run(context.Background(), again, tool)
	require.NoError(t, err)
	assert.Equal(t, panicked, wire(t, res), "the retry gets the same result")
	assert.Equal(t, 1, runs, "the tool ran once")
	assert.Contains(t, log.String(), `msg="toolnexus: MCP retry answered with the kept reply"`)
	assert.NotContains(t, log.String(), `msg="toolnexus: MCP request state refused"`)
}

// TestRunnerRunSelfReferringData runs a tool that suspends on a
// Request whose Data holds itself: the model reads an error result, the
// reason is logged, and the server goes on.
func TestRunnerRunSelfReferringData(t *testing.T) {
	t.Parallel()
	s, log := runnerWith(t, requeststate.Options{})
	for _, client := range []mcpcall.Client{newClient, oldClient} {
		for _, kind := range []string{toolnexus.KindInput, toolnexus.KindSampling} {
			tool := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
				return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: kind, Prompt: "p", Data: selfMap()})
			}
			c := mcpcall.Call{Tool: "t", Client: client}
			if client.Protocol == oldClient.Protocol {
				c.Ask = func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) {
					return nil, errors.New("never asked")
				}
			}
			res, err := s.Run(context.Background(), c, tool)
			require.NoError(t, err, "%s %s", client.Protocol, kind)
			assert.True(t, res.IsError)
			assert.Contains(t, wire(t, res), "returned an invalid result")
		}
	}
	assert.Contains(t, log.String(), "data nests deeper than 10000 levels, or holds itself")
}

// selfMap returns a map that holds itself.
func selfMap() map[string]any {
	m := map[string]any{"a": 1.0}
	m["self"] = m
	return m
}

// TestRunnerRefusalLines checks that Options.RefusalLines sets how many
// lines refused calls log in a second.
func TestRunnerRefusalLines(t *testing.T) {
	t.Parallel()
	s, log := newRunner(t, requeststate.Options{}, mcpcall.Options{RefusalLines: 3})
	forged := mcpcall.Call{Tool: "name", RequestState: "tn1.forged", Client: newClient}
	for range 10 {
		_, err := s.Run(context.Background(), forged, nameTool(nil))
		require.ErrorIs(t, err, requeststate.ErrInvalidState)
	}
	assert.Equal(t, 3, strings.Count(log.String(), `msg="toolnexus: MCP request state refused"`))
}
