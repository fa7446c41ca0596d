//lint:file-ignore SA1019 sampling and roots, which SEP-2577 deprecates, are input kinds a suspension may still ask for.

package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/wire"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// Options configures a [Bridge] with what is the bridge's own; the state
// and the call's core are configured where they live:
// [requeststate.Options] (keys, audience, maximum age) and
// [mcpcall.Options] (its park.Runner: the expiry of a parked call, the
// clock, the logger and the store in which each answered state is claimed
// with the result of its one run). The zero Options is ready to use.
type Options struct {
	// Principal returns the authenticated user a call is made for, to
	// which its state is bound, such as [requeststate.Principal] of its
	// token's issuer and subject. Nil means the token's (req.Extra.TokenInfo):
	// requeststate.Principal of the string under "iss" in its Extra, if
	// any, and its UserID; and no user without a token. A call with a
	// token for which the principal is empty (a TokenInfo without UserID)
	// is refused with -32603, never bound to no user.
	Principal func(req *mcp.CallToolRequest) string
}

// Bridge holds what the handlers of [Handler] share: the [mcpcall.Runner]
// that runs every call, whose [requeststate.Sealer] seals the state a
// client holds between a suspension and its answers. A Bridge is safe for
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
// maximum age ([requeststate.Options].MaxAge, a day by default). A host
// can read that time from the requestState with [requeststate.Expiry].
type Bridge struct {
	runner    *mcpcall.Runner
	principal func(*mcp.CallToolRequest) string
}

// New returns a Bridge that runs its calls with r. A nil opts is the zero
// [Options]. It reports an error for a nil r.
func New(r *mcpcall.Runner, opts *Options) (*Bridge, error) {
	if r == nil {
		return nil, errors.New("mcpbridge: no mcpcall.Runner")
	}
	b := &Bridge{runner: r}
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

// Call is one call of a tool of [CallHandler]: what a handler of the SDK
// gets, and every answer the tool has been given so far.
// It prints and logs without payload: its arguments by their size, its
// input by its type, its answers without their data.
type Call[In any] struct {
	// Request is the SDK's request: its Session (to log, report progress
	// or read the client's capabilities), its Params, and its Extra (the
	// token of an authenticated user, the HTTP header).
	Request *mcp.CallToolRequest
	// In is the call's input, decoded and checked by the SDK.
	In In
	// Answers are the answers to what the tool asked in this call,
	// earliest first; empty on the first run.
	Answers toolnexus.Answers
}

// String returns c without payload, for %v: the tool called and its
// arguments as their size, its input as its type, and its answers as
// [toolnexus.Answers.String] shows them.
func (c Call[In]) String() string {
	name, n := callShown(c.Request)
	return "{Request:&{Name:" + strconv.Quote(name) + " Arguments:json.RawMessage(" + strconv.Itoa(n) + " bytes)} In:" +
		reflect.TypeFor[In]().String() + "{…} Answers:" + c.Answers.String() + "}"
}

// GoString returns c in Go syntax without payload, for %#v.
func (c Call[In]) GoString() string {
	name, n := callShown(c.Request)
	in := reflect.TypeFor[In]().String()
	return "mcpbridge.Call[" + in + "]{Request:&mcp.CallToolRequest{Params:&mcp.CallToolParamsRaw{Name:" + strconv.Quote(name) +
		", Arguments:json.RawMessage(" + strconv.Itoa(n) + " bytes), …}, …}, In:" + in + "{…}, Answers:" + c.Answers.GoString() + "}"
}

// Format prints c for every verb without payload, as [Call.String] (%#v:
// [Call.GoString]).
func (c Call[In]) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as the tool called, the
// size of its arguments, the type of its input and its answers, without
// payload.
func (c Call[In]) LogValue() slog.Value {
	name, n := callShown(c.Request)
	return slog.GroupValue(slog.String("tool", name), slog.String("arguments", "json.RawMessage("+strconv.Itoa(n)+" bytes)"),
		slog.String("in", reflect.TypeFor[In]().String()), slog.Any("answers", c.Answers))
}

// callShown returns the name of the tool req calls and the size of its
// arguments.
func callShown(req *mcp.CallToolRequest) (name string, n int) {
	if req == nil || req.Params == nil {
		return "", 0
	}
	return req.Params.Name, len(req.Params.Arguments)
}

// CallFunc is a tool that can suspend, given the whole [Call]: it returns
// a suspension ([toolnexus.Pending], [toolnexus.PendingAll]) to ask, and is
// called again with the answers once the client has them.
type CallFunc[In any] func(ctx context.Context, c Call[In]) toolnexus.ToolResult

// Handler returns fn as a handler for the SDK's [mcp.AddTool], which infers
// the tool's input schema from In, checks the arguments against it and
// decodes them into In with exact keys. It is [CallHandler] for a tool that
// needs only its input and its latest answer.
func Handler[In any](b *Bridge, fn ToolFunc[In]) mcp.ToolHandlerFor[In, any] {
	return CallHandler(b, func(ctx context.Context, c Call[In]) toolnexus.ToolResult {
		var latest *toolnexus.Answer
		if n := len(c.Answers); n > 0 {
			latest = &c.Answers[n-1]
		}
		return fn(ctx, c.In, latest)
	})
}

// CallHandler returns fn as a handler for the SDK's [mcp.AddTool], run by
// [mcpcall.Runner.Run], the Bridge's runner.
//
// A result that is not a suspension is sent as [CallToolResult] sends it.
// A suspension asks the client for each of its requests: form and url
// elicitations, sampling and roots. On protocol 2026-07-28 it is an
// input_required result whose requestState seals the requests and every
// answer so far; the client answers and retries, and fn runs again with
// every answer. On older protocols the handler sends each request to the
// client on its session and runs fn again with the answers, round after
// round, within the one call. A request the client did not declare the
// capability for is never sent: the call is a JSON-RPC error -32021 on
// 2026-07-28 and the suspension's text as an error result on older
// protocols.
//
// Arguments whose objects repeat a name, or hold two names that are one
// when case is folded ({"Env":"prod","env":"staging"}), are the JSON-RPC
// error -32602 "Invalid arguments: …" naming them, on the first call and on
// every retry, and fn never runs: a decoder that keeps the first or the last
// of them, or folds case, would read another call than the one a state
// binds (the SDK's own check of the input schema may refuse a name the
// tool does not take first, with an error result).
//
// A retry whose state does not open (altered, sealed with another key, for
// another tool, other arguments or another user, or expired) is the
// JSON-RPC error -32602 "Invalid or expired requestState"; an answer that
// is malformed or off its schema is a JSON-RPC error -32602 too, and fn
// does not run; a request left unanswered is asked again. A state is
// answered once ([Bridge]): its retries get the reply of its one run, the
// same bytes, and fn does not run again; a retry while that run goes on
// is the JSON-RPC error -32603 "Call still running: retry later" with data
// {"reason":"call_in_progress"}. A panic in fn is the error result
// `toolnexus: tool panicked: "NAME"`, as on every carrier, and a result
// that is not valid an error result saying why. The reasons go to the
// Bridge's logger, never to the client.
//
// Progress that fn reports with [toolnexus.ReportProgress] reaches the
// client when it asks for it: a request whose _meta carries a
// progressToken gets notifications/progress with that token, the progress,
// the total when known and the message, at most one every
// park.ProgressInterval, but every report of completion and the last
// report before fn returns. A request without a token gets none, and the
// reports cost nothing. A notification that cannot be sent is logged, as
// the runner logs a refused call, and the call goes on.
func CallHandler[In any](b *Bridge, fn CallFunc[In]) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, err := b.call(ctx, req, func(ctx context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
			return fn(ctx, Call[In]{Request: req, In: in, Answers: as})
		})
		return res, nil, err
	}
}

// ToolHandler returns tool as a handler for the SDK's [mcp.Server.AddTool],
// which takes the tool's input schema as it is given (it must be set, an
// object) and leaves the arguments to the tool: tool gets them as the
// client sent them, to decode with [toolnexus.ToolFor] or itself, with
// every answer so far, and runs as a handler of [CallHandler] does, with
// the same refusals. It serves any [toolnexus.Tool] as it is, a tool that
// the Gate of package approval wraps included. A nil tool is the JSON-RPC error -32603
// on every call.
func ToolHandler(b *Bridge, tool toolnexus.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tool == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: no tool"}
		}
		return b.call(ctx, req, tool)
	}
}

// OutFunc is a tool of [OutHandler]: given the whole [Call], it returns its
// result and its structured output. The output of a suspension is not
// sent.
type OutFunc[In, Out any] func(ctx context.Context, c Call[In]) (toolnexus.ToolResult, Out)

// OutHandler returns fn as a handler for the SDK's [mcp.AddTool] with a
// typed output: the SDK infers the tool's output schema from Out, checks
// the Out of each finished call against it and sends it as the result's
// structuredContent, with the result's content as [CallToolResult] writes
// it. It runs fn as [CallHandler] does, and a suspension asks as it does.
// The output is kept with the result, so that the retry of an answered
// call, which gets the result of its one run, gets its output too.
func OutHandler[In, Out any](b *Bridge, fn OutFunc[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var (
			out Out
			ran bool
		)
		res, err := b.call(ctx, req, func(ctx context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
			r, o := fn(ctx, Call[In]{Request: req, In: in, Answers: as})
			out, ran = o, true // the output of the last run, the one that finished
			if r.IsPending() {
				return r
			}
			raw, err := json.Marshal(o)
			if err != nil {
				return r // the SDK reports it as it writes out
			}
			return r.WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(raw))
		})
		if err != nil || res.InputRequests != nil {
			var zero Out
			return res, zero, err
		}
		if raw, ok := res.StructuredContent.(json.RawMessage); ok && !ran {
			// A retry answered with the kept result: the output of its one
			// run, as it was sent.
			var kept Out
			if err := json.Unmarshal(raw, &kept); err == nil {
				out = kept
			}
		}
		return res, out, nil
	}
}

// call runs one call of a tool as [CallHandler] does.
func (b *Bridge) call(ctx context.Context, req *mcp.CallToolRequest, tool toolnexus.Tool) (*mcp.CallToolResult, error) {
	c, err := b.toolCall(req)
	if err != nil {
		return nil, err
	}
	c.Progress = b.progress(ctx, req)
	res, err := b.runner.Run(ctx, c, tool)
	if err != nil {
		return nil, wireError(err)
	}
	return sdkResult(res)
}

// toolCall returns the call of the core for the SDK's request.
func (b *Bridge) toolCall(req *mcp.CallToolRequest) (mcpcall.Call, error) {
	if req == nil || req.Params == nil {
		return mcpcall.Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: no tools/call params"}
	}
	p := req.Params
	c := mcpcall.Call{
		Tool:         p.Name,
		Arguments:    p.Arguments,
		RequestState: p.RequestState,
		Principal:    principalOf(b.principal, req),
		Client:       client(req),
	}
	c.Authenticated = req.Extra != nil && req.Extra.TokenInfo != nil
	if len(p.InputResponses) > 0 {
		c.InputResponses = make(map[string]json.RawMessage, len(p.InputResponses))
		for id, r := range p.InputResponses {
			raw, err := json.Marshal(r)
			if err != nil {
				return mcpcall.Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid inputResponses: " + err.Error()}
			}
			c.InputResponses[id] = raw
		}
	}
	if c.Client.Protocol != "" && c.Client.Protocol < mcpcall.MultiRoundTrip && req.Session != nil {
		c.Ask = func(ctx context.Context, id string, r toolnexus.MCPInputRequest) (json.RawMessage, error) {
			return ask(ctx, req.Session, id, r)
		}
	}
	return c, nil
}

// progress returns the function that sends the progress the tool
// reports to the client of req as notifications/progress, with the
// request's progress token, or nil when the request carries none. A
// notification that is not sent is logged, as the runner logs refusals,
// and the call goes on.
func (b *Bridge) progress(ctx context.Context, req *mcp.CallToolRequest) func(done, total float64, message string) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	ss, tool := req.Session, req.Params.Name
	return func(done, total float64, message string) {
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message}
		if err := ss.NotifyProgress(ctx, p); err != nil {
			b.runner.LogRefusal(ctx, slog.LevelInfo, "mcpbridge: progress notification not sent", "tool", tool, "err", err)
		}
	}
}

// principalOf returns the user req is made for, by fn when it is set.
func principalOf(fn func(*mcp.CallToolRequest) string, req *mcp.CallToolRequest) string {
	if fn != nil {
		return fn(req)
	}
	if req.Extra == nil || req.Extra.TokenInfo == nil || req.Extra.TokenInfo.UserID == "" {
		return ""
	}
	issuer, _ := req.Extra.TokenInfo.Extra["iss"].(string)
	return requeststate.Principal(issuer, req.Extra.TokenInfo.UserID)
}

// client returns what the client of req negotiated and declared, read
// from the request's _meta on 2026-07-28 and from the session before.
func client(req *mcp.CallToolRequest) mcpcall.Client {
	c := mcpcall.Client{Protocol: req.ProtocolVersion()}
	if wire, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
		if c, ok := wireClient(c, wire); ok {
			return c
		}
	}
	caps := req.ClientCapabilities()
	if caps == nil {
		return c
	}
	if e := caps.Elicitation; e != nil {
		// A client that declares neither mode takes forms, as the SDK
		// reads it.
		c.ElicitForm = e.Form != nil || e.URL == nil
		c.ElicitURL = e.URL != nil
	}
	c.Sampling = caps.Sampling != nil
	c.Roots = caps.RootsV2 != nil || caps.Roots.ListChanged
	return c
}

// wireClient returns c with the capabilities of wire, a client's
// capabilities in a request's _meta as the transport decoded them, read as
// the SDK reads them but without encoding them again. It reports false for
// a member of a type the SDK's decoder refuses, which makes the SDK
// ignore the whole value: the caller then asks the SDK.
func wireClient(c mcpcall.Client, wire map[string]any) (mcpcall.Client, bool) {
	for _, key := range []string{"experimental", "extensions"} {
		if _, ok := wireObject(wire, key); !ok {
			return c, false
		}
	}
	elicit, ok := wireObject(wire, "elicitation")
	if !ok {
		return c, false
	}
	if elicit != nil {
		form, okForm := wireObject(elicit, "form")
		url, okURL := wireObject(elicit, "url")
		if !okForm || !okURL {
			return c, false
		}
		// A client that declares neither mode takes forms, as the SDK
		// reads it.
		c.ElicitForm = form != nil || url == nil
		c.ElicitURL = url != nil
	}
	sampling, ok := wireObject(wire, "sampling")
	if !ok {
		return c, false
	}
	if sampling != nil {
		_, okContext := wireObject(sampling, "context")
		_, okTools := wireObject(sampling, "tools")
		if !okContext || !okTools {
			return c, false
		}
		c.Sampling = true
	}
	roots, ok := wireObject(wire, "roots")
	if !ok {
		return c, false
	}
	if roots != nil {
		if lc, has := roots["listChanged"]; has && lc != nil {
			if _, ok := lc.(bool); !ok {
				return c, false
			}
		}
		c.Roots = true
	}
	return c, true
}

// wireObject returns the member key of m as a JSON object, nil when it is
// absent or null, and false when it is any other JSON value.
func wireObject(m map[string]any, key string) (map[string]any, bool) {
	v, has := m[key]
	if !has || v == nil {
		return nil, true
	}
	o, ok := v.(map[string]any)
	return o, ok
}

// ask sends r to the client of ss and returns its response as JSON.
func ask(ctx context.Context, ss *mcp.ServerSession, id string, r toolnexus.MCPInputRequest) (json.RawMessage, error) {
	var (
		res any
		err error
	)
	switch r.Method {
	case "elicitation/create":
		var p mcp.ElicitParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		res, err = ss.Elicit(ctx, &p)
		if err != nil && strings.Contains(err.Error(), "does not match requested schema") {
			// The SDK checked the answer against the schema it was
			// asked with, as the core does.
			return nil, &mcpcall.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("Invalid elicitation result for request %q: content does not match the requested schema", id), Err: err}
		}
	case "sampling/createMessage":
		var p mcp.CreateMessageWithToolsParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		res, err = ss.CreateMessageWithTools(ctx, &p)
	case "roots/list":
		res, err = ss.ListRoots(ctx, &mcp.ListRootsParams{})
	default:
		return nil, fmt.Errorf("mcpbridge: input request %q has method %q, which this bridge cannot send", id, r.Method)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// wireError returns err, an error of [mcpcall.Runner.Run], as the
// JSON-RPC error the SDK sends as it is: its code, message and data, never
// its reason.
func wireError(err error) error {
	var e *mcpcall.Error
	if !errors.As(err, &e) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
	}
	return &jsonrpc.Error{Code: int64(e.Code), Message: e.Message, Data: e.Data}
}

// sdkResult returns res, a result of the core, as the SDK's result.
func sdkResult(res toolnexus.MCPCallToolResult) (*mcp.CallToolResult, error) {
	if res.ResultType != "input_required" {
		// The SDK writes resultType itself, on the protocols that have it.
		return callToolResult(res), nil
	}
	inputs := make(mcp.InputRequestMap, len(res.InputRequests))
	for id, in := range res.InputRequests {
		ir, err := sdkInputRequest(in)
		if err != nil {
			return nil, wireError(&mcpcall.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error", Err: err})
		}
		inputs[id] = ir
	}
	return &mcp.CallToolResult{InputRequests: inputs, RequestState: res.RequestState}, nil
}

// sdkInputRequest returns the SDK's input request for in.
func sdkInputRequest(in toolnexus.MCPInputRequest) (mcp.InputRequest, error) {
	switch in.Method {
	case "elicitation/create":
		e, ok := in.ElicitParams()
		if !ok {
			return nil, errors.New("mcpbridge: elicitation params that do not read")
		}
		p := &mcp.ElicitParams{Mode: e.Mode, Message: e.Message, URL: e.URL, ElicitationID: e.ElicitationID}
		if e.RequestedSchema != nil {
			// Sent as the core wrote it, not as a map of Go's.
			p.RequestedSchema = e.RequestedSchema
		}
		return p, nil
	case "sampling/createMessage":
		var p mcp.CreateMessageWithToolsParams
		err := json.Unmarshal(in.Params, &p)
		return &p, err
	case "roots/list":
		return &mcp.ListRootsParams{}, nil
	}
	return nil, fmt.Errorf("mcpbridge: input request method %q", in.Method)
}
