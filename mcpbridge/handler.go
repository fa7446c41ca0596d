package mcpbridge

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
)

// DefaultExpiry is how long a suspension can be answered when its Request
// has no ExpiresAt and [Options] sets no Expiry.
const DefaultExpiry = 10 * time.Minute

// multiRoundTripVersion is the first MCP protocol version whose clients take
// an input_required result themselves.
const multiRoundTripVersion = "2026-07-28"

// Options configures a [Bridge]. The zero Options is ready to use.
type Options struct {
	// Expiry is how long a suspension whose Request has no ExpiresAt can be
	// answered; zero means DefaultExpiry.
	Expiry time.Duration
}

// Bridge holds what the handlers of [Handler] share: the key that seals the
// state a client holds between a suspension and its answer, and the default
// expiry. A Bridge is safe for concurrent use. Every server that may receive
// the retry of a call (the instances behind one load balancer, or one server
// across a restart) needs a Bridge with the same key.
type Bridge struct {
	key    []byte
	expiry time.Duration
}

// New returns a Bridge that seals request states with key, a secret of at
// least [toolnexus.MinStateKeyLen] random bytes, and reports
// [toolnexus.ErrShortKey] for a shorter one. A nil opts is the zero
// [Options].
func New(key []byte, opts *Options) (*Bridge, error) {
	if len(key) < toolnexus.MinStateKeyLen {
		return nil, fmt.Errorf("mcpbridge: %w: %d bytes, want at least %d", toolnexus.ErrShortKey, len(key), toolnexus.MinStateKeyLen)
	}
	b := &Bridge{key: slices.Clone(key), expiry: DefaultExpiry}
	if opts != nil && opts.Expiry != 0 {
		if opts.Expiry < 0 {
			return nil, fmt.Errorf("mcpbridge: negative expiry %v", opts.Expiry)
		}
		b.expiry = opts.Expiry
	}
	return b, nil
}

// ToolFunc is a tool that can suspend. It is called with its input and a
// nil answer; to ask a person for something, it returns a suspension
// ([toolnexus.Pending] or [toolnexus.AuthRequired]). Once the person has
// answered, it is called again with the same input and the [toolnexus.Answer],
// whose ID is that of the Request it returned.
type ToolFunc[In any] func(ctx context.Context, in In, answer *toolnexus.Answer) toolnexus.ToolResult

// Handler returns fn as a handler for the SDK's [mcp.AddTool], which infers
// the tool's input schema from In, checks the arguments against it and
// decodes them into In with exact keys.
//
// A result that is not a suspension is sent as [CallToolResult] sends it. A
// suspension is sent as an input_required result: one elicitation, keyed by
// the Request's ID, built by [toolnexus.Request.MCPElicitParams], and a
// requestState that seals the Request for this tool and these arguments
// (see [toolnexus.SealRequestState]); a Request without ExpiresAt expires
// after the Bridge's expiry. A client on a protocol older than 2026-07-28
// never sees that result: the SDK's server asks it directly and calls the
// handler again with the answer. A client that did not declare the
// elicitation capability (or its url mode, for a login) is sent the
// suspension's text instead, as it would be without this package.
//
// When the client retries with the requestState, the handler opens it,
// takes the client's answer to the Request and checks it with
// [toolnexus.Answer.Check] before it calls fn with it. A state that was
// forged, altered or sealed for another call, an expired request, or a
// missing or unreadable answer is sent back as an error result whose text
// says what went wrong, for the model to read; it is never a protocol
// error.
func Handler[In any](b *Bridge, fn ToolFunc[In]) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		return b.serve(req, func(answer *toolnexus.Answer) toolnexus.ToolResult {
			return fn(ctx, in, answer)
		}), nil, nil
	}
}

// serve runs one call of a tool whose handler wraps call.
func (b *Bridge) serve(req *mcp.CallToolRequest, call func(*toolnexus.Answer) toolnexus.ToolResult) *mcp.CallToolResult {
	var (
		p  mcp.CallToolParamsRaw
		ss *mcp.ServerSession
	)
	if req != nil && req.Params != nil {
		p, ss = *req.Params, req.Session
	}
	var answer *toolnexus.Answer
	if p.RequestState != "" {
		a, err := b.answer(&p, time.Now())
		if err != nil {
			return errorResult(err)
		}
		answer = &a
	}
	r := call(answer)
	pending, ok := toolnexus.PendingOf(r)
	if !ok {
		return CallToolResult(r)
	}
	if pending.ExpiresAt == "" {
		pending = pending.WithExpiry(time.Now().Add(b.expiry))
	}
	params, err := pending.MCPElicitParams()
	if err != nil {
		return errorResult(err)
	}
	// On an older protocol, the SDK asks the client itself, once: a call
	// that suspends again after its answer is sent as text.
	if !canElicit(ss, params.Mode) || p.RequestState != "" && !multiRoundTrip(ss) {
		return CallToolResult(r)
	}
	state, err := toolnexus.SealRequestState(b.key, p.Name, p.Arguments, pending)
	if err != nil {
		return errorResult(err)
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{pending.ID: elicitParams(params)},
		RequestState:  state,
	}
}

// answer returns the client's answer to the request that p's state holds.
func (b *Bridge) answer(p *mcp.CallToolParamsRaw, now time.Time) (toolnexus.Answer, error) {
	req, err := toolnexus.OpenRequestState(b.key, p.RequestState, p.Name, p.Arguments, now)
	if err != nil {
		return toolnexus.Answer{}, err
	}
	resp := p.InputResponses[req.ID]
	if resp == nil {
		return toolnexus.Answer{}, fmt.Errorf("mcpbridge: inputResponses holds no answer to request %q", req.ID)
	}
	elicited, ok := resp.(*mcp.ElicitResult)
	if !ok || elicited == nil {
		return toolnexus.Answer{}, fmt.Errorf("mcpbridge: the answer to request %q is not an elicitation result", req.ID)
	}
	a, err := toolnexus.AnswerFromMCPElicitResult(req.ID, toolnexus.MCPElicitResult{Action: elicited.Action, Content: elicited.Content})
	if err != nil {
		return toolnexus.Answer{}, err
	}
	if err := a.Check(req, now); err != nil {
		return toolnexus.Answer{}, err
	}
	return a, nil
}

// canElicit reports whether the client of ss declared that it takes
// elicitations of the given mode. A client that declares neither mode takes
// forms, as the SDK reads it.
func canElicit(ss *mcp.ServerSession, mode string) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	if mode == "url" {
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}

// multiRoundTrip reports whether the client of ss takes input_required
// results itself, as the SDK decides it.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= multiRoundTripVersion
}

// elicitParams returns the SDK's params for p.
func elicitParams(p toolnexus.MCPElicitParams) *mcp.ElicitParams {
	e := &mcp.ElicitParams{Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if len(p.RequestedSchema) > 0 {
		e.RequestedSchema = p.RequestedSchema
	}
	return e
}

// errorResult returns the error result whose text is err's message.
func errorResult(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}
