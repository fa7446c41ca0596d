package mcpgobridge_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	keyA = []byte("0123456789abcdef0123456789abcdef")
	keyB = []byte("fedcba9876543210fedcba9876543210")
)

// deployIn is the input of the tools under test.
type deployIn struct {
	Env string `json:"env"`
}

// approve asks one approval, under the ID q1, and says what it was told.
func approve(_ context.Context, in deployIn, answer *toolnexus.Answer) toolnexus.ToolResult {
	switch {
	case answer == nil:
		return toolnexus.Pending(toolnexus.Request{ID: "q1", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case answer.OK:
		return toolnexus.Ok("deployed to " + in.Env)
	}
	return toolnexus.Error("not deployed: " + answer.Reason)
}

// envSchema is the schema the choose tool asks with.
var envSchema = map[string]any{"type": "object", "properties": map[string]any{
	"env": map[string]any{"type": "string", "enum": []any{"dev", "prod"}}}, "required": []any{"env"}}

// choose asks for an environment out of a schema, under the ID env.
func choose(_ context.Context, _ struct{}, answer *toolnexus.Answer) toolnexus.ToolResult {
	if answer == nil {
		return toolnexus.Pending(toolnexus.Request{ID: "env", Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"schema": envSchema}})
	}
	return toolnexus.Ok(fmt.Sprintf("env=%v ok=%v", answer.Data["env"], answer.OK))
}

// twice asks q1, then q2, and reports both answers.
func twice(_ context.Context, call mcpgobridge.Call[struct{}]) toolnexus.ToolResult {
	first, ok := call.Answers.Get("q1")
	if !ok {
		return toolnexus.Pending(toolnexus.Request{ID: "q1", Kind: toolnexus.KindInput, Prompt: "First?"})
	}
	second, ok := call.Answers.Get("q2")
	if !ok {
		return toolnexus.Pending(toolnexus.Request{ID: "q2", Kind: toolnexus.KindInput, Prompt: "Second?"})
	}
	return toolnexus.Ok(fmt.Sprintf("%v then %v", first.Data["answer"], second.Data["answer"]))
}

// many asks a form, a sampling and the roots at once, and reports the
// answers.
func many(_ context.Context, call mcpgobridge.Call[struct{}]) toolnexus.ToolResult {
	name, ok1 := call.Answers.Get("name")
	sample, ok2 := call.Answers.Get("s1")
	roots, ok3 := call.Answers.Get("r1")
	if !ok1 || !ok2 || !ok3 {
		return toolnexus.PendingAll(
			toolnexus.Request{ID: "name", Kind: toolnexus.KindInput, Prompt: "Name?"},
			toolnexus.Request{ID: "s1", Kind: toolnexus.KindSampling, Prompt: "Summarize", Data: map[string]any{
				"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10}},
			toolnexus.Request{ID: "r1", Kind: toolnexus.KindRoots, Prompt: "Roots?"},
		)
	}
	data, err := json.Marshal([]any{name.Data, sample.Data["content"], roots.Data})
	if err != nil {
		return toolnexus.Error(err.Error())
	}
	return toolnexus.Ok(string(data))
}

// panics is a tool that panics.
func panics(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
	panic("the tool broke")
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

// rig is an mcp-go server with the tools under test behind one Bridge,
// called with raw JSON-RPC messages as a client on 2026-07-28 sends them.
type rig struct {
	t      *testing.T
	srv    *server.MCPServer
	bridge *mcpgobridge.Bridge
	logs   *bridgetest.Log
	id     int
	runs   atomic.Int32 // for a tool of the test's own to count its runs

	mu   sync.Mutex
	errs []error // what mcp-go's OnError hook got
}

// lastErr returns the error of the latest call that failed.
func (r *rig) lastErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) == 0 {
		return nil
	}
	return r.errs[len(r.errs)-1]
}

// rigConfig is what a rig is made with: its runner's options and the
// Bridge's own.
type rigConfig struct {
	bridgetest.Config
	Bridge mcpgobridge.Options
}

// newRig returns a rig whose Bridge's runner seals with key, as c
// configures them.
func newRig(t *testing.T, key []byte, c rigConfig) *rig {
	t.Helper()
	logs := &bridgetest.Log{}
	c.Runner.Park.Logger = logs.Logger()
	b, err := mcpgobridge.New(bridgetest.Runner(t, key, c.Config), &c.Bridge)
	require.NoError(t, err)
	r := &rig{t: t, logs: logs, bridge: b}
	hooks := &server.Hooks{}
	hooks.AddOnError(func(_ context.Context, _ any, _ mcp.MCPMethod, _ any, err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.errs = append(r.errs, err)
	})
	srv := server.NewMCPServer("test", "v0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	r.srv = srv
	srv.AddTool(mcp.NewTool("approve", mcp.WithInputSchema[deployIn]()), mcpgobridge.Handler(b, approve))
	srv.AddTool(mcp.NewTool("choose"), mcpgobridge.Handler(b, choose))
	srv.AddTool(mcp.NewTool("twice"), mcpgobridge.CallHandler(b, twice))
	srv.AddTool(mcp.NewTool("many"), mcpgobridge.CallHandler(b, many))
	srv.AddTool(mcp.NewTool("panics"), mcpgobridge.Handler(b, panics))
	srv.AddTool(mcp.NewTool("progress", mcp.WithInputSchema[progressIn]()), mcpgobridge.Handler(b, reportSteps))
	srv.AddTool(mcp.NewTool("plain"), mcpgobridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Ok("plain")
	}))
	return r
}

// allCaps declares every capability a tool may need.
const allCaps = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}`

// call sends a tools/call with params (a JSON object's members, without
// braces) from a client on 2026-07-28 that declared caps, and returns the
// JSON of the response.
func (r *rig) call(caps, params string) string {
	r.t.Helper()
	r.id++
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,%s}}`, r.id, params, meta)
	data, err := json.Marshal(r.srv.HandleMessage(context.Background(), json.RawMessage(msg)))
	require.NoError(r.t, err)
	return string(data)
}

// result returns the result in a response, without its _meta.
func result(t *testing.T, response string) map[string]any {
	t.Helper()
	var m struct {
		Result map[string]any `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(response), &m), response)
	require.NotNil(t, m.Result, response)
	delete(m.Result, "_meta")
	return m.Result
}

// state returns the requestState of an input_required response.
func state(t *testing.T, response string) string {
	t.Helper()
	s, _ := result(t, response)["requestState"].(string)
	require.NotEmpty(t, s, response)
	return s
}

// stateError is the JSON-RPC error of a state that does not open, as
// mcp-go sends it.
func stateError(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"Invalid or expired requestState"}}`, id)
}

func TestHandlerRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, action, content, want string
	}{
		{"accept", "accept", "{}", `{"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}`},
		{"decline", "decline", "", `{"content":[{"type":"text","text":"not deployed: declined"}],"isError":true,"resultType":"complete"}`},
		{"cancel", "cancel", "", `{"content":[{"type":"text","text":"not deployed: cancelled"}],"isError":true,"resultType":"complete"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, keyA, rigConfig{})
			first := r.call(allCaps, `"name":"approve","arguments":{"env":"prod"}`)
			asked := result(t, first)
			st := state(t, first)
			delete(asked, "requestState")
			want := `{"content":[],"resultType":"input_required","inputRequests":{"q1":{"method":"elicitation/create",` +
				`"params":{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}}}}`
			assertJSON(t, want, asked)

			answer := `{"action":"` + tt.action + `"`
			if tt.content != "" {
				answer += `,"content":` + tt.content
			}
			answer += "}"
			retry := r.call(allCaps, `"name":"approve","arguments":{"env":"prod"},"requestState":"`+st+`","inputResponses":{"q1":`+answer+`,"other":{"x":1}}`)
			assertJSON(t, tt.want, result(t, retry))
		})
	}
}

// assertJSON asserts that got encodes to the JSON want.
func assertJSON(t *testing.T, want string, got any) {
	t.Helper()
	data, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(data))
}

func TestHandlerPlain(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	assertJSON(t, `{"content":[{"type":"text","text":"plain"}],"resultType":"complete"}`, result(t, r.call(`{}`, `"name":"plain"`)))
	assertJSON(t, `{"content":[{"type":"text","text":"mcpgobridge: invalid JSON: arguments: json: cannot unmarshal string into Go value of type mcpgobridge_test.deployIn"}],"isError":true,"resultType":"complete"}`,
		result(t, r.call(`{}`, `"name":"approve","arguments":"prod"`)))
}

// TestHandlerRefusedState retries with states that must not open: each
// is the same JSON-RPC error, its reason only in the server's log.
func TestHandlerRefusedState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		retry func(st string) string // the params of the retry
		want  error                  // the reason, for errors.Is
	}{
		{"tampered", func(st string) string {
			return `"name":"approve","arguments":{"env":"prod"},"requestState":"` + st + `-TAMPERED","inputResponses":{"q1":{"action":"accept","content":{}}}`
		}, requeststate.ErrInvalidState},
		{"other arguments", func(st string) string {
			return `"name":"approve","arguments":{"env":"dev"},"requestState":"` + st + `","inputResponses":{"q1":{"action":"accept","content":{}}}`
		}, requeststate.ErrMismatch},
		{"other tool", func(st string) string {
			return `"name":"choose","arguments":{},"requestState":"` + st + `","inputResponses":{"q1":{"action":"accept","content":{}}}`
		}, requeststate.ErrMismatch},
		{"not a state", func(string) string {
			return `"name":"approve","arguments":{"env":"prod"},"requestState":"hello","inputResponses":{"q1":{"action":"accept","content":{}}}`
		}, requeststate.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, keyA, rigConfig{})
			st := state(t, r.call(allCaps, `"name":"approve","arguments":{"env":"prod"}`))
			assert.Equal(t, stateError(2), r.call(allCaps, tt.retry(st)))
			assert.Contains(t, r.logs.String(), "MCP request state refused")
			assert.ErrorIs(t, r.lastErr(), tt.want)
		})
	}
}

// audience returns the rig config of a Sealer with the audience a and the
// options o besides.
func audience(a string, o requeststate.Options) rigConfig {
	o.Audience = a
	return rigConfig{Config: bridgetest.Config{State: o}}
}

// user returns the rig config of a Bridge whose calls are made for the
// user p names.
func user(p func(context.Context, mcp.CallToolRequest) string) rigConfig {
	return rigConfig{Bridge: mcpgobridge.Options{Principal: p}}
}

// TestHandlerKeys opens states across Bridges: a rotation opens the old
// key's states; another key, another audience or another user does not.
func TestHandlerKeys(t *testing.T) {
	t.Parallel()
	alice := func(context.Context, mcp.CallToolRequest) string { return "alice" }
	bob := func(context.Context, mcp.CallToolRequest) string { return "bob" }
	tests := []struct {
		name      string
		sealer    rigConfig
		opener    rigConfig
		openerKey []byte
		want      error // nil: the state opens
	}{
		{"same key", rigConfig{}, rigConfig{}, keyA, nil},
		{"rotated", rigConfig{}, audience("", requeststate.Options{Keys: [][]byte{keyA}}), keyB, nil},
		{"other key", rigConfig{}, rigConfig{}, keyB, requeststate.ErrInvalidState},
		{"other audience", audience("https://a.example", requeststate.Options{}), audience("https://b.example", requeststate.Options{}), keyA, requeststate.ErrMismatch},
		{"same user", user(alice), user(alice), keyA, nil},
		{"other user", user(alice), user(bob), keyA, requeststate.ErrMismatch},
		{"no user", user(alice), rigConfig{}, keyA, requeststate.ErrMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := state(t, newRig(t, keyA, tt.sealer).call(allCaps, `"name":"approve","arguments":{"env":"prod"}`))
			opener := newRig(t, tt.openerKey, tt.opener)
			got := opener.call(allCaps, `"name":"approve","arguments":{"env":"prod"},"requestState":"`+st+`","inputResponses":{"q1":{"action":"accept","content":{}}}`)
			if tt.want != nil {
				assert.Equal(t, stateError(1), got)
				assert.ErrorIs(t, opener.lastErr(), tt.want)
				return
			}
			assertJSON(t, `{"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}`, result(t, got))
		})
	}
}

// TestHandlerSingleUse answers a state once with the default
// configuration, through mcp-go's client, which answers the round itself:
// the same retry sent again gets the first run's response, the same
// bytes, and so does a retry on another Bridge of the process.
func TestHandlerSingleUse(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	r.srv.AddTool(mcp.NewTool("counted", mcp.WithInputSchema[deployIn]()), mcpgobridge.Handler(r.bridge, func(ctx context.Context, in deployIn, a *toolnexus.Answer) toolnexus.ToolResult {
		if a != nil {
			r.runs.Add(1)
		}
		return approve(ctx, in, a)
	}))
	rec := &posts{}
	e := &elicitor{action: mcp.ElicitationResponseActionAccept}
	c := modernClient(t, r.srv, rec, e)
	res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "counted", Arguments: map[string]any{"env": "prod"}}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(mcp.TextContent)
	require.True(t, ok, "%T", res.Content[0])
	assert.Equal(t, "deployed to prod", tc.Text)
	assert.False(t, res.IsError)
	assert.Equal(t, []string{"Deploy to prod?"}, e.asked)
	retry := rec.last(t)
	require.Contains(t, string(retry.body), `"requestState"`)
	for range 3 {
		assert.Equal(t, string(retry.response), string(sendRaw(t, retry, nil)), "the retry gets the first run's bytes")
	}
	assert.Equal(t, int32(1), r.runs.Load(), "the tool runs once for one answer")

	// On another Bridge of the process, sharing its store.
	other := newRig(t, keyA, rigConfig{})
	st := state(t, other.call(allCaps, `"name":"approve","arguments":{"env":"prod"}`))
	params := `"name":"approve","arguments":{"env":"prod"},"requestState":"` + st + `","inputResponses":{"q1":{"action":"accept","content":{}}}`
	first := other.call(allCaps, params)
	assertJSON(t, `{"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}`, result(t, first))
	second := newRig(t, keyA, rigConfig{})
	second.id = 1 // the same JSON-RPC id as the first retry's
	assert.Equal(t, first, second.call(allCaps, params))
	assert.NoError(t, second.lastErr())
	other.id = 1
	assert.Equal(t, first, other.call(allCaps, params))
}

// TestHandlerOnceByDefault serves the README's gated deploy with the
// README's configuration (requeststate.Options with Keys and Audience,
// the zero mcpcall.Options) to mcp-go's client, which answers the round
// itself: the answered state retried three times runs the tool once, and
// each retry gets the first run's bytes; a retry while the first run goes
// on is told to retry later.
func TestHandlerOnceByDefault(t *testing.T) {
	t.Parallel()
	keys := [][]byte{bytes.Repeat([]byte{0xab}, 32)}
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: "https://deploy.example.com/mcp"})
	require.NoError(t, err)
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	require.NoError(t, err)
	bridge, err := mcpgobridge.New(runner, nil)
	require.NoError(t, err)
	var runs atomic.Int32
	running, release := make(chan struct{}), make(chan struct{})
	deploy := toolnexus.ToolFor(func(_ context.Context, in deployIn, _ toolnexus.Answers) toolnexus.ToolResult {
		if runs.Add(1) == 1 {
			close(running)
			<-release
		}
		return toolnexus.Ok("deployed to " + in.Env)
	})
	gated, err := approval.Gate(deploy, approval.Require("Deploy to prod?"), &approval.Options{Keys: keys})
	require.NoError(t, err)
	srv := server.NewMCPServer("deployer", "v1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("deploy", mcp.WithInputSchema[deployIn]()), mcpgobridge.ToolHandler(bridge, gated))
	rec := &posts{}
	e := &elicitor{action: mcp.ElicitationResponseActionAccept}
	c := modernClient(t, srv, rec, e)

	done := make(chan *mcp.CallToolResult)
	go func() {
		res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}})
		assert.NoError(t, err)
		done <- res
	}()
	<-running
	retry := rec.last(t)
	require.Contains(t, string(retry.body), `"requestState"`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Call still running: retry later"}}`, string(sendRaw(t, retry, nil)))
	close(release)
	res := <-done
	require.NotNil(t, res)
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(mcp.TextContent)
	require.True(t, ok, "%T", res.Content[0])
	assert.Equal(t, "deployed to prod", tc.Text)
	assert.False(t, res.IsError)
	assert.Equal(t, []string{"Deploy to prod?"}, e.asked)

	retry = rec.last(t)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deployer","version":"v1"}},`+
		`"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}}`, string(retry.response))
	for range 3 {
		assert.Equal(t, string(retry.response), string(sendRaw(t, retry, nil)), "the retry gets the first run's bytes")
	}
	assert.Equal(t, int32(1), runs.Load(), "the tool runs once for one answer")
}

// TestHandlerAnswers checks the answers to a schema: a tool never sees one
// off its schema, and a missing answer is asked again.
func TestHandlerAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		responses string
		want      string // the result, or "" for a JSON-RPC error
		wantError string
	}{
		{"in the enum", `{"env":{"action":"accept","content":{"env":"prod"}}}`, `{"content":[{"type":"text","text":"env=prod ok=true"}],"resultType":"complete"}`, ""},
		{"declined", `{"env":{"action":"decline"}}`, `{"content":[{"type":"text","text":"env=<nil> ok=false"}],"resultType":"complete"}`, ""},
		{"outside the enum", `{"env":{"action":"accept","content":{"env":"staging"}}}`, "", "Invalid inputResponses"},
		{"wrong type", `{"env":{"action":"accept","content":{"env":42}}}`, "", "Invalid inputResponses"},
		{"operator", `{"env":{"action":"accept","content":{"env":{"$ne":""}}}}`, "", "Invalid inputResponses"},
		{"required missing", `{"env":{"action":"accept","content":{}}}`, "", "Invalid inputResponses"},
		{"unknown action", `{"env":{"action":"maybe"}}`, "", "Invalid inputResponses"},
		{"not an object", `{"env":"prod"}`, "", "Invalid inputResponses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, keyA, rigConfig{})
			st := state(t, r.call(allCaps, `"name":"choose"`))
			got := r.call(allCaps, `"name":"choose","requestState":"`+st+`","inputResponses":`+tt.responses)
			if tt.want != "" {
				assertJSON(t, tt.want, result(t, got))
				return
			}
			var e struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(got), &e), got)
			assert.Equal(t, -32603, e.Error.Code, got)
			assert.True(t, strings.HasPrefix(e.Error.Message, tt.wantError), got)
		})
	}

	t.Run("asked again", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, keyA, rigConfig{})
		st := state(t, r.call(allCaps, `"name":"choose"`))
		for _, responses := range []string{`{}`, `{"other":{"action":"accept","content":{"env":"prod"}}}`} {
			again := r.call(allCaps, `"name":"choose","requestState":"`+st+`","inputResponses":`+responses)
			res := result(t, again)
			assert.Equal(t, "input_required", res["resultType"], again)
			assert.Contains(t, res["inputRequests"], "env", again)
			st = state(t, again)
		}
		assertJSON(t, `{"content":[{"type":"text","text":"env=dev ok=true"}],"resultType":"complete"}`,
			result(t, r.call(allCaps, `"name":"choose","requestState":"`+st+`","inputResponses":{"env":{"action":"accept","content":{"env":"dev"}}}`)))
	})
}

// TestHandlerSequence asks twice in one call: the tool sees both answers.
func TestHandlerSequence(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	first := r.call(allCaps, `"name":"twice"`)
	assert.Contains(t, result(t, first)["inputRequests"], "q1")
	second := r.call(allCaps, `"name":"twice","requestState":"`+state(t, first)+`","inputResponses":{"q1":{"action":"accept","content":{"answer":"one"}}}`)
	assert.Contains(t, result(t, second)["inputRequests"], "q2")
	assert.NotContains(t, second, "one", "an earlier answer travels sealed")
	done := r.call(allCaps, `"name":"twice","requestState":"`+state(t, second)+`","inputResponses":{"q2":{"action":"accept","content":{"answer":"two"}}}`)
	assertJSON(t, `{"content":[{"type":"text","text":"one then two"}],"resultType":"complete"}`, result(t, done))
}

// manyAnswers are the answers of TestHandlerMany, as the tool reports them.
const manyAnswers = `[{"answer":"Ada"},{"text":"sampled","type":"text"},{"roots":[{"name":"work","uri":"file:///work"}]}]`

// TestHandlerMany asks every input kind at once, on 2026-07-28.
func TestHandlerMany(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	first := r.call(allCaps, `"name":"many"`)
	asked := result(t, first)
	delete(asked, "requestState")
	assertJSON(t, `{"content":[],"resultType":"input_required","inputRequests":{`+
		`"name":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Name?"}},"required":["answer"]}}},`+
		`"s1":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}},`+
		`"r1":{"method":"roots/list"}}}`, asked)
	done := r.call(allCaps, `"name":"many","requestState":"`+state(t, first)+`","inputResponses":{`+
		`"name":{"action":"accept","content":{"answer":"Ada"}},`+
		`"s1":{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"},`+
		`"r1":{"roots":[{"uri":"file:///work","name":"work"}]}}`)
	assertJSON(t, `{"content":[{"type":"text","text":`+strconvQuote(manyAnswers)+`}],"resultType":"complete"}`, result(t, done))

	got := r.call(`{"elicitation":{}}`, `"name":"many"`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Missing required client capability: sampling, roots"}}`, got)
}

// strconvQuote returns s as a JSON string.
func strconvQuote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// TestHandlerCapabilities never sends a client a request it did not
// declare it takes.
func TestHandlerCapabilities(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	for _, caps := range []string{`{}`, `{"sampling":{}}`, `{"elicitation":{"url":{}}}`} {
		got := r.call(caps, `"name":"approve","arguments":{"env":"prod"}`)
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"Missing required client capability: elicitation.form"}}`, r.id), got, caps)
	}
	// A client that declares elicitation without a mode takes forms.
	assert.Equal(t, "input_required", result(t, r.call(`{"elicitation":{}}`, `"name":"approve","arguments":{"env":"prod"}`))["resultType"])
}

// TestHandlerPanic answers a panicking tool with the error result the
// model reads, as on every carrier, logs its stack, and keeps serving.
func TestHandlerPanic(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	assertJSON(t, `{"content":[{"type":"text","text":"toolnexus: tool panicked: \"panics\""}],"isError":true,"resultType":"complete"}`, result(t, r.call(`{}`, `"name":"panics"`)))
	assert.Contains(t, r.logs.String(), "the tool broke")
	assert.Contains(t, r.logs.String(), "goroutine")
	assertJSON(t, `{"content":[{"type":"text","text":"plain"}],"resultType":"complete"}`, result(t, r.call(`{}`, `"name":"plain"`)))
}

func TestNew(t *testing.T) {
	t.Parallel()
	_, err := mcpgobridge.New(nil, nil)
	assert.EqualError(t, err, "mcpgobridge: no mcpcall.Runner")
	b, err := mcpgobridge.New(bridgetest.Runner(t, keyA, bridgetest.Config{}), nil)
	require.NoError(t, err)
	require.NotNil(t, b)

	res, err := mcpgobridge.Handler(nil, approve)(context.Background(), mcp.CallToolRequest{})
	assert.Nil(t, res)
	assert.EqualError(t, err, "mcpgobridge: the handler has no Bridge")
}

// legacyClient connects an mcp-go client on 2025-11-25 with opts to srv
// over streamable HTTP, with a session. (mcp-go's stdio server holds one
// session per process, so parallel tests cannot each have one.)
func legacyClient(t *testing.T, srv *server.MCPServer, opts ...goclient.ClientOption) *goclient.Client {
	t.Helper()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(hs.Close)
	// A legacy session takes the server's requests on its standalone
	// stream, which 2026-07-28 removed.
	//lint:ignore SA1019 the test is of a client on 2025-11-25
	// The server's own client: another test's server, closing, closes the
	// idle connections of http.DefaultTransport under this one.
	tr, err := transport.NewStreamableHTTP(hs.URL, transport.WithContinuousListening(), transport.WithHTTPBasicClient(hs.Client()))
	require.NoError(t, err)
	c := goclient.NewClient(tr, append(opts, goclient.WithProtocolVersion(mcp.ProtocolVersion20251125))...)
	require.NoError(t, c.Start(t.Context()))
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "legacy", Version: "v0"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c
}

// answers answers every request of a legacy session from a queue, and
// keeps what it was asked.
type answers struct {
	mu      sync.Mutex
	elicit  []mcp.ElicitationResult
	asked   []string
	sampled int
	rooted  int
}

func (a *answers) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	if len(a.elicit) == 0 {
		return nil, errors.New("no answer left")
	}
	res := a.elicit[0]
	a.elicit = a.elicit[1:]
	return &res, nil
}

func (a *answers) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sampled++
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled")}, Model: "m"}, nil
}

func (a *answers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rooted++
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work", Name: "work"}}}, nil
}

func accept(content map[string]any) mcp.ElicitationResult {
	return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

// TestHandlerLegacy serves clients on 2025-11-25: the server asks them
// directly, round after round, and the client sees the final result only.
func TestHandlerLegacy(t *testing.T) {
	t.Parallel()
	prod := map[string]any{"env": "prod"}
	tests := []struct {
		tool      string
		args      map[string]any // the tool's own keys only: another is refused
		answers   []mcp.ElicitationResult
		wantText  string
		wantError bool
		wantAsked []string
	}{
		{"approve", prod, []mcp.ElicitationResult{accept(nil)}, "deployed to prod", false, []string{"Deploy to prod?"}},
		{"choose", nil, []mcp.ElicitationResult{accept(map[string]any{"env": "dev"})}, "env=dev ok=true", false, []string{"Which environment?"}},
		{"twice", nil, []mcp.ElicitationResult{accept(map[string]any{"answer": "one"}), accept(map[string]any{"answer": "two"})}, "one then two", false, []string{"First?", "Second?"}},
		{"choose with a key it does not take", prod, nil, `mcpgobridge: unknown key "env" (it takes no keys)`, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, keyA, rigConfig{})
			a := &answers{elicit: tt.answers}
			c := legacyClient(t, r.srv, goclient.WithElicitationHandler(a),
				goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}))
			res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: strings.Fields(tt.tool)[0], Arguments: tt.args}})
			require.NoError(t, err)
			assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: tt.wantText}}, res.Content)
			assert.Equal(t, tt.wantError, res.IsError)
			assert.Equal(t, tt.wantAsked, a.asked)
		})
	}

	t.Run("many", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, keyA, rigConfig{})
		a := &answers{elicit: []mcp.ElicitationResult{accept(map[string]any{"answer": "Ada"})}}
		c := legacyClient(t, r.srv, goclient.WithElicitationHandler(a), goclient.WithSamplingHandler(a), goclient.WithRootsHandler(a),
			goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
		res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "many"}})
		require.NoError(t, err)
		assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: manyAnswers}}, res.Content)
		assert.Equal(t, []string{"Name?"}, a.asked)
		assert.Equal(t, 1, a.sampled)
		assert.Equal(t, 1, a.rooted)
	})

	t.Run("off the schema", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, keyA, rigConfig{})
		a := &answers{elicit: []mcp.ElicitationResult{accept(map[string]any{"env": "staging"})}}
		c := legacyClient(t, r.srv, goclient.WithElicitationHandler(a),
			goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
		_, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "choose"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Invalid inputResponses")
	})

	t.Run("no elicitation", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, keyA, rigConfig{})
		c := legacyClient(t, r.srv)
		res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "approve", Arguments: map[string]any{"env": "prod"}}})
		require.NoError(t, err)
		assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: "Deploy to prod?"}}, res.Content)
		assert.True(t, res.IsError)
	})
}

// TestHandlerAmbiguousArguments checks that a typed handler reads its input
// with exact keys, a key in another case an error result naming it, and
// that arguments whose objects repeat a name or hold
// names that are one when case is folded are refused, first call and retry,
// typed and raw, before the tool runs: mcp-go's encoding/json would read
// the last of them, folding case, while the state binds both.
func TestHandlerAmbiguousArguments(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	assertJSON(t, `{"content":[{"type":"text","text":"mcpgobridge: unknown key \"ENV\": keys are matched exactly, did you mean \"env\"? (it takes \"env\")"}],`+
		`"isError":true,"resultType":"complete"}`,
		result(t, r.call(allCaps, `"name":"approve","arguments":{"ENV":"prod"}`)))
	first := r.call(allCaps, `"name":"approve","arguments":{"env":"staging"}`)
	st := state(t, first)
	for _, tt := range []struct{ args, msg string }{
		{`{"env":"staging","Env":"prod"}`, `Invalid arguments: duplicate JSON key: keys \"env\" and \"Env\" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"Env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: keys \"Env\" and \"env\" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":"staging","\u212a":1,"k":2}`, `Invalid arguments: duplicate JSON key: keys \"\\u212a\" and \"k\" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: key \"env\" appears twice in the top-level object`},
	} {
		for _, params := range []string{
			`"name":"approve","arguments":` + tt.args,
			`"name":"approve","arguments":` + tt.args + `,"requestState":"` + st + `","inputResponses":{"q1":{"action":"accept","content":{}}}`,
			`"name":"twice","arguments":` + tt.args,
		} {
			got := r.call(allCaps, params)
			assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"%s"}}`, r.id, tt.msg), got)
			assert.ErrorIs(t, r.lastErr(), toolnexus.ErrDuplicateKey)
		}
	}
	assertJSON(t, `{"content":[{"type":"text","text":"deployed to staging"}],"resultType":"complete"}`,
		result(t, r.call(allCaps, `"name":"approve","arguments":{"env":"staging"},"requestState":"`+st+`","inputResponses":{"q1":{"action":"accept","content":{}}}`)))
}

// TestHandlerTokenWithoutPrincipal calls over streamable HTTP, with an
// mcp-go client, a Bridge whose calls carry an Authorization header: with
// no Principal, or one that names no user, every call is refused and no
// tool runs; with a Principal, the state binds to its user.
func TestHandlerTokenWithoutPrincipal(t *testing.T) {
	t.Parallel()
	fromToken := func(_ context.Context, req mcp.CallToolRequest) string {
		user, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		return requeststate.Principal("https://issuer.example", user)
	}
	for _, tt := range []struct {
		name      string
		principal func(context.Context, mcp.CallToolRequest) string
		refused   bool
	}{
		{"no Principal", nil, true},
		{"a Principal that names no one", func(context.Context, mcp.CallToolRequest) string { return "" }, true},
		{"a Principal", fromToken, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, keyA, rigConfig{Bridge: mcpgobridge.Options{Principal: tt.principal}})
			hs := httptest.NewServer(server.NewStreamableHTTPServer(r.srv))
			t.Cleanup(hs.Close)
			tr, err := transport.NewStreamableHTTP(hs.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer alice"}), transport.WithHTTPBasicClient(hs.Client()))
			require.NoError(t, err)
			c := goclient.NewClient(tr)
			require.NoError(t, c.Start(t.Context()))
			t.Cleanup(func() { assert.NoError(t, c.Close()) })
			var init mcp.InitializeRequest
			init.Params.ClientInfo = mcp.Implementation{Name: "token", Version: "v0"}
			_, err = c.Initialize(t.Context(), init)
			require.NoError(t, err)
			res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "plain"}})
			if tt.refused {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "Internal error")
				assert.ErrorIs(t, r.lastErr(), mcpcall.ErrNoPrincipal)
				assert.Contains(t, r.logs.String(), `toolnexus: authenticated call without a principal: call of \"plain\": its token names no subject`)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: "plain"}}, res.Content)
		})
	}
}

// TestHandlerSelfReferringData serves a tool that suspends on a Request
// whose Data holds itself: the call is an error result saying why and the
// server goes on; a result whose structured content holds itself does not
// convert.
func TestHandlerSelfReferringData(t *testing.T) {
	t.Parallel()
	r := newRig(t, keyA, rigConfig{})
	b, err := mcpgobridge.New(bridgetest.Runner(t, keyA, bridgetest.Config{}), nil)
	require.NoError(t, err)
	self := map[string]any{"a": 1.0}
	self["self"] = self
	r.srv.AddTool(mcp.NewTool("loop"), mcpgobridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: self})
	}))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"v0"}},`+
		`"content":[{"type":"text","text":"toolnexus: tool \"loop\" returned an invalid result: invalid request: request \"r\": data nests deeper than 10000 levels, or holds itself"}],`+
		`"isError":true,"resultType":"complete"}}`, r.call(allCaps, `"name":"loop"`))
	assert.NoError(t, r.lastErr())
	assertJSON(t, `{"content":[{"type":"text","text":"plain"}],"resultType":"complete"}`, result(t, r.call(`{}`, `"name":"plain"`)))
	_, err = mcpgobridge.FromCallToolResult(&mcp.CallToolResult{StructuredContent: self})
	assert.ErrorIs(t, err, toolnexus.ErrInvalidMCP)
}

// progressNote is a progress notification as a client read it.
type progressNote struct {
	Token    any
	Progress any
	Total    any // nil: not sent
	Message  any
}

// progressLog keeps the progress notifications a client reads.
type progressLog struct {
	mu    sync.Mutex
	notes []progressNote
}

func (l *progressLog) handle(n mcp.JSONRPCNotification) {
	if n.Method != string(mcp.MethodNotificationProgress) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := n.Params.AdditionalFields
	l.notes = append(l.notes, progressNote{f["progressToken"], f["progress"], f["total"], f["message"]})
}

// others returns the notes read with a token other than fence, once one
// with fence (unless nil) has been read and, when last is not nil, one of
// the others whose progress is last: a notification may come on a stream
// of its own, after the response of its call and a later call's
// notifications.
func (l *progressLog) others(t *testing.T, fence, last any) []progressNote {
	t.Helper()
	var others []progressNote
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		l.mu.Lock()
		defer l.mu.Unlock()
		require.True(c, fence == nil || slices.ContainsFunc(l.notes, func(n progressNote) bool { return n.Token == fence }), "no note with token %v", fence)
		others = slices.DeleteFunc(slices.Clone(l.notes), func(n progressNote) bool { return n.Token == fence })
		require.True(c, last == nil || slices.ContainsFunc(others, func(n progressNote) bool { return n.Progress == last }), "no note of progress %v", last)
	}, 10*time.Second, time.Millisecond)
	return others
}

// TestHandlerProgress serves a tool that reports a thousand steps in a
// tight loop to mcp-go's client on 2026-07-28 and on 2025-11-25: a call
// with a progress token gets the first and the last report, its token,
// values and messages exact, and one a ProgressInterval at most in
// between; a call without one gets none; a notification that cannot be
// sent is logged, and the call goes on.
func TestHandlerProgress(t *testing.T) {
	t.Parallel()
	const steps = 1000
	connections := []struct {
		protocol string
		connect  func(t *testing.T, srv *server.MCPServer) *goclient.Client
	}{
		{mcpcall.MultiRoundTrip, func(t *testing.T, srv *server.MCPServer) *goclient.Client {
			return modernClient(t, srv, &posts{}, &elicitor{})
		}},
		{mcp.ProtocolVersion20251125, func(t *testing.T, srv *server.MCPServer) *goclient.Client { return legacyClient(t, srv) }},
	}
	tests := []struct {
		name      string
		token     mcp.ProgressToken
		wantToken any // read back
		unknown   bool
	}{
		{"a string token", "tok-1", "tok-1", false},
		{"a number token and no total", 7, float64(7), true},
		{"no token", nil, nil, false},
	}
	for _, conn := range connections {
		for _, tt := range tests {
			t.Run(conn.protocol+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				notes := &progressLog{}
				r := newRig(t, keyA, rigConfig{})
				// dropped counts the reports mcp-go did not take: it drops a
				// notification when its queue for the client is full, as on
				// a loaded machine, and the bridge logs it.
				dropped := func() int { return strings.Count(r.logs.String(), "progress notification not sent") }
				c := conn.connect(t, r.srv)
				require.Equal(t, conn.protocol, c.ProtocolVersion())
				c.OnNotification(notes.handle)
				req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": steps, "unknown": tt.unknown}}}
				if tt.token != nil {
					req.Params.Meta = &mcp.Meta{ProgressToken: tt.token}
				}
				start := time.Now()
				res, err := c.CallTool(t.Context(), req)
				require.NoError(t, err)
				assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: "1000 steps"}}, res.Content)
				// At most one report a ProgressInterval, besides the first
				// and the last, however long the machine took.
				most := 2 + int(time.Since(start)/park.ProgressInterval)
				lost := dropped()

				// A call after it, whose notes tell the first call's have
				// been read.
				fence := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 1}, Meta: &mcp.Meta{ProgressToken: "fence"}}}
				_, err = c.CallTool(t.Context(), fence)
				require.NoError(t, err)
				var last, wait any = nil, "fence" // the last report, which may come after the fence's; the fence, unless dropped
				if tt.token != nil && lost == 0 {
					last = float64(steps)
				}
				if dropped() > lost {
					wait = nil
				}
				got := notes.others(t, wait, last)
				if tt.token == nil {
					assert.Empty(t, got)
					assert.Zero(t, lost, "nothing was sent")
					return
				}
				var total any = float64(steps)
				if tt.unknown {
					total = nil
				}
				// A session on 2025-11-25 takes notifications on its
				// standalone stream as well as on the call's, so that the
				// client may read them out of order.
				slices.SortFunc(got, func(a, b progressNote) int { return cmp.Compare(a.Progress.(float64), b.Progress.(float64)) })
				assert.LessOrEqual(t, len(got), most, "%+v", got)
				if lost == 0 {
					require.GreaterOrEqual(t, len(got), 2, "%+v", got)
					assert.Equal(t, progressNote{tt.wantToken, float64(1), total, "step 1"}, got[0])
					assert.Equal(t, progressNote{tt.wantToken, float64(steps), total, "step 1000"}, got[len(got)-1])
				} else {
					// What mcp-go dropped, the bridge handed it and logged.
					assert.GreaterOrEqual(t, len(got)+lost, 2, "%+v, %d dropped", got, lost)
				}
				for i := range got {
					assert.Equal(t, tt.wantToken, got[i].Token)
					assert.Equal(t, total, got[i].Total)
					assert.Equal(t, fmt.Sprintf("step %v", got[i].Progress), got[i].Message)
				}
				for i := 1; i < len(got); i++ {
					assert.Greater(t, got[i].Progress, got[i-1].Progress)
				}
			})
		}
	}

	t.Run("a send that fails", func(t *testing.T) {
		t.Parallel()
		// Outside a session, mcp-go has no client to send to.
		r := newRig(t, keyA, rigConfig{})
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":1000},` +
			`"_meta":{"progressToken":"tok-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		data, err := json.Marshal(r.srv.HandleMessage(t.Context(), json.RawMessage(msg)))
		require.NoError(t, err)
		assertJSON(t, `{"content":[{"type":"text","text":"1000 steps"}],"resultType":"complete"}`, result(t, string(data)))
		assert.Contains(t, r.logs.String(), `level=INFO msg="mcpgobridge: progress notification not sent" tool=progress err="notification channel not initialized"`)
	})
}

// TestCallPrints checks the forms a Call prints in: its tool, its
// arguments as their size and its input as its type.
func TestCallPrints(t *testing.T) {
	t.Parallel()
	type input struct{ Image string }
	var req, raw mcp.CallToolRequest
	req.Params.Name = "shot"
	req.Params.Arguments = map[string]any{"image": "AAAA"}
	raw.Params.RawArguments = json.RawMessage(`{"image":"AAAA"}`)
	tests := []struct {
		verb string
		c    any
		want string
	}{
		{"%v", mcpgobridge.Call[input]{Request: req, In: input{"AAAA"}, Answers: toolnexus.Answers{{ID: "r", OK: true}}},
			`{Request:{Name:"shot" Arguments:map[string]interface {}(len 1)} In:mcpgobridge_test.input{…} Answers:[{ID:"r" OK:true}]}`},
		{"%v", mcpgobridge.Call[string]{Request: raw}, `{Request:{Name:"" Arguments:json.RawMessage(16 bytes)} In:string{…} Answers:nil}`},
		{"%#v", mcpgobridge.Call[input]{Request: req, Answers: toolnexus.Answers{{ID: "r", OK: true}}}, `mcpgobridge.Call[mcpgobridge_test.input]{Request:mcp.CallToolRequest{` +
			`Params:mcp.CallToolParams{Name:"shot", Arguments:map[string]interface {}(len 1), …}, …}, In:mcpgobridge_test.input{…}, ` +
			`Answers:toolnexus.Answers[toolnexus.Answer{ID:"r", OK:true, Data:nil, Reason:""}]}`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, fmt.Sprintf(tt.verb, tt.c), tt.verb)
	}
}
