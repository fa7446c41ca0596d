// Package tasktest holds what the tests of mcptasks and its stores share:
// a JSON-RPC client that speaks stateless MCP as the conformance suite
// does, servers of test tools, a redis-server started on a free port, and
// the contract every TaskStore keeps.
package tasktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// Protocol is the protocol version the Client speaks.
const Protocol = "2026-07-28"

// Caps are the capabilities of a client that declares the extension and
// takes form elicitations.
func Caps() map[string]any {
	return map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{mcptasks.ExtensionID: map[string]any{}}}
}

// Client sends JSON-RPC requests to a stateless MCP server at URL, each
// with the _meta and headers of protocol 2026-07-28 (Mcp-Method, and
// Mcp-Name set to the tool's name or the task's ID), declaring Caps, with
// Header added.
type Client struct {
	URL    string
	Caps   map[string]any
	Header http.Header
	id     atomic.Int64
}

// Response is what a server answered: its HTTP status, and the JSON-RPC
// result (as raw JSON and decoded) or error.
type Response struct {
	Status int
	Raw    json.RawMessage
	Result map[string]any
	Error  *Error
}

// Error is a JSON-RPC error.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Send sends method with params and returns the response; headers replace
// the ones the client sets (an empty value removes one). It fails the test
// when no response comes.
func (c *Client) Send(t testing.TB, method string, params map[string]any, headers map[string]string) Response {
	t.Helper()
	res, err := c.Post(context.Background(), method, params, headers)
	require.NoError(t, err)
	return res
}

// Post is Send without a test: safe in any goroutine, it reports an error
// when the request cannot be sent or its response does not read.
func (c *Client) Post(ctx context.Context, method string, params map[string]any, headers map[string]string) (Response, error) {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    Protocol,
		"io.modelcontextprotocol/clientCapabilities": c.Caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "tasktest", "version": "1"},
	}
	if own, ok := params["_meta"].(map[string]any); ok {
		for k, v := range own {
			meta[k] = v
		}
	}
	p["_meta"] = meta
	id := c.id.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	if err != nil {
		return Response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", Protocol)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if task, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", task)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	for k, v := range headers {
		req.Header.Del(k)
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer res.Body.Close()
	msg, err := readMessage(res, id)
	out := Response{Status: res.StatusCode}
	if err != nil || msg == nil {
		return out, err
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return out, fmt.Errorf("response %s: %w", msg, err)
	}
	out.Raw, out.Error = m.Result, m.Error
	if len(m.Result) > 0 {
		if err := json.Unmarshal(m.Result, &out.Result); err != nil {
			return out, err
		}
	}
	return out, nil
}

// readMessage returns the JSON-RPC response to id in res, a JSON body or
// a stream of server-sent events, or nil when there is none.
func readMessage(res *http.Response, id int64) (json.RawMessage, error) {
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		var b bytes.Buffer
		if _, err := b.ReadFrom(res.Body); err != nil {
			return nil, err
		}
		if b.Len() == 0 || !json.Valid(b.Bytes()) {
			return nil, nil
		}
		return b.Bytes(), nil
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var m struct {
			ID any `json:"id"`
		}
		if json.Unmarshal([]byte(data), &m) == nil && m.ID == float64(id) {
			return json.RawMessage(data), nil
		}
	}
	return nil, sc.Err()
}

// Call sends method with params and returns its result, failing the test
// on an error.
func (c *Client) Call(t testing.TB, method string, params map[string]any) map[string]any {
	t.Helper()
	res := c.Send(t, method, params, nil)
	require.Nil(t, res.Error, "%s: error %+v", method, res.Error)
	require.Equal(t, http.StatusOK, res.Status, method)
	return res.Result
}

// Wait polls tasks/get for the task id until its status is status, or
// fails the test after ten seconds, and returns the last result.
func (c *Client) Wait(t testing.TB, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		task := c.Call(t, "tasks/get", map[string]any{"taskId": id})
		if task["status"] == status {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %v, not %s: %v", id, task["status"], status, task)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Tools are the test tools of a server of [Start], and what they saw.
type Tools struct {
	// Release ends the runs of "wait" that wait for it.
	Release chan struct{}
	// Cancelled gets the label of each run of "wait" whose context ended.
	Cancelled chan string
	mu        sync.Mutex
	answers   []toolnexus.Answers
}

// Answers returns the answers that each run of "ask" and "twice" saw, in
// order.
func (ts *Tools) Answers() []toolnexus.Answers {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]toolnexus.Answers(nil), ts.answers...)
}

// saw records the answers a run saw.
func (ts *Tools) saw(as toolnexus.Answers) {
	ts.mu.Lock()
	ts.answers = append(ts.answers, as)
	ts.mu.Unlock()
}

// Confirm is the request of the "ask" tool.
var Confirm = toolnexus.Request{ID: "confirm", Kind: toolnexus.KindInput, Prompt: "Go on?",
	Data: map[string]any{"schema": map[string]any{"type": "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"}}}}

// Expiry is when the request of the "expiring" tool expires.
var Expiry = time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC)

// Name is a second request, of the "pair" tool.
var Name = toolnexus.Request{ID: "name", Kind: toolnexus.KindInput, Prompt: "Your name?",
	Data: map[string]any{"schema": map[string]any{"type": "object",
		"properties": map[string]any{"name": map[string]any{"type": "string", "maxLength": 20}}, "required": []any{"name"}}}}

// tools returns the test tools:
//   - "wait" waits for Release or its context, reporting the latter with
//     its argument "label", then returns "released";
//   - "ask" asks Confirm, then returns "ok=<answer>";
//   - "pair" asks Confirm and Name at once, then returns both;
//   - "twice" asks Confirm until it is accepted;
//   - "expiring" asks Confirm, answerable until Expiry;
//   - "fail" returns a tool error; "panic" panics; "quick" returns
//     "done" at once;
//   - "required" must be a task; "prepare" asks Name within the call,
//     then greets as a task, and refuses the name "nobody" without one;
//   - "progress" reports "step N of 1000" for each N in a tight loop,
//     then waits for Release or its context, and returns "progressed".
func (ts *Tools) tools() []mcptasks.Tool {
	str := func(args json.RawMessage, key string) string {
		var m map[string]any
		json.Unmarshal(args, &m)
		s, _ := m[key].(string)
		return s
	}
	data := func(as toolnexus.Answers, id, key string) any {
		a, _ := as.Get(id)
		return a.Data[key]
	}
	return []mcptasks.Tool{
		{Tool: &mcp.Tool{Name: "wait"}, Run: func(ctx context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
			select {
			case <-ts.Release:
				return toolnexus.Ok("released")
			case <-ctx.Done():
				ts.Cancelled <- str(args, "label")
				return toolnexus.Error("cancelled")
			}
		}},
		{Tool: &mcp.Tool{Name: "progress"}, Run: func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
			for n := 1; n <= 1000; n++ {
				toolnexus.ReportProgress(ctx, float64(n), 1000, fmt.Sprintf("step %d of 1000", n))
			}
			select {
			case <-ts.Release:
				return toolnexus.Ok("progressed")
			case <-ctx.Done():
				return toolnexus.Error("cancelled")
			}
		}},
		{Tool: &mcp.Tool{Name: "ask"}, Run: func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
			ts.saw(as)
			if _, ok := as.Get("confirm"); !ok {
				return toolnexus.Pending(Confirm)
			}
			return toolnexus.Ok(fmt.Sprintf("ok=%v", data(as, "confirm", "ok")))
		}},
		{Tool: &mcp.Tool{Name: "pair"}, Run: func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
			ts.saw(as)
			if len(as) < 2 {
				return toolnexus.PendingAll(Confirm, Name)
			}
			return toolnexus.Ok(fmt.Sprintf("ok=%v name=%v", data(as, "confirm", "ok"), data(as, "name", "name")))
		}},
		{Tool: &mcp.Tool{Name: "twice"}, Run: func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
			ts.saw(as)
			if a, ok := as.Get("confirm"); !ok || a.Data["ok"] != true {
				return toolnexus.Pending(Confirm)
			}
			return toolnexus.Ok(fmt.Sprintf("confirmed after %d answers", len(as)))
		}},
		{Tool: &mcp.Tool{Name: "expiring"}, Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			return toolnexus.Pending(Confirm.WithExpiry(Expiry))
		}},
		{Tool: &mcp.Tool{Name: "fail"}, Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			return toolnexus.Error("it failed")
		}},
		{Tool: &mcp.Tool{Name: "quick"}, Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			return toolnexus.Ok("done")
		}},
		{Tool: &mcp.Tool{Name: "panic"}, Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			panic("the tool panics")
		}},
		{Tool: &mcp.Tool{Name: "required"}, Support: mcptasks.TaskRequired,
			Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
				return toolnexus.Ok("done")
			}},
		{Tool: &mcp.Tool{Name: "prepare"}, Support: mcptasks.TaskRequired,
			Prepare: func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
				switch n, ok := as.Get("name"); {
				case !ok:
					return toolnexus.Pending(Name)
				case n.Data["name"] == "nobody":
					return toolnexus.Error("nobody is no name")
				}
				return toolnexus.Ok("")
			},
			Run: func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
				return toolnexus.Ok(fmt.Sprintf("Hello, %v, from a task after %d answer(s)", data(as, "name", "name"), len(as)))
			}},
	}
}

// Instance is a server of the test tools, serving stateless streamable
// HTTP at URL.
type Instance struct {
	URL   string
	Tasks *mcptasks.Server
	Tools *Tools
}

// Key is the key every Instance seals its multi round trips with.
var Key = bytes.Repeat([]byte{7}, 32)

// Config is how [StartWith] starts an Instance besides its
// [mcptasks.Options]: State configures the Sealer of its multi round trips
// (its Keys open states besides Key, which seals them), Park how its tools
// run (a nil Logger discards all), and Wrap, when set, wraps its HTTP
// handler, as an authenticating middleware does.
type Config struct {
	State requeststate.Options
	Park  park.Runner
	Wrap  func(http.Handler) http.Handler
}

// Start starts an Instance with opts, whose tools share ts (nil: new
// ones), its multi round trips sealed with Key and its logs discarded; it
// stops when the test ends.
func Start(t testing.TB, opts *mcptasks.Options, ts *Tools) *Instance {
	t.Helper()
	return StartWith(t, Config{}, opts, ts)
}

// StartWith is Start configured by c.
func StartWith(t testing.TB, c Config, opts *mcptasks.Options, ts *Tools) *Instance {
	t.Helper()
	if ts == nil {
		ts = &Tools{Release: make(chan struct{}), Cancelled: make(chan string, 16)}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "tasktest", Version: "v1"}, nil)
	tasks, err := mcptasks.New(server, bridgetest.Runner(t, Key, bridgetest.Config{State: c.State, Runner: mcpcall.Options{Park: c.Park}}), opts)
	require.NoError(t, err)
	for _, tool := range ts.tools() {
		require.NoError(t, tasks.AddTool(tool))
	}
	h := mcptasks.RoutingHandler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	if c.Wrap != nil {
		h = c.Wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, tasks.Shutdown(ctx))
	})
	return &Instance{URL: hs.URL, Tasks: tasks, Tools: ts}
}

// Client returns a client of i that declares Caps.
func (i *Instance) Client() *Client { return &Client{URL: i.URL, Caps: Caps()} }

// Redis is a redis-server that a test started on 127.0.0.1.
type Redis struct {
	Addr string
	cmd  *exec.Cmd
	once sync.Once
}

// StartRedis starts a redis-server without persistence on a free port of
// 127.0.0.1, in a temporary folder, and stops it when the test ends. A machine without
// redis-server fails the test: install the Debian package redis-server.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is not installed: apt-get install redis-server")
	var out bytes.Buffer
	// An append-only file that a test turns on is written in dir.
	dir := t.TempDir()
	for range 5 { // a free port may be taken between finding and binding it
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		r := &Redis{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd}
		t.Cleanup(r.stop)
		if r.ready() {
			return r
		}
		r.stop()
	}
	t.Fatalf("redis-server did not start:\n%s", out.String())
	return nil
}

// ready reports whether the server accepts connections within five
// seconds.
func (r *Redis) ready() bool {
	for range 100 {
		if c, err := net.DialTimeout("tcp", r.Addr, time.Second); err == nil {
			c.Close()
			return true
		}
		if r.cmd.ProcessState != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// Stall stops the server with SIGSTOP, as a Redis that hangs: it keeps its
// connections and answers nothing until Resume.
func (r *Redis) Stall() error { return r.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a stalled server go on, with SIGCONT.
func (r *Redis) Resume() error { return r.cmd.Process.Signal(syscall.SIGCONT) }

// stop kills the server and waits for it, once.
func (r *Redis) stop() {
	r.once.Do(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
	})
}
