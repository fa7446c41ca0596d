package mcpgobridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/wire"
	"github.com/toolnexus-go/toolnexus/mcpcall"
)

// Options configures a [Bridge] with what is the bridge's own; the state
// and the call's core are configured where they live:
// requeststate.Options (keys, audience, maximum age) and
// [mcpcall.Options] (its park.Runner: the expiry of a parked call, the
// clock, the logger and the store in which each answered state is claimed
// with the result of its one run). The zero Options is ready to use.
type Options struct {
	// Principal, when set, returns the authenticated user a call is made
	// for, to which its state is bound, such as requeststate.Principal
	// of its OAuth token's issuer and subject. mcp-go verifies no token
	// itself: put the user into the context with
	// server.WithHTTPContextFunc and read it here. A call whose request
	// carries an Authorization header is refused (an error, -32603 as
	// mcp-go sends it) when Principal is nil or returns "": its state
	// would be bound to no user.
	Principal func(ctx context.Context, req mcp.CallToolRequest) string
}

// Bridge holds what the handlers of [Handler] share: the [mcpcall.Runner]
// that runs every call, whose requeststate.Sealer seals the state a
// client holds between a suspension and its answer. A Bridge is safe for
// concurrent use. Every server that may receive the retry of a call (the
// instances behind one load balancer, or one server across a restart)
// needs a Bridge whose Sealer has the same keys and audience, and whose
// park.Runner has the same Store, such as the redisclaims module's
// (mcpcall.Options{Park: park.Runner{Store: store}}).
//
// A state is answered once, by default: the tool runs once for one
// answer, and a client that sends the same answered requestState again
// (it lost the reply, or retries) gets the reply of that one run, the same
// bytes, on any server that shares the Store; the zero park.Runner's
// Store is in memory, shared by the process. A tool safe to repeat opts
// out by name, in park.Runner's Repeatable.
//
// A suspended call stays parked, its state valid, until the earliest of
// its Request's ExpiresAt (by default the Expiry of [mcpcall.Options].Park
// after it was asked, park.DefaultExpiry, ten minutes) and the state's
// maximum age (requeststate.Options.MaxAge, a day by default). A host
// can read that time from the requestState with requeststate.Expiry.
type Bridge struct {
	core      *mcpcall.Runner
	principal func(context.Context, mcp.CallToolRequest) string
}

// New returns a Bridge that runs its calls with r. A nil opts is the zero
// [Options]. It reports an error for a nil r.
func New(r *mcpcall.Runner, opts *Options) (*Bridge, error) {
	if r == nil {
		return nil, errors.New("mcpgobridge: no mcpcall.Runner")
	}
	b := &Bridge{core: r}
	if opts != nil {
		b.principal = opts.Principal
	}
	return b, nil
}

// ToolFunc is a tool that can suspend. It is called with its input and a
// nil answer; to ask a person for something, it returns a suspension
// ([toolnexus.Pending] or [toolnexus.AuthRequired]). Once the person has
// answered, it is called again with the same input and the latest
// [toolnexus.Answer], whose ID is that of the Request it returned.
type ToolFunc[In any] func(ctx context.Context, in In, answer *toolnexus.Answer) toolnexus.ToolResult

// Call is one call of a tool of [CallHandler]: what an mcp-go handler
// gets, and every answer the tool has been given so far. The session is in
// the handler's context, as server.ClientSessionFromContext reads it.
// It prints and logs without payload: its arguments by their size, its
// input by its type, its answers without their data.
type Call[In any] struct {
	// Request is the request as mcp-go decoded it: its Params and Header.
	Request mcp.CallToolRequest
	// In is the call's input, decoded from its arguments.
	In In
	// Answers are the answers to what the tool asked in this call,
	// earliest first; empty on the first run.
	Answers toolnexus.Answers
}

// String returns c without payload, for %v: the tool called and its
// arguments as their size, its input as its type, and its answers as
// [toolnexus.Answers.String] shows them. Its header, which may carry a
// token, is left out.
func (c Call[In]) String() string {
	return "{Request:{Name:" + strconv.Quote(c.Request.Params.Name) + " Arguments:" + argumentsShown(c.Request.Params) + "} In:" +
		reflect.TypeFor[In]().String() + "{…} Answers:" + c.Answers.String() + "}"
}

// GoString returns c in Go syntax without payload, for %#v.
func (c Call[In]) GoString() string {
	in := reflect.TypeFor[In]().String()
	return "mcpgobridge.Call[" + in + "]{Request:mcp.CallToolRequest{Params:mcp.CallToolParams{Name:" + strconv.Quote(c.Request.Params.Name) +
		", Arguments:" + argumentsShown(c.Request.Params) + ", …}, …}, In:" + in + "{…}, Answers:" + c.Answers.GoString() + "}"
}

// Format prints c for every verb without payload, as [Call.String] (%#v:
// [Call.GoString]).
func (c Call[In]) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as the tool called, the
// size of its arguments, the type of its input and its answers, without
// payload.
func (c Call[In]) LogValue() slog.Value {
	return slog.GroupValue(slog.String("tool", c.Request.Params.Name), slog.String("arguments", argumentsShown(c.Request.Params)),
		slog.String("in", reflect.TypeFor[In]().String()), slog.Any("answers", c.Answers))
}

// argumentsShown describes the arguments of p by their type and size.
func argumentsShown(p mcp.CallToolParams) string {
	if len(p.RawArguments) > 0 {
		return "json.RawMessage(" + strconv.Itoa(len(p.RawArguments)) + " bytes)"
	}
	v := reflect.ValueOf(p.Arguments)
	switch {
	case !v.IsValid():
		return "nil"
	case v.Kind() == reflect.String || v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return v.Type().String() + "(" + strconv.Itoa(v.Len()) + " bytes)"
	case v.Kind() == reflect.Map || v.Kind() == reflect.Slice || v.Kind() == reflect.Array:
		return v.Type().String() + "(len " + strconv.Itoa(v.Len()) + ")"
	}
	return v.Type().String()
}

// CallFunc is a tool that can suspend, given the whole call: it may ask
// several requests at once ([toolnexus.PendingAll]), of every kind
// (elicitations, sampling, roots), and ask again after an answer, seeing
// every earlier answer in c.Answers.
type CallFunc[In any] func(ctx context.Context, c Call[In]) toolnexus.ToolResult

// Handler returns fn as a handler for mcp-go's AddTool; see [CallHandler].
// fn gets the latest answer, or nil on the first call.
func Handler[In any](b *Bridge, fn ToolFunc[In]) server.ToolHandlerFunc {
	return CallHandler(b, func(ctx context.Context, c Call[In]) toolnexus.ToolResult {
		var latest *toolnexus.Answer
		if n := len(c.Answers); n > 0 {
			latest = &c.Answers[n-1]
		}
		return fn(ctx, c.In, latest)
	})
}

// CallHandler returns fn as a handler for mcp-go's AddTool. The arguments
// are decoded into In with [toolnexus.DecodeArguments]: as encoding/json
// decodes them, but with exact keys, so that a key In does not declare,
// "ENV" for the field "env" included, is an error result naming it and the
// keys the tool takes, and fn does not run (give the tool
// mcp.WithInputSchema[In] so that the client knows them); arguments that
// do not decode are an error result. Arguments whose
// objects repeat a name, or hold two names that are one when case is
// folded ({"Env":"prod","env":"staging"}), are refused by the core with the
// error "Invalid arguments: …" naming them, on the first call and on every
// retry, and fn never runs: the value fn reads is the one a state binds,
// whether it reads In, c.Request's raw arguments or decodes them itself.
//
// Every call runs through [mcpcall.Runner.Run], which the go-sdk
// bridge shares. A result that is not a suspension is sent as
// [CallToolResult] sends it. A suspension is an input_required result
// asking each of its requests under its ID, with a requestState that seals
// them, and every answer so far, for this tool, these arguments and the
// principal ([Options].Principal); a Request without ExpiresAt expires after
// the runner's expiry. A client on a protocol older than 2026-07-28 never
// sees that result: the handler asks it directly through its session and
// runs fn again with the answers. A request the client did not declare the
// capability for is never sent.
//
// When the client retries with the requestState, the state is opened and
// each answer is checked against what it answers before fn sees it; a
// request left unanswered is asked again. A state is answered once
// ([Bridge]): its retries get the reply of its one run, the same bytes,
// and fn does not run again; a retry while that run goes on is the error
// "Call still running: retry later". A state that does not open (altered,
// sealed with another key, for another call or user, or expired), a
// malformed answer and a missing capability on 2026-07-28 are JSON-RPC
// errors whose message is the one [mcpcall.Error] gives; mcp-go sends
// every error of a tool handler with the code -32603 and no data, so their
// code is not the one the core chose. A panic in fn is the error result
// `toolnexus: tool panicked: "NAME"`, as on every carrier, and a result
// that is not valid an error result saying why. The reasons go to the runner's
// logger (the Logger of [mcpcall.Options].Park), and
// the error a hook of mcp-go's server.Hooks.AddOnError gets wraps the
// core's, so [errors.Is] tells them apart.
//
// mcp-go holds what it carries in its own types: the params of a sampling
// request keep the members mcp-go's CreateMessageParams knows, and on
// older protocols a client's response reaches the bridge as mcp-go decoded
// and re-encodes it, not as the client wrote it.
//
// Progress that fn reports with [toolnexus.ReportProgress] reaches the
// client when it asks for it: a request whose _meta carries a
// progressToken gets notifications/progress with that token, the progress,
// the total when known and the message, at most one every
// park.ProgressInterval, but every report of completion and the last
// report before fn returns. A request without a token gets none, and the
// reports cost nothing. A notification that cannot be sent (mcp-go drops
// one its session's queue has no room for) is logged, as the runner logs
// a refused call, and the call goes on.
func CallHandler[In any](b *Bridge, fn CallFunc[In]) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := arguments(req)
		if err != nil {
			return mcp.NewToolResultError("mcpgobridge: invalid arguments: " + err.Error()), nil
		}
		var in In
		// Arguments that repeat a name decode to nothing here: the core
		// refuses them before fn could run.
		if err := toolnexus.DecodeArguments(args, &in); err != nil && !errors.Is(err, toolnexus.ErrDuplicateKey) {
			return mcp.NewToolResultError("mcpgobridge: " + strings.TrimPrefix(err.Error(), "toolnexus: ")), nil
		}
		return b.serve(ctx, req, args, func(ctx context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
			return fn(ctx, Call[In]{Request: req, In: in, Answers: answers})
		})
	}
}

// ToolHandler returns tool as a handler for mcp-go's AddTool that leaves the
// arguments to the tool: tool gets them as the client sent them (give the
// tool its schema with mcp.WithInputSchema or mcp.WithRawInputSchema), to
// decode with [toolnexus.ToolFor] or itself, with every answer so far, and
// runs as a handler of [CallHandler] does, with the same refusals. It
// serves any [toolnexus.Tool] as it is, a tool that the Gate of package
// approval wraps included. A nil tool is an error on every call.
func ToolHandler(b *Bridge, tool toolnexus.Tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tool == nil {
			return nil, errNilTool
		}
		args, err := arguments(req)
		if err != nil {
			return mcp.NewToolResultError("mcpgobridge: invalid arguments: " + err.Error()), nil
		}
		return b.serve(ctx, req, args, tool)
	}
}

// serve runs one call of req's tool, whose arguments are args.
func (b *Bridge) serve(ctx context.Context, req mcp.CallToolRequest, args json.RawMessage, tool toolnexus.Tool) (*mcp.CallToolResult, error) {
	if b == nil {
		return nil, errNilBridge
	}
	responses, err := inputResponses(req.Params.InputResponses)
	if err != nil {
		return nil, &mcpcall.Error{Code: mcpcall.CodeInvalidParams, Message: "Invalid inputResponses", Err: err}
	}
	c := mcpcall.Call{
		Tool:           req.Params.Name,
		Arguments:      args,
		RequestState:   req.Params.RequestState,
		InputResponses: responses,
		Client:         client(ctx),
	}
	if b.principal != nil {
		c.Principal = b.principal(ctx, req)
	}
	c.Authenticated = req.Header.Get("Authorization") != ""
	if !mcp.IsModernProtocol(c.Client.Protocol) {
		c.Ask = asker(server.ServerFromContext(ctx))
	}
	var settle func()
	c.Progress, settle = b.progress(ctx, req)
	res, err := b.core.Run(ctx, c, tool)
	settle()
	var e *mcpcall.Error
	if errors.As(err, &e) {
		return nil, rpcError{e}
	}
	if err != nil {
		return nil, err
	}
	return callToolResult(res)
}

// progressSettle is how long after its latest progress notification a
// call waits before it returns its result: mcp-go's streamable HTTP server
// drops a notification that its forwarder has taken off the session's
// queue but not written yet when the response goes out, as the last
// report, sent as the tool returns, often would be.
const progressSettle = 5 * time.Millisecond

// progress returns the function that sends the progress the tool
// reports to the client of req as notifications/progress, with the
// request's progress token, or nil when the request carries none or is
// served outside an mcp-go server; and settle, which waits as
// [progressSettle] says once the tool has returned. A notification that is
// not sent is logged, as the runner logs refusals, and the call goes on.
func (b *Bridge) progress(ctx context.Context, req mcp.CallToolRequest) (send func(done, total float64, message string), settle func()) {
	srv := server.ServerFromContext(ctx)
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || srv == nil {
		return nil, func() {}
	}
	var (
		token, tool = req.Params.Meta.ProgressToken, req.Params.Name
		last        atomic.Int64 // when the latest notification was queued, in Unix nanoseconds; 0: none
	)
	send = func(done, total float64, message string) {
		p := map[string]any{"progressToken": token, "progress": done}
		if total != 0 {
			p["total"] = total
		}
		if message != "" {
			p["message"] = message
		}
		if err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), p); err != nil {
			b.core.LogRefusal(ctx, slog.LevelInfo, "mcpgobridge: progress notification not sent", "tool", tool, "err", err)
			return
		}
		last.Store(time.Now().UnixNano())
	}
	settle = func() {
		if at := last.Load(); at != 0 {
			time.Sleep(progressSettle - time.Since(time.Unix(0, at)))
		}
	}
	return send, settle
}

// rpcError is a JSON-RPC error of the core as mcp-go sends it: its message
// is the one the client may read, never the reason it wraps.
type rpcError struct{ e *mcpcall.Error }

func (e rpcError) Error() string { return e.e.Message }

// Unwrap returns the core's error, whose reason [errors.Is] matches.
func (e rpcError) Unwrap() error { return e.e }

// arguments returns the raw JSON of req's arguments: as they came on the
// wire, or encoded from what a Go caller set; none is an empty object.
func arguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	if req.Params.Arguments == nil {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(req.Params.Arguments)
}

// inputResponses returns the raw JSON of each input response: as it came
// on the wire, or encoded from the result mcp-go decoded.
func inputResponses(rs mcp.InputResponses) (map[string]json.RawMessage, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(rs))
	for id, r := range rs {
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("mcpgobridge: input response %q: %w", id, err)
		}
		out[id] = raw
	}
	return out, nil
}

// client returns what the client of the request in ctx declared: on
// 2026-07-28, in the request's own _meta; on older protocols, when it
// initialized its session. A client that declares elicitation without a
// mode takes forms.
func client(ctx context.Context) mcpcall.Client {
	var (
		version = server.RequestProtocolVersion(ctx)
		caps    *mcp.ClientCapabilities
	)
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else {
		if version == "" || mcp.IsModernProtocol(version) {
			// A session that did not say, as mcp-go reads it: the
			// client takes no input_required result.
			version = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		}
		if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			c := s.GetClientCapabilities()
			caps = &c
		}
	}
	c := mcpcall.Client{Protocol: version}
	if caps == nil {
		return c
	}
	if e := caps.Elicitation; e != nil {
		c.ElicitForm = e.Form != nil || e.URL == nil
		c.ElicitURL = e.URL != nil
	}
	c.Sampling = caps.Sampling != nil
	c.Roots = caps.Roots != nil
	return c
}

// errNilBridge reports a handler made with a nil Bridge.
var errNilBridge = errors.New("mcpgobridge: the handler has no Bridge")

// errNilTool is the error of every call of a handler of ToolHandler given no
// tool.
var errNilTool = errors.New("mcpgobridge: the handler has no tool")

// errNoServer reports a call on an older protocol outside an mcp-go server.
var errNoServer = errors.New("mcpgobridge: no mcp-go server in the context to ask the client through")

// asker returns the function that sends an input request to the client
// through srv while a call on an older protocol is served, and returns the
// JSON of its response.
func asker(srv *server.MCPServer) func(ctx context.Context, id string, in toolnexus.MCPInputRequest) (json.RawMessage, error) {
	return func(ctx context.Context, _ string, in toolnexus.MCPInputRequest) (json.RawMessage, error) {
		if srv == nil {
			return nil, errNoServer
		}
		ir, err := reencode[mcp.InputRequest](in)
		if err != nil {
			return nil, fmt.Errorf("mcpgobridge: input request: %w", err)
		}
		var res any
		switch ir.Method {
		case mcp.MethodElicitationCreate:
			res, err = srv.RequestElicitation(ctx, mcp.ElicitationRequest{
				Request: mcp.Request{Method: string(ir.Method)}, Params: *ir.Elicitation})
		case mcp.MethodSamplingCreateMessage:
			//lint:ignore SA1019 sampling is deprecated, but 2025-11-25 clients take it
			res, err = srv.RequestSampling(ctx, mcp.CreateMessageRequest{
				Request: mcp.Request{Method: string(ir.Method)}, CreateMessageParams: *ir.Sampling})
		case mcp.MethodListRoots:
			res, err = srv.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(ir.Method)}})
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}
