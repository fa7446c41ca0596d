//lint:file-ignore SA1019 the relay's tests ask for sampling and roots, which SEP-2577 deprecates.

package mcpbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
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
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}})
	require.NoError(t, err)
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
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}})
	require.NoError(t, err)
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
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}})
	require.NoError(t, err)
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
