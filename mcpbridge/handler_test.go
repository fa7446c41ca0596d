//lint:file-ignore SA1019 the tests ask for sampling and roots, which SEP-2577 deprecates.

package mcpbridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	testKey  = []byte("0123456789abcdef0123456789abcdef")
	otherKey = bytes.Repeat([]byte{0x5a}, 32)
	testPNG  = []byte("\x89PNG\r\n\x1a\n fixture bytes")
)

type envInput struct {
	Env string `json:"env"`
}

// The JSON-RPC error of a state that does not open, as the client reads it.
const invalidStateError = `{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}`

// echo is what the test tools return once answered: the answer as JSON.
func echo(a *toolnexus.Answer) toolnexus.ToolResult {
	b, _ := json.Marshal(a)
	return toolnexus.Ok(string(b))
}

// newBridge returns a Bridge whose runner seals with key, as c configures
// the runner.
func newBridge(t testing.TB, key []byte, c bridgetest.Config) *mcpbridge.Bridge {
	t.Helper()
	b, err := mcpbridge.New(bridgetest.Runner(t, key, c), nil)
	require.NoError(t, err)
	return b
}

// newTestServer returns a server whose tools suspend as the example's do,
// and answer with the answer they got.
func newTestServer(t *testing.T, key []byte, c bridgetest.Config) *mcp.Server {
	t.Helper()
	b := newBridge(t, key, c)
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	suspend := func(reqs ...toolnexus.Request) mcpbridge.CallFunc[struct{}] {
		return func(_ context.Context, c mcpbridge.Call[struct{}]) toolnexus.ToolResult {
			if len(c.Answers) == 0 {
				return toolnexus.PendingAll(reqs...)
			}
			b, _ := json.Marshal(c.Answers)
			return toolnexus.Ok(string(b))
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, mcpbridge.Handler(b, func(_ context.Context, in envInput, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		}
		return echo(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "login"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.AuthRequired("https://example.com/login", "")
		}
		return echo(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "pick"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})
		}
		return echo(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "dated"}, mcpbridge.CallHandler(b, suspend(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Go?",
		ExpiresAt: time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})))
	mcp.AddTool(s, &mcp.Tool{Name: "broken"}, mcpbridge.CallHandler(b, suspend(toolnexus.Request{ID: "pnd-x", Kind: toolnexus.KindInput})))
	mcp.AddTool(s, &mcp.Tool{Name: "again"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Again?"})
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "panics"}, mcpbridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		panic("the tool's bug")
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "sample"}, mcpbridge.CallHandler(b, suspend(sampleRequest)))
	mcp.AddTool(s, &mcp.Tool{Name: "roots"}, mcpbridge.CallHandler(b, suspend(toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Your roots"})))
	mcp.AddTool(s, &mcp.Tool{Name: "all"}, mcpbridge.CallHandler(b, suspend(
		toolnexus.Request{ID: "name", Kind: toolnexus.KindInput, Prompt: "Your name?"},
		sampleRequest,
		toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Your roots"},
	)))
	mcp.AddTool(s, &mcp.Tool{Name: "steps"}, mcpbridge.CallHandler(b, steps))
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[envInput]) toolnexus.ToolResult {
		if len(c.Answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Go on?"})
		}
		user := ""
		if c.Request.Extra != nil && c.Request.Extra.TokenInfo != nil {
			user = c.Request.Extra.TokenInfo.UserID
		}
		return toolnexus.Ok(fmt.Sprintf("%s in %s, session %t", user, c.In.Env, c.Request.Session != nil))
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, mcpbridge.OutHandler(b, func(_ context.Context, c mcpbridge.Call[envInput]) (toolnexus.ToolResult, deployment) {
		a, ok := c.Answers.Get("go")
		if !ok {
			return toolnexus.Pending(toolnexus.Request{ID: "go", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + c.In.Env + "?"}), deployment{}
		}
		return toolnexus.Ok("deployed"), deployment{Env: c.In.Env, Approved: a.OK}
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, mcpbridge.Handler(b, reportSteps))
	mcp.AddTool(s, &mcp.Tool{Name: "render"}, mcpbridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		p, err := toolnexus.PartFromBytes(testPNG, "image/png")
		if err != nil {
			return toolnexus.Error(err.Error())
		}
		return toolnexus.Ok("chart", p)
	}))
	return s
}

// deployment is the structured output of the typed tool.
type deployment struct {
	Env      string `json:"env"`
	Approved bool   `json:"approved"`
}

// progressIn is the input of the progress tool: how many steps it
// reports, and whether it leaves their total unknown.
type progressIn struct {
	Steps   int  `json:"steps"`
	Unknown bool `json:"unknown,omitempty"`
}

// reportSteps reports each of its steps in a tight loop, then returns.
func reportSteps(ctx context.Context, in progressIn, _ *toolnexus.Answer) toolnexus.ToolResult {
	total := float64(in.Steps)
	if in.Unknown {
		total = 0
	}
	for i := 1; i <= in.Steps; i++ {
		toolnexus.ReportProgress(ctx, float64(i), total, fmt.Sprintf("step %d", i))
	}
	return toolnexus.Ok(fmt.Sprintf("%d steps", in.Steps))
}

// sampleRequest asks the client's model a question.
var sampleRequest = toolnexus.Request{ID: "capital_question", Kind: toolnexus.KindSampling, Prompt: "Ask the model",
	Data: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "What is the capital of France?"}}},
		"maxTokens": 100,
	}}

// steps asks for a name, then for a color, and reports both.
func steps(_ context.Context, c mcpbridge.Call[struct{}]) toolnexus.ToolResult {
	name, ok := c.Answers.Get("step1")
	if !ok {
		return toolnexus.Pending(toolnexus.Request{ID: "step1", Kind: toolnexus.KindInput, Prompt: "Step 1: your name?"})
	}
	color, ok := c.Answers.Get("step2")
	if !ok {
		return toolnexus.Pending(toolnexus.Request{ID: "step2", Kind: toolnexus.KindInput, Prompt: "Step 2: your color?"})
	}
	return toolnexus.Ok(fmt.Sprintf("%v likes %v (%d answers)", name.Data["answer"], color.Data["answer"], len(c.Answers)))
}

// wire records the JSON-RPC messages a client reads, or a server's log.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// last returns the member key ("result" or "error") of the last response
// the client read that has one, as the server sent it.
func (w *wire) last(t *testing.T, key string) json.RawMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var last json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(line), &msg))
		if msg[key] != nil {
			last = msg[key]
		}
	}
	require.NotNil(t, last, "no %s read", key)
	return last
}

func (w *wire) lastResult(t *testing.T) json.RawMessage { return w.last(t, "result") }

// String returns what w recorded, such as a server's log.
func (w *wire) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var (
	formAndURL = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
		Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	manual = &mcp.ClientOptions{Capabilities: formAndURL, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
)

// connect connects a client with opts to s, on the given protocol version
// ("" for the newest), and returns its session and what it reads.
func connect(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, *wire) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	w := &wire{}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs, w
}

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	return res
}

// callError calls a tool that must fail with a JSON-RPC error and returns
// the error as the SDK's client reads it.
func callError(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *jsonrpc.Error {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.Error(t, err, "result: %+v", res)
	var e *jsonrpc.Error
	require.ErrorAs(t, err, &e)
	return e
}

// text returns the text of a result of one text block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func TestNew(t *testing.T) {
	t.Parallel()
	b, err := mcpbridge.New(nil, nil)
	assert.EqualError(t, err, "mcpbridge: no mcpcall.Runner")
	assert.Nil(t, b)
	b, err = mcpbridge.New(bridgetest.Runner(t, testKey, bridgetest.Config{}), &mcpbridge.Options{})
	require.NoError(t, err)
	assert.NotNil(t, b)
}

// TestHandlerInputRequired reads the input_required result of each kind of
// request as the server sends it, key by key, then answers it.
func TestHandlerInputRequired(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	tests := []struct {
		name    string
		args    map[string]any
		params  string // with ID for the request's id
		want    toolnexus.Request
		content map[string]any
	}{
		{"deploy", map[string]any{"env": "prod"},
			`{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}`,
			toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}, nil},
		{"login", map[string]any{},
			`{"mode":"url","message":"Authorization required to continue","url":"https://example.com/login"}`,
			toolnexus.Request{Kind: toolnexus.KindAuthorization, Prompt: "Authorization required to continue", URL: "https://example.com/login"}, nil},
		{"pick", nil,
			`{"mode":"form","message":"Which environment?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Which environment?"}},"required":["answer"]}}`,
			toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"schema": map[string]any{
				"type": "object", "required": []any{"answer"},
				"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "Which environment?"}}}}},
			map[string]any{"answer": "prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, &mcp.CallToolParams{Name: tt.name, Arguments: tt.args})
			assert.True(t, res.NeedsInput())
			raw := w.lastResult(t)

			var keys map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &keys))
			var reqs map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(keys["inputRequests"], &reqs))
			require.Len(t, reqs, 1)
			var id string
			for id = range reqs {
			}
			assert.Regexp(t, `^pnd-[0-9a-f-]{36}$`, id)
			var state string
			require.NoError(t, json.Unmarshal(keys["requestState"], &state))
			assert.Regexp(t, `^tn1\.[A-Za-z0-9_-]+$`, state)
			assert.NotContains(t, state, id, "the state is opaque")
			assert.NotContains(t, state, tt.want.Prompt, "the state is opaque")
			assert.JSONEq(t, `"input_required"`, string(keys["resultType"]))
			assert.JSONEq(t, `{"method":"elicitation/create","params":`+strings.ReplaceAll(tt.params, "ID", id)+`}`, string(reqs[id]))
			// The SDK writes the rest: its CallToolResult always has content,
			// and its server names itself in _meta.
			assert.JSONEq(t, `null`, string(keys["content"]))
			assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"v0.0.1"}}`, string(keys["_meta"]))
			assert.Len(t, keys, 5, "no other key: %s", raw)

			// The state says until when it is accepted: the request's expiry.
			expiry, err := requeststate.Expiry(state)
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now().Add(park.DefaultExpiry), expiry, time.Minute)

			answered := call(t, cs, &mcp.CallToolParams{Name: tt.name, Arguments: tt.args, RequestState: state,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: tt.content}}})
			assert.False(t, answered.IsError)
			answer, _ := json.Marshal(toolnexus.Answer{ID: id, OK: true, Data: tt.content})
			assert.Equal(t, string(answer), text(t, answered))
			assert.JSONEq(t, `"complete"`, string(mustKeys(t, w.lastResult(t))["resultType"]))
		})
	}
}

// mustKeys returns the members of the JSON object raw.
func mustKeys(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &keys))
	return keys
}

// suspended calls a tool that suspends and returns its request's id and
// its state.
func suspended(t *testing.T, cs *mcp.ClientSession, name string, args any) (id, state string) {
	t.Helper()
	res := call(t, cs, &mcp.CallToolParams{Name: name, Arguments: args})
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 1)
	for id = range res.InputRequests {
	}
	return id, res.RequestState
}

// TestHandlerRetry retries calls with answers: each reaches the tool as
// its Answer, and the state, answered once, gives its retry with another
// answer the first answer's result.
func TestHandlerRetry(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	staging := map[string]any{"env": "staging"}
	tests := []struct {
		name   string
		args   any
		action string
		want   string // ID for the request's id
	}{
		{"accepted", staging, "accept", `{"id":"ID","ok":true}`},
		{"declined", staging, "decline", `{"id":"ID","ok":false,"reason":"declined"}`},
		{"cancelled", staging, "cancel", `{"id":"ID","ok":false,"reason":"cancelled"}`},
		{"arguments reordered", json.RawMessage(` { "env" : "staging" } `), "accept", `{"id":"ID","ok":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, state := suspended(t, cs, "deploy", staging)
			want := strings.ReplaceAll(tt.want, "ID", id)
			res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: tt.args, RequestState: state,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: tt.action}}})
			assert.False(t, res.IsError)
			assert.Equal(t, want, text(t, res))
			first := string(w.lastResult(t))

			again := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: staging, RequestState: state,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}}})
			assert.Equal(t, want, text(t, again), "the state was answered")
			assert.Equal(t, first, string(w.lastResult(t)))
		})
	}
}

// TestHandlerInvalidState retries calls with states that do not open: each
// is the one JSON-RPC error the spec's SDKs send, whatever the reason, and
// the reason goes to the log only.
func TestHandlerInvalidState(t *testing.T) {
	t.Parallel()
	log := &wire{}
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Logger: slog.New(slog.NewTextHandler(log, nil))}}}), manual, "")
	staging := map[string]any{"env": "staging"}
	id, state := suspended(t, cs, "deploy", staging)
	loginID, loginState := suspended(t, cs, "login", nil)
	accept := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}
	i := len(state) / 2
	swap := byte('A')
	if state[i] == 'A' {
		swap = 'B'
	}
	tests := []struct {
		name      string
		args      any
		state     string
		responses mcp.InputResponseMap
		reason    string // in the log
	}{
		{"tampered", staging, state + "-TAMPERED", accept, "invalid request state"},
		{"one character changed", staging, state[:i] + string(swap) + state[i+1:], accept, "invalid request state"},
		{"truncated", staging, state[:len(state)-3], accept, "invalid request state"},
		{"garbage", staging, "please deploy", accept, "invalid request state"},
		{"prefix only", staging, "tn1.AAAA", accept, "invalid request state"},
		{"other tool's state", staging, loginState, mcp.InputResponseMap{loginID: &mcp.ElicitResult{Action: "accept"}}, "another tool"},
		{"other arguments", map[string]any{"env": "prod"}, state, accept, "other arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := callError(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: tt.args, RequestState: tt.state, InputResponses: tt.responses})
			assert.Equal(t, int64(-32602), e.Code)
			assert.Equal(t, "Invalid or expired requestState", e.Message)
			assert.Equal(t, invalidStateError, string(w.last(t, "error")))
			assert.Contains(t, log.String(), tt.reason)
		})
	}
}

// TestHandlerAnswers retries with answers that do not answer what was
// asked: a missing one is asked again, a malformed one is an error, and
// the tool runs on neither.
func TestHandlerAnswers(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	staging := map[string]any{"env": "staging"}
	id, state := suspended(t, cs, "deploy", staging)
	//lint:ignore SA1019 a client may send any kind of answer
	roots := &mcp.ListRootsResult{}
	for _, tt := range []struct {
		name      string
		responses mcp.InputResponseMap
	}{
		{"no answer", nil},
		{"answer to another id", mcp.InputResponseMap{"pnd-other": &mcp.ElicitResult{Action: "accept"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: staging, RequestState: state, InputResponses: tt.responses})
			require.True(t, res.NeedsInput())
			assert.Equal(t, []string{id}, keysOf(res.InputRequests))
			assert.NotEqual(t, state, res.RequestState)
		})
	}
	for _, tt := range []struct {
		name      string
		responses mcp.InputResponseMap
		message   string
	}{
		{"not an elicitation result", mcp.InputResponseMap{id: roots}, `Invalid inputResponses: `},
		{"unknown action", mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "maybe"}}, `Invalid inputResponses: `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := callError(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: staging, RequestState: state, InputResponses: tt.responses})
			assert.Equal(t, int64(-32602), e.Code)
			assert.True(t, strings.HasPrefix(e.Message, tt.message), e.Message)
			assert.Contains(t, e.Message, id)
			assert.NotContains(t, string(w.last(t, "error")), "toolnexus:")
		})
	}
}

// keysOf returns the keys of m, sorted.
func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	if len(out) > 1 {
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
	}
	return out
}

// TestHandlerOtherInstance answers on a second server a question the first
// one asked: servers with the same key share states, a rotation keeps the
// old key's states open, another key or audience opens none.
func TestHandlerOtherInstance(t *testing.T) {
	t.Parallel()
	first, _ := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	id, state := suspended(t, first, "deploy", map[string]any{"env": "prod"})
	// The client writes the params' _meta: each call has its own.
	retry := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}, RequestState: state,
			InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}}
	}
	for _, tt := range []struct {
		name string
		key  []byte
		opts bridgetest.Config
		ok   bool
	}{
		{"same key", bytes.Clone(testKey), bridgetest.Config{}, true},
		{"rotated: new key seals, old key opens", otherKey, bridgetest.Config{State: requeststate.Options{Keys: [][]byte{testKey}}}, true},
		{"other key", otherKey, bridgetest.Config{}, false},
		{"other audience", testKey, bridgetest.Config{State: requeststate.Options{Audience: "https://other.example.com"}}, false},
	} {
		// One after the other: the servers share the process's store, and
		// the first to answer runs the tool; the others replay its result.
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := connect(t, newTestServer(t, tt.key, tt.opts), manual, "")
			if !tt.ok {
				e := callError(t, cs, retry())
				assert.Equal(t, int64(-32602), e.Code)
				return
			}
			res := call(t, cs, retry())
			assert.False(t, res.IsError)
			assert.Equal(t, `{"id":"`+id+`","ok":true}`, text(t, res))
		})
	}
}

// TestHandlerSingleUse answers a state once with the default
// configuration: its retries, with the same answer or another, get the
// first run's result, the same bytes, and so does a retry on another
// server of the process.
func TestHandlerSingleUse(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	id, state := suspended(t, cs, "deploy", map[string]any{"env": "prod"})
	retry := func(action string) *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}, RequestState: state,
			InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: action}}}
	}
	want := `{"id":"` + id + `","ok":true}`
	assert.Equal(t, want, text(t, call(t, cs, retry("accept"))))
	first := string(w.lastResult(t))
	assert.Equal(t, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"v0.0.1"}},`+
		`"content":[{"type":"text","text":`+strconvQuote(want)+`}],"resultType":"complete"}`, first)
	for _, action := range []string{"accept", "decline", "accept"} {
		res := call(t, cs, retry(action))
		assert.False(t, res.IsError)
		assert.Equal(t, want, text(t, res))
		assert.Equal(t, first, string(w.lastResult(t)))
	}

	other, ow := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	assert.Equal(t, want, text(t, call(t, other, retry("accept"))))
	assert.Equal(t, first, string(ow.lastResult(t)))
}

// strconvQuote returns s as a JSON string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHandlerOnceByDefault serves the README's gated deploy with the
// README's configuration (requeststate.Options with Keys and Audience,
// the zero mcpcall.Options): the answered state retried three times runs
// the tool once, and each retry gets the first run's bytes; a retry while
// the first run goes on is told to retry later.
func TestHandlerOnceByDefault(t *testing.T) {
	t.Parallel()
	keys := [][]byte{bytes.Repeat([]byte{0xab}, 32)}
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: "https://deploy.example.com/mcp"})
	require.NoError(t, err)
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	require.NoError(t, err)
	bridge, err := mcpbridge.New(runner, nil)
	require.NoError(t, err)
	var runs atomic.Int32
	running, release := make(chan struct{}), make(chan struct{})
	deploy := toolnexus.ToolFor(func(_ context.Context, in envInput, _ toolnexus.Answers) toolnexus.ToolResult {
		if runs.Add(1) == 1 {
			close(running)
			<-release
		}
		return toolnexus.Ok("deployed to " + in.Env)
	})
	gated, err := approval.Gate(deploy, approval.Require("Deploy to prod?"), &approval.Options{Keys: keys})
	require.NoError(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"env": {Type: "string"}}}
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, mcpbridge.ToolHandler(bridge, gated))
	cs, w := connect(t, s, manual, "")
	other, _ := connect(t, s, manual, "")

	call0 := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}
	res, err := cs.CallTool(t.Context(), call0)
	require.NoError(t, err)
	parked, err := mcpbridge.FromCallToolResult(res)
	require.NoError(t, err)
	req, ok := toolnexus.PendingOf(parked)
	require.True(t, ok)
	assert.Equal(t, "Deploy to prod?", req.Prompt)
	retry, err := mcpbridge.Retry(call0, parked, req.Resolve(nil))
	require.NoError(t, err)

	done := make(chan *mcp.CallToolResult)
	go func() {
		res, err := cs.CallTool(context.Background(), retry)
		assert.NoError(t, err)
		done <- res
	}()
	<-running
	e := callError(t, other, retry)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), e.Code)
	assert.Equal(t, "Call still running: retry later", e.Message)
	assert.Equal(t, `{"reason":"call_in_progress"}`, string(e.Data))
	close(release)
	first := <-done
	require.NotNil(t, first)
	assert.False(t, first.IsError)
	assert.Equal(t, "deployed to prod", text(t, first))
	want := `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deployer","version":"v1"}},` +
		`"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}`
	assert.Equal(t, want, string(w.lastResult(t)))

	for range 3 {
		// Made again from the stored suspension, as a host that lost
		// the reply does.
		again, err := mcpbridge.Retry(call0, parked, req.Resolve(nil))
		require.NoError(t, err)
		res := call(t, cs, again)
		assert.Equal(t, "deployed to prod", text(t, res))
		assert.Equal(t, want, string(w.lastResult(t)), "the retry gets the first run's bytes")
	}
	assert.Equal(t, int32(1), runs.Load(), "the tool runs once for one answer")
}

// TestHandlerExpiry reads until when the states the server seals are
// accepted: a request without ExpiresAt gets the runner's expiry, one with
// ExpiresAt keeps it, and the state's maximum age caps both.
func TestHandlerExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts bridgetest.Config
		tool string
		want time.Duration // from now
	}{
		{"default", bridgetest.Config{}, "pick", park.DefaultExpiry},
		{"configured", bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Expiry: 2 * time.Hour}}}, "pick", 2 * time.Hour},
		{"the request's own", bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Expiry: time.Minute}}}, "dated", time.Hour},
		{"capped by the maximum age", bridgetest.Config{State: requeststate.Options{MaxAge: 30 * time.Minute}, Runner: mcpcall.Options{Park: park.Runner{Expiry: 2 * time.Hour}}}, "pick", 30 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, _ := connect(t, newTestServer(t, testKey, tt.opts), manual, "")
			_, state := suspended(t, cs, tt.tool, nil)
			expiry, err := requeststate.Expiry(state)
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now().Add(tt.want), expiry, 5*time.Second)
		})
	}
}

// TestHandlerCapabilities never sends a request the client did not declare
// it takes: on 2026-07-28 the call fails with -32021, on older protocols the
// suspension is sent as its text.
func TestHandlerCapabilities(t *testing.T) {
	t.Parallel()
	elicit := func(e *mcp.ElicitationCapabilities) *mcp.ClientCapabilities {
		return &mcp.ClientCapabilities{Elicitation: e}
	}
	form := &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	url := &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}
	const loginText = "Authorization required to continue\nhttps://example.com/login"
	missing := func(c *mcp.ClientCapabilities) string {
		b, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: c})
		require.NoError(t, err)
		return string(b)
	}
	tests := []struct {
		name string
		caps *mcp.ClientCapabilities
		tool string
		text string // the text sent on 2025-11-25; "" for a request
		data string // the data of the -32021 error on 2026-07-28
	}{
		{"no elicitation, form", &mcp.ClientCapabilities{}, "pick", "Which environment?", missing(elicit(form))},
		{"no elicitation, url", &mcp.ClientCapabilities{}, "login", loginText, missing(elicit(url))},
		{"form only, form", elicit(form), "deploy", "", ""},
		{"form only, url", elicit(form), "login", loginText, missing(elicit(url))},
		{"neither mode named, form", elicit(&mcp.ElicitationCapabilities{}), "pick", "", ""},
		{"neither mode named, url", elicit(&mcp.ElicitationCapabilities{}), "login", loginText, missing(elicit(url))},
		{"url only, form", elicit(url), "pick", "Which environment?", missing(elicit(form))},
		{"url only, url", elicit(url), "login", "", ""},
		{"no sampling", formAndURL, "sample", "Ask the model", missing(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}})},
		{"no roots", formAndURL, "roots", "Your roots", missing(&mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}})},
	}
	for _, tt := range tests {
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(tt.name+" "+version, func(t *testing.T) {
				t.Parallel()
				opts := &mcp.ClientOptions{Capabilities: tt.caps, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
				var asked sync.WaitGroup
				if version < "2026" && tt.text == "" {
					asked.Add(1)
					opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked.Done()
						if req.Params.Mode == "url" {
							return &mcp.ElicitResult{Action: "accept"}, nil
						}
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "prod"}}, nil
					}
				}
				cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), opts, version)
				var args any
				if tt.tool == "deploy" {
					args = map[string]any{"env": "prod"}
				}
				p := &mcp.CallToolParams{Name: tt.tool, Arguments: args}
				switch {
				case tt.text == "" && version >= "2026":
					assert.True(t, call(t, cs, p).NeedsInput())
				case tt.text == "":
					assert.False(t, call(t, cs, p).IsError)
					asked.Wait()
				case version >= "2026":
					e := callError(t, cs, p)
					assert.Equal(t, int64(-32021), e.Code)
					assert.Equal(t, tt.data, string(e.Data))
					assert.Equal(t, `{"code":-32021,"message":"`+e.Message+`","data":`+tt.data+`}`, string(w.last(t, "error")))
				default:
					res := call(t, cs, p)
					assert.False(t, res.NeedsInput())
					assert.Empty(t, res.RequestState)
					assert.True(t, res.IsError)
					assert.Equal(t, tt.text, text(t, res))
				}
			})
		}
	}
}

// TestHandlerOlderProtocol serves clients on protocol 2025-11-25, which the
// handler asks directly, on their session, round after round: every kind
// of request, several at once, a tool that asks twice.
func TestHandlerOlderProtocol(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		asked []string
	)
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, s)
	}
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: formAndURL.Elicitation, RootsV2: &mcp.RootCapabilities{}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			note(req.Params.Mode + ": " + req.Params.Message)
			answer := "prod"
			if strings.HasPrefix(req.Params.Message, "Step 2") {
				answer = "blue"
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			note(fmt.Sprintf("sampling: %d message(s)", len(req.Params.Messages)))
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newTestServer(t, testKey, bridgetest.Config{}).Connect(context.Background(), st, nil)
	require.NoError(t, err)
	w := &wire{}
	cs, err := c.Connect(context.Background(), &mcp.LoggingTransport{Transport: ct, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	require.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)

	res := call(t, cs, &mcp.CallToolParams{Name: "pick"})
	assert.False(t, res.IsError)
	assert.Regexp(t, `^\{"id":"pnd-[0-9a-f-]{36}","ok":true,"data":\{"answer":"prod"\}\}$`, text(t, res))
	assert.NotContains(t, string(w.lastResult(t)), "input_required")
	assert.NotContains(t, string(w.lastResult(t)), "resultType")

	res = call(t, cs, &mcp.CallToolParams{Name: "steps"})
	assert.Equal(t, "prod likes blue (2 answers)", text(t, res))

	res = call(t, cs, &mcp.CallToolParams{Name: "all"})
	require.False(t, res.IsError, text(t, res))
	var answers toolnexus.Answers
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &answers))
	require.Len(t, answers, 3)
	assert.Equal(t, toolnexus.Answer{ID: "name", OK: true, Data: map[string]any{"answer": "prod"}}, answers[0])
	assert.Equal(t, "capital_question", answers[1].ID)
	assert.Equal(t, map[string]any{"type": "text", "text": "Paris"}, answers[1].Data["content"])
	assert.Equal(t, "client_roots", answers[2].ID)
	assert.Equal(t, []any{map[string]any{"uri": "file:///work", "name": "work"}}, answers[2].Data["roots"])

	// A tool that never stops asking is cut off.
	e := callError(t, cs, &mcp.CallToolParams{Name: "again"})
	assert.Equal(t, int64(-32603), e.Code)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"form: Which environment?", "form: Step 1: your name?", "form: Step 2: your color?"}, asked[:3])
	assert.Contains(t, asked, "sampling: 1 message(s)")
}

// TestHandlerMultiRoundTrip runs the tools that ask for sampling, roots,
// several things and in sequence under the SDK's client on 2026-07-28,
// which fulfils input_required results itself.
func TestHandlerMultiRoundTrip(t *testing.T) {
	t.Parallel()
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
		RootsV2:     &mcp.RootCapabilities{},
	},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			answer := "Alice"
			if strings.HasPrefix(req.Params.Message, "Step 2") {
				answer = "blue"
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	cs := connectHTTP(t, newTestServer(t, testKey, bridgetest.Config{}), c, nil)

	res := call(t, cs, &mcp.CallToolParams{Name: "steps"})
	assert.Equal(t, "Alice likes blue (2 answers)", text(t, res))
	res = call(t, cs, &mcp.CallToolParams{Name: "all"})
	var answers toolnexus.Answers
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &answers))
	require.Len(t, answers, 3)
	assert.Equal(t, toolnexus.Answer{ID: "name", OK: true, Data: map[string]any{"answer": "Alice"}}, answers[0])
	assert.Equal(t, map[string]any{"type": "text", "text": "Paris"}, answers[1].Data["content"])
	assert.Equal(t, []any{map[string]any{"uri": "file:///work", "name": "work"}}, answers[2].Data["roots"])
	res = call(t, cs, &mcp.CallToolParams{Name: "sample"})
	assert.Contains(t, text(t, res), `"capital_question"`)
}

// connectHTTP serves s over stateless streamable HTTP, as a server for
// 2026-07-28 runs, behind wrap (nil: none), and connects c to it.
func connectHTTP(t *testing.T, s *mcp.Server, c *mcp.Client, wrap func(http.Handler) http.Handler, headers ...string) *mcp.ClientSession {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// The server's own client: another test's server, closing, closes the
	// idle connections of http.DefaultTransport under this one.
	transport := &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true, HTTPClient: srv.Client()}
	if len(headers) > 0 {
		transport.HTTPClient = &http.Client{Transport: headerTransport{headers, srv.Client().Transport}}
	}
	cs, err := c.Connect(context.Background(), transport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })
	return cs
}

// headerTransport adds a header, name then value, to every request.
type headerTransport struct {
	kv   []string
	next http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.kv[0], h.kv[1])
	return h.next.RoundTrip(r)
}

// TestHandlerPrincipal binds a state to the user of the token it was
// sealed for, over stateless streamable HTTP: another user's retry does not
// open it, nor does an altered state.
func TestHandlerPrincipal(t *testing.T) {
	t.Parallel()
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutSuffix(token, "-token")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	s := newTestServer(t, testKey, bridgetest.Config{})
	as := func(user string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, manual)
		return connectHTTP(t, s, c, auth.RequireBearerToken(verify, nil), "Authorization", "Bearer "+user+"-token")
	}
	alice, bob := as("alice"), as("bob")
	args := map[string]any{"env": "prod"}
	id, state := suspended(t, alice, "whoami", args)
	retry := &mcp.CallToolParams{Name: "whoami", Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}}

	e := callError(t, bob, retry)
	assert.Equal(t, int64(-32602), e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.Equal(t, `{"reason":"invalid_request_state"}`, string(e.Data))
	tampered := *retry
	tampered.RequestState += "-TAMPERED"
	e = callError(t, alice, &tampered)
	assert.Equal(t, int64(-32602), e.Code)
	assert.Equal(t, `{"reason":"invalid_request_state"}`, string(e.Data))
	assert.Equal(t, "alice in prod, session true", text(t, call(t, alice, retry)))
}

// TestHandlerTokenWithoutSubject refuses, with -32603, a call whose token
// names no user, rather than bind its state to no user; and binds a state
// to the issuer and subject of a token, so that one subject of two issuers
// are two users.
func TestHandlerTokenWithoutSubject(t *testing.T) {
	t.Parallel()
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		token = strings.TrimSuffix(token, "-token")
		at := strings.LastIndex(token, "/") // the issuer, then the user
		issuer, user := token[:at], token[at+1:]
		return &auth.TokenInfo{UserID: user, Extra: map[string]any{"iss": issuer}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	log := &wire{}
	s := newTestServer(t, testKey, bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Logger: slog.New(slog.NewTextHandler(log, nil))}}})
	as := func(token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, manual)
		return connectHTTP(t, s, c, auth.RequireBearerToken(verify, nil), "Authorization", "Bearer "+token+"-token")
	}
	e := callError(t, as("https://a.example/"), &mcp.CallToolParams{Name: "render"})
	assert.Equal(t, int64(-32603), e.Code)
	assert.Equal(t, "Internal error", e.Message)
	assert.Contains(t, log.String(), `err="toolnexus: authenticated call without a principal: call of \"render\": its token names no subject"`)

	args := map[string]any{"env": "prod"}
	id, state := suspended(t, as("https://a.example/alice"), "whoami", args)
	retry := &mcp.CallToolParams{Name: "whoami", Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}}
	e = callError(t, as("https://b.example/alice"), retry)
	assert.Equal(t, int64(-32602), e.Code, "alice of another issuer is another user")
	assert.Equal(t, "alice in prod, session true", text(t, call(t, as("https://a.example/alice"), retry)))
}

// TestHandlerPanic answers a tool that panics with the error result the
// model reads, as on every carrier, logs its panic and stack, and the
// server goes on.
func TestHandlerPanic(t *testing.T) {
	t.Parallel()
	log := &wire{}
	cs, _ := connect(t, newTestServer(t, testKey, bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Logger: slog.New(slog.NewTextHandler(log, nil))}}}), manual, "")
	res := call(t, cs, &mcp.CallToolParams{Name: "panics"})
	assert.True(t, res.IsError)
	require.Len(t, res.Content, 1)
	assert.Equal(t, &mcp.TextContent{Text: `toolnexus: tool panicked: "panics"`}, res.Content[0])
	assert.Contains(t, log.String(), "the tool's bug")
	assert.Contains(t, log.String(), "handler_test.go")
	assert.False(t, call(t, cs, &mcp.CallToolParams{Name: "render"}).IsError)
}

// TestOutHandler sends a typed tool's output as structuredContent, checked
// by the SDK against the schema it infers, once the call finishes.
func TestOutHandler(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			opts := &mcp.ClientOptions{Capabilities: formAndURL,
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept"}, nil
				}}
			cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), opts, version)
			tools, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			for _, tool := range tools.Tools {
				if tool.Name == "typed" {
					b, err := json.Marshal(tool.OutputSchema)
					require.NoError(t, err)
					assert.JSONEq(t, `{"type":"object","required":["env","approved"],"properties":{"env":{"type":"string"},"approved":{"type":"boolean"}},"additionalProperties":false}`, string(b))
				}
			}
			res := call(t, cs, &mcp.CallToolParams{Name: "typed", Arguments: map[string]any{"env": "prod"}})
			assert.False(t, res.IsError)
			assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "deployed"}}, res.Content)
			assert.JSONEq(t, `{"env":"prod","approved":true}`, string(mustKeys(t, w.lastResult(t))["structuredContent"]))
		})
	}
}

// TestOutHandlerRetry retries an answered call of a typed tool: the retry
// gets the first run's result and output, the same bytes.
func TestOutHandlerRetry(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")
	_, state := suspended(t, cs, "typed", map[string]any{"env": "prod"})
	retry := &mcp.CallToolParams{Name: "typed", Arguments: map[string]any{"env": "prod"}, RequestState: state,
		InputResponses: mcp.InputResponseMap{"go": &mcp.ElicitResult{Action: "accept"}}}
	want := `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"v0.0.1"}},` +
		`"content":[{"type":"text","text":"deployed"}],"structuredContent":{"approved":true,"env":"prod"},"resultType":"complete"}`
	for range 3 {
		res := call(t, cs, retry)
		assert.Equal(t, map[string]any{"env": "prod", "approved": true}, res.StructuredContent)
		assert.Equal(t, want, string(w.lastResult(t)))
	}
}

// TestHandlerResult sends what is not a suspension as CallToolResult does,
// and a suspension that is not valid as an error result saying why.
func TestHandlerResult(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t, newTestServer(t, testKey, bridgetest.Config{}), manual, "")

	res := call(t, cs, &mcp.CallToolParams{Name: "render"})
	assert.False(t, res.IsError)
	require.Len(t, res.Content, 2)
	assert.Equal(t, &mcp.TextContent{Text: "chart"}, res.Content[0])
	assert.Equal(t, &mcp.ImageContent{Data: testPNG, MIMEType: "image/png"}, res.Content[1])

	res = call(t, cs, &mcp.CallToolParams{Name: "broken"})
	assert.True(t, res.IsError, "a result that is not valid is an error result")
	assert.Equal(t, `toolnexus: tool "broken" returned an invalid result: invalid request: request "pnd-x" has no prompt`, text(t, res))

	res = call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": 7}})
	assert.True(t, res.IsError, "the SDK checks the arguments against the schema of In")
}

// TestClientCapabilitiesFromMeta checks that the capabilities a
// 2026-07-28 request carries in its _meta, as the transport decodes them,
// are read as the SDK's ClientCapabilities reads them, including values
// the SDK refuses (it then falls back to the session, here none).
func TestClientCapabilitiesFromMeta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		caps string
		want mcpcall.Client
	}{
		{"none", `{}`, mcpcall.Client{}},
		{"elicitation without modes", `{"elicitation":{}}`, mcpcall.Client{ElicitForm: true}},
		{"form", `{"elicitation":{"form":{}}}`, mcpcall.Client{ElicitForm: true}},
		{"url", `{"elicitation":{"url":{}}}`, mcpcall.Client{ElicitURL: true}},
		{"form and url", `{"elicitation":{"form":{},"url":{}}}`, mcpcall.Client{ElicitForm: true, ElicitURL: true}},
		{"null members", `{"elicitation":null,"sampling":null,"roots":null,"experimental":null}`, mcpcall.Client{}},
		{"null form", `{"elicitation":{"form":null,"url":{}}}`, mcpcall.Client{ElicitURL: true}},
		{"sampling with tools", `{"sampling":{"tools":{},"context":{}}}`, mcpcall.Client{Sampling: true}},
		{"roots", `{"roots":{}}`, mcpcall.Client{Roots: true}},
		{"roots listChanged", `{"roots":{"listChanged":true}}`, mcpcall.Client{Roots: true}},
		{"unknown members", `{"tasks":5,"elicitation":{"form":{"x":1},"y":"z"}}`, mcpcall.Client{ElicitForm: true}},
		{"keys match case", `{"Elicitation":{},"Sampling":{}}`, mcpcall.Client{}},
		{"extensions", `{"extensions":{"a":{}},"experimental":{"b":1},"sampling":{}}`, mcpcall.Client{Sampling: true}},
		{"elicitation not an object", `{"elicitation":true,"sampling":{}}`, mcpcall.Client{}},
		{"form not an object", `{"elicitation":{"form":1},"sampling":{}}`, mcpcall.Client{}},
		{"tools not an object", `{"sampling":{"tools":[]},"roots":{}}`, mcpcall.Client{}},
		{"listChanged not a bool", `{"roots":{"listChanged":"yes"},"sampling":{}}`, mcpcall.Client{}},
		{"extensions not an object", `{"extensions":[],"sampling":{}}`, mcpcall.Client{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var caps any
			require.NoError(t, json.Unmarshal([]byte(tt.caps), &caps))
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{
				mcp.MetaKeyProtocolVersion:    mcpcall.MultiRoundTrip,
				mcp.MetaKeyClientCapabilities: caps,
			}}}
			want := tt.want
			want.Protocol = mcpcall.MultiRoundTrip
			assert.Equal(t, want, mcpbridge.ClientOf(req))
			// The SDK's own reading agrees.
			sdk := mcpcall.Client{Protocol: mcpcall.MultiRoundTrip}
			if c := req.ClientCapabilities(); c != nil {
				if e := c.Elicitation; e != nil {
					sdk.ElicitForm, sdk.ElicitURL = e.Form != nil || e.URL == nil, e.URL != nil
				}
				sdk.Sampling, sdk.Roots = c.Sampling != nil, c.RootsV2 != nil || c.Roots.ListChanged
			}
			assert.Equal(t, sdk, mcpbridge.ClientOf(req))
		})
	}
}

// TestHandlerAmbiguousArguments calls, through the go-sdk's client, tools
// whose schemas take any property (a map, and the raw arguments of a
// CallHandler) with arguments that repeat a name or hold names that are one
// when case is folded: each call, first or retry, is the error -32602
// naming them, and the tool never runs.
func TestHandlerAmbiguousArguments(t *testing.T) {
	t.Parallel()
	b := newBridge(t, testKey, bridgetest.Config{})
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	runs := 0
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, mcpbridge.Handler(b, func(_ context.Context, in map[string]any, a *toolnexus.Answer) toolnexus.ToolResult {
		runs++
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{ID: "ok", Kind: toolnexus.KindApproval, Prompt: fmt.Sprint("Deploy to ", in["env"], "?")})
		}
		return toolnexus.Ok(fmt.Sprint("deployed to ", in["env"]))
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "raw"}, mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[map[string]any]) toolnexus.ToolResult {
		runs++
		var in struct {
			Env string `json:"env"`
		}
		_ = json.Unmarshal(c.Request.Params.Arguments, &in) // encoding/json: folds case, the last wins
		return toolnexus.Ok("deployed to " + in.Env)
	}))
	cs, _ := connect(t, s, manual, "")
	id, state := suspended(t, cs, "deploy", map[string]any{"env": "staging"})
	require.Equal(t, 1, runs)
	for _, tt := range []struct{ args, msg string }{
		{`{"env":"staging","Env":"prod"}`, `Invalid arguments: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"Env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":"staging","\u0045NV":"prod"}`, `Invalid arguments: duplicate JSON key: keys "env" and "ENV" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: key "env" appears twice in the top-level object`},
		{`{"env":"staging","o":{"k":1,"\u212a":2}}`, `Invalid arguments: duplicate JSON key: keys "k" and "\u212a" in the object at o are one key when case is folded, as encoding/json folds it`},
	} {
		for _, p := range []*mcp.CallToolParams{
			{Name: "deploy", Arguments: json.RawMessage(tt.args)},
			{Name: "deploy", Arguments: json.RawMessage(tt.args), RequestState: state,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}},
			{Name: "raw", Arguments: json.RawMessage(tt.args)},
		} {
			e := callError(t, cs, p)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), e.Code, tt.args)
			assert.Equal(t, tt.msg, e.Message)
		}
	}
	assert.Equal(t, 1, runs, "no tool ran with them")
	res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(`{ "env" : "staging" }`), RequestState: state,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
	assert.Equal(t, "deployed to staging", text(t, res))
}

// TestHandlerSelfReferringData serves a tool that suspends on a Request
// whose Data holds itself, and a result whose structured content does: the
// call is an error result saying why and the server goes on; the result
// does not convert.
func TestHandlerSelfReferringData(t *testing.T) {
	t.Parallel()
	b := newBridge(t, testKey, bridgetest.Config{})
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	self := map[string]any{"a": 1.0}
	self["self"] = self
	mcp.AddTool(s, &mcp.Tool{Name: "loop"}, mcpbridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: self})
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "ok"}, mcpbridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Ok("fine")
	}))
	for _, version := range []string{"", "2025-11-25"} {
		cs, _ := connect(t, s, manual, version)
		res := call(t, cs, &mcp.CallToolParams{Name: "loop"})
		assert.True(t, res.IsError, version)
		assert.Equal(t, `toolnexus: tool "loop" returned an invalid result: invalid request: request "r": data nests deeper than 10000 levels, or holds itself`, text(t, res), version)
		assert.Equal(t, "fine", text(t, call(t, cs, &mcp.CallToolParams{Name: "ok"})))
	}
	_, err := mcpbridge.FromCallToolResult(&mcp.CallToolResult{StructuredContent: self})
	assert.ErrorIs(t, err, toolnexus.ErrInvalidMCP)
}

// progressNote is a progress notification as a client read it.
type progressNote struct {
	Token    any
	Progress float64
	Total    float64
	Message  string
}

// progressLog keeps the progress notifications a client reads.
type progressLog struct {
	mu    sync.Mutex
	notes []progressNote
}

func (l *progressLog) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := req.Params
	l.notes = append(l.notes, progressNote{p.ProgressToken, p.Progress, p.Total, p.Message})
}

// until returns the notes read before the first with token, once one has
// been read.
func (l *progressLog) until(t *testing.T, token any) []progressNote {
	t.Helper()
	var before []progressNote
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		l.mu.Lock()
		defer l.mu.Unlock()
		i := slices.IndexFunc(l.notes, func(n progressNote) bool { return n.Token == token })
		require.GreaterOrEqual(c, i, 0, "no note with token %v", token)
		before = slices.Clone(l.notes[:i])
	}, 5*time.Second, time.Millisecond)
	return before
}

// TestHandlerProgress serves a tool that reports a thousand steps in a
// tight loop to a client on 2026-07-28 and one on 2025-11-25: a call with a
// progress token gets the first and the last report, its token, values and
// messages exact, and one a ProgressInterval at most in between; a call without one gets
// none; a notification that cannot be sent is logged, and the call goes on.
func TestHandlerProgress(t *testing.T) {
	t.Parallel()
	const steps = 1000
	connections := []struct {
		protocol string
		connect  func(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *wire) // nil: not recorded
	}{
		{mcpcall.MultiRoundTrip, func(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *wire) {
			return connectHTTP(t, s, mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts), nil), nil
		}},
		{"2025-11-25", func(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *wire) {
			return connect(t, s, opts, "2025-11-25")
		}},
	}
	tests := []struct {
		name      string
		token     any // sent
		wantToken any // read back
		unknown   bool
		wantFirst string // the params of the first notification on the wire
	}{
		{"a string token", "tok-1", "tok-1", false, `{"progressToken":"tok-1","message":"step 1","progress":1,"total":1000}`},
		{"a number token and no total", 7, float64(7), true, `{"progressToken":7,"message":"step 1","progress":1}`},
		{"no token", nil, nil, false, ""},
	}
	for _, conn := range connections {
		for _, tt := range tests {
			t.Run(conn.protocol+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				notes := &progressLog{}
				cs, w := conn.connect(t, newTestServer(t, testKey, bridgetest.Config{}), &mcp.ClientOptions{ProgressNotificationHandler: notes.handle})
				require.Equal(t, conn.protocol, cs.InitializeResult().ProtocolVersion)
				p := &mcp.CallToolParams{Name: "progress", Arguments: progressIn{Steps: steps, Unknown: tt.unknown}}
				if tt.token != nil {
					p.SetProgressToken(tt.token)
				}
				start := time.Now()
				assert.Equal(t, "1000 steps", text(t, call(t, cs, p)))
				// At most one report a ProgressInterval, besides the first
				// and the last, however long the machine took.
				most := 2 + int(time.Since(start)/park.ProgressInterval)

				// A call after it, whose notes the client reads after the
				// first call's.
				fence := &mcp.CallToolParams{Name: "progress", Arguments: progressIn{Steps: 1}}
				fence.SetProgressToken("fence")
				call(t, cs, fence)
				got := notes.until(t, "fence")
				if tt.token == nil {
					assert.Empty(t, got)
					return
				}
				total := float64(steps)
				if tt.unknown {
					total = 0
				}
				require.GreaterOrEqual(t, len(got), 2, "%+v", got)
				assert.LessOrEqual(t, len(got), most, "%+v", got)
				assert.Equal(t, progressNote{tt.wantToken, 1, total, "step 1"}, got[0])
				assert.Equal(t, progressNote{tt.wantToken, steps, total, "step 1000"}, got[len(got)-1])
				for i := 1; i < len(got); i++ {
					assert.Equal(t, tt.wantToken, got[i].Token)
					assert.Greater(t, got[i].Progress, got[i-1].Progress)
					assert.Equal(t, fmt.Sprintf("step %v", got[i].Progress), got[i].Message)
				}
				if w != nil {
					assert.Contains(t, w.String(), `read: {"jsonrpc":"2.0","method":"notifications/progress","params":`+tt.wantFirst+"}\n")
				}
			})
		}
	}

	t.Run("a send that fails", func(t *testing.T) {
		t.Parallel()
		logs := &bridgetest.Log{}
		s := newTestServer(t, testKey, bridgetest.Config{Runner: mcpcall.Options{Park: park.Runner{Logger: logs.Logger()}}})
		s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "notifications/progress" {
					return nil, errors.New("the line is down")
				}
				return next(ctx, method, req)
			}
		})
		notes := &progressLog{}
		cs, _ := connect(t, s, &mcp.ClientOptions{ProgressNotificationHandler: notes.handle}, "2025-11-25")
		p := &mcp.CallToolParams{Name: "progress", Arguments: progressIn{Steps: steps}}
		p.SetProgressToken("tok-1")
		res := call(t, cs, p)
		assert.False(t, res.IsError)
		assert.Equal(t, "1000 steps", text(t, res))
		assert.Contains(t, logs.String(), `level=INFO msg="mcpbridge: progress notification not sent" tool=progress err="the line is down"`)
		notes.mu.Lock()
		defer notes.mu.Unlock()
		assert.Empty(t, notes.notes)
	})
}

// TestCallPrints checks the forms a Call prints and logs in: its tool,
// its arguments as their size and its input as its type.
func TestCallPrints(t *testing.T) {
	t.Parallel()
	type input struct{ Image string }
	c := mcpbridge.Call[input]{Request: &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shot", Arguments: json.RawMessage(`{"image":"AAAA"}`)}},
		In: input{"AAAA"}, Answers: toolnexus.Answers{{ID: "r", OK: true}}}
	tests := []struct{ verb, want string }{
		{"%v", `{Request:&{Name:"shot" Arguments:json.RawMessage(16 bytes)} In:mcpbridge_test.input{…} Answers:[{ID:"r" OK:true}]}`},
		{"%#v", `mcpbridge.Call[mcpbridge_test.input]{Request:&mcp.CallToolRequest{Params:&mcp.CallToolParamsRaw{Name:"shot", Arguments:json.RawMessage(16 bytes), …}, …}, ` +
			`In:mcpbridge_test.input{…}, Answers:toolnexus.Answers[toolnexus.Answer{ID:"r", OK:true, Data:nil, Reason:""}]}`},
		{"%q", `"{Request:&{Name:\"shot\" Arguments:json.RawMessage(16 bytes)} In:mcpbridge_test.input{…} Answers:[{ID:\"r\" OK:true}]}"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, fmt.Sprintf(tt.verb, c), tt.verb)
	}
	var js bytes.Buffer
	slog.New(slog.NewJSONHandler(&js, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Info("m", "c", c)
	assert.Equal(t, `{"level":"INFO","msg":"m","c":{"tool":"shot","arguments":"json.RawMessage(16 bytes)","in":"mcpbridge_test.input","answers":{"0":{"id":"r","ok":true}}}}`+"\n", js.String())
}
