package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/examples/internal/tsclient"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// TestGoClient runs every scenario with a client of the Go SDK that answers
// the server's question: on the newest protocol, where the client gets the
// question in an input_required result and retries the call, and on
// 2025-11-25, where the server asks the client directly.
func TestGoClient(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25"} {
		for _, sc := range bridgetest.Scenarios {
			t.Run(cmp.Or(version, "newest")+"/"+sc.Name(), func(t *testing.T) {
				t.Parallel()
				var (
					mu    sync.Mutex
					asked []string
				)
				opts := &mcp.ClientOptions{
					Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
						Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						mu.Lock()
						defer mu.Unlock()
						asked = append(asked, bridgetest.Question(req.Params.Mode, req.Params.Message, req.Params.URL))
						return &mcp.ElicitResult{Action: sc.Action, Content: sc.Content}, nil
					},
				}
				cs := connect(t, opts, version)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: sc.Tool, Arguments: sc.Arguments})
				require.NoError(t, err)
				require.Len(t, res.Content, 1)
				assert.Equal(t, &mcp.TextContent{Text: sc.Text}, res.Content[0])
				assert.Equal(t, sc.IsError, res.IsError)
				mu.Lock()
				defer mu.Unlock()
				assert.Equal(t, []string{sc.Asked}, asked)
			})
		}
	}
}

// connect connects a client with opts to a new server on the given protocol
// version ("" for the newest).
func connect(t *testing.T, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server, err := newServer(bridgetest.Runner(t, testKey, bridgetest.Config{State: requeststate.Options{Audience: mcpexample.Audience}}))
	require.NoError(t, err)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs
}

// asked returns what l's server asked, as Scenario.Asked says it.
func asked(l tsclient.Line) []string {
	out := []string{}
	for _, a := range l.Asked {
		out = append(out, bridgetest.Question(a.Mode, a.Message, a.URL))
	}
	return out
}

// text returns the text of l's one text block.
func text(t *testing.T, l tsclient.Line) string {
	t.Helper()
	require.Nil(t, l.Error)
	require.Len(t, l.Content, 1)
	assert.Equal(t, "text", l.Content[0].Type)
	return l.Content[0].Text
}

// tsClient runs the official TypeScript SDK as the client of target (this
// server's binary over stdio, with env, or a URL) through each of
// scenarios, and returns its lines.
func tsClient(t *testing.T, target string, scenarios any, env map[string]string) []tsclient.Line {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lines, _, err := tsclient.Run(ctx, target, scenarios, env)
	require.NoError(t, err)
	return lines
}

// TestTypeScriptClient runs every scenario with the official TypeScript SDK
// as the client, on protocol 2025-11-25, against this server built and run
// over stdio.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	lines := tsClient(t, serverBinary, bridgetest.Scenarios, nil)
	require.Len(t, lines, len(bridgetest.Scenarios))
	for i, sc := range bridgetest.Scenarios {
		t.Run(sc.Name(), func(t *testing.T) {
			l := lines[i]
			assert.Equal(t, sc.Tool, l.Tool)
			assert.Equal(t, sc.Action, l.Action)
			assert.Equal(t, sc.Text, text(t, l))
			assert.Equal(t, sc.IsError, l.IsError)
			assert.Equal(t, []string{sc.Asked}, asked(l))
		})
	}
}

// TestTypeScriptClientRetries retries calls with requestStates under the
// TypeScript SDK: an altered state, a state answered, the same state
// answered again (the first reply), a state whose answer is missing,
// answers off the question's schema.
func TestTypeScriptClientRetries(t *testing.T) {
	t.Parallel()
	key, err := hex.DecodeString(oldKey)
	require.NoError(t, err)
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}, Audience: "toolnexus-example"})
	require.NoError(t, err)
	question := toolnexus.Request{ID: "pnd-ts", Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	state, err := sealer.Seal(requeststate.Call{Tool: "pick", Arguments: json.RawMessage(`{}`)}, requeststate.State{Requests: []toolnexus.Request{question}}, time.Now())
	require.NoError(t, err)
	// Another state of the same question: a state answered once gives its
	// retries the first reply.
	other, err := sealer.Seal(requeststate.Call{Tool: "pick", Arguments: json.RawMessage(`{}`)}, requeststate.State{Requests: []toolnexus.Request{question}}, time.Now())
	require.NoError(t, err)
	accept := func(content map[string]any) map[string]any {
		return map[string]any{"action": "accept", "content": content}
	}
	tests := []struct {
		name     string
		scenario map[string]any
		text     string   // the result's text, or else
		code     int      // the JSON-RPC error's code
		asked    []string // what the server asked
	}{
		{"altered state", map[string]any{"tool": "deploy", "arguments": map[string]any{"env": "prod"}, "action": "accept",
			"requestState": state + "-TAMPERED", "inputResponses": map[string]any{"pnd-ts": map[string]any{"action": "accept"}}},
			"", -32602, []string{}},
		{"answered", map[string]any{"tool": "pick", "requestState": state,
			"inputResponses": map[string]any{"pnd-ts": accept(map[string]any{"answer": "dev"})}},
			"picked dev", 0, []string{}},
		{"answered again: the first reply", map[string]any{"tool": "pick", "action": "accept", "content": map[string]any{"answer": "prod"},
			"requestState": state, "inputResponses": map[string]any{"pnd-ts": accept(map[string]any{"answer": "staging"})}},
			"picked dev", 0, []string{}},
		{"answer missing: asked again", map[string]any{"tool": "pick", "action": "accept", "content": map[string]any{"answer": "prod"},
			"requestState": other, "inputResponses": map[string]any{"other": accept(map[string]any{"answer": "dev"})}},
			"picked prod", 0, []string{"form: Which environment?"}},
		{"retried answer off the schema", map[string]any{"tool": "pick", "requestState": state,
			"inputResponses": map[string]any{"pnd-ts": accept(map[string]any{"answer": 42})}},
			"", -32602, []string{}},
		{"answer off the schema", map[string]any{"tool": "pick", "action": "accept", "content": map[string]any{"answer": 42}},
			"", -32602, []string{"form: Which environment?"}},
	}
	var scenarios []map[string]any
	for _, tt := range tests {
		scenarios = append(scenarios, tt.scenario)
	}
	lines := tsClient(t, serverBinary, scenarios, map[string]string{"TOOLNEXUS_STATE_KEY": oldKey})
	require.Len(t, lines, len(tests))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lines[i]
			assert.Equal(t, tt.asked, asked(l))
			if tt.code == 0 {
				assert.Equal(t, tt.text, text(t, l))
				assert.False(t, l.IsError)
				return
			}
			require.NotNil(t, l.Error)
			assert.Equal(t, tt.code, l.Error.Code)
			if tt.name == "altered state" {
				assert.Equal(t, "MCP error -32602: Invalid or expired requestState", l.Error.Message)
				assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(l.Error.Data))
			} else {
				assert.Contains(t, l.Error.Message, "MCP error -32602: Invalid")
				assert.NotContains(t, l.Error.Message, "toolnexus:")
			}
		})
	}
}

// TestTypeScriptClientConformanceServer runs the TypeScript SDK against
// mcpbridge's conformance server over streamable HTTP on 2025-11-25,
// where the bridge asks the client on its session: a tool that asks in
// sequence, sampling, roots, all three at once.
func TestTypeScriptClientConformanceServer(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "conformance")
	build := exec.Command("go", "build", "-o", bin, "./conformance")
	build.Dir = filepath.Join("..", "..", "mcpbridge")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	server := exec.Command(bin)
	stdout, err := server.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	t.Cleanup(func() {
		server.Process.Kill()
		server.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)

	roots := []map[string]any{{"uri": "file:///work", "name": "work"}}
	tests := []struct {
		name     string
		scenario map[string]any
		text     string
		asked    []string
	}{
		{"multi-round", map[string]any{"tool": "test_input_required_result_multi_round", "answers": []map[string]any{
			{"action": "accept", "content": map[string]any{"name": "Alice"}},
			{"action": "accept", "content": map[string]any{"color": "blue"}},
		}}, "Multi-round complete: Alice likes blue", []string{"form: Step 1: What is your name?", "form: Step 2: What is your favorite color?"}},
		{"sampling", map[string]any{"tool": "test_sampling", "arguments": map[string]any{"prompt": "The capital of France?"}, "sampled": "Paris"},
			"LLM response: Paris", []string{"sampling: The capital of France?"}},
		{"roots", map[string]any{"tool": "test_input_required_result_list_roots", "roots": roots},
			"Client exposed 1 root(s): file:///work", []string{"roots:"}},
		{"all at once", map[string]any{"tool": "test_input_required_result_multiple_inputs", "roots": roots, "sampled": "Hello there!",
			"answers": []map[string]any{{"action": "accept", "content": map[string]any{"name": "Alice"}}}},
			"Hello there! Alice — 1 root(s) visible", []string{"form: What is your name?", "sampling: Generate a greeting", "roots:"}},
	}
	var scenarios []map[string]any
	for _, tt := range tests {
		scenarios = append(scenarios, tt.scenario)
	}
	lines := tsClient(t, strings.TrimSpace(url), scenarios, nil)
	require.Len(t, lines, len(tests))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.text, text(t, lines[i]))
			assert.Equal(t, tt.asked, asked(lines[i]))
		})
	}
}

// serverBinary is this server, built once by TestMain.
var serverBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolnexus-example-server")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBinary = filepath.Join(dir, "server")
	if runtime.GOOS == "windows" {
		serverBinary += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", serverBinary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Two keys, as TOOLNEXUS_STATE_KEYS takes them.
var (
	oldKey = strings.Repeat("11", 32)
	newKey = strings.Repeat("22", 32)
)

func TestConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		env    map[string]string
		keys   int  // in the ring besides the sealing key
		claims bool // a store of its own, not the process's
		expiry time.Duration
		err    string
	}{
		{name: "none: a random key"},
		{name: "one key", env: map[string]string{"TOOLNEXUS_STATE_KEY": oldKey}},
		{name: "a ring", env: map[string]string{"TOOLNEXUS_STATE_KEYS": newKey + "," + oldKey}, keys: 1},
		{name: "single use", env: map[string]string{"TOOLNEXUS_SINGLE_USE": "1"}},
		{name: "redis", env: map[string]string{"TOOLNEXUS_REDIS_URL": "redis://127.0.0.1:1/0"}, claims: true},
		{name: "expiry", env: map[string]string{"TOOLNEXUS_EXPIRY": "48h"}, expiry: 48 * time.Hour},
		{name: "key not hex", env: map[string]string{"TOOLNEXUS_STATE_KEYS": newKey + ",zz"}, err: "TOOLNEXUS_STATE_KEYS: toolnexus: invalid request state key"},
		{name: "one key not hex", env: map[string]string{"TOOLNEXUS_STATE_KEY": "not hex"}, err: "TOOLNEXUS_STATE_KEYS: toolnexus: invalid request state key"},
		{name: "short key", env: map[string]string{"TOOLNEXUS_STATE_KEYS": "abcd"}, err: "TOOLNEXUS_STATE_KEYS: toolnexus: request state key too short"},
		{name: "both", env: map[string]string{"TOOLNEXUS_STATE_KEYS": newKey, "TOOLNEXUS_STATE_KEY": oldKey}, err: "both TOOLNEXUS_STATE_KEYS and TOOLNEXUS_STATE_KEY are set: set one"},
		{name: "single use yes", env: map[string]string{"TOOLNEXUS_SINGLE_USE": "yes"}, err: `TOOLNEXUS_SINGLE_USE is "yes", not 1 or 0`},
		{name: "single use off", env: map[string]string{"TOOLNEXUS_SINGLE_USE": "0"}, err: "TOOLNEXUS_SINGLE_USE is 0, but each state is answered once: unset it"},
		{name: "redis url", env: map[string]string{"TOOLNEXUS_REDIS_URL": "http://example.com"}, err: "TOOLNEXUS_REDIS_URL: "},
		{name: "expiry not a duration", env: map[string]string{"TOOLNEXUS_EXPIRY": "2 days"}, err: `TOOLNEXUS_EXPIRY is "2 days", not a positive duration such as 2h`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := mcpexample.FromEnv(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), tt.err), err.Error())
				assert.NotContains(t, err.Error(), "zz", "the error shows no key")
				return
			}
			require.NoError(t, err)
			require.Len(t, c.State.Keys, tt.keys+1)
			assert.Len(t, c.State.Keys[0], 32)
			assert.Equal(t, tt.claims, c.Runner.Park.Store != nil)
			assert.Equal(t, tt.expiry, c.Runner.Park.Expiry)
			_, err = fromEnv(func(k string) string { return tt.env[k] })
			require.NoError(t, err)
		})
	}
}

// TestBadKeyStops runs the server with a key that is not hex: it stops at
// start, naming the variable.
func TestBadKeyStops(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(serverBinary)
	cmd.Env = append(os.Environ(), "TOOLNEXUS_STATE_KEYS="+newKey+",not-hex")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.NotEqual(t, 0, exit.ExitCode())
	assert.Contains(t, string(out), "TOOLNEXUS_STATE_KEYS: toolnexus: invalid request state key")
	assert.NotContains(t, string(out), newKey)
}

// process runs this server with env and connects a client that answers
// input_required results itself.
func process(t *testing.T, env ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(serverBinary)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	t.Cleanup(func() { stderr.Close() })
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log, _ := os.ReadFile(stderr.Name())
		t.Fatalf("connect: %v; the server wrote:\n%s", err, log)
	}
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })
	return cs
}

// parked calls deploy to prod on cs and returns the retry that approves it.
func parked(t *testing.T, cs *mcp.ClientSession) func() *mcp.CallToolParams {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	require.NoError(t, err)
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 1)
	var id string
	for id = range res.InputRequests {
	}
	return func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}, RequestState: res.RequestState,
			InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}}
	}
}

// deployed asserts that retry finishes the parked call on cs.
func deployed(t *testing.T, cs *mcp.ClientSession, retry *mcp.CallToolParams) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), retry)
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "deployed to prod"}}, res.Content)
}

// refused asserts that retry gets the JSON-RPC error code on cs.
func refused(t *testing.T, cs *mcp.ClientSession, retry *mcp.CallToolParams, code int64, message string) {
	t.Helper()
	_, err := cs.CallTool(context.Background(), retry)
	var e *jsonrpc.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, code, e.Code)
	assert.Equal(t, message, e.Message)
	if code == -32602 {
		assert.Equal(t, `{"reason":"invalid_request_state"}`, string(e.Data))
	}
}

const invalidState = "Invalid or expired requestState"

// TestRotation parks a call on a server, then answers it on servers started
// with the keys of each step of a rotation.
func TestRotation(t *testing.T) {
	t.Parallel()
	retry := parked(t, process(t, "TOOLNEXUS_STATE_KEYS="+oldKey))
	deployed(t, process(t, "TOOLNEXUS_STATE_KEYS="+oldKey+","+newKey), retry())
	deployed(t, process(t, "TOOLNEXUS_STATE_KEYS="+newKey+","+oldKey), retry())
	deployed(t, process(t, "TOOLNEXUS_STATE_KEY="+oldKey), retry())
	refused(t, process(t, "TOOLNEXUS_STATE_KEYS="+newKey), retry(), -32602, invalidState)

	// A state the new key sealed opens where the old key is retired.
	again := parked(t, process(t, "TOOLNEXUS_STATE_KEYS="+newKey+","+oldKey))
	deployed(t, process(t, "TOOLNEXUS_STATE_KEYS="+newKey), again())
}

// TestSingleUse answers a parked call on one server, with and without
// TOOLNEXUS_SINGLE_USE=1, which changes nothing: each retry gets the
// first run's result. Memory claims are the process's own: another
// process answers the state once more.
func TestSingleUse(t *testing.T) {
	t.Parallel()
	env := []string{"TOOLNEXUS_STATE_KEY=" + oldKey, "TOOLNEXUS_SINGLE_USE=1"}
	cs := process(t, env...)
	retry := parked(t, cs)
	deployed(t, cs, retry())
	deployed(t, cs, retry())
	deployed(t, process(t, env...), retry())

	// Without the variable, the same: once is the default.
	free := process(t, "TOOLNEXUS_STATE_KEY="+oldKey)
	again := parked(t, free)
	deployed(t, free, again())
	deployed(t, free, again())
}

// TestRedisReplay shares one Redis between two servers: a call finished on
// one is answered on the other with the result of its one run, kept in the
// Redis; with Redis down, no retry runs.
func TestRedisReplay(t *testing.T) {
	t.Parallel()
	addr := bridgetest.StartRedis(t)
	env := []string{"TOOLNEXUS_STATE_KEY=" + oldKey, "TOOLNEXUS_REDIS_URL=redis://" + addr + "/0"}
	first, second := process(t, env...), process(t, env...)
	retry := parked(t, first)
	deployed(t, first, retry())
	deployed(t, second, retry())
	deployed(t, first, retry())

	other := parked(t, second)
	deployed(t, first, other())
	deployed(t, second, other())

	down := process(t, "TOOLNEXUS_STATE_KEY="+oldKey, "TOOLNEXUS_REDIS_URL=redis://"+bridgetest.FreeAddr(t)+"/0")
	refused(t, down, parked(t, down)(), -32603, "Internal error")
}
