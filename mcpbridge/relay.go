//lint:file-ignore SA1019 sampling and roots, which SEP-2577 deprecates, are input kinds an upstream may still ask for.

package mcpbridge

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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

// defaultUpstreamTimeout is the [RelayOptions].UpstreamTimeout of the
// zero RelayOptions.
const defaultUpstreamTimeout = 10 * time.Second

// retryRequest is the request that the relay's state records for an
// upstream's input_required result that asks nothing but carries a
// requestState: a round that the client answers by calling again.
var retryRequest = toolnexus.Request{ID: "retry", Kind: "retry", Prompt: "call again"}

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
	// UpstreamTimeout bounds each wait on the upstream that no caller's
	// context bounds: a dial (the connection and the handshake, which
	// the calls that find no session share), the ping by which the relay
	// checks a session that a call gave up on or that has not answered
	// a call for that long, and the closing of a session. Zero means 10
	// seconds. A tools/call or tools/list waits for the upstream as long
	// as its own context lets it.
	UpstreamTimeout time.Duration
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
// Nothing of the upstream's state reaches the client unsealed. An
// input_required result stays one, with input requests or without: the
// relay's own round, the upstream's requestState sealed in the relay's
// (a round that asks nothing and carries no state, an upstream shedding
// load, is passed on as it is, and the client calls afresh). A complete
// result is passed on without the requestState that an upstream may have
// put in it, which no client would send back.
//
// A stalled upstream does not stall the relay: no wait on the upstream
// happens under a lock, a call waits for it no longer than its context
// lets it, and a dial no longer than [RelayOptions].UpstreamTimeout. A
// session that a call gave up on, or that has kept a call waiting for
// that long, is pinged; one that does not answer within that time, or
// that closed, is dropped, its calls ended, and the next call dials
// again: a relay recovers by itself once its upstream does.
//
// A call whose client sent a progress token reaches the upstream with a
// token of the relay's instead, and the upstream's progress on it reaches
// the client as notifications/progress with the client's own token, at
// the pace of the runner's [park.Runner.LimitProgress] (the last report
// always), and only progress that increases: another token, a value that
// does not increase, or a notification after the call ended is dropped.
// Each call sends its own: a client slow to take its notifications holds
// up its own call's progress, never another's.
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
	timeout   time.Duration

	mu      sync.Mutex
	session *upstreamSession // nil until dialled, and after it was dropped
	dialing *upstreamDial    // the dial under way, if any
	tools   map[string]bool  // the tools the relay's servers can call
	servers []*mcp.Server

	progress sync.Map // the upstream progress token of each call under way → its *relayedProgress
}

// relayedProgress passes an upstream's progress on one call to the
// relay's client: values that increase, at the Runner's pace, and none
// once the call has ended. The upstream's notifications of every call
// come through one handler of the relay's session, which only leaves the
// latest report here and wakes the call's own sender: a client that is
// slow to take its notifications holds up its own call's, no other.
type relayedProgress struct {
	mu    sync.Mutex
	seen  bool
	last  float64
	ended bool
	next  *progressReport // the latest report not yet sent
	wake  chan struct{}   // one slot: next was set; closed as the call ends
	idle  chan struct{}   // closed once the sender has sent the last report
}

// progressReport is one report of progress.
type progressReport struct {
	done, total float64
	message     string
}

// send sends each report p is woken for with report, until the call
// ends.
func (p *relayedProgress) send(report func(done, total float64, message string)) {
	defer close(p.idle)
	for range p.wake {
		p.mu.Lock()
		n := p.next
		p.next = nil
		p.mu.Unlock()
		if n != nil {
			report(n.done, n.total, n.message)
		}
	}
}

// upstreamSession is a session of a relay with its upstream.
type upstreamSession struct {
	cs *mcp.ClientSession
	// ctx ends when the relay drops the session, and with it the calls
	// on the session.
	ctx      context.Context
	cancel   context.CancelFunc
	checking atomic.Bool // a ping of the session is under way
	closing  sync.Once
	closeErr error
}

// upstreamDial is a dial of the upstream under way, which every call that
// finds no session waits for.
type upstreamDial struct {
	done    chan struct{} // closed when the dial has ended
	cancel  context.CancelFunc
	settled bool // under the relay's lock: the dial's outcome is decided
	session *upstreamSession
	err     error
}

// NewRelay returns a Relay whose calls run on runner (its Sealer seals
// the relay's states, which expire as its calls' do; it logs what it
// refuses in the runner's count) and that dials its upstream with a
// transport of dial, such as an [mcp.StreamableClientTransport] for the
// upstream's URL: at its first call, and again after the session was
// dropped. It connects the go-sdk's client with multi round-trip handling
// disabled, so that the upstream's input_required results reach the
// relay, and each call carries the capabilities its own client declared
// (under _meta's io.modelcontextprotocol/clientCapabilities), so that the
// upstream asks only for what that client can answer. A nil opts is the
// zero [RelayOptions]. It reports [mcpcall.ErrInvalidOptions] for a nil
// dial, a runner that is nil or has no Sealer, or a negative
// UpstreamTimeout.
func NewRelay(runner *mcpcall.Runner, dial func() mcp.Transport, opts *RelayOptions) (*Relay, error) {
	if runner == nil || runner.Sealer() == nil || dial == nil {
		return nil, fmt.Errorf("mcpbridge: %w: a relay needs a runner with a Sealer and a dial function", mcpcall.ErrInvalidOptions)
	}
	var o RelayOptions
	if opts != nil {
		o = *opts
	}
	if o.UpstreamTimeout < 0 {
		return nil, fmt.Errorf("mcpbridge: %w: a negative UpstreamTimeout", mcpcall.ErrInvalidOptions)
	}
	impl := o.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolnexus-relay", Version: "v0.0.1"}
	}
	r := &Relay{
		runner:    runner,
		sealer:    runner.Sealer(),
		dial:      dial,
		principal: o.Principal,
		logger:    runner.Logger(),
		timeout:   cmp.Or(o.UpstreamTimeout, defaultUpstreamTimeout),
		tools:     map[string]bool{},
	}
	r.client = mcp.NewClient(impl, &mcp.ClientOptions{
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		ProgressNotificationHandler: r.upstreamProgress,
	})
	return r, nil
}

// passProgress returns, for a call whose client sent a progress token, the
// token to send upstream instead, a new one the relay knows the call by,
// and the function that ends the call's progress as it returns; for one
// without, "" and a function that does nothing.
func (r *Relay) passProgress(ctx context.Context, req *mcp.CallToolRequest) (string, func()) {
	down := req.Params.GetProgressToken()
	if down == nil || req.Session == nil {
		return "", func() {}
	}
	ss, tool := req.Session, req.Params.Name
	report, flush := r.runner.Park().LimitProgress(func(done, total float64, message string) {
		p := &mcp.ProgressNotificationParams{ProgressToken: down, Progress: done, Total: total, Message: message}
		if err := ss.NotifyProgress(ctx, p); err != nil {
			r.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: relay: progress notification not sent", "tool", tool, "err", err)
		}
	})
	p := &relayedProgress{wake: make(chan struct{}, 1), idle: make(chan struct{})}
	go p.send(report)
	up := "toolnexus-relay-" + rand.Text()
	r.progress.Store(up, p)
	return up, func() {
		r.progress.Delete(up)
		p.mu.Lock()
		p.ended = true
		close(p.wake)
		p.mu.Unlock()
		select {
		case <-p.idle: // what the upstream sent before its result goes first
			flush()
		case <-ctx.Done():
		}
	}
}

// upstreamProgress passes on a progress notification from the upstream to
// the client of the call whose relay token it carries. The upstream is a
// peer: a token the relay did not send, a value that does not increase
// (as MCP requires of progress), or a notification after the call ended,
// is dropped; a total below zero is left out.
func (r *Relay) upstreamProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	n := req.Params
	if n == nil {
		return
	}
	up, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := r.progress.Load(up)
	if !ok {
		return
	}
	total := max(n.Total, 0) // JSON has no NaN or infinity
	p := v.(*relayedProgress)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended || p.seen && n.Progress <= p.last {
		return
	}
	p.seen, p.last = true, n.Progress
	p.next = &progressReport{n.Progress, total, n.Message}
	select {
	case p.wake <- struct{}{}:
	default: // the sender is awake already, and will find next
	}
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

// Close closes the relay's session with the upstream, if it has one,
// ending the calls still waiting on it, and abandons a dial under way. It
// waits for the session to close at most [RelayOptions].UpstreamTimeout,
// and then reports an error that matches [context.DeadlineExceeded]
// while the session goes on closing. A call after Close dials again.
func (r *Relay) Close() error {
	r.mu.Lock()
	s, d := r.session, r.dialing
	r.session, r.dialing = nil, nil
	r.mu.Unlock()
	if d != nil {
		d.cancel()
	}
	if s == nil {
		return nil
	}
	return s.close(r.timeout)
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

// upstream returns the relay's session with the upstream: the one it
// has, or the one of the dial under way, or of a new dial, as soon as the
// dial succeeds, or ctx's error once ctx has ended.
func (r *Relay) upstream(ctx context.Context) (*upstreamSession, error) {
	r.mu.Lock()
	s, d := r.session, r.dialing
	if s == nil && d == nil {
		d = r.startDial()
	}
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	select {
	case <-d.done:
		return d.session, d.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// startDial starts a dial of the upstream, which fails when it has not
// succeeded within r.timeout; r.mu is held. The dial's context, which the
// session keeps (the transport may hold a stream open with it), ends when
// the dial fails or the relay drops the session, never with a caller's.
func (r *Relay) startDial() *upstreamDial {
	ctx, cancel := context.WithCancel(context.Background())
	d := &upstreamDial{done: make(chan struct{}), cancel: cancel}
	r.dialing = d
	timer := time.AfterFunc(r.timeout, func() {
		if r.dialed(d, nil, fmt.Errorf("mcpbridge: relay: no session with the upstream within %v: %w", r.timeout, context.DeadlineExceeded)) {
			cancel()
		}
	})
	go func() {
		cs, err := r.client.Connect(ctx, r.dial(), nil)
		timer.Stop()
		var s *upstreamSession
		if err == nil {
			s = &upstreamSession{cs: cs, ctx: ctx, cancel: cancel}
		} else {
			cancel()
		}
		r.dialed(d, s, err)
	}()
	return d
}

// dialed settles d with its session s or its error err, unless d was
// settled already, and reports whether it settled d. The session becomes
// the relay's, unless the relay was closed since it started the dial; a
// session that comes too late is closed.
func (r *Relay) dialed(d *upstreamDial, s *upstreamSession, err error) bool {
	r.mu.Lock()
	settled := !d.settled
	if settled {
		d.settled = true
		if r.dialing == d {
			r.dialing = nil
			if err == nil {
				r.session = s
			}
		} else if err == nil {
			err = fmt.Errorf("mcpbridge: relay: closed while dialling the upstream: %w", mcp.ErrConnectionClosed)
		}
		d.err = err
		if err == nil {
			d.session = s
		}
	}
	r.mu.Unlock()
	if s != nil && (!settled || err != nil) {
		go s.close(r.timeout)
	}
	if settled {
		close(d.done)
	}
	return settled
}

// failed looks at err, which a request on s returned: a session that
// closed is dropped, one that failed otherwise (no answer in time, a
// transport that broke) is checked; an upstream's JSON-RPC error is an
// answer.
func (r *Relay) failed(s *upstreamSession, err error) {
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
	case errors.Is(err, mcp.ErrConnectionClosed):
		r.drop(s)
	default:
		r.check(s)
	}
}

// check pings the upstream on s, unless a ping is under way, and drops s
// when the upstream does not answer within r.timeout.
func (r *Relay) check(s *upstreamSession) {
	if s.ctx.Err() != nil || !s.checking.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.checking.Store(false)
		ctx, cancel := context.WithTimeout(s.ctx, r.timeout)
		defer cancel()
		_, err := await(ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, s.cs.Ping(ctx, nil)
		}, 0, nil)
		var werr *jsonrpc.Error
		if err == nil || errors.As(err, &werr) || s.ctx.Err() != nil {
			return
		}
		r.logger.Warn("mcpbridge: relay: the upstream did not answer a ping: its session is dropped", "err", err)
		r.drop(s)
	}()
}

// drop forgets s, so that the next call dials again, and closes it in
// the background, ending the calls that wait on it.
func (r *Relay) drop(s *upstreamSession) {
	r.mu.Lock()
	if r.session == s {
		r.session = nil
	}
	r.mu.Unlock()
	go s.close(r.timeout)
}

// close ends the calls on s and closes it, waiting for it at most
// timeout; s closes once, and every close reports how it closed.
func (s *upstreamSession) close(timeout time.Duration) error {
	s.closing.Do(func() {
		s.cancel()
		done := make(chan error, 1)
		go func() { done <- s.cs.Close() }()
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case s.closeErr = <-done:
		case <-timer.C:
			s.closeErr = fmt.Errorf("mcpbridge: relay: the upstream's session did not close within %v: %w", timeout, context.DeadlineExceeded)
		}
	})
	return s.closeErr
}

// onUpstream runs f, a request to the upstream on s, and returns what f
// returns, or the cause of ctx's end as soon as ctx ends, or an error when
// the relay drops s: f's context ends then too, but f, which may not heed
// it (a transport blocked in a write), finishes in the background. While
// f waits, s is checked every r.timeout; when f fails, s is looked at.
func onUpstream[T any](ctx context.Context, r *Relay, s *upstreamSession, f func(context.Context, *mcp.ClientSession) (T, error)) (T, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.ctx, func() {
		cancel(fmt.Errorf("mcpbridge: relay: the upstream's session was dropped: %w", mcp.ErrConnectionClosed))
	})
	defer stop()
	v, err := await(ctx, func(ctx context.Context) (T, error) { return f(ctx, s.cs) }, r.timeout, func() { r.check(s) })
	if err != nil {
		r.failed(s, err)
	}
	return v, err
}

// await runs f and returns what it returns, or the cause of ctx's end as
// soon as ctx ends, f then finishing in the background; while f runs, it
// calls every, if not nil, each period.
func await[T any](ctx context.Context, f func(context.Context) (T, error), period time.Duration, every func()) (T, error) {
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := f(ctx)
		done <- outcome{v, err}
	}()
	var tick <-chan time.Time
	if every != nil {
		t := time.NewTicker(period)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case o := <-done:
			return o.v, o.err
		case <-ctx.Done():
			var zero T
			return zero, context.Cause(ctx)
		case <-tick:
			every()
		}
	}
}

// listTools returns the upstream's page of tools at params' cursor.
func (r *Relay) listTools(ctx context.Context, params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	s, err := r.upstream(ctx)
	if err != nil {
		return nil, r.unreachable(ctx, "tools/list", err)
	}
	res, err := onUpstream(ctx, r, s, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.ListToolsResult, error) {
		return cs.ListTools(ctx, params)
	})
	if err != nil {
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
	up, ended := r.passProgress(ctx, req)
	defer ended()
	if up != "" {
		params.SetProgressToken(up)
	}
	var opened requeststate.Opened
	if p.RequestState != "" {
		var err error
		if opened, err = r.sealer.Open(p.RequestState, call, r.runner.Now()); err != nil {
			return nil, r.refused(ctx, p.Name, err)
		}
	}
	s, err := r.upstream(ctx)
	if err != nil {
		return nil, r.unreachable(ctx, "tools/call", err)
	}
	if p.RequestState == "" {
		return r.relay(ctx, req, call, params, s)
	}
	// Claimed once the upstream can be called, so that an outage of the
	// upstream does not use up the client's answered state; relayed once,
	// its retries getting the reply of that one call upstream.
	claim, held, err := r.runner.Park().Claim(ctx, park.Call{Tool: call.Tool, Arguments: call.Arguments, Principal: call.Principal,
		Park: opened.ID, Until: opened.Until(), ParkedAt: opened.IssuedAt})
	switch {
	case errors.Is(err, park.ErrRunning):
		r.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: relay: retry while its first call goes on", "tool", p.Name, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Call still running: retry later", Data: json.RawMessage(`{"reason":"call_in_progress"}`)}
	case err != nil:
		return nil, r.refused(ctx, p.Name, err)
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
	params.RequestState = opened.Opaque()
	res, err := r.relay(ctx, req, call, params, s)
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

// relay sends one tools/call upstream on s with params, round after round
// for a client on an older protocol, and returns the relay's reply.
func (r *Relay) relay(ctx context.Context, req *mcp.CallToolRequest, call requeststate.Call, params *mcp.CallToolParams, s *upstreamSession) (*mcp.CallToolResult, error) {
	p := req.Params
	older := req.Session != nil && req.ProtocolVersion() != "" && req.ProtocolVersion() < mcpcall.MultiRoundTrip
	for round := 1; ; round++ {
		res, err := onUpstream(ctx, r, s, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
			return cs.CallTool(ctx, params)
		})
		if err != nil {
			return nil, r.upstreamError(ctx, "tools/call", err)
		}
		res.Meta = ownMeta(res.Meta)
		switch {
		case !res.NeedsInput() && res.InputRequests == nil:
			return r.complete(ctx, p.Name, res), nil
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

// refused logs why the state of a call of tool does not open, in the
// runner's count, and returns the error the client is sent.
func (r *Relay) refused(ctx context.Context, tool string, err error) error {
	r.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: relay: refused a requestState", "tool", tool, "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData)}
}

// complete returns res, the upstream's complete result of a call of tool,
// without the requestState that the upstream put in it: it is the
// upstream's, and a client has no use for it.
func (r *Relay) complete(ctx context.Context, tool string, res *mcp.CallToolResult) *mcp.CallToolResult {
	if res.RequestState != "" {
		r.runner.LogRefusal(ctx, slog.LevelWarn, "mcpbridge: relay: the upstream's complete result carries a requestState, which the relay drops", "tool", tool, "bytes", len(res.RequestState))
		res.RequestState = ""
	}
	return res
}

// round returns the relay's own input_required result for res, the
// upstream's: the same input requests, none when res has none, and a
// state that seals the upstream's for call, when the upstream asks
// something or sent a state. An upstream that sheds load asks nothing and
// sends no state: the client calls afresh.
func (r *Relay) round(ctx context.Context, call requeststate.Call, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	irs := res.InputRequests
	if irs == nil {
		irs = mcp.InputRequestMap{} // input_required on the wire
	}
	if len(irs) == 0 && res.RequestState == "" {
		return &mcp.CallToolResult{Meta: res.Meta, InputRequests: irs}, nil
	}
	now := r.runner.Now()
	st := requeststate.State{ExpiresAt: now.Add(r.runner.Expiry()), Opaque: res.RequestState}
	for _, id := range sortedKeys(irs) {
		st.Requests = append(st.Requests, relayedRequest(id, irs[id]))
	}
	if len(st.Requests) == 0 {
		st.Requests = []toolnexus.Request{retryRequest}
	}
	state, err := r.sealer.Seal(call, st, now)
	if err != nil {
		r.logger.ErrorContext(ctx, "mcpbridge: relay: cannot seal the upstream's round", "tool", call.Tool, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
	}
	return &mcp.CallToolResult{Meta: res.Meta, InputRequests: irs, RequestState: state}, nil
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
