package mcpgobridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	goclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
)

// gatedDeploy is the gated deploy tool of bridgetest served by mcp-go
// through a Bridge whose park.Runner is the gate's: one clock for both.
type gatedDeploy struct {
	*bridgetest.Gated
	srv *server.MCPServer
}

// newGatedDeploy returns the gated deploy tool with its server, the
// gate's clock at the time of the call, the tools named in repeatable
// opted out of "once".
func newGatedDeploy(t *testing.T, repeatable ...string) *gatedDeploy {
	t.Helper()
	g := &gatedDeploy{Gated: bridgetest.NewGated(t, time.Now())}
	p := g.Park()
	p.Repeatable = repeatable
	b, err := mcpgobridge.New(bridgetest.Runner(t, keyA, bridgetest.Config{Runner: mcpcall.Options{Park: p}}), nil)
	require.NoError(t, err)
	g.srv = server.NewMCPServer("gated", "v0", server.WithToolCapabilities(false))
	g.srv.AddTool(mcp.NewTool("deploy", mcp.WithInputSchema[deployIn]()), mcpgobridge.ToolHandler(b, g.Tool))
	return g
}

// later moves the gate's clock by d.
func (g *gatedDeploy) later(d time.Duration) { g.SetNow(g.Now().Add(d)) }

// posts records the tools/call requests an HTTP client sends, to send
// them again as they were.
type posts struct {
	mu    sync.Mutex
	calls []recorded
	next  http.RoundTripper // the test server's own: another test's server, closing, closes the idle connections of http.DefaultTransport
}

// recorded is one request as it was sent, and the response it got as
// sendRaw reads it, once it has come.
type recorded struct {
	url      string
	header   http.Header
	body     []byte
	response []byte
}

func (p *posts) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		return p.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(`"tools/call"`)) {
		return p.next.RoundTrip(r)
	}
	p.mu.Lock()
	i := len(p.calls)
	p.calls = append(p.calls, recorded{url: r.URL.String(), header: r.Header.Clone(), body: body})
	p.mu.Unlock()
	resp, err := p.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	p.mu.Lock()
	p.calls[i].response = responseJSON(resp.Header, data)
	p.mu.Unlock()
	return resp, nil
}

// responseJSON returns the JSON-RPC message of a response's body: the
// body, or the data of its last event when it is an event stream.
func responseJSON(h http.Header, data []byte) []byte {
	if strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
				data = []byte(strings.TrimSpace(d))
			}
		}
	}
	return data
}

// last returns the last tools/call sent.
func (p *posts) last(t *testing.T) recorded {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.calls)
	return p.calls[len(p.calls)-1]
}

// send sends the request rec again, its body changed by edit, and returns
// the JSON-RPC response.
func send(t *testing.T, rec recorded, edit func(map[string]any)) map[string]any {
	t.Helper()
	data := sendRaw(t, rec, edit)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), string(data))
	return out
}

// sendRaw sends the request rec again, its body changed by edit, and
// returns the JSON-RPC response as the server wrote it.
func sendRaw(t *testing.T, rec recorded, edit func(map[string]any)) []byte {
	t.Helper()
	var msg map[string]any
	require.NoError(t, json.Unmarshal(rec.body, &msg))
	if edit != nil {
		edit(msg["params"].(map[string]any))
	}
	body, err := json.Marshal(msg)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, rec.url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header = rec.header.Clone()
	// A client of its own, for the reason posts has a transport of its own.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return responseJSON(resp.Header, data)
}

// elicitor answers every elicitation with action, after calling before,
// and records the messages it was asked.
type elicitor struct {
	action mcp.ElicitationResponseAction
	before func()
	mu     sync.Mutex
	asked  []string
}

func (e *elicitor) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params.Message)
	if e.before != nil {
		e.before()
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: e.action, Content: map[string]any{}}}, nil
}

// modernClient returns an mcp-go client of srv on the newest protocol,
// over streamable HTTP through rec, that answers with e.
func modernClient(t *testing.T, srv *server.MCPServer, rec *posts, e *elicitor) *goclient.Client {
	t.Helper()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(hs.Close)
	rec.next = hs.Client().Transport
	tr, err := transport.NewStreamableHTTP(hs.URL, transport.WithHTTPBasicClient(&http.Client{Transport: rec}))
	require.NoError(t, err)
	c := goclient.NewClient(tr, goclient.WithElicitationHandler(e),
		goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}))
	require.NoError(t, c.Start(t.Context()))
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "gate", Version: "v0"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c
}

// callDeploy calls deploy with env and returns the result's one text and
// whether it is an error.
func callDeploy(t *testing.T, c *goclient.Client, env string) (string, bool) {
	t.Helper()
	res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": env}}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(mcp.TextContent)
	require.True(t, ok, "%T", res.Content[0])
	return tc.Text, res.IsError
}

// resultText returns the one text of a JSON-RPC response's result, and
// its isError.
func resultText(t *testing.T, resp map[string]any) (string, bool) {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	require.True(t, ok, "%v", resp)
	content := res["content"].([]any)
	require.Len(t, content, 1)
	isError, _ := res["isError"].(bool)
	return content[0].(map[string]any)["text"].(string), isError
}

// approvalID returns the ID of the approval a recorded retry answers.
func approvalID(t *testing.T, rec recorded) string {
	t.Helper()
	var msg struct {
		Params struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(rec.body, &msg))
	require.Len(t, msg.Params.InputResponses, 1)
	for id := range msg.Params.InputResponses {
		require.True(t, strings.HasPrefix(id, "gate-"), id)
		return id
	}
	panic("unreachable")
}

// TestGateRoundTrip approves a gated call with mcp-go's client on
// 2026-07-28, which answers the input_required round itself: the tool
// runs once, and once only when the same requestState and inputResponses
// are sent again: each replay gets the first run's response, the same
// bytes. With the tool opted out of "once" (Repeatable), a replay reaches
// the gate, which still runs its approval once.
func TestGateRoundTrip(t *testing.T) {
	t.Parallel()
	g := newGatedDeploy(t)
	rec := &posts{}
	e := &elicitor{action: mcp.ElicitationResponseActionAccept}
	c := modernClient(t, g.srv, rec, e)

	out, isError := callDeploy(t, c, "dev")
	assert.Equal(t, "deployed to dev", out)
	assert.False(t, isError)
	assert.Empty(t, e.asked, "the policy lets dev through")
	out, isError = callDeploy(t, c, "prod")
	assert.Equal(t, "deployed to prod", out)
	assert.False(t, isError)
	assert.Equal(t, []string{"Deploy to production?"}, e.asked)
	assert.Equal(t, int32(2), g.Runs())

	retry := rec.last(t)
	require.Contains(t, string(retry.body), `"requestState"`)
	for range 2 {
		assert.Equal(t, string(retry.response), string(sendRaw(t, retry, nil)))
	}
	out, isError = resultText(t, send(t, retry, nil))
	assert.Equal(t, "deployed to prod", out)
	assert.False(t, isError)
	assert.Equal(t, int32(2), g.Runs(), "a replayed approval runs nothing")

	// Opted out of "once", the call runs again, and its gate refuses.
	g = newGatedDeploy(t, "deploy")
	rec = &posts{}
	out, _ = callDeploy(t, modernClient(t, g.srv, rec, e), "prod")
	assert.Equal(t, "deployed to prod", out)
	retry = rec.last(t)
	id := approvalID(t, retry)
	for range 2 {
		out, isError = resultText(t, send(t, retry, nil))
		assert.Equal(t, `toolnexus: approval already used: approval "`+id+`" has run its tool`, out)
		assert.True(t, isError)
	}
	assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")
}

// TestGateOtherArguments sends a retry that approved a call again with
// other arguments: the state does not open for them, and arguments whose
// names repeat or fold into one are refused; no tool runs.
func TestGateOtherArguments(t *testing.T) {
	t.Parallel()
	g := newGatedDeploy(t)
	rec := &posts{}
	// The first call is approved, but the clock the gate and the bridge
	// share has moved past the approval's expiry, and its state's: the
	// state is refused, the tool does not run and the retry is kept.
	e := &elicitor{action: mcp.ElicitationResponseActionAccept, before: func() { g.later(time.Hour) }}
	c := modernClient(t, g.srv, rec, e)
	_, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}})
	require.EqualError(t, err, "internal error: Invalid or expired requestState")
	assert.Zero(t, g.Runs(), "a stale approval fails closed")
	g.later(-time.Hour)
	retry := rec.last(t)

	for _, tt := range []struct {
		args any
		msg  string
	}{
		{map[string]any{"env": "staging"}, "Invalid or expired requestState"},
		{map[string]any{"region": "prod"}, "Invalid or expired requestState"},
		{map[string]any{"env": "prod", "force": true}, "Invalid or expired requestState"},
		{json.RawMessage(`{"env":"prod","ENV":"staging"}`), `Invalid arguments: duplicate JSON key: keys "env" and "ENV" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{json.RawMessage(`{"env":"prod","env":"staging"}`), `Invalid arguments: duplicate JSON key: key "env" appears twice in the top-level object`},
	} {
		resp := send(t, retry, func(p map[string]any) { p["arguments"] = tt.args })
		rpcErr, ok := resp["error"].(map[string]any)
		require.True(t, ok, "%v", resp)
		assert.Equal(t, tt.msg, rpcErr["message"], "%s", tt.args)
	}
	assert.Zero(t, g.Runs())

	// The same call, with its clock back in time, runs once.
	out, isError := resultText(t, send(t, retry, nil))
	assert.Equal(t, "deployed to prod", out)
	assert.False(t, isError)
	assert.Equal(t, int32(1), g.Runs())
}

// TestGateDecline declines a gated call on 2026-07-28 and on 2025-11-25,
// where the bridge asks within the call: an error result with the
// reason, and the tool never runs.
func TestGateDecline(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		action mcp.ElicitationResponseAction
		want   string
	}{
		{mcp.ElicitationResponseActionDecline, "toolnexus: approval declined: declined"},
		{mcp.ElicitationResponseActionCancel, "toolnexus: approval declined: cancelled"},
	} {
		t.Run(string(tt.action), func(t *testing.T) {
			t.Parallel()
			g := newGatedDeploy(t)
			e := &elicitor{action: tt.action}
			for _, c := range []*goclient.Client{modernClient(t, g.srv, &posts{}, e),
				legacyClient(t, g.srv, goclient.WithElicitationHandler(e),
					goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}))} {
				out, isError := callDeploy(t, c, "prod")
				assert.Equal(t, tt.want, out)
				assert.True(t, isError)
			}
			assert.Equal(t, []string{"Deploy to production?", "Deploy to production?"}, e.asked)
			assert.Zero(t, g.Runs())
		})
	}
}

// TestGateLegacy approves gated calls on 2025-11-25: the bridge asks the
// approval within each call, by elicitation, and each runs the tool once.
func TestGateLegacy(t *testing.T) {
	t.Parallel()
	g := newGatedDeploy(t)
	e := &elicitor{action: mcp.ElicitationResponseActionAccept}
	c := legacyClient(t, g.srv, goclient.WithElicitationHandler(e),
		goclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}))
	for i := range 2 {
		out, isError := callDeploy(t, c, "prod")
		assert.Equal(t, "deployed to prod", out)
		assert.False(t, isError)
		assert.Equal(t, int32(i+1), g.Runs())
	}
	assert.Equal(t, []string{"Deploy to production?", "Deploy to production?"}, e.asked)
}

// TestToolHandlerNilTool checks that a handler of no tool is an error on
// every call, never a panic.
func TestToolHandlerNilTool(t *testing.T) {
	t.Parallel()
	b, err := mcpgobridge.New(bridgetest.Runner(t, keyA, bridgetest.Config{}), nil)
	require.NoError(t, err)
	_, err = mcpgobridge.ToolHandler(b, nil)(t.Context(), mcp.CallToolRequest{})
	require.EqualError(t, err, "mcpgobridge: the handler has no tool")
}
