//lint:file-ignore SA1019 sampling and roots, which SEP-2577 deprecates, are input kinds an upstream may still ask for.

package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The JSON-RPC error of a retry whose state does not open, as the core
// and the other SDKs send it.
const (
	invalidStateMessage = "Invalid or expired requestState"
	invalidStateData    = `{"reason":"invalid_request_state"}`
)

// maxRelayRounds is how many rounds a Relay asks a client on a protocol
// older than [mcpcall.MultiRoundTrip] within one call, as the SDK's
// client retries at most.
const maxRelayRounds = 10

// RelayOptions configures a [Relay] with what is the relay's own; its
// states, their expiry, its clock and its logs are those of the
// [mcpcall.Runner] it is given, configured in [mcpcall.Options] and
// [requeststate.Options]. The zero RelayOptions is ready to use.
type RelayOptions struct {
	// Client names the relay to the upstream server; nil means
	// {Name: "toolnexus-relay", Version: "v0.0.1"}.
	Client *mcp.Implementation
	// Principal returns the authenticated user a call is made for, to
	// which the relay's state is bound, as [Options].Principal does for
	// a Bridge; nil reads the token of the call the same way.
	Principal func(req *mcp.CallToolRequest) string
}

// Relay serves the tools of an upstream MCP server, which it calls with a
// go-sdk client of its own, as the tools of its servers: tools/list and
// tools/call pass through, the upstream's content, structured content and
// errors as the SDK's own values, unchanged. An upstream input_required
// result (protocol 2026-07-28) becomes the relay's own round asking the
// same input requests, under the same keys with the same params, and a
// requestState of the relay's: the upstream's requestState travels inside
// it, sealed by the relay's [requeststate.Sealer] ([requeststate.State].Opaque)
// and bound to the tool, the arguments and the principal, so that the
// client never sees it. The client's retry opens it and calls the
// upstream again with the client's inputResponses, as the client sent
// them, and the upstream's state. A client on an older protocol is asked
// within the call, on its session (elicitation, sampling, roots list),
// and the relay answers the upstream itself, round after round.
//
// A Relay is safe for concurrent use. Every relay that may receive the
// retry of a call needs a Sealer with the same keys and audience.
type Relay struct {
	runner    *mcpcall.Runner
	sealer    *requeststate.Sealer
	dial      func() mcp.Transport
	client    *mcp.Client
	principal func(*mcp.CallToolRequest) string
	logger    *slog.Logger

	mu      sync.Mutex
	session *mcp.ClientSession // nil until dialled, and after it closed
	tools   map[string]bool    // the tools the relay's servers can call
	servers []*mcp.Server
}

// NewRelay returns a Relay whose calls run on runner (its Sealer seals
// the relay's states, which expire as its calls' do; it logs what it
// refuses in the runner's count) and that dials its upstream with a
// transport of dial, such as an [mcp.StreamableClientTransport] for the
// upstream's URL: at its first call, and again after the session closed.
// It connects the go-sdk's client with multi round-trip handling
// disabled, so that the upstream's input_required results reach the
// relay, and each call carries the capabilities its own client declared
// (under _meta's io.modelcontextprotocol/clientCapabilities), so that the
// upstream asks only for what that client can answer. A nil opts is the
// zero [RelayOptions]. It reports [mcpcall.ErrInvalidOptions] for a nil
// dial, or a runner that is nil or has no Sealer.
func NewRelay(runner *mcpcall.Runner, dial func() mcp.Transport, opts *RelayOptions) (*Relay, error) {
	if runner == nil || runner.Sealer() == nil || dial == nil {
		return nil, fmt.Errorf("mcpbridge: %w: a relay needs a runner with a Sealer and a dial function", mcpcall.ErrInvalidOptions)
	}
	var o RelayOptions
	if opts != nil {
		o = *opts
	}
	impl := o.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolnexus-relay", Version: "v0.0.1"}
	}
	return &Relay{
		runner:    runner,
		sealer:    runner.Sealer(),
		dial:      dial,
		client:    mcp.NewClient(impl, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}),
		principal: o.Principal,
		logger:    runner.Logger(),
		tools:     map[string]bool{},
	}, nil
}

// NewServer returns a go-sdk server named impl that serves the relay's
// tools, with opts (nil for none) and the tools capability: serve it over
// any transport, such as [mcp.NewStreamableHTTPHandler]. Its tools/list is
// the upstream's, page by page, and each tools/call is relayed. Tools,
// prompts or resources added to it by hand are served beside the relay's,
// but for tools of the upstream's names, which the relay serves.
func (r *Relay) NewServer(impl *mcp.Implementation, opts *mcp.ServerOptions) *mcp.Server {
	var o mcp.ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.Capabilities == nil {
		o.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	} else {
		caps := *o.Capabilities
		o.Capabilities = &caps
	}
	if o.Capabilities.Tools == nil {
		o.Capabilities.Tools = &mcp.ToolCapabilities{}
	}
	s := mcp.NewServer(impl, &o)
	s.AddReceivingMiddleware(r.middleware(s))
	r.mu.Lock()
	r.servers = append(r.servers, s)
	for name := range r.tools {
		s.AddTool(relayedTool(name), r.callTool)
	}
	r.mu.Unlock()
	return s
}

// Close closes the relay's session with the upstream, if it has one. A
// call after Close dials again.
func (r *Relay) Close() error {
	r.mu.Lock()
	cs := r.session
	r.session = nil
	r.mu.Unlock()
	if cs == nil {
		return nil
	}
	return cs.Close()
}

// middleware passes tools/list on to the upstream, and gives s a handler
// for a tool the upstream may have before its call reaches s.
func (r *Relay) middleware(s *mcp.Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				var params mcp.ListToolsParams
				if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
					params.Cursor = p.Cursor
				}
				return r.listTools(ctx, &params)
			case "tools/call":
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
					r.serve(p.Name)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// serve gives every server of r a handler for the tool name.
func (r *Relay) serve(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools[name] {
		return
	}
	r.tools[name] = true
	for _, s := range r.servers {
		s.AddTool(relayedTool(name), r.callTool)
	}
}

// relayedTool is the tool the relay's servers call for the upstream's
// tool name: the upstream checks the arguments against its own schema.
func relayedTool(name string) *mcp.Tool {
	return &mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// upstream returns the relay's session with the upstream, dialling it
// when there is none.
func (r *Relay) upstream(ctx context.Context) (*mcp.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session != nil {
		return r.session, nil
	}
	// The session outlives the call that dials it.
	cs, err := r.client.Connect(context.WithoutCancel(ctx), r.dial(), nil)
	if err != nil {
		return nil, err
	}
	r.session = cs
	return cs, nil
}

// dropped forgets cs when err says that it closed, so that the next call
// dials again.
func (r *Relay) dropped(cs *mcp.ClientSession, err error) {
	if !errors.Is(err, mcp.ErrConnectionClosed) {
		return
	}
	r.mu.Lock()
	if r.session == cs {
		r.session = nil
	}
	r.mu.Unlock()
	cs.Close()
}

// listTools returns the upstream's page of tools at params' cursor.
func (r *Relay) listTools(ctx context.Context, params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	cs, err := r.upstream(ctx)
	if err != nil {
		return nil, r.unreachable(ctx, "tools/list", err)
	}
	res, err := cs.ListTools(ctx, params)
	if err != nil {
		r.dropped(cs, err)
		return nil, r.upstreamError(ctx, "tools/list", err)
	}
	res.Meta = ownMeta(res.Meta)
	return res, nil
}

// callTool relays one tools/call.
func (r *Relay) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	call := requeststate.Call{Tool: p.Name, Arguments: p.Arguments, Principal: principalOf(r.principal, req)}
	if req.Extra != nil && req.Extra.TokenInfo != nil && call.Principal == "" {
		r.runner.LogRefusal(ctx, slog.LevelError, "mcpbridge: relay: refused a call", "tool", p.Name, "err", mcpcall.ErrNoPrincipal)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
	}
	params := &mcp.CallToolParams{
		Meta:           mcp.Meta{mcp.MetaKeyClientCapabilities: clientCapabilities(req)},
		Name:           p.Name,
		Arguments:      p.Arguments,
		InputResponses: p.InputResponses,
	}
	if len(p.Arguments) == 0 {
		params.Arguments = nil
	}
	if p.RequestState == "" {
		return r.relay(ctx, req, call, params)
	}
	opened, err := r.sealer.Open(p.RequestState, call, r.runner.Now())
	if err != nil {
		r.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: relay: refused a requestState", "tool", p.Name, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData)}
	}
	params.RequestState = opened.Opaque()
	// An answered state is relayed once: its retries get the reply of
	// that one call upstream.
	claim, held, err := r.runner.Park().Claim(ctx, park.Call{Tool: call.Tool, Arguments: call.Arguments, Principal: call.Principal, Park: opened.ID, Until: opened.Until()})
	switch {
	case errors.Is(err, park.ErrRunning):
		r.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: relay: retry while its first call goes on", "tool", p.Name, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Call still running: retry later", Data: json.RawMessage(`{"reason":"call_in_progress"}`)}
	case err != nil:
		r.runner.LogRefusal(ctx, slog.LevelWarn, "mcpbridge: relay: refused a requestState", "tool", p.Name, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData)}
	case held != nil:
		var k relayKept
		if err := json.Unmarshal(held, &k); err != nil || k.Result == nil && k.Error == nil {
			r.logger.ErrorContext(ctx, "mcpbridge: relay: the kept reply does not read", "tool", call.Tool, "err", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
		}
		if k.Error != nil {
			return nil, k.Error
		}
		return k.Result, nil
	}
	res, err := r.relay(ctx, req, call, params)
	if claim != nil {
		k := relayKept{Result: res}
		if err != nil {
			k = relayKept{Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}}
			var rpc *jsonrpc.Error
			if errors.As(err, &rpc) {
				k.Error = rpc
			}
		}
		b, merr := json.Marshal(k)
		if merr == nil {
			merr = claim.Finish(ctx, b)
		}
		if merr != nil {
			r.logger.ErrorContext(ctx, "mcpbridge: relay: the reply of an answered state was not kept", "tool", call.Tool, "err", merr)
		}
	}
	return res, err
}

// relayKept is what the relay keeps of its reply to an answered state, for
// the retries of that state: the result, or the JSON-RPC error, sent.
type relayKept struct {
	Result *mcp.CallToolResult `json:"result,omitempty"`
	Error  *jsonrpc.Error      `json:"error,omitempty"`
}

// relay sends one tools/call upstream with params, round after round for
// a client on an older protocol, and returns the relay's reply.
func (r *Relay) relay(ctx context.Context, req *mcp.CallToolRequest, call requeststate.Call, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	p := req.Params
	cs, err := r.upstream(ctx)
	if err != nil {
		return nil, r.unreachable(ctx, "tools/call", err)
	}
	older := req.Session != nil && req.ProtocolVersion() != "" && req.ProtocolVersion() < mcpcall.MultiRoundTrip
	for round := 1; ; round++ {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			r.dropped(cs, err)
			return nil, r.upstreamError(ctx, "tools/call", err)
		}
		res.Meta = ownMeta(res.Meta)
		switch {
		case res.InputRequests == nil:
			return res, nil
		case !older:
			return r.round(ctx, call, res)
		case round == maxRelayRounds || len(res.InputRequests) == 0:
			r.logger.WarnContext(ctx, "mcpbridge: relay: the upstream kept asking", "tool", p.Name, "rounds", round)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
		}
		responses, err := askAll(ctx, req.Session, res.InputRequests)
		if err != nil {
			return nil, err
		}
		retry := *params
		retry.InputResponses, retry.RequestState = responses, res.RequestState
		params = &retry
	}
}

// round returns the relay's own input_required result for res, the
// upstream's: the same input requests, and a state that seals the
// upstream's for call.
func (r *Relay) round(ctx context.Context, call requeststate.Call, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if len(res.InputRequests) == 0 {
		// An upstream that sheds load asks nothing: the client retries
		// the call afresh.
		return &mcp.CallToolResult{Meta: res.Meta, InputRequests: res.InputRequests}, nil
	}
	now := r.runner.Now()
	st := requeststate.State{ExpiresAt: now.Add(r.runner.Expiry()), Opaque: res.RequestState}
	for _, id := range sortedKeys(res.InputRequests) {
		st.Requests = append(st.Requests, relayedRequest(id, res.InputRequests[id]))
	}
	state, err := r.sealer.Seal(call, st, now)
	if err != nil {
		r.logger.ErrorContext(ctx, "mcpbridge: relay: cannot seal the upstream's round", "tool", call.Tool, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
	}
	return &mcp.CallToolResult{Meta: res.Meta, InputRequests: res.InputRequests, RequestState: state}, nil
}

// relayedRequest is what the relay's state records of the upstream's
// input request ir under id: its key, a kind for its method and the method
// as its prompt; the client is sent ir itself.
func relayedRequest(id string, ir mcp.InputRequest) toolnexus.Request {
	switch ir.(type) {
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return toolnexus.Request{ID: id, Kind: toolnexus.KindSampling, Prompt: "sampling/createMessage"}
	case *mcp.ListRootsParams:
		return toolnexus.Request{ID: id, Kind: toolnexus.KindRoots, Prompt: "roots/list"}
	}
	return toolnexus.Request{ID: id, Kind: toolnexus.KindInput, Prompt: "elicitation/create"}
}

// askAll sends each input request of irs to the client of ss, as the
// SDK's server does for a client on an older protocol, and returns the
// client's responses under the same keys.
func askAll(ctx context.Context, ss *mcp.ServerSession, irs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	responses := make(mcp.InputResponseMap, len(irs))
	for _, id := range sortedKeys(irs) {
		var (
			resp mcp.InputResponse
			err  error
		)
		switch p := irs[id].(type) {
		case *mcp.ElicitParams:
			resp, err = ss.Elicit(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			resp, err = ss.CreateMessageWithTools(ctx, p)
		case *mcp.CreateMessageParams:
			resp, err = ss.CreateMessage(ctx, p)
		case *mcp.ListRootsParams:
			resp, err = ss.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("mcpbridge: relay: input request %q of type %T", id, p)
		}
		if err != nil {
			var werr *jsonrpc.Error
			if errors.As(err, &werr) {
				return nil, werr
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("Internal error: the client did not answer input request %q", id)}
		}
		responses[id] = resp
	}
	return responses, nil
}

// clientCapabilities returns the capabilities the client of req declared,
// to send upstream: as the request's _meta carries them (2026-07-28), or
// as the session's client declared them; none is {}.
func clientCapabilities(req *mcp.CallToolRequest) any {
	if v, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities]; ok && v != nil {
		return v
	}
	caps := req.ClientCapabilities()
	wire := map[string]any{}
	if caps == nil {
		return wire
	}
	if data, err := json.Marshal(caps); err == nil && json.Unmarshal(data, &wire) == nil {
		delete(wire, "roots") // written as the #607 struct, present or not
	}
	switch {
	case caps.RootsV2 != nil:
		wire["roots"] = caps.RootsV2
	case caps.Roots.ListChanged:
		wire["roots"] = map[string]any{"listChanged": true}
	}
	return wire
}

// ownMeta returns the _meta of an upstream result without the upstream's
// serverInfo, which the relay's server writes as its own.
func ownMeta(m mcp.Meta) mcp.Meta {
	if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
		return m
	}
	m = maps.Clone(m)
	delete(m, mcp.MetaKeyServerInfo)
	if len(m) == 0 {
		return nil
	}
	return m
}

// upstreamError returns the error the upstream answered method with: a
// JSON-RPC error as it is, anything else (a closed session, a transport
// that failed) as an internal error, its reason logged.
func (r *Relay) upstreamError(ctx context.Context, method string, err error) error {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return werr
	}
	return r.unreachable(ctx, method, err)
}

// unreachable logs why the upstream could not answer method and returns
// the internal error the client is sent.
func (r *Relay) unreachable(ctx context.Context, method string, err error) error {
	r.logger.ErrorContext(ctx, "mcpbridge: relay: the upstream did not answer", "method", method, "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
}

// sortedKeys returns the keys of m in order, so that a relay asks and
// records the requests of a round in the same order every time.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
