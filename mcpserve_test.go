package toolnexus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

var (
	serveKey   = bytes.Repeat([]byte{7}, 32)
	serveOther = bytes.Repeat([]byte{9}, 32)
	serveNow   = time.Now().UTC().Truncate(time.Millisecond) // memory claims read the wall clock
	// newClient and oldClient take every kind of input request, on
	// 2026-07-28 and on 2025-11-25.
	newClient = toolnexus.MCPClient{Protocol: "2026-07-28", ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true}
	oldClient = toolnexus.MCPClient{Protocol: "2025-11-25", ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true}
)

// The exact JSON of what the tools of these tests ask and of the answers a
// client gives.
const (
	askName      = `{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Your name?"}},"required":["answer"]}}}`
	acceptAlice  = `{"action":"accept","content":{"answer":"Alice"}}`
	acceptBlue   = `{"action":"accept","content":{"answer":"blue"}}`
	invalidState = `{"reason":"invalid_request_state"}`
)

// serveLog is a log a test reads back.
type serveLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *serveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serveLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newMCPServer returns a server sealing with serveKey for audience "test",
// whose clock reads serveNow and the log it writes.
func newMCPServer(t *testing.T, o toolnexus.SealerOptions) (*toolnexus.MCPServer, *serveLog) {
	t.Helper()
	if o.Keys == nil {
		o.Keys = [][]byte{serveKey}
	}
	if o.Audience == "" {
		o.Audience = "test"
	}
	sealer, err := toolnexus.NewSealer(o)
	require.NoError(t, err)
	log := &serveLog{}
	return &toolnexus.MCPServer{
		Sealer: sealer,
		Logger: slog.New(slog.NewTextHandler(log, nil)),
		Time:   func() time.Time { return serveNow },
	}, log
}

// nameTool asks for a name, then greets whoever answered.
func nameTool(runs *int) func(context.Context, toolnexus.Answers) toolnexus.ToolResult {
	return func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
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
func retry(c toolnexus.MCPToolCall, res toolnexus.MCPCallToolResult, responses map[string]string) toolnexus.MCPToolCall {
	c.RequestState = res.RequestState
	c.InputResponses = map[string]json.RawMessage{}
	for id, r := range responses {
		c.InputResponses[id] = json.RawMessage(r)
	}
	return c
}

func TestMCPServerCallRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		client toolnexus.MCPClient
		done   string
	}{
		{"2026-07-28", newClient, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`},
		{"2025-11-25", oldClient, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			runs := 0
			c := toolnexus.MCPToolCall{Tool: "greet", Arguments: json.RawMessage(`{"lang":"en"}`), Client: tc.client}
			res, err := s.Call(context.Background(), c, nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, `{"content":null,"isError":false,"resultType":"input_required","inputRequests":{"name":`+askName+`},"requestState":"STATE"}`, wire(t, res))

			// The arguments are compared in their canonical form.
			c.Arguments = json.RawMessage(` { "lang" : "en" } `)
			res, err = s.Call(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, tc.done, wire(t, res))
			assert.Equal(t, 2, runs)
		})
	}
}

func TestMCPServerCallInvalidState(t *testing.T) {
	t.Parallel()
	call := toolnexus.MCPToolCall{Tool: "greet", Arguments: json.RawMessage(`{"lang":"en"}`), Principal: "alice", Client: newClient}
	for _, tc := range []struct {
		name   string
		opts   toolnexus.SealerOptions // of the server that gets the retry
		change func(c *toolnexus.MCPToolCall)
		at     time.Duration // after serveNow
		want   error
	}{
		{name: "tampered", change: func(c *toolnexus.MCPToolCall) { c.RequestState += "-TAMPERED" }, want: toolnexus.ErrInvalidState},
		{name: "flipped", change: func(c *toolnexus.MCPToolCall) { c.RequestState = flip(c.RequestState) }, want: toolnexus.ErrInvalidState},
		{name: "malformed", change: func(c *toolnexus.MCPToolCall) { c.RequestState = "not a state" }, want: toolnexus.ErrInvalidState},
		{name: "another key", opts: toolnexus.SealerOptions{Keys: [][]byte{serveOther}}, want: toolnexus.ErrInvalidState},
		{name: "another audience", opts: toolnexus.SealerOptions{Audience: "other"}, want: toolnexus.ErrStateMismatch},
		{name: "another tool", change: func(c *toolnexus.MCPToolCall) { c.Tool = "deploy" }, want: toolnexus.ErrStateMismatch},
		{name: "other arguments", change: func(c *toolnexus.MCPToolCall) { c.Arguments = json.RawMessage(`{"lang":"fr"}`) }, want: toolnexus.ErrStateMismatch},
		{name: "another principal", change: func(c *toolnexus.MCPToolCall) { c.Principal = "mallory" }, want: toolnexus.ErrStateMismatch},
		{name: "no principal", change: func(c *toolnexus.MCPToolCall) { c.Principal = "" }, want: toolnexus.ErrStateMismatch},
		{name: "expired", at: toolnexus.DefaultStateMaxAge, want: toolnexus.ErrExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			runs := 0
			res, err := s.Call(context.Background(), call, nameTool(&runs))
			require.NoError(t, err)

			other, log := newMCPServer(t, tc.opts)
			other.Time = func() time.Time { return serveNow.Add(tc.at) }
			c := retry(call, res, map[string]string{"name": acceptAlice})
			if tc.change != nil {
				tc.change(&c)
			}
			_, err = other.Call(context.Background(), c, nameTool(&runs))
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
	var e *toolnexus.MCPError
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

func TestMCPServerCallSingleUse(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{Claims: toolnexus.NewMemoryClaims()})
	runs := 0
	call := toolnexus.MCPToolCall{Tool: "greet", Client: newClient}
	res, err := s.Call(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	answer := retry(call, res, map[string]string{"name": acceptAlice})

	// A malformed answer does not use the state up.
	_, err = s.Call(context.Background(), retry(call, res, map[string]string{"name": `{"action":"maybe"}`}), nameTool(&runs))
	require.Error(t, err)
	done, err := s.Call(context.Background(), answer, nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))

	_, err = s.Call(context.Background(), answer, nameTool(&runs))
	assertInvalidState(t, err, toolnexus.ErrStateReplayed)
	assert.Equal(t, 2, runs)
	assert.Contains(t, log.String(), "already used")
}

// downClaims is a claim store that cannot be reached.
type downClaims struct{}

func (downClaims) Claim(context.Context, string, time.Time) (bool, error) {
	return false, errors.New("connection refused")
}

func TestMCPServerCallClaimStoreDown(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{Claims: downClaims{}})
	runs := 0
	call := toolnexus.MCPToolCall{Tool: "greet", Client: newClient}
	res, err := s.Call(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	_, err = s.Call(context.Background(), retry(call, res, map[string]string{"name": acceptAlice}), nameTool(&runs))
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.Nil(t, e.Data)
	assert.ErrorIs(t, err, toolnexus.ErrClaimStore)
	assert.Equal(t, 1, runs, "the tool ran unchecked")
	assert.Contains(t, log.String(), "connection refused")
}

func TestMCPServerCallReasks(t *testing.T) {
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
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			runs := 0
			call := toolnexus.MCPToolCall{Tool: "greet", Client: newClient}
			first, err := s.Call(context.Background(), call, nameTool(&runs))
			require.NoError(t, err)
			again, err := s.Call(context.Background(), retry(call, first, tc.responses), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, wire(t, first), wire(t, again))
			assert.NotEqual(t, first.RequestState, again.RequestState)
			assert.Equal(t, 1, runs, "the tool ran again without its answer")

			// The new state works.
			done, err := s.Call(context.Background(), retry(call, again, map[string]string{"name": acceptAlice}), nameTool(&runs))
			require.NoError(t, err)
			assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
		})
	}
}

func TestMCPServerCallIgnoresExtraKeys(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	call := toolnexus.MCPToolCall{Tool: "greet", Client: newClient}
	first, err := s.Call(context.Background(), call, nameTool(nil))
	require.NoError(t, err)
	extra := map[string]string{"name": acceptAlice, "unknown_extra_key": `{"action":"accept","content":{"foo":"bar"}}`, "another": `12345`}
	done, err := s.Call(context.Background(), retry(call, first, extra), nameTool(nil))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
}

func TestMCPServerCallAnsweredUpFront(t *testing.T) {
	t.Parallel()
	// A first call whose inputResponses answer what the tool asks
	// completes, as the conformance suite's ignore-extra-params expects.
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	runs := 0
	call := retry(toolnexus.MCPToolCall{Tool: "greet", Client: newClient}, toolnexus.MCPCallToolResult{},
		map[string]string{"name": acceptAlice, "unknown_extra_key": acceptBlue})
	done, err := s.Call(context.Background(), call, nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))
	assert.Equal(t, 2, runs)
}

// envTool asks for an environment with a schema, then reports the
// answer's data.
func envTool(runs *int) func(context.Context, toolnexus.Answers) toolnexus.ToolResult {
	return func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
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

func TestMCPServerCallRefusedAnswer(t *testing.T) {
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
			s, log := newMCPServer(t, toolnexus.SealerOptions{})
			runs := 0
			call := toolnexus.MCPToolCall{Tool: "env", Client: newClient}
			first, err := s.Call(context.Background(), call, envTool(&runs))
			require.NoError(t, err)
			_, err = s.Call(context.Background(), retry(call, first, map[string]string{"env": tc.response}), envTool(&runs))
			var e *toolnexus.MCPError
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
		s, _ := newMCPServer(t, toolnexus.SealerOptions{})
		runs := 0
		call := toolnexus.MCPToolCall{Tool: "env", Client: oldClient}
		first, err := s.Call(context.Background(), call, envTool(&runs))
		require.NoError(t, err)
		done, err := s.Call(context.Background(), retry(call, first, map[string]string{"env": `{"action":"accept","content":{"env":"prod"}}`}), envTool(&runs))
		require.NoError(t, err)
		assert.Equal(t, `{"content":[{"type":"text","text":"{\"count\":1,\"env\":\"prod\"}"}],"isError":false}`, wire(t, done))
	})
}

func TestMCPServerCallSamplingAndRoots(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	var seen toolnexus.Answers
	tool := func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
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
	call := toolnexus.MCPToolCall{Tool: "t", Client: newClient}
	first, err := s.Call(context.Background(), call, tool)
	require.NoError(t, err)
	assert.Equal(t, `{"content":null,"isError":false,"resultType":"input_required","inputRequests":{`+
		`"client_roots":{"method":"roots/list","params":{}},`+
		`"greeting":{"method":"sampling/createMessage","params":{"maxTokens":50,"messages":[{"content":{"text":"Generate a greeting","type":"text"},"role":"user"}]}}},"requestState":"STATE"}`, wire(t, first))
	done, err := s.Call(context.Background(), retry(call, first, map[string]string{
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

func TestMCPServerCallCapabilities(t *testing.T) {
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
		client  toolnexus.MCPClient
		result  toolnexus.ToolResult
		message string
		data    string
	}{
		{"form without elicitation", toolnexus.MCPClient{Sampling: true, Roots: true}, form,
			"Missing required client capability: elicitation.form", `{"requiredCapabilities":{"roots":{},"elicitation":{"form":{}}}}`},
		{"url with form only", toolnexus.MCPClient{ElicitForm: true}, login,
			"Missing required client capability: elicitation.url", `{"requiredCapabilities":{"roots":{},"elicitation":{"url":{}}}}`},
		{"sampling", toolnexus.MCPClient{ElicitForm: true}, sampling,
			"Missing required client capability: sampling", `{"requiredCapabilities":{"roots":{},"sampling":{}}}`},
		{"roots", toolnexus.MCPClient{ElicitForm: true}, roots,
			"Missing required client capability: roots", `{"requiredCapabilities":{"roots":{}}}`},
		{"every kind", toolnexus.MCPClient{}, all,
			"Missing required client capability: elicitation.form, sampling, elicitation.url, roots", `{"requiredCapabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			tool := func(context.Context, toolnexus.Answers) toolnexus.ToolResult { return tc.result }

			c := toolnexus.MCPToolCall{Tool: "t", Client: tc.client}
			c.Client.Protocol = "2026-07-28"
			_, err := s.Call(context.Background(), c, tool)
			var e *toolnexus.MCPError
			require.ErrorAs(t, err, &e)
			assert.Equal(t, -32021, e.Code)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, tc.data, string(e.Data))
			assert.ErrorIs(t, err, toolnexus.ErrMissingCapability)

			// An older protocol gets the suspension's text.
			c.Client.Protocol = "2025-11-25"
			res, err := s.Call(context.Background(), c, tool)
			require.NoError(t, err)
			assert.Equal(t, wire(t, tc.result.MCPCallToolResult()), wire(t, res))
			assert.True(t, res.IsError)
			assert.Empty(t, res.ResultType)
		})
	}
}

func TestMCPServerCallURLElicitation(t *testing.T) {
	t.Parallel()
	login := toolnexus.AuthRequired("https://example.com/login", "Log in")
	req, _ := toolnexus.PendingOf(login)
	tool := func(context.Context, toolnexus.Answers) toolnexus.ToolResult { return login }
	for _, tc := range []struct {
		name   string
		client toolnexus.MCPClient
		params string
	}{
		{"2026-07-28", newClient, `{"mode":"url","message":"Log in","url":"https://example.com/login"}`},
		{"2025-11-25", oldClient, `{"mode":"url","message":"Log in","url":"https://example.com/login","elicitationId":"` + req.ID + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			res, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "login", Client: tc.client}, tool)
			require.NoError(t, err)
			require.Contains(t, res.InputRequests, req.ID)
			assert.Equal(t, "elicitation/create", res.InputRequests[req.ID].Method)
			assert.Equal(t, tc.params, string(res.InputRequests[req.ID].Params))
		})
	}
}

func TestMCPServerCallSeveralRequests(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	var seen toolnexus.Answers
	tool := func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
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
	call := toolnexus.MCPToolCall{Tool: "t", Client: newClient}
	first, err := s.Call(context.Background(), call, tool)
	require.NoError(t, err)
	assert.Len(t, first.InputRequests, 2)

	// One of two answers: the other is asked again, alone.
	half, err := s.Call(context.Background(), retry(call, first, map[string]string{"name": acceptAlice}), tool)
	require.NoError(t, err)
	assert.Equal(t, []string{"color"}, keys(half.InputRequests))
	assert.Empty(t, seen)

	done, err := s.Call(context.Background(), retry(call, half, map[string]string{"color": acceptBlue}), tool)
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
func stepsTool(seen *toolnexus.Answers) func(context.Context, toolnexus.Answers) toolnexus.ToolResult {
	return func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
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

func TestMCPServerCallMultiRound(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	var seen toolnexus.Answers
	call := toolnexus.MCPToolCall{Tool: "steps", Client: newClient}
	r1, err := s.Call(context.Background(), call, stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step1"}, keys(r1.InputRequests))
	r2, err := s.Call(context.Background(), retry(call, r1, map[string]string{"step1": acceptAlice}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step2"}, keys(r2.InputRequests))
	assert.NotEqual(t, r1.RequestState, r2.RequestState)
	assert.NotContains(t, r2.RequestState, "Alice")
	r3, err := s.Call(context.Background(), retry(call, r2, map[string]string{"step2": acceptBlue}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Alice likes blue"}],"isError":false,"resultType":"complete"}`, wire(t, r3))
	assert.Len(t, seen, 2)

	// The first round's state answered again is a new call of round 2.
	again, err := s.Call(context.Background(), retry(call, r1, map[string]string{"step1": acceptBlue}), stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, []string{"step2"}, keys(again.InputRequests))
}

func TestMCPServerCallAsk(t *testing.T) {
	t.Parallel()
	// A client on an older protocol is asked through its session, round
	// after round, within one call.
	s, _ := newMCPServer(t, toolnexus.SealerOptions{Claims: toolnexus.NewMemoryClaims()})
	var (
		seen  toolnexus.Answers
		asked []string
	)
	c := toolnexus.MCPToolCall{Tool: "steps", Client: oldClient,
		Ask: func(_ context.Context, id string, r toolnexus.MCPInputRequest) (json.RawMessage, error) {
			asked = append(asked, id+" "+r.Method)
			if id == "step1" {
				return json.RawMessage(acceptAlice), nil
			}
			return json.RawMessage(acceptBlue), nil
		}}
	res, err := s.Call(context.Background(), c, stepsTool(&seen))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Alice likes blue"}],"isError":false}`, wire(t, res))
	assert.Equal(t, []string{"step1 elicitation/create", "step2 elicitation/create"}, asked)
	assert.Len(t, seen, 2)
}

func TestMCPServerCallAskFails(t *testing.T) {
	t.Parallel()
	refused := &toolnexus.MCPError{Code: -32602, Message: "Invalid elicitation result", Err: toolnexus.ErrInvalidMCP}
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
			s, _ := newMCPServer(t, toolnexus.SealerOptions{})
			runs := 0
			c := toolnexus.MCPToolCall{Tool: "greet", Client: oldClient,
				Ask: func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) { return nil, tc.err }}
			_, err := s.Call(context.Background(), c, nameTool(&runs))
			var e *toolnexus.MCPError
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, 1, runs)
		})
	}
}

func TestMCPServerCallAskBounded(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	asks := 0
	c := toolnexus.MCPToolCall{Tool: "greet", Client: oldClient,
		Ask: func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) {
			asks++
			return json.RawMessage(acceptAlice), nil
		}}
	// A tool that never finishes asking.
	tool := func(_ context.Context, as toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: fmt.Sprint("q", len(as)), Kind: toolnexus.KindInput, Prompt: "Again?"})
	}
	_, err := s.Call(context.Background(), c, tool)
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, 9, asks)
}

func TestMCPServerCallPanic(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{})
	tool := func(context.Context, toolnexus.Answers) toolnexus.ToolResult { panic("boom") }
	_, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "t", Client: newClient}, tool)
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.Nil(t, e.Data)
	assert.ErrorIs(t, err, toolnexus.ErrToolPanicked)
	assert.Equal(t, `toolnexus: MCP error -32603: Internal error: tool panicked: tool "t": boom`, err.Error())
	assert.Contains(t, log.String(), "panic=boom")
	assert.Contains(t, log.String(), "mcpserve_test.go")
}

func TestMCPServerCallExpiry(t *testing.T) {
	t.Parallel()
	s, _ := newMCPServer(t, toolnexus.SealerOptions{})
	s.Expiry = time.Minute
	call := toolnexus.MCPToolCall{Tool: "greet", Client: newClient}
	res, err := s.Call(context.Background(), call, nameTool(nil))
	require.NoError(t, err)
	at, err := toolnexus.RequestStateExpiry(res.RequestState)
	require.NoError(t, err)
	assert.Equal(t, serveNow.Add(time.Minute), at)

	s.Time = func() time.Time { return serveNow.Add(time.Minute) }
	_, err = s.Call(context.Background(), retry(call, res, map[string]string{"name": acceptAlice}), nameTool(nil))
	assertInvalidState(t, err, toolnexus.ErrExpired)
}

func TestMCPServerCallBrokenSuspension(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		r    toolnexus.ToolResult
		want string
	}{
		{"no prompt", toolnexus.Pending(toolnexus.Request{ID: "q", Kind: toolnexus.KindInput}), `request "q" has no prompt`},
		{"an ID twice", toolnexus.PendingAll(
			toolnexus.Request{ID: "q", Kind: toolnexus.KindApproval, Prompt: "Go?"},
			toolnexus.Request{ID: "q", Kind: toolnexus.KindApproval, Prompt: "Really?"}), `asks two requests with the ID "q"`},
		{"sampling without messages", toolnexus.Pending(toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "Hi"}), `request "s"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, log := newMCPServer(t, toolnexus.SealerOptions{})
			_, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "t", Client: newClient},
				func(context.Context, toolnexus.Answers) toolnexus.ToolResult { return tc.r })
			var e *toolnexus.MCPError
			require.ErrorAs(t, err, &e)
			assert.Equal(t, -32603, e.Code)
			assert.Equal(t, "Internal error", e.Message)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidRequest)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, log.String(), "MCP call failed")
		})
	}
}

func TestMCPServerCallNoSealer(t *testing.T) {
	t.Parallel()
	var s toolnexus.MCPServer
	s.Logger = slog.New(slog.NewTextHandler(&serveLog{}, nil))
	_, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "t"}, nameTool(nil))
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -32603, e.Code)
}

func TestNewMCPServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		key     []byte
		o       toolnexus.MCPServerOptions
		wantErr error
		wantMsg string
	}{
		{"short key", serveKey[:31], toolnexus.MCPServerOptions{Keys: [][]byte{serveOther}}, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: 31 bytes, want at least 32"},
		{"no key", nil, toolnexus.MCPServerOptions{}, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: 0 bytes, want at least 32"},
		{"short ring key", serveKey, toolnexus.MCPServerOptions{Keys: [][]byte{serveOther[:8]}}, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: key 2 of 2: 8 bytes, want at least 32"},
		{"key twice", serveKey, toolnexus.MCPServerOptions{Keys: [][]byte{serveKey}}, toolnexus.ErrInvalidKey,
			"toolnexus: invalid request state key: key 2 of 2 is key 1 again"},
		{"negative max age", serveKey, toolnexus.MCPServerOptions{MaxAge: -time.Hour}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: MaxAge -1h0m0s is not between 0 and 720h0m0s"},
		{"negative expiry", serveKey, toolnexus.MCPServerOptions{Expiry: -time.Second}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: Expiry -1s is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := toolnexus.NewMCPServer(tc.key, tc.o)
			require.ErrorIs(t, err, tc.wantErr)
			assert.EqualError(t, err, tc.wantMsg)
			assert.Nil(t, s)
		})
	}
}

// TestNewMCPServerKeys answers, on a server made by NewMCPServer after a
// key rotation, a state sealed before it with the older key.
func TestNewMCPServerKeys(t *testing.T) {
	t.Parallel()
	old, _ := newMCPServer(t, toolnexus.SealerOptions{})
	logger := slog.New(slog.DiscardHandler)
	s, err := toolnexus.NewMCPServer(serveOther, toolnexus.MCPServerOptions{
		Keys: [][]byte{serveKey}, Audience: "test", Expiry: time.Minute, Logger: logger,
	})
	require.NoError(t, err)
	assert.Equal(t, time.Minute, s.Expiry)
	assert.Same(t, logger, s.Logger)

	c := toolnexus.MCPToolCall{Tool: "greet", Arguments: json.RawMessage(`{}`), Client: newClient}
	res, err := old.Call(context.Background(), c, nameTool(nil))
	require.NoError(t, err)
	done, err := s.Call(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(nil))
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, done))

	// Sealed with the new key, the state no longer opens on the old server.
	res, err = s.Call(context.Background(), c, nameTool(nil))
	require.NoError(t, err)
	_, err = old.Call(context.Background(), retry(c, res, map[string]string{"name": acceptAlice}), nameTool(nil))
	var mcpErr *toolnexus.MCPError
	require.ErrorAs(t, err, &mcpErr)
	assert.Equal(t, -32602, mcpErr.Code)
}

// TestMCPServerCallRefusesAmbiguousArguments checks that arguments whose
// objects repeat a name, or hold names that are one when case is folded,
// are refused with -32602 on the first call and on a retry whose state was
// sealed for the unambiguous arguments, and that the tool never runs with
// them.
func TestMCPServerCallRefusesAmbiguousArguments(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{})
	runs := 0
	tool := nameTool(&runs)
	first, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "deploy", Arguments: json.RawMessage(`{"env":"staging"}`), Client: newClient}, tool)
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
			for _, c := range []toolnexus.MCPToolCall{
				{Tool: "deploy", Arguments: json.RawMessage(tt.args), Client: newClient},
				retry(toolnexus.MCPToolCall{Tool: "deploy", Arguments: json.RawMessage(tt.args), Client: newClient}, first, map[string]string{"name": acceptAlice}),
			} {
				_, err := s.Call(context.Background(), c, tool)
				var e *toolnexus.MCPError
				require.ErrorAs(t, err, &e)
				assert.Equal(t, toolnexus.CodeInvalidParams, e.Code)
				assert.Equal(t, tt.msg, e.Message)
				assert.ErrorIs(t, err, toolnexus.ErrDuplicateKey)
			}
			assert.Equal(t, 1, runs, "the tool never runs with them")
		})
	}
	assert.Contains(t, log.String(), "duplicate JSON key")
	// The unambiguous retry still finishes.
	res, err := s.Call(context.Background(), retry(toolnexus.MCPToolCall{Tool: "deploy", Arguments: json.RawMessage(`{ "env" : "staging" }`), Client: newClient}, first, map[string]string{"name": acceptAlice}), tool)
	require.NoError(t, err)
	assert.Equal(t, `{"content":[{"type":"text","text":"Hello, Alice!"}],"isError":false,"resultType":"complete"}`, wire(t, res))
}

// TestMCPServerThrottlesRefusals checks that a client's refused states log
// at most MaxRefusalLines lines a second, the next line counting those left
// out, and that a replay logs apart from a forged state.
func TestMCPServerThrottlesRefusals(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{Claims: toolnexus.NewMemoryClaims()})
	var mu sync.Mutex
	now := serveNow
	s.Time = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	forged := toolnexus.MCPToolCall{Tool: "name", RequestState: "tn1.forged", Client: newClient}
	for range 25 {
		_, err := s.Call(context.Background(), forged, nameTool(nil))
		require.ErrorIs(t, err, toolnexus.ErrInvalidState)
	}
	assert.Equal(t, toolnexus.MaxRefusalLines, strings.Count(log.String(), "msg=\"toolnexus: MCP request state refused\""))
	assert.NotContains(t, log.String(), "suppressed")
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()

	first, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "name", Client: newClient}, nameTool(nil))
	require.NoError(t, err)
	again := retry(toolnexus.MCPToolCall{Tool: "name", Client: newClient}, first, map[string]string{"name": acceptAlice})
	_, err = s.Call(context.Background(), again, nameTool(nil))
	require.NoError(t, err)
	_, err = s.Call(context.Background(), again, nameTool(nil))
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, toolnexus.CodeInvalidParams, e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.ErrorIs(t, err, toolnexus.ErrStateReplayed)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	last := lines[len(lines)-1]
	assert.Contains(t, last, `level=WARN msg="toolnexus: MCP request state already used" tool=name err="toolnexus: request state already used: state `)
	assert.Contains(t, last, "suppressed=15")
	assert.Equal(t, toolnexus.MaxRefusalLines+1, len(lines))
}

// TestMCPServerCallAuthenticatedWithoutPrincipal refuses an authenticated
// call that names no user with -32603, and never runs the tool.
func TestMCPServerCallAuthenticatedWithoutPrincipal(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{})
	runs := 0
	_, err := s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "name", Authenticated: true, Client: newClient}, nameTool(&runs))
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, toolnexus.CodeInternalError, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.ErrorIs(t, err, toolnexus.ErrNoPrincipal)
	assert.Equal(t, 0, runs)
	assert.Contains(t, log.String(), `err="toolnexus: authenticated call without a principal: call of \"name\": its token names no subject"`)
	_, err = s.Call(context.Background(), toolnexus.MCPToolCall{Tool: "name", Authenticated: true, Principal: toolnexus.Principal("https://issuer.example", "alice"), Client: newClient}, nameTool(&runs))
	require.NoError(t, err)
	assert.Equal(t, 1, runs)
}

// TestMCPServerPanicKeepsClaim runs a tool that panics once it has its
// answer: the call is -32603, and its state stays claimed, so the same
// retry is refused as a state already used, logged apart from a forged one.
func TestMCPServerPanicKeepsClaim(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{Claims: toolnexus.NewMemoryClaims()})
	runs := 0
	tool := func(ctx context.Context, as toolnexus.Answers) toolnexus.ToolResult {
		if len(as) > 0 {
			runs++
			panic("after it acted")
		}
		return nameTool(nil)(ctx, as)
	}
	c := toolnexus.MCPToolCall{Tool: "name", Client: newClient}
	first, err := s.Call(context.Background(), c, tool)
	require.NoError(t, err)
	again := retry(c, first, map[string]string{"name": acceptAlice})
	_, err = s.Call(context.Background(), again, tool)
	var e *toolnexus.MCPError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, toolnexus.CodeInternalError, e.Code)
	assert.ErrorIs(t, err, toolnexus.ErrToolPanicked)
	_, err = s.Call(context.Background(), again, tool)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, toolnexus.CodeInvalidParams, e.Code)
	assert.ErrorIs(t, err, toolnexus.ErrStateReplayed)
	assert.Equal(t, 1, runs, "the tool ran once")
	assert.Contains(t, log.String(), `msg="toolnexus: MCP request state already used"`)
	assert.NotContains(t, log.String(), `msg="toolnexus: MCP request state refused"`)
}

// TestMCPServerCallSelfReferringData runs a tool that suspends on a
// Request whose Data holds itself: the call is the error -32603, logged,
// and the server goes on.
func TestMCPServerCallSelfReferringData(t *testing.T) {
	t.Parallel()
	s, log := newMCPServer(t, toolnexus.SealerOptions{})
	for _, client := range []toolnexus.MCPClient{newClient, oldClient} {
		for _, kind := range []string{toolnexus.KindInput, toolnexus.KindSampling} {
			tool := func(context.Context, toolnexus.Answers) toolnexus.ToolResult {
				return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: kind, Prompt: "p", Data: selfMap()})
			}
			c := toolnexus.MCPToolCall{Tool: "t", Client: client}
			if client.Protocol == oldClient.Protocol {
				c.Ask = func(context.Context, string, toolnexus.MCPInputRequest) (json.RawMessage, error) {
					return nil, errors.New("never asked")
				}
			}
			_, err := s.Call(context.Background(), c, tool)
			var e *toolnexus.MCPError
			require.ErrorAs(t, err, &e, "%s %s", client.Protocol, kind)
			assert.Equal(t, toolnexus.CodeInternalError, e.Code)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidRequest)
		}
	}
	assert.Contains(t, log.String(), "data nests deeper than 10000 levels, or holds itself")
}
