package mcpbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// newGatedServer returns a go-sdk server of g's tool, "deploy", through a
// Bridge whose park.Runner is g's (its clock the gate's), with the tools
// named in repeatable opted out of "once".
func newGatedServer(t *testing.T, g *bridgetest.Gated, repeatable ...string) *mcp.Server {
	t.Helper()
	p := g.Park()
	p.Repeatable = repeatable
	s := mcp.NewServer(&mcp.Implementation{Name: "gated", Version: "v0.0.1"}, nil)
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"env": {Type: "string"}}}
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema},
		mcpbridge.ToolHandler(newBridge(t, testKey, bridgetest.Config{Runner: mcpcall.Options{Park: p}}), g.Tool))
	return s
}

// asked calls deploy with args on 2026-07-28 and returns the ID of the
// approval it asks and the state of the round.
func asked(t *testing.T, cs *mcp.ClientSession, args string) (string, string) {
	t.Helper()
	res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(args)})
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 1)
	for id, r := range res.InputRequests {
		require.True(t, strings.HasPrefix(id, "gate-"), id)
		elicit, ok := r.(*mcp.ElicitParams)
		require.True(t, ok, "%T", r)
		assert.Equal(t, "Deploy to production?", elicit.Message)
		return id, res.RequestState
	}
	panic("unreachable")
}

// retry is the call that answers id in state with action.
func retry(args, state, id, action string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(args), RequestState: state,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: action, Content: map[string]any{}}}}
}

// TestGateRoundTrip approves a gated call on 2026-07-28 with the go-sdk's
// client: the tool runs once the approval comes, and once only when the
// client sends the same requestState and inputResponses again: each
// replay gets the first run's result, the same bytes. With the tool opted
// out of "once" (Repeatable), a replay reaches the gate, which still runs
// its approval once.
func TestGateRoundTrip(t *testing.T) {
	t.Parallel()
	g := bridgetest.NewGated(t, time.Now())
	cs, w := connect(t, newGatedServer(t, g), manual, "")

	assert.Equal(t, "deployed to dev", text(t, call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "dev"}})))
	assert.Equal(t, int32(1), g.Runs(), "the policy lets dev through")

	id, state := asked(t, cs, `{"env":"prod"}`)
	assert.Equal(t, int32(1), g.Runs(), "prod waits for its approval")
	res := call(t, cs, retry(`{ "env" : "prod" }`, state, id, "accept"))
	assert.False(t, res.IsError)
	assert.Equal(t, "deployed to prod", text(t, res))
	assert.Equal(t, int32(2), g.Runs())
	first := string(w.lastResult(t))

	for range 2 {
		replay := call(t, cs, retry(`{"env":"prod"}`, state, id, "accept"))
		assert.False(t, replay.IsError)
		assert.Equal(t, "deployed to prod", text(t, replay))
		assert.Equal(t, first, string(w.lastResult(t)), "the replay is the first run's reply")
	}
	assert.Equal(t, int32(2), g.Runs(), "a replayed approval runs nothing")

	// Opted out of "once", the call runs again, and its gate refuses.
	g = bridgetest.NewGated(t, time.Now())
	cs, _ = connect(t, newGatedServer(t, g, "deploy"), manual, "")
	id, state = asked(t, cs, `{"env":"prod"}`)
	assert.Equal(t, "deployed to prod", text(t, call(t, cs, retry(`{"env":"prod"}`, state, id, "accept"))))
	for range 2 {
		replay := call(t, cs, retry(`{"env":"prod"}`, state, id, "accept"))
		assert.True(t, replay.IsError)
		assert.Equal(t, `toolnexus: approval already used: approval "`+id+`" has run its tool`, text(t, replay))
	}
	assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")
}

// TestGateOtherArguments applies an approval to other arguments: the
// state does not open for them, arguments whose names repeat or fold into
// one are refused before any tool runs, and another call's approval given
// in a call's own state is asked again.
func TestGateOtherArguments(t *testing.T) {
	t.Parallel()
	g := bridgetest.NewGated(t, time.Now())
	cs, _ := connect(t, newGatedServer(t, g), manual, "")
	id, state := asked(t, cs, `{"env":"prod"}`)
	for _, tt := range []struct{ args, msg string }{
		{`{"region":"prod"}`, "Invalid or expired requestState"},
		{`{"env":"prod","force":true}`, "Invalid or expired requestState"},
		{`{"env":"staging"}`, "Invalid or expired requestState"},
		{`{"env":"prod","ENV":"staging"}`, `Invalid arguments: duplicate JSON key: keys "env" and "ENV" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{`{"env":"prod","env":"staging"}`, `Invalid arguments: duplicate JSON key: key "env" appears twice in the top-level object`},
	} {
		e := callError(t, cs, retry(tt.args, state, id, "accept"))
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), e.Code, tt.args)
		assert.Equal(t, tt.msg, e.Message, tt.args)
	}
	assert.Zero(t, g.Runs())

	// The state of a call with other values, answered with the first
	// call's approval: that is no answer to its own, which it asks again.
	_, other := asked(t, cs, `{"env":"prod","replicas":2}`)
	res := call(t, cs, retry(`{"env":"prod","replicas":2}`, other, id, "accept"))
	assert.True(t, res.NeedsInput())
	assert.Zero(t, g.Runs())

	// The approval still runs the call it was given for.
	assert.Equal(t, "deployed to prod", text(t, call(t, cs, retry(`{"env":"prod"}`, state, id, "accept"))))
	assert.Equal(t, int32(1), g.Runs())
}

// TestGateDeclineAndExpiry declines a gated call, an error result with
// the reason, and approves one after the approval expired by the clock
// the gate and the bridge share: its state expires with it, and is
// refused as one; the tool never runs.
func TestGateDeclineAndExpiry(t *testing.T) {
	t.Parallel()
	g := bridgetest.NewGated(t, time.Now())
	cs, _ := connect(t, newGatedServer(t, g), manual, "")
	for action, want := range map[string]string{"decline": "toolnexus: approval declined: declined", "cancel": "toolnexus: approval declined: cancelled"} {
		id, state := asked(t, cs, `{"env":"prod"}`)
		res := call(t, cs, retry(`{"env":"prod"}`, state, id, action))
		assert.True(t, res.IsError)
		assert.Equal(t, want, text(t, res))
	}
	assert.Zero(t, g.Runs())

	id, state := asked(t, cs, `{"env":"prod"}`)
	expiry := time.UnixMilli(g.Now().Add(park.DefaultExpiry).UnixMilli()).UTC()
	stateExpiry, err := requeststate.Expiry(state)
	require.NoError(t, err)
	assert.Equal(t, expiry, stateExpiry, "the state expires with its approval")
	g.SetNow(expiry.Add(time.Millisecond))
	e := callError(t, cs, retry(`{"env":"prod"}`, state, id, "accept"))
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.Equal(t, `{"reason":"invalid_request_state"}`, string(e.Data))
	assert.Zero(t, g.Runs(), "a stale approval fails closed")
}

// TestGateOlderProtocol serves a client on 2025-11-25: the bridge asks it
// the approval within the call, by elicitation; accepting runs the tool
// once, declining runs nothing, and each call is asked anew.
func TestGateOlderProtocol(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		action, text string
		isError      bool
		runs         int32
	}{
		{"accept", "deployed to prod", false, 1},
		{"decline", "toolnexus: approval declined: declined", true, 0},
		{"cancel", "toolnexus: approval declined: cancelled", true, 0},
	} {
		t.Run(tt.action, func(t *testing.T) {
			t.Parallel()
			var (
				mu    sync.Mutex
				asked []string
			)
			opts := &mcp.ClientOptions{Capabilities: formAndURL,
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Mode+": "+req.Params.Message)
					return &mcp.ElicitResult{Action: tt.action, Content: map[string]any{}}, nil
				}}
			g := bridgetest.NewGated(t, time.Now())
			cs, _ := connect(t, newGatedServer(t, g), opts, "2025-11-25")
			require.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)
			for i := range 2 {
				res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
				assert.Equal(t, tt.isError, res.IsError)
				assert.Equal(t, tt.text, text(t, res))
				assert.Equal(t, tt.runs*int32(i+1), g.Runs(), "call %d", i+1)
			}
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"form: Deploy to production?", "form: Deploy to production?"}, asked)
		})
	}
}

// TestToolHandlerNilTool checks that a handler of no tool is an error on
// every call, never a panic.
func TestToolHandlerNilTool(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "none", Version: "v0.0.1"}, nil)
	s.AddTool(&mcp.Tool{Name: "none", InputSchema: &jsonschema.Schema{Type: "object"}}, mcpbridge.ToolHandler(newBridge(t, testKey, bridgetest.Config{}), nil))
	cs, _ := connect(t, s, manual, "")
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "none", Arguments: map[string]any{}})
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), rpc.Code)
	assert.Equal(t, "Internal error: no tool", rpc.Message)
}
