package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	goclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	gomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/examples/internal/tsclient"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The client suite of this file drives both example servers, built from
// their sources: this one, on mcp-go, and mcpbridge's, on the go-sdk. They
// keep one contract, so every client must see the same from each.

// testKey is the state key of the servers under test.
const testKey = "3031323334353637383961626364656630313233343536373839616263646566"

// servers are the example servers the suite drives: name and the
// directory of its sources, relative to this one.
var servers = []struct{ name, dir string }{
	{"mcpgobridge", "."},
	{"mcpbridge", filepath.Join("..", "mcpserver")},
}

// binaries holds each server's binary, built once.
var binaries sync.Map // server name → func() (string, error)

// binary returns the path of the named server's binary, building it on
// first use.
func binary(t *testing.T, name, dir string) string {
	t.Helper()
	build, _ := binaries.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		out, err := os.MkdirTemp("", "toolnexus-example-")
		if err != nil {
			return "", err
		}
		bin := filepath.Join(out, name)
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build in %s: %v\n%s", dir, err, msg)
		}
		return bin, nil
	}))
	bin, err := build.(func() (string, error))()
	require.NoError(t, err)
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	binaries.Range(func(_, build any) bool {
		if bin, err := build.(func() (string, error))(); err == nil {
			os.RemoveAll(filepath.Dir(bin))
		}
		return true
	})
	os.Exit(code)
}

// env returns the environment of a server under test.
func env() []string {
	return append(os.Environ(), "TOOLNEXUS_STATE_KEY="+testKey)
}

// TestMCPGoClient runs every scenario against both servers with a client of
// mcp-go that answers the server's question: on the newest protocol, where
// the client gets the question in an input_required result and retries the
// call, and on 2025-11-25, where the server asks the client directly.
func TestMCPGoClient(t *testing.T) {
	t.Parallel()
	for _, srv := range servers {
		for _, version := range []string{"", gomcp.ProtocolVersion20251125} {
			t.Run(srv.name+"/"+cmp.Or(version, "newest"), func(t *testing.T) {
				t.Parallel()
				bin := binary(t, srv.name, srv.dir)
				for _, sc := range bridgetest.Scenarios {
					t.Run(sc.Name(), func(t *testing.T) {
						e := &elicitor{sc: sc}
						c := mcpGoClient(t, bin, version, e)
						res, err := c.CallTool(context.Background(), gomcp.CallToolRequest{Params: gomcp.CallToolParams{Name: sc.Tool, Arguments: sc.Arguments}})
						require.NoError(t, err)
						require.Len(t, res.Content, 1)
						assert.Equal(t, gomcp.TextContent{Type: "text", Text: sc.Text}, res.Content[0])
						assert.Equal(t, sc.IsError, res.IsError)
						assert.Equal(t, []string{sc.Asked}, e.questions())
					})
				}
			})
		}
	}
}

// elicitor answers elicitations as its scenario says and keeps the
// questions it was asked.
type elicitor struct {
	sc    bridgetest.Scenario
	mu    sync.Mutex
	asked []string
}

func (e *elicitor) Elicit(_ context.Context, req gomcp.ElicitationRequest) (*gomcp.ElicitationResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, bridgetest.Question(req.Params.Mode, req.Params.Message, req.Params.URL))
	res := &gomcp.ElicitationResult{ElicitationResponse: gomcp.ElicitationResponse{Action: gomcp.ElicitationResponseAction(e.sc.Action)}}
	if e.sc.Content != nil {
		res.Content = e.sc.Content
	}
	return res, nil
}

func (e *elicitor) questions() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.asked
}

// mcpGoClient starts bin under a connected mcp-go client on the given
// protocol version ("" for the newest) that answers elicitations with h.
func mcpGoClient(t *testing.T, bin, version string, h goclient.ElicitationHandler) *goclient.Client {
	t.Helper()
	ctx := context.Background()
	tr := transport.NewStdio(bin, env())
	opts := []goclient.ClientOption{
		goclient.WithElicitationHandler(h),
		goclient.WithClientCapabilities(gomcp.ClientCapabilities{Elicitation: &gomcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}),
	}
	if version != "" {
		opts = append(opts, goclient.WithProtocolVersion(version))
	}
	c := goclient.NewClient(tr, opts...)
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	var init gomcp.InitializeRequest
	init.Params.ClientInfo = gomcp.Implementation{Name: "test-client", Version: "v0.0.1"}
	_, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	return c
}

// TestGoSDKClient runs every scenario against both servers with a client of
// the go-sdk, on the newest protocol it and the server agree on and on
// 2025-11-25.
func TestGoSDKClient(t *testing.T) {
	t.Parallel()
	for _, srv := range servers {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(srv.name+"/"+cmp.Or(version, "newest"), func(t *testing.T) {
				t.Parallel()
				bin := binary(t, srv.name, srv.dir)
				for _, sc := range bridgetest.Scenarios {
					t.Run(sc.Name(), func(t *testing.T) {
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
						cs := goSDKClient(t, bin, version, opts)
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
			})
		}
	}
}

// goSDKClient starts bin under a connected go-sdk client with opts on the
// given protocol version ("" for the newest).
func goSDKClient(t *testing.T, bin, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })
	return cs
}

// TestTypeScriptClient runs every scenario against both servers with the
// official TypeScript SDK as the client, through mcpbridge's tsclient.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			lines, stdout := runTS(t, binary(t, srv.name, srv.dir), bridgetest.Scenarios)
			require.Len(t, lines, len(bridgetest.Scenarios), "stdout:\n%s", stdout)
			for i, sc := range bridgetest.Scenarios {
				l := lines[i]
				require.Nil(t, l.Error, sc.Name())
				assert.Equal(t, sc.Tool, l.Tool)
				assert.Equal(t, sc.Action, l.Action)
				require.Len(t, l.Content, 1, sc.Name())
				assert.Equal(t, "text", l.Content[0].Type)
				assert.Equal(t, sc.Text, l.Content[0].Text, sc.Name())
				assert.Equal(t, sc.IsError, l.IsError, sc.Name())
				require.Len(t, l.Asked, 1, sc.Name())
				assert.Equal(t, sc.Asked, bridgetest.Question(l.Asked[0].Mode, l.Asked[0].Message, l.Asked[0].URL))
			}
		})
	}
}

// rawServer runs bin with the environment env and sends it JSON-RPC
// messages on stdin, one a line, as a client on 2026-07-28 does without a
// session.
type rawServer struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

func startRaw(t *testing.T, bin string, env ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close()
		assert.NoError(t, cmd.Wait())
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	return &rawServer{t: t, in: in, out: sc}
}

// call sends a tools/call of deploy to prod with the given members of its
// params and returns the response.
func (s *rawServer) call(id int, params string) string {
	s.t.Helper()
	return s.callArgs(id, `{"env":"prod"}`, params)
}

// callArgs sends a tools/call of deploy with the arguments args and the
// given members of its params and returns the response.
func (s *rawServer) callArgs(id int, args, params string) string {
	s.t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	_, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy","arguments":%s,%s%s}}`+"\n", id, args, params, meta)
	require.NoError(s.t, err)
	require.True(s.t, s.out.Scan(), "no response: %v", s.out.Err())
	return s.out.Text()
}

// suspend calls deploy to prod and returns the request's ID and the
// requestState.
func (s *rawServer) suspend() (id, state string) {
	s.t.Helper()
	return s.suspendArgs(`{"env":"prod"}`)
}

// suspendArgs calls deploy with args and returns the request's ID and the
// requestState.
func (s *rawServer) suspendArgs(args string) (id, state string) {
	s.t.Helper()
	var res struct {
		Result struct {
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		} `json:"result"`
	}
	line := s.callArgs(1, args, "")
	require.NoError(s.t, json.Unmarshal([]byte(line), &res), line)
	require.Len(s.t, res.Result.InputRequests, 1, line)
	for k := range res.Result.InputRequests {
		id = k
	}
	return id, res.Result.RequestState
}

// approve retries deploy with the state and an approval of id.
func (s *rawServer) approve(rpcID int, id, state string) string {
	s.t.Helper()
	return s.call(rpcID, `"requestState":"`+state+`","inputResponses":{"`+id+`":{"action":"accept","content":{}}},`)
}

// deployed is the end of an approved deploy, as this server sends it.
const deployed = `"content":[{"type":"text","text":"deployed to prod"}],"resultType":"complete"}}`

// TestStateKeys rotates the state key across server processes: a state
// sealed before the rotation opens on a server that still holds the old
// key, and on no server that does not.
func TestStateKeys(t *testing.T) {
	t.Parallel()
	bin := binary(t, "mcpgobridge", ".")
	oldKey, newKey := testKey, strings.Repeat("ab", 32)
	id, state := startRaw(t, bin, "TOOLNEXUS_STATE_KEY="+oldKey).suspend()
	assert.Contains(t, startRaw(t, bin, "TOOLNEXUS_STATE_KEYS="+newKey+","+oldKey).approve(2, id, state), deployed)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Invalid or expired requestState"}}`,
		startRaw(t, bin, "TOOLNEXUS_STATE_KEYS="+newKey).approve(2, id, state))
}

// TestSingleUse answers a state once, with TOOLNEXUS_SINGLE_USE=1 and
// without it: its retry gets the first run's response, the same bytes.
func TestSingleUse(t *testing.T) {
	t.Parallel()
	bin := binary(t, "mcpgobridge", ".")
	for _, env := range [][]string{{"TOOLNEXUS_STATE_KEY=" + testKey, "TOOLNEXUS_SINGLE_USE=1"}, {"TOOLNEXUS_STATE_KEY=" + testKey}} {
		s := startRaw(t, bin, env...)
		id, state := s.suspend()
		first := s.approve(2, id, state)
		assert.Contains(t, first, deployed)
		assert.Equal(t, strings.Replace(first, `"id":2`, `"id":3`, 1), s.approve(3, id, state), env)
	}
}

// TestEnvironment stops the server at start on a bad configuration.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"not hex", map[string]string{"TOOLNEXUS_STATE_KEY": "zz"}, "TOOLNEXUS_STATE_KEYS: toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{"short", map[string]string{"TOOLNEXUS_STATE_KEYS": testKey + ",abcd"}, "TOOLNEXUS_STATE_KEYS: toolnexus: request state key too short: key 2 of 2: 2 bytes, want at least 32"},
		{"both", map[string]string{"TOOLNEXUS_STATE_KEY": testKey, "TOOLNEXUS_STATE_KEYS": testKey}, "both TOOLNEXUS_STATE_KEYS and TOOLNEXUS_STATE_KEY are set: set one"},
		{"single use", map[string]string{"TOOLNEXUS_SINGLE_USE": "yes"}, `TOOLNEXUS_SINGLE_USE is "yes", not 1 or 0`},
		{"single use off", map[string]string{"TOOLNEXUS_SINGLE_USE": "0"}, "TOOLNEXUS_SINGLE_USE is 0, but each state is answered once: unset it"},
		{"redis", map[string]string{"TOOLNEXUS_REDIS_URL": "http://localhost"}, "TOOLNEXUS_REDIS_URL: redis: invalid URL scheme: http"},
		{"expiry", map[string]string{"TOOLNEXUS_EXPIRY": "-1h"}, `TOOLNEXUS_EXPIRY is "-1h", not a positive duration such as 2h`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := fromEnv(func(k string) string { return tt.env[k] })
			assert.EqualError(t, err, tt.wantErr)
		})
	}
	env := func(k string) string { return map[string]string{"TOOLNEXUS_EXPIRY": "48h"}[k] }
	c, err := mcpexample.FromEnv(env)
	require.NoError(t, err)
	require.Len(t, c.State.Keys, 1)
	assert.Len(t, c.State.Keys[0], 32)
	c.State.Keys = nil
	assert.Equal(t, mcpexample.Config{State: requeststate.Options{Audience: "toolnexus-example", MaxAge: 48 * time.Hour}, Runner: mcpcall.Options{Park: park.Runner{Expiry: 48 * time.Hour}}}, c)
	srv, err := fromEnv(env)
	require.NoError(t, err)
	assert.Len(t, srv.ListTools(), 3)
}

// TestRedis answers a replay on another server process sharing one Redis
// with TOOLNEXUS_REDIS_URL with the first run's response, the same bytes,
// against a redis-server started on a free port of 127.0.0.1.
func TestRedis(t *testing.T) {
	t.Parallel()
	url := "redis://" + bridgetest.StartRedis(t) + "/0"
	bin := binary(t, "mcpgobridge", ".")
	env := []string{"TOOLNEXUS_STATE_KEY=" + testKey, "TOOLNEXUS_REDIS_URL=" + url}
	first, second := startRaw(t, bin, env...), startRaw(t, bin, env...)
	id, state := first.suspend()
	answered := first.approve(2, id, state)
	assert.Contains(t, answered, deployed)
	assert.Equal(t, answered, second.approve(2, id, state))
	assert.Equal(t, strings.Replace(answered, `"id":2`, `"id":3`, 1), first.approve(3, id, state))
}

// ambiguous are arguments of deploy whose objects repeat a name, or hold
// two names that are one when case is folded: mcp-go's encoding/json reads
// the last of them, the go-sdk's decoder the exact one, and the canonical
// form of two orders of them is one. Each server refuses them, on the
// first call and on a retry, before deploy runs.
//
// The go-sdk checks arguments against deploy's schema, which takes no
// other property, before the bridge sees them: it refuses "Env" itself,
// with an error result (sdkRefusal), and the bridge refuses a name given
// twice, which the SDK's decoder reads once.
var ambiguous = []struct {
	name, args, msg string
	sdkRefuses      bool
}{
	{"folded", `{"Env":"prod","env":"staging"}`,
		`Invalid arguments: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`, true},
	{"folded, the other order", `{"env":"staging","Env":"prod"}`,
		`Invalid arguments: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`, true},
	{"escaped", `{"\u0045nv":"prod","env":"staging"}`,
		`Invalid arguments: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`, true},
	{"twice", `{"env":"prod","env":"staging"}`,
		`Invalid arguments: duplicate JSON key: key "env" appears twice in the top-level object`, false},
}

// sdkRefusal is the text of the go-sdk's error result for deploy's
// arguments with "Env".
const sdkRefusal = `validating "arguments": validating root: unexpected additional properties ["Env"]`

// invalidArgs is the JSON-RPC error code of ambiguous arguments on each
// server: mcp-go sends every error of a tool handler as -32603.
var invalidArgs = map[string]int{"mcpgobridge": -32603, "mcpbridge": -32602}

// TestAmbiguousArguments calls deploy with ambiguous arguments through the
// mcp-go and go-sdk clients, on the newest protocol and on 2025-11-25, and
// through the TypeScript SDK with names that fold together (a JavaScript
// object holds no name twice): every call is the error "Invalid
// arguments" (or the go-sdk's own refusal of "Env", see ambiguous), and no
// question is ever asked.
func TestAmbiguousArguments(t *testing.T) {
	t.Parallel()
	for _, srv := range servers {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(srv.name+"/"+cmp.Or(version, "newest"), func(t *testing.T) {
				t.Parallel()
				bin := binary(t, srv.name, srv.dir)
				e := &elicitor{sc: bridgetest.Scenario{Action: "accept"}}
				goc := mcpGoClient(t, bin, version, e)
				var asked []string
				cs := goSDKClient(t, bin, version, &mcp.ClientOptions{
					Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						return &mcp.ElicitResult{Action: "accept"}, nil
					},
				})
				for _, tt := range ambiguous {
					t.Run(tt.name, func(t *testing.T) {
						gores, err := goc.CallTool(context.Background(), gomcp.CallToolRequest{Params: gomcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(tt.args)}})
						sdkres, sdkErr := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(tt.args)})
						if srv.name == "mcpbridge" && tt.sdkRefuses {
							require.NoError(t, err)
							assert.True(t, gores.IsError)
							assert.Equal(t, []gomcp.Content{gomcp.TextContent{Type: "text", Text: sdkRefusal}}, gores.Content)
							require.NoError(t, sdkErr)
							assert.True(t, sdkres.IsError)
							assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: sdkRefusal}}, sdkres.Content)
							return
						}
						require.Error(t, err, "mcp-go client")
						assert.Contains(t, err.Error(), tt.msg)
						var rpc *jsonrpc.Error
						require.ErrorAs(t, sdkErr, &rpc, "go-sdk client")
						assert.Equal(t, int64(invalidArgs[srv.name]), rpc.Code)
						assert.Equal(t, tt.msg, rpc.Message)
					})
				}
				assert.Empty(t, e.questions(), "deploy never ran")
				assert.Empty(t, asked, "deploy never ran")
			})
		}
	}
	t.Run("TypeScript", func(t *testing.T) {
		t.Parallel()
		scenarios := `[{"tool":"deploy","arguments":{"Env":"prod","env":"staging"},"action":"accept"},` +
			`{"tool":"deploy","arguments":{"env":"staging","\u212aey":1,"key":2},"action":"accept"},` +
			`{"tool":"deploy","arguments":{"env":"staging","o":{"ſ":1,"s":2}},"action":"accept"}]`
		want := []string{
			`Invalid arguments: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`,
			`Invalid arguments: duplicate JSON key: keys "\u212aey" and "key" in the top-level object are one key when case is folded, as encoding/json folds it`,
			`Invalid arguments: duplicate JSON key: keys "\u017f" and "s" in the object at o are one key when case is folded, as encoding/json folds it`,
		}
		for _, srv := range servers {
			t.Run(srv.name, func(t *testing.T) {
				t.Parallel()
				lines, stdout := runTS(t, binary(t, srv.name, srv.dir), json.RawMessage(scenarios))
				require.Len(t, lines, len(want), "stdout:\n%s", stdout)
				for i, l := range lines {
					assert.Empty(t, l.Asked, "deploy never ran")
					if srv.name == "mcpbridge" {
						// The SDK refuses the names deploy's schema does not have.
						assert.True(t, l.IsError)
						require.Len(t, l.Content, 1)
						assert.Contains(t, l.Content[0].Text, `validating "arguments": validating root: unexpected additional properties`)
						continue
					}
					require.NotNil(t, l.Error)
					assert.Equal(t, invalidArgs[srv.name], l.Error.Code)
					assert.Contains(t, l.Error.Message, want[i])
				}
			})
		}
	})
}

// TestAmbiguousRetry parks a call of deploy to staging, then retries it,
// approved, with arguments that hold staging and prod under names that fold
// together, in both orders, or twice: the canonical form of each is that of
// the other, and no server deploys; the retry with the arguments of the
// state deploys to staging.
func TestAmbiguousRetry(t *testing.T) {
	t.Parallel()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			s := startRaw(t, binary(t, srv.name, srv.dir), "TOOLNEXUS_STATE_KEY="+testKey)
			id, state := s.suspendArgs(`{"env":"staging"}`)
			for i, tt := range ambiguous {
				line := s.callArgs(2+i, tt.args, `"requestState":"`+state+`","inputResponses":{"`+id+`":{"action":"accept","content":{}}},`)
				if srv.name == "mcpbridge" && tt.sdkRefuses {
					assert.Contains(t, line, `"content":[{"type":"text","text":"validating \"arguments\": validating root: unexpected additional properties [\"Env\"]"}],"isError":true`, tt.args)
				} else {
					assert.Contains(t, line, fmt.Sprintf(`"error":{"code":%d,"message":%q}`, invalidArgs[srv.name], tt.msg), tt.args)
				}
				assert.NotContains(t, line, "deployed", tt.args)
			}
			assert.Contains(t, s.callArgs(9, `{"env":"staging"}`, `"requestState":"`+state+`","inputResponses":{"`+id+`":{"action":"accept","content":{}}},`),
				`"content":[{"type":"text","text":"deployed to staging"}]`)
		})
	}
}

// runTS runs mcpbridge/tsclient's client.mjs against the server bin, with
// the test key, through scenarios, and returns its lines and what it
// printed.
func runTS(t *testing.T, bin string, scenarios any) ([]tsclient.Line, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lines, stdout, err := tsclient.Run(ctx, bin, scenarios, map[string]string{"TOOLNEXUS_STATE_KEY": testKey})
	require.NoError(t, err, "stdout:\n%s", stdout)
	return lines, stdout
}
