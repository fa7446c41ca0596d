//lint:file-ignore SA1019 the relay's tests ask for sampling and roots, which SEP-2577 deprecates.

package mcpbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// upstream is an MCP server the relay fronts: its tool "confirm" asks for
// a confirmation with a requestState of its own, "greet" answers at
// once. It counts the calls it serves and keeps what it was sent.
type upstream struct {
	server *mcp.Server
	calls  atomic.Int64

	mu     sync.Mutex
	states []string         // the requestState of each call
	caps   []map[string]any // the client capabilities in each call's _meta
}

const upstreamState = "upstream-secret-round-1"

// greeting returns the result of greet and of a confirmed confirm, anew
// for each call, which the SDK's server writes in: a text, a text/plain
// blob, a text resource and structured content.
func greeting() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: "hello"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Blob: []byte("a note")}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.csv", MIMEType: "text/csv", Text: "x,y"}},
		},
		StructuredContent: map[string]any{"n": 1},
	}
}

// greetingJSON is greeting as the SDK's client reads it from the relay,
// on 2026-07-28: with the relay's serverInfo, not the upstream's.
const greetingJSON = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"relay","version":"v1"}},` + greetingContent + `,"resultType":"complete"}`

const greetingContent = `"content":[{"type":"text","text":"hello"},` +
	`{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","blob":"YSBub3Rl"}},` +
	`{"type":"resource","resource":{"uri":"file:///a.csv","mimeType":"text/csv","text":"x,y"}}],"structuredContent":{"n":1}`

func newUpstream(t testing.TB) *upstream {
	t.Helper()
	u := &upstream{server: mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)}
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"env": {Type: "string"}}}
	u.server.AddTool(&mcp.Tool{Name: "greet", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.record(req)
		return greeting(), nil
	})
	u.server.AddTool(&mcp.Tool{Name: "confirm", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.record(req)
		if e, ok := req.Params.InputResponses["ok"].(*mcp.ElicitResult); ok && e.Action == "accept" && req.Params.RequestState == upstreamState {
			return greeting(), nil
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Mode: "form", Message: "Deploy?",
				RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"ok": {Type: "boolean"}}}}},
			RequestState: upstreamState,
		}, nil
	})
	return u
}

func (u *upstream) record(req *mcp.CallToolRequest) {
	u.calls.Add(1)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.states = append(u.states, req.Params.RequestState)
	caps, _ := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities].(map[string]any)
	u.caps = append(u.caps, caps)
}

// dial connects a new in-memory session to the upstream.
func (u *upstream) dial(t testing.TB) func() mcp.Transport {
	return func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		_, err := u.server.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		return ct
	}
}

// testSealer returns a sealer of the relay tests' key and no audience.
func testSealer(t testing.TB) *requeststate.Sealer {
	t.Helper()
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}})
	require.NoError(t, err)
	return sealer
}

// newRelay returns a relay server of u whose principal is the _meta value
// "test/user" of a call.
func newRelay(t testing.TB, u *upstream) *mcp.Server {
	t.Helper()
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Audience: "https://relay.example.com/mcp"})
	require.NoError(t, err)
	r, err := mcpbridge.NewRelay(relayRunner(t, sealer, mcpcall.Options{}), u.dial(t), &mcpbridge.RelayOptions{
		Principal: func(req *mcp.CallToolRequest) string {
			user, _ := req.Params.GetMeta()["test/user"].(string)
			return user
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	return r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// relayRunner returns a runner of sealer for a relay, configured by o,
// its logs discarded unless o says where.
func relayRunner(t testing.TB, sealer *requeststate.Sealer, o mcpcall.Options) *mcpcall.Runner {
	t.Helper()
	if o.Park.Logger == nil {
		o.Park.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r, err := mcpcall.NewRunner(sealer, o)
	require.NoError(t, err)
	return r
}

func TestNewRelay(t *testing.T) {
	t.Parallel()
	sealer := testSealer(t)
	dial := func() mcp.Transport { return nil }
	const want = "mcpbridge: toolnexus: invalid MCP runner options: a relay needs a runner with a Sealer and a dial function"
	for _, tc := range []struct {
		name   string
		runner *mcpcall.Runner
		dial   func() mcp.Transport
	}{
		{"no runner", nil, dial},
		{"the zero runner", &mcpcall.Runner{}, dial},
		{"no dial", relayRunner(t, sealer, mcpcall.Options{}), nil},
	} {
		r, err := mcpbridge.NewRelay(tc.runner, tc.dial, nil)
		assert.Nil(t, r, tc.name)
		assert.EqualError(t, err, want, tc.name)
		assert.ErrorIs(t, err, mcpcall.ErrInvalidOptions, tc.name)
	}
	r, err := mcpbridge.NewRelay(relayRunner(t, sealer, mcpcall.Options{}), dial, &mcpbridge.RelayOptions{UpstreamTimeout: -time.Second})
	assert.Nil(t, r)
	assert.EqualError(t, err, "mcpbridge: toolnexus: invalid MCP runner options: a negative UpstreamTimeout")
	assert.ErrorIs(t, err, mcpcall.ErrInvalidOptions)
}

// TestRelayPassesThrough lists and calls the upstream's tools through the
// relay: the list and the result are the upstream's, byte for byte, a
// text/plain blob a blob; an upstream's JSON-RPC error comes back as it is.
func TestRelayPassesThrough(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	direct, _ := connect(t, u.server, manual, "")
	relayed, _ := connect(t, newRelay(t, u), manual, "")
	ctx := context.Background()

	want, err := direct.ListTools(ctx, nil)
	require.NoError(t, err)
	got, err := relayed.ListTools(ctx, nil)
	require.NoError(t, err)
	// The upstream's list, ttlMs and cacheScope included, as the relay's.
	assert.Equal(t, strings.Replace(mustJSON(t, want), `"name":"upstream"`, `"name":"relay"`, 1), mustJSON(t, got))
	assert.Len(t, got.Tools, 2)

	res := call(t, relayed, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"env": "prod"}})
	assert.Equal(t, greetingJSON, mustJSON(t, res))
	fromUpstream := mustJSON(t, call(t, direct, &mcp.CallToolParams{Name: "greet"}))
	assert.Equal(t, strings.Replace(fromUpstream, `"name":"upstream"`, `"name":"relay"`, 1), mustJSON(t, res))

	e := callError(t, relayed, &mcp.CallToolParams{Name: "nope"})
	assert.Equal(t, int64(-32602), e.Code)
	assert.Equal(t, `unknown tool "nope"`, e.Message)
}

// TestRelayRound relays an upstream's input_required round: the client
// gets the same input requests and a state of the relay's that hides the
// upstream's; its retry reaches the upstream with its answers and the
// upstream's state. A tampered state, or one of another principal, is
// -32602 and the upstream is not called.
func TestRelayRound(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	direct, _ := connect(t, u.server, manual, "")
	relayed, _ := connect(t, newRelay(t, u), manual, "")
	alice := mcp.Meta{"test/user": "alice"}
	args := map[string]any{"env": "prod"}

	want := call(t, direct, &mcp.CallToolParams{Name: "confirm", Arguments: args})
	first := call(t, relayed, &mcp.CallToolParams{Meta: alice, Name: "confirm", Arguments: args})
	assert.Equal(t, `{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"properties":{"ok":{"type":"boolean"}},"type":"object"}}}}`,
		mustJSON(t, first.InputRequests))
	assert.Equal(t, mustJSON(t, want.InputRequests), mustJSON(t, first.InputRequests))
	assert.True(t, strings.HasPrefix(first.RequestState, "tn1."), first.RequestState)
	assert.NotContains(t, mustJSON(t, first), "upstream-secret")
	require.Equal(t, int64(2), u.calls.Load())

	answer := mcp.InputResponseMap{"ok": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}
	for _, tc := range []struct {
		name  string
		meta  mcp.Meta
		state string
		args  map[string]any
	}{
		{"tampered", alice, first.RequestState[:len(first.RequestState)-2] + "AA", args},
		{"cut", alice, first.RequestState[:40], args},
		{"the conformance suite's tampering", alice, first.RequestState + "-TAMPERED", args},
		{"another principal", mcp.Meta{"test/user": "bob"}, first.RequestState, args},
		{"no principal", nil, first.RequestState, args},
		{"other arguments", alice, first.RequestState, map[string]any{"env": "staging"}},
	} {
		e := callError(t, relayed, &mcp.CallToolParams{Meta: tc.meta, Name: "confirm", Arguments: tc.args, InputResponses: answer, RequestState: tc.state})
		assert.Equal(t, int64(-32602), e.Code, tc.name)
		assert.Equal(t, "Invalid or expired requestState", e.Message, tc.name)
		assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(e.Data), tc.name)
		assert.Equal(t, int64(2), u.calls.Load(), "%s: the upstream was called", tc.name)
	}

	res := call(t, relayed, &mcp.CallToolParams{Meta: alice, Name: "confirm", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
	assert.Equal(t, greetingJSON, mustJSON(t, res))
	require.Equal(t, int64(3), u.calls.Load())
	u.mu.Lock()
	assert.Equal(t, []string{"", "", upstreamState}, u.states)
	assert.Equal(t, map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}, u.caps[2],
		"the upstream is told what the relay's client declared")
	u.mu.Unlock()
}

// TestRelayOlderProtocol serves a client on 2025-11-25: the relay asks it
// within the call, on its session, and answers the upstream itself.
func TestRelayOlderProtocol(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	var asked []string
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	}
	cs, _ := connect(t, newRelay(t, u), opts, "2025-11-25")
	require.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)
	res := call(t, cs, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{"env": "prod"}})
	assert.Equal(t, `{`+greetingContent+`,"resultType":"complete"}`, mustJSON(t, res))
	assert.Equal(t, []string{"Deploy?"}, asked)
	assert.Equal(t, int64(2), u.calls.Load())
	u.mu.Lock()
	defer u.mu.Unlock()
	assert.Equal(t, []string{"", upstreamState}, u.states)
	assert.Equal(t, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, u.caps[0], fmt.Sprint(u.caps))
}

// TestRelayDials dials the upstream at the first call, keeps the session,
// and dials again after Close; an upstream it cannot reach is -32603.
func TestRelayDials(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	sealer := testSealer(t)
	var dials atomic.Int64
	dial := u.dial(t)
	r, err := mcpbridge.NewRelay(relayRunner(t, sealer, mcpcall.Options{}), func() mcp.Transport { dials.Add(1); return dial() }, nil)
	require.NoError(t, err)
	cs, _ := connect(t, r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil), manual, "")
	assert.Equal(t, int64(0), dials.Load())
	for range 2 {
		call(t, cs, &mcp.CallToolParams{Name: "greet"})
	}
	assert.Equal(t, int64(1), dials.Load())
	require.NoError(t, r.Close())
	call(t, cs, &mcp.CallToolParams{Name: "greet"})
	assert.Equal(t, int64(2), dials.Load())
	require.NoError(t, r.Close())

	down, err := mcpbridge.NewRelay(relayRunner(t, sealer, mcpcall.Options{}), func() mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:1/mcp"} // nothing listens there
	}, nil)
	require.NoError(t, err)
	cs, _ = connect(t, down.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil), manual, "")
	e := callError(t, cs, &mcp.CallToolParams{Name: "greet"})
	assert.Equal(t, int64(-32603), e.Code)
	assert.Equal(t, "Internal error", e.Message)
	_, err = cs.ListTools(context.Background(), nil)
	assert.ErrorContains(t, err, "Internal error")
}

// TestRelayRefusalsThrottled refuses more forged states in a second than
// the runner logs: the relay's refusals are logged in the runner's count,
// so that a client cannot fill the log, and every one is still -32602.
func TestRelayRefusalsThrottled(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	sealer := testSealer(t)
	var logged bytes.Buffer
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	runner := relayRunner(t, sealer, mcpcall.Options{
		RefusalLines: 2,
		Park: park.Runner{
			Time:   func() time.Time { return now },
			Logger: slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logged}, nil)),
		},
	})
	r, err := mcpbridge.NewRelay(runner, u.dial(t), nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	cs, _ := connect(t, r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil), manual, "")
	for i := range 5 {
		e := callError(t, cs, &mcp.CallToolParams{Name: "confirm", RequestState: "tn1.forged" + strconv.Itoa(i)})
		assert.Equal(t, int64(-32602), e.Code)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, strings.Count(logged.String(), "relay: refused a requestState"), logged.String())
	assert.Equal(t, int64(0), u.calls.Load(), "the upstream was called")
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stalledConn is the client's end of an upstream that accepted the
// connection and never answers: a write is taken and dropped (silent),
// or never returns (blocked, as a pipe that nobody reads); a read waits
// until the connection closes.
type stalledConn struct {
	blocked bool
	closed  chan struct{}
	once    sync.Once
}

func newStalledConn(blocked bool) *stalledConn {
	return &stalledConn{blocked: blocked, closed: make(chan struct{})}
}

func (c *stalledConn) Read(context.Context) (jsonrpc.Message, error) {
	<-c.closed
	return nil, io.EOF
}

func (c *stalledConn) Write(context.Context, jsonrpc.Message) error {
	if c.blocked {
		<-c.closed
		return io.ErrClosedPipe
	}
	return nil
}

func (c *stalledConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *stalledConn) SessionID() string { return "" }

// connTransport is a transport whose connection conn returns.
type connTransport func() (mcp.Connection, error)

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t() }

// editedConn passes the messages of conn, but for the responses it reads,
// which edit returns edited, or drops when it returns nil.
type editedConn struct {
	mcp.Connection
	edit func(*jsonrpc.Response) *jsonrpc.Response
}

func (c editedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		resp, ok := msg.(*jsonrpc.Response)
		if err != nil || !ok {
			return msg, err
		}
		if resp = c.edit(resp); resp != nil {
			return resp, nil
		}
	}
}

// stalls is how an upstream that never answers stalls the tests of a
// relay: each returns a transport to it and closes what it opened when
// the test ends.
var stalls = []struct {
	name string
	dial func(t *testing.T) func() mcp.Transport
}{
	{"writes taken, no answer", func(t *testing.T) func() mcp.Transport { return stalledDial(t, false) }},
	{"writes blocked", func(t *testing.T) func() mcp.Transport { return stalledDial(t, true) }},
	{"a TCP listener that never replies", func(t *testing.T) func() mcp.Transport {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		var mu sync.Mutex
		var conns []net.Conn
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
		t.Cleanup(func() {
			ln.Close()
			mu.Lock()
			defer mu.Unlock()
			for _, c := range conns {
				c.Close()
			}
		})
		return func() mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxRetries: -1}
		}
	}},
}

// stalledDial returns a dial of stalled connections, closed when the test
// ends.
func stalledDial(t *testing.T, blocked bool) func() mcp.Transport {
	var mu sync.Mutex
	var conns []*stalledConn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return func() mcp.Transport {
		return connTransport(func() (mcp.Connection, error) {
			c := newStalledConn(blocked)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			return c, nil
		})
	}
}

// inFlight counts the requests that the server s is handling.
func inFlight(s *mcp.Server) *atomic.Int64 {
	var n atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			n.Add(1)
			defer n.Add(-1)
			return next(ctx, method, req)
		}
	})
	return &n
}

// TestRelayStalledUpstream fronts an upstream that accepts a connection
// and never answers: concurrent tools/call, tools/list, NewServer and
// Close return within their contexts (the relay's handlers too, long
// before its UpstreamTimeout), and once the upstream is healthy again
// the relay serves it within an UpstreamTimeout, by itself.
func TestRelayStalledUpstream(t *testing.T) {
	t.Parallel()
	for _, tc := range stalls {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const timeout = 2 * time.Second
			u := newUpstream(t)
			var healed atomic.Bool
			stalled, healthy := tc.dial(t), u.dial(t)
			r, err := mcpbridge.NewRelay(relayRunner(t, testSealer(t), mcpcall.Options{}), func() mcp.Transport {
				if healed.Load() {
					return healthy()
				}
				return stalled()
			}, &mcpbridge.RelayOptions{UpstreamTimeout: timeout})
			require.NoError(t, err)
			t.Cleanup(func() { r.Close() })
			server := r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil)
			handling := inFlight(server)
			cs, _ := connect(t, server, manual, "")

			const wait = 200 * time.Millisecond
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, 6)
			took := make([]time.Duration, 8)
			for i := range 6 {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					if i%2 == 0 {
						_, errs[i] = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
					} else {
						_, errs[i] = cs.ListTools(ctx, nil)
					}
					took[i] = time.Since(start)
				})
			}
			wg.Go(func() {
				time.Sleep(wait / 2)
				r.NewServer(&mcp.Implementation{Name: "another", Version: "v1"}, nil)
				took[6] = time.Since(start) - wait/2
			})
			wg.Go(func() {
				time.Sleep(wait / 2)
				assert.NoError(t, r.Close())
				took[7] = time.Since(start) - wait/2
			})
			wg.Wait()
			for i, err := range errs {
				assert.Error(t, err, "request %d", i) // its deadline, or the dial that Close abandoned
				assert.Less(t, took[i], wait+time.Second, "request %d", i)
			}
			assert.Less(t, took[6], 100*time.Millisecond, "NewServer")
			assert.Less(t, took[7], 100*time.Millisecond, "Close")
			assert.Eventually(t, func() bool { return handling.Load() == 0 }, time.Second, 10*time.Millisecond,
				"the relay's handlers still wait on the upstream")

			// Every wait stays bounded by its own context, the dial's too.
			ctx, cancel := context.WithTimeout(context.Background(), 3*timeout)
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
			cancel()
			var e *jsonrpc.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, int64(-32603), e.Code)
			assert.Equal(t, "Internal error", e.Message)
			assert.Less(t, time.Since(start), wait+timeout+time.Second, "the dial outlived its UpstreamTimeout")

			healed.Store(true)
			healedAt := time.Now()
			for {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
				cancel()
				if err == nil {
					assert.Equal(t, greetingJSON, mustJSON(t, res))
					break
				}
				require.Less(t, time.Since(healedAt), timeout+time.Second, "the relay did not recover: %v", err)
			}
			t.Logf("recovered %v after the upstream healed", time.Since(healedAt).Round(time.Millisecond))
			got, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			assert.Len(t, got.Tools, 2)
		})
	}
}

// TestRelayUpstreamStallsMidSession stalls an upstream whose session the
// relay has: a call that gives up, or one that waits longer than the
// UpstreamTimeout, has the relay ping the session, which it drops when
// the ping goes unanswered (the long call ends then, long before its own
// deadline); the next call dials a new session. A tool slower than the
// UpstreamTimeout on a live upstream keeps its session.
func TestRelayUpstreamStallsMidSession(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	u := newUpstream(t)
	u.server.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(4 * timeout):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	var stalled atomic.Bool
	var dials atomic.Int64
	dial := u.dial(t)
	r, err := mcpbridge.NewRelay(relayRunner(t, testSealer(t), mcpcall.Options{}), func() mcp.Transport {
		dials.Add(1)
		tr := dial()
		return connTransport(func() (mcp.Connection, error) {
			c, err := tr.Connect(context.Background())
			return editedConn{c, func(resp *jsonrpc.Response) *jsonrpc.Response {
				if stalled.Load() {
					return nil
				}
				return resp
			}}, err
		})
	}, &mcpbridge.RelayOptions{UpstreamTimeout: timeout})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	cs, _ := connect(t, r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil), manual, "")

	assert.Equal(t, "slept", text(t, call(t, cs, &mcp.CallToolParams{Name: "slow"})))
	assert.Equal(t, int64(1), dials.Load(), "a slow tool lost its session")

	for i, wait := range []time.Duration{timeout / 3, time.Minute} {
		stalled.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
		cancel()
		took := time.Since(start)
		if wait < timeout {
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			time.Sleep(2 * timeout) // the ping goes unanswered
		} else {
			var e *jsonrpc.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, int64(-32603), e.Code)
			assert.Less(t, took, 3*timeout+time.Second, "the relay waited on a stalled session")
			t.Logf("a call on a stalled session ended after %v", took.Round(time.Millisecond))
		}
		stalled.Store(false)
		assert.Equal(t, greetingJSON, mustJSON(t, call(t, cs, &mcp.CallToolParams{Name: "greet"})))
		assert.Equal(t, int64(i+2), dials.Load(), "the stalled session was kept")
	}
}

// TestRelaySealsUpstreamState relays each shape of result in which an
// upstream may put its requestState: none reaches the client in clear
// (the client's wire is searched), an input_required result stays one,
// with or without inputRequests, and the retry of a sealed round brings
// the upstream its state. On 2025-11-25 the relay answers the upstream
// itself and a round that asks nothing is an internal error.
func TestRelaySealsUpstreamState(t *testing.T) {
	t.Parallel()
	const secret = "upstream-secret-state"
	ask := mcp.InputRequestMap{"ok": &mcp.ElicitParams{Mode: "form", Message: "Deploy?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	const asked = `{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"properties":{},"type":"object"}}}}`
	const meta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"relay","version":"v1"}}`
	const done = `{` + meta + `,"content":[{"type":"text","text":"done"}],"resultType":"complete"}`
	for _, tc := range []struct {
		name   string
		result *mcp.CallToolResult  // what the upstream's tool returns
		edit   func(map[string]any) // the upstream's result on the wire, edited
		want   string               // the relay's result, its state as STATE
		older  string               // the relay's result on 2025-11-25, or its error
	}{{
		name:   "a complete result with a requestState",
		result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}, RequestState: secret},
		want:   done,
		older:  `{"content":[{"type":"text","text":"done"}],"resultType":"complete"}`,
	}, {
		name:   "input_required without inputRequests",
		result: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: secret},
		edit:   func(m map[string]any) { delete(m, "inputRequests") },
		want:   `{` + meta + `,"content":[],"requestState":"STATE","resultType":"input_required","inputRequests":{}}`,
		older:  "Internal error",
	}, {
		name:   "input_required with no input request",
		result: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: secret},
		want:   `{` + meta + `,"content":[],"requestState":"STATE","resultType":"input_required","inputRequests":{}}`,
		older:  "Internal error",
	}, {
		name:   "input_required with neither inputRequests nor a requestState (load shedding)",
		result: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}},
		edit:   func(m map[string]any) { delete(m, "inputRequests") },
		want:   `{` + meta + `,"content":[],"resultType":"input_required","inputRequests":{}}`,
		older:  "Internal error",
	}, {
		name:   "input requests in a result that says complete",
		result: &mcp.CallToolResult{InputRequests: ask, RequestState: secret},
		edit:   func(m map[string]any) { m["resultType"] = "complete" },
		want:   `{` + meta + `,"content":[],"requestState":"STATE","resultType":"input_required","inputRequests":` + asked + `}`,
		older:  `{"content":[{"type":"text","text":"done"}],"resultType":"complete"}`,
	}, {
		name:   "input requests without a requestState",
		result: &mcp.CallToolResult{InputRequests: ask},
		want:   `{` + meta + `,"content":[],"requestState":"STATE","resultType":"input_required","inputRequests":` + asked + `}`,
		older:  `{"content":[{"type":"text","text":"done"}],"resultType":"complete"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var states []string
			u := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
			u.AddTool(&mcp.Tool{Name: "shape", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					mu.Lock()
					states = append(states, req.Params.RequestState)
					mu.Unlock()
					if req.Params.InputResponses != nil || req.Params.RequestState == secret {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
					}
					res := *tc.result
					return &res, nil
				})
			edit := func(resp *jsonrpc.Response) *jsonrpc.Response {
				var m map[string]any
				if tc.edit == nil || json.Unmarshal(resp.Result, &m) != nil || m["resultType"] == nil {
					return resp
				}
				tc.edit(m)
				edited := *resp
				edited.Result, _ = json.Marshal(m)
				return &edited
			}
			r, err := mcpbridge.NewRelay(relayRunner(t, testSealer(t), mcpcall.Options{}), func() mcp.Transport {
				st, ct := mcp.NewInMemoryTransports()
				_, err := u.Connect(context.Background(), st, nil)
				require.NoError(t, err)
				return connTransport(func() (mcp.Connection, error) {
					c, err := ct.Connect(context.Background())
					return editedConn{c, edit}, err
				})
			}, nil)
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, r.Close()) })
			server := r.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil)
			cs, w := connect(t, server, manual, "")

			res := call(t, cs, &mcp.CallToolParams{Name: "shape"})
			got := mustJSON(t, res)
			if res.RequestState != "" {
				assert.True(t, strings.HasPrefix(res.RequestState, "tn1."), res.RequestState)
				got = strings.Replace(got, res.RequestState, "STATE", 1)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want != done, res.NeedsInput(), "input_required")
			if res.RequestState != "" {
				retry := call(t, cs, &mcp.CallToolParams{Name: "shape", RequestState: res.RequestState,
					InputResponses: mcp.InputResponseMap{"ok": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
				assert.Equal(t, done, mustJSON(t, retry))
				mu.Lock()
				assert.Equal(t, tc.result.RequestState, states[len(states)-1], "the upstream's state on the retry")
				mu.Unlock()
			}
			assert.NotContains(t, w.String(), "upstream-secret")

			older, w := connect(t, server, &mcp.ClientOptions{Capabilities: formAndURL, ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			}}, "2025-11-25")
			res, err = older.CallTool(context.Background(), &mcp.CallToolParams{Name: "shape"})
			if err != nil {
				assert.ErrorContains(t, err, tc.older)
			} else {
				assert.Equal(t, tc.older, mustJSON(t, res))
			}
			assert.NotContains(t, w.String(), "upstream-secret")
		})
	}
}

// TestRelayProgress relays the progress of an upstream tool that reports
// a thousand steps in a tight loop, among notifications a hostile
// upstream might send (another call's token, a value that does not
// increase): the client gets its own token, the first report and the
// last step, one a ProgressInterval at most in between, each greater than
// the one before,
// and the upstream never sees the client's token. A call without a token
// sends none upstream and gets no notification. The upstream waits until
// the client has the first and the last report, since a notification
// that reaches the relay after the upstream's result is dropped.
func TestRelayProgress(t *testing.T) {
	t.Parallel()
	const steps = 1000
	u := newUpstream(t)
	notes := &progressLog{}
	// has waits until the client has a report of done.
	has := func(done float64) {
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			notes.mu.Lock()
			defer notes.mu.Unlock()
			assert.True(c, slices.ContainsFunc(notes.notes, func(n progressNote) bool { return n.Progress == done }))
		}, 5*time.Second, time.Millisecond)
	}
	var (
		mu     sync.Mutex
		tokens []any // the progress token of each call upstream
	)
	u.server.AddTool(&mcp.Tool{Name: "steps", InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			mu.Lock()
			tokens = append(tokens, token)
			mu.Unlock()
			var in struct{ N int }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			if token == nil {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no token"}}}, nil
			}
			notify := func(token any, done, total float64, message string) {
				assert.NoError(t, req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message}))
			}
			notify("toolnexus-relay-not-this-call", 0.25, 0, "another call's")
			notify(token, 0.5, -1, "step 0.5")
			has(0.5)
			notify(token, 0.5, 0, "step 0.5 again")
			for i := 1; i <= in.N; i++ {
				notify(token, float64(i), float64(in.N), fmt.Sprintf("step %d", i))
			}
			has(float64(in.N))
			notify(token, 1, float64(in.N), "back to the start")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.N, " steps")}}}, nil
		})
	cs, _ := connect(t, newRelay(t, u), &mcp.ClientOptions{ProgressNotificationHandler: notes.handle}, "")
	_, err := cs.ListTools(context.Background(), nil) // the relay serves the tools it has listed
	require.NoError(t, err)

	p := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{"n": steps}}
	p.SetProgressToken("client-1")
	start := time.Now()
	assert.Equal(t, "1000 steps", text(t, call(t, cs, p)))
	// At most one report a ProgressInterval, besides the first and the last.
	most := 2 + int(time.Since(start)/park.ProgressInterval)
	fence := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 1}}
	fence.SetProgressToken("fence")
	call(t, cs, fence)
	got := notes.until(t, "fence")
	require.GreaterOrEqual(t, len(got), 2, "%+v", got)
	assert.LessOrEqual(t, len(got), most, "%+v", got)
	assert.Equal(t, progressNote{"client-1", 0.5, 0, "step 0.5"}, got[0], "a total below zero is left out")
	assert.Equal(t, progressNote{"client-1", steps, steps, "step 1000"}, got[len(got)-1], "the last step, and not the value that went back")
	for i := 1; i < len(got); i++ {
		assert.Equal(t, "client-1", got[i].Token)
		assert.Greater(t, got[i].Progress, got[i-1].Progress)
		assert.Equal(t, fmt.Sprintf("step %v", got[i].Progress), got[i].Message)
	}

	assert.Equal(t, "no token", text(t, call(t, cs, &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 3}})))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, tokens, 3)
	for _, token := range tokens[:2] {
		s, _ := token.(string)
		assert.True(t, strings.HasPrefix(s, "toolnexus-relay-") && len(s) > len("toolnexus-relay-")+20, "the upstream gets the relay's token: %v", token)
	}
	assert.NotEqual(t, tokens[0], tokens[1])
	assert.Nil(t, tokens[2], "no token from the client, none upstream")
	notes.mu.Lock()
	defer notes.mu.Unlock()
	for _, n := range notes.notes {
		assert.NotEqual(t, 3.0, n.Total, "no notification for the call without a token")
	}
}

// progressStall is the relay's end of a client that does not take its
// progress notifications: a write of one blocks until release is closed,
// after closing stalled once.
type progressStall struct {
	mcp.Connection
	stalled chan struct{}
	release chan struct{}
	once    *sync.Once
}

func (c progressStall) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" {
		c.once.Do(func() { close(c.stalled) })
		select {
		case <-c.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return c.Connection.Write(ctx, msg)
}

// TestRelayProgressStalledClient relays the progress of two calls at once,
// the first for a client that does not take its notifications: the
// second client gets its progress all the same, since one client's
// notifications never wait on another's, and the first call ends once its
// client takes them.
func TestRelayProgressStalledClient(t *testing.T) {
	t.Parallel()
	u := newUpstream(t)
	fast := &progressLog{}
	stall := progressStall{stalled: make(chan struct{}), release: make(chan struct{}), once: &sync.Once{}}
	release := sync.OnceFunc(func() { close(stall.release) })
	u.server.AddTool(&mcp.Tool{Name: "ticks", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= 3; i++ {
				assert.NoError(t, req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3}))
			}
			var in struct{ Wait bool }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			// Each call returns once the relay has sent its client a report
			// (a report that reached the relay after the result would be
			// dropped): the fast call's last, which a notification of the
			// stalled call would hold up; the slow call's first, which
			// stalls.
			if in.Wait {
				assert.EventuallyWithT(t, func(c *assert.CollectT) {
					fast.mu.Lock()
					defer fast.mu.Unlock()
					assert.True(c, slices.ContainsFunc(fast.notes, func(n progressNote) bool { return n.Progress == 3 }))
				}, 10*time.Second, time.Millisecond)
			} else {
				select {
				case <-stall.stalled:
				case <-time.After(10 * time.Second):
					t.Error("no report reached the slow client")
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ticked"}}}, nil
		})
	srv := newRelay(t, u)
	ctx := context.Background()

	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, connTransport(func() (mcp.Connection, error) {
		c, err := st.Connect(ctx)
		stall.Connection = c
		return stall, err
	}), nil)
	require.NoError(t, err)
	slow, err := mcp.NewClient(&mcp.Implementation{Name: "slow", Version: "v1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { release(); slow.Close(); ss.Wait() })
	_, err = slow.ListTools(ctx, nil)
	require.NoError(t, err)

	slowDone := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "ticks", Arguments: map[string]any{}}
		p.SetProgressToken("slow")
		_, err := slow.CallTool(ctx, p)
		slowDone <- err
	}()
	select {
	case <-stall.stalled:
	case <-time.After(10 * time.Second):
		t.Fatal("no report reached the slow client")
	}

	cs, _ := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: fast.handle}, "")
	p := &mcp.CallToolParams{Name: "ticks", Arguments: map[string]any{"wait": true}}
	p.SetProgressToken("fast")
	assert.Equal(t, "ticked", text(t, call(t, cs, p)))
	fast.mu.Lock()
	got := slices.Clone(fast.notes)
	fast.mu.Unlock()
	require.NotEmpty(t, got)
	assert.Equal(t, progressNote{"fast", 3, 3, ""}, got[len(got)-1], "the last report, of every call's")
	for i := 1; i < len(got); i++ {
		assert.Greater(t, got[i].Progress, got[i-1].Progress)
	}

	select {
	case err := <-slowDone:
		t.Fatalf("the stalled call ended before its client took its notifications: %v", err)
	default:
	}
	release()
	require.NoError(t, <-slowDone)
}
