package toolnexus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// MCPMultiRoundTrip is the first MCP protocol version whose clients take an
// input_required result themselves (SEP-2322) and whose results carry a
// resultType. A server on an older protocol sends the client its input
// requests while it serves the call.
const MCPMultiRoundTrip = "2026-07-28"

// The JSON-RPC error codes [MCPServer.Call] answers with.
const (
	// CodeInvalidParams is JSON-RPC's code for invalid params: a request
	// state that does not open, or an input response that is malformed or
	// off what it answers.
	CodeInvalidParams = -32602
	// CodeInternalError is JSON-RPC's code for an internal error, such as a
	// tool that panicked.
	CodeInternalError = -32603
	// CodeMissingClientCapability is the code of MCP's
	// MissingRequiredClientCapabilityError (SEP-2575): the call needs a
	// capability the client did not declare.
	CodeMissingClientCapability = -32021
)

// The reasons of the errors [MCPServer.Call] answers with, besides those of
// the [Sealer] and of [Request.AnswerFromMCP]. An [*MCPError] wraps its
// reason, so [errors.Is] matches them.
var (
	// ErrToolPanicked reports a tool that panicked.
	ErrToolPanicked = errors.New("toolnexus: tool panicked")
	// ErrMissingCapability reports a tool that asked for input the client
	// did not declare it takes, such as sampling from a client without the
	// sampling capability.
	ErrMissingCapability = errors.New("toolnexus: client lacks a capability")
)

// The message and data of the JSON-RPC error that a request state which
// does not open gets, whatever the reason: the client learns nothing more.
const (
	invalidStateMessage = "Invalid or expired requestState"
	invalidStateData    = `{"reason":"invalid_request_state"}`
)

// maxCallRounds bounds the rounds of one [MCPServer.Call]: the runs of the
// tool that one call's input responses, or the client's answers on an
// older protocol, may lead to.
const maxCallRounds = 10

// MCPClient is what the client of an MCP call negotiated and declared: its
// protocol version and whether it takes form and url elicitations,
// sampling and roots requests. An empty Protocol is read as the latest,
// [MCPMultiRoundTrip]. The zero MCPClient takes no input request.
type MCPClient struct {
	Protocol   string
	ElicitForm bool
	ElicitURL  bool
	Sampling   bool
	Roots      bool
}

// multiRound reports whether c's protocol has input_required results and
// resultType.
func (c MCPClient) multiRound() bool {
	return c.Protocol == "" || c.Protocol >= MCPMultiRoundTrip
}

// MCPToolCall is one MCP tools/call as [MCPServer.Call] takes it from the
// transport: the tool's name and raw arguments; the requestState and
// inputResponses of a retry, each response the raw JSON of a result of
// elicitation/create, sampling/createMessage or roots/list; the
// authenticated user the call is made for, if any (a token's subject); and
// the client's declarations. Authenticated says that the call came with a
// credential, such as an OAuth token: Principal must then name its user
// (see [Principal]), or Call refuses it.
//
// Ask, when set, sends one input request to the client while the call is
// served and returns the client's response: Call then asks the client
// itself, round after round, and never returns an input_required result.
// Set it for a client on a protocol older than [MCPMultiRoundTrip], whose
// session takes requests from the server; leave it nil otherwise.
type MCPToolCall struct {
	Tool           string
	Arguments      json.RawMessage
	RequestState   string
	InputResponses map[string]json.RawMessage
	Principal      string
	Authenticated  bool
	Client         MCPClient
	Ask            func(ctx context.Context, id string, r MCPInputRequest) (json.RawMessage, error)
}

// MCPError is a JSON-RPC error that [MCPServer.Call] answers a call with:
// Code, Message and Data are sent to the client as they are; Err is the
// real reason, for [errors.Is] and the server's log, and is never sent.
type MCPError struct {
	Code    int
	Message string
	Data    json.RawMessage
	Err     error
}

// Error returns the code, message and reason of e.
func (e *MCPError) Error() string {
	msg := fmt.Sprintf("toolnexus: MCP error %d: %s", e.Code, e.Message)
	if e.Err != nil {
		msg += ": " + strings.TrimPrefix(e.Err.Error(), "toolnexus: ")
	}
	return msg
}

// Unwrap returns the reason of e.
func (e *MCPError) Unwrap() error { return e.Err }

// MCPServer runs MCP tool calls that may suspend, for any MCP server code:
// the mcpbridge and mcpgobridge modules adapt it to their SDKs. Sealer
// seals the state a client holds between a suspension and its answers;
// Expiry is how long a Request without ExpiresAt can be answered (zero:
// until the state expires, after the Sealer's maximum age); Logger gets
// what the client is never told, such as why a state did not open and the
// stack of a tool that panicked (nil: [slog.Default]).
//
// The lines a client's refused calls log (a state that does not open, a
// malformed answer, arguments that repeat a name) are at most
// [MaxRefusalLines] a second, so that a client cannot fill the log: the
// others are counted, and the next line logged says how many were left
// out under "suppressed".
//
// An MCPServer is safe for concurrent use once set up, and must not be
// copied once in use; its zero value has no Sealer and answers every call
// with an internal error.
type MCPServer struct {
	Sealer *Sealer
	Expiry time.Duration
	Logger *slog.Logger
	// Time, when set, returns the current time, as in crypto/tls.Config;
	// nil means time.Now.
	Time func() time.Time

	refusals refusalLog
}

// MaxRefusalLines is how many lines the refused calls of an [MCPServer]
// log in a second at most.
const MaxRefusalLines = 10

// refusalLog counts the lines of refused calls logged in the current
// second, and those left out since the last one logged.
type refusalLog struct {
	mu         sync.Mutex
	second     time.Time // when the current second began
	lines      int       // logged in it
	suppressed int       // left out since the last line logged
}

// allow reports whether a refusal may log a line at now, and how many were
// left out before it.
func (r *refusalLog) allow(now time.Time) (ok bool, suppressed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := now.Sub(r.second); d >= time.Second || d < 0 {
		r.second, r.lines = now, 0
	}
	if r.lines >= MaxRefusalLines {
		r.suppressed++
		return false, 0
	}
	r.lines++
	suppressed, r.suppressed = r.suppressed, 0
	return true, suppressed
}

// refused logs the line of a refused call at level, unless too many have
// been logged this second.
func (s *MCPServer) refused(ctx context.Context, level slog.Level, msg string, args ...any) {
	ok, suppressed := s.refusals.allow(s.clock())
	if !ok {
		return
	}
	if suppressed > 0 {
		args = append(args, "suppressed", suppressed)
	}
	s.logger().Log(ctx, level, msg, args...)
}

// MCPServerOptions configures the [MCPServer] that [NewMCPServer] returns:
// Keys, Audience, MaxAge, ClockSkew and Claims are those of its Sealer's
// [SealerOptions] (Keys besides the key that seals), Expiry and Logger
// those of the MCPServer.
type MCPServerOptions struct {
	// Keys open states besides the key given to NewMCPServer, which seals
	// them: the older keys of a rotation.
	Keys [][]byte
	// Audience names the service a state opens on.
	Audience string
	// MaxAge is how long after it was sealed a state opens at all; zero
	// means [DefaultStateMaxAge].
	MaxAge time.Duration
	// ClockSkew is how far ahead another server's clock may run; zero
	// means [DefaultStateClockSkew].
	ClockSkew time.Duration
	// Claims, when set, lets each state finish at most once: a call whose
	// server crashes, or whose tool panics, after its claim does not
	// finish, and its retry is refused (see [ClaimStore]).
	Claims ClaimStore
	// DrawEachNonce draws each state's nonce as it is sealed; see
	// [SealerOptions].DrawEachNonce.
	DrawEachNonce bool
	// Expiry is how long a Request without ExpiresAt can be answered; zero
	// means until its state expires.
	Expiry time.Duration
	// Logger gets what a client is never told; nil means [slog.Default].
	Logger *slog.Logger
}

// NewMCPServer returns an MCPServer whose Sealer seals states with key and
// opens them with key and o.Keys, each at least
// [MinStateKeyLen] bytes. A short key is an error matching [ErrShortKey],
// a negative o.Expiry one matching [ErrInvalidSealer], and so are the
// errors of [NewSealer].
func NewMCPServer(key []byte, o MCPServerOptions) (*MCPServer, error) {
	if len(key) < MinStateKeyLen {
		return nil, msg.Errorf(ErrShortKey, "%d bytes, want at least %d", len(key), MinStateKeyLen)
	}
	if o.Expiry < 0 {
		return nil, msg.Errorf(ErrInvalidSealer, "Expiry %v is negative", o.Expiry)
	}
	sealer, err := NewSealer(SealerOptions{
		Keys:      append([][]byte{key}, o.Keys...),
		Audience:  o.Audience,
		MaxAge:    o.MaxAge,
		ClockSkew: o.ClockSkew,
		Claims:    o.Claims,

		DrawEachNonce: o.DrawEachNonce,
	})
	if err != nil {
		return nil, err
	}
	return &MCPServer{Sealer: sealer, Expiry: o.Expiry, Logger: o.Logger}, nil
}

// Call runs one tools/call of tool, given every answer so far, earliest
// first, and returns the result to send, or an [*MCPError] to send as the
// JSON-RPC error.
//
// A call that is Authenticated but has no Principal is the error -32603
// "Internal error", its reason ([ErrNoPrincipal]) logged, and the tool does
// not run: its state would be bound to no user.
//
// Arguments with an object, at any depth, that repeats a name or holds two
// names that are one when case is folded ({"Env":"prod","env":"staging"})
// are the error -32602 "Invalid arguments: …" naming them, on the first call
// and on every retry, and the tool never runs: decoders that keep the first
// or the last of two members, or fold case, would read different calls
// from the one a state binds (see [ErrDuplicateKey]).
//
// A retry's requestState is opened first: one that does not open (altered,
// sealed with a key the Sealer does not hold, for another tool, other
// arguments or another principal, expired, or already used when the Sealer
// claims states) is the error -32602 "Invalid or expired requestState" with
// data {"reason":"invalid_request_state"}, its reason logged. Each request
// the state holds is answered by the input response under its ID, read by
// [Request.AnswerFromMCP]: a response that is malformed or off the schema
// it was asked with is the error -32602, and the tool does not run; keys
// that name no request are ignored. A request left unanswered is asked
// again, with the answers given so far kept in the new state. A first call
// (no requestState) whose tool asks requests that its inputResponses
// already answer is answered at once in the same way.
//
// A result that is not a suspension is sent as
// [ToolResult.MCPCallToolResult] writes it, with resultType "complete" on
// protocols that have it. A suspension ([Pending], [PendingAll]) is an
// input_required result asking each of its requests, keyed by its ID, with
// a requestState that seals them and every answer so far for this call and
// principal, so that the tool, run again, sees all of them. A request the
// client did not declare the capability for is never sent: on
// [MCPMultiRoundTrip] the call is the error -32021 naming the capabilities
// in MCP's MissingRequiredClientCapabilityData; on older protocols the
// suspension's text is sent as an error result. With c.Ask set, Call asks
// the client each round's requests through it and runs the tool again with
// the answers, at most ten rounds, instead of returning input_required. A
// tool that panics is the error -32603 "Internal error", its panic and
// stack logged; when the Sealer claims states, the state it ran with stays
// claimed, since the tool may have acted before it panicked, and the same
// retry is refused as a state already used.
func (s *MCPServer) Call(ctx context.Context, c MCPToolCall, tool func(ctx context.Context, answers Answers) ToolResult) (MCPCallToolResult, error) {
	if s.Sealer == nil {
		return MCPCallToolResult{}, s.internal(ctx, c, errors.New("toolnexus: MCPServer has no Sealer"))
	}
	if c.Authenticated && c.Principal == "" {
		return MCPCallToolResult{}, s.internal(ctx, c, msg.Errorf(ErrNoPrincipal, "call of %s: its token names no subject", msg.Quote(c.Tool)))
	}
	if err := jsonscan.CheckNames(c.Arguments); err != nil {
		return MCPCallToolResult{}, s.logged(ctx, c, &MCPError{Code: CodeInvalidParams, Message: "Invalid arguments: " + reason(err), Err: err})
	}
	call := StateCall{Tool: c.Tool, Arguments: c.Arguments, Principal: c.Principal}
	var (
		opened  OpenedState
		answers Answers
		asked   []Request
	)
	if c.RequestState != "" {
		st, err := s.Sealer.Open(c.RequestState, call, s.clock())
		if err != nil {
			return MCPCallToolResult{}, s.invalidState(ctx, c, err)
		}
		opened, answers, asked = st, st.Answers(), st.Requests()
	}
	responses := c.InputResponses
	for round := 1; ; round++ {
		var (
			missing []Request
			err     error
		)
		answers, missing, responses, err = answerRound(asked, answers, responses)
		if err != nil {
			return MCPCallToolResult{}, s.logged(ctx, c, err)
		}
		if round == 1 && c.RequestState != "" {
			// The state is used once its answers have been read: a
			// malformed one leaves it to be retried.
			if err := s.Sealer.Claim(ctx, opened); err != nil {
				return MCPCallToolResult{}, s.claimFailed(ctx, c, err)
			}
		}
		reqs, r := missing, ToolResult{}
		if len(missing) == 0 {
			if r, err = s.run(ctx, c, answers, tool); err != nil {
				return MCPCallToolResult{}, err
			}
			var ok bool
			if reqs, ok = PendingAllOf(r); !ok {
				return s.complete(c, r), nil
			}
		} else {
			r = PendingAll(missing...)
		}
		if err := s.canAsk(ctx, c, reqs); err != nil {
			if c.Client.multiRound() {
				return MCPCallToolResult{}, err
			}
			return s.complete(c, r), nil
		}
		reqs = s.withExpiry(reqs)
		switch {
		case round < maxCallRounds && answersAny(reqs, responses):
			// Answered already: a client may send what it knows it
			// will be asked.
		case c.Ask == nil:
			return s.suspend(ctx, c, call, reqs, answers)
		case round < maxCallRounds:
			if responses, err = s.ask(ctx, c, reqs); err != nil {
				return MCPCallToolResult{}, err
			}
		default:
			return MCPCallToolResult{}, s.internal(ctx, c, fmt.Errorf("toolnexus: tool %s asked more than %d rounds in one call", msg.Quote(c.Tool), maxCallRounds))
		}
		asked = reqs
	}
}

// answerRound takes the answers to asked from responses, appending them to
// answers, and returns the requests left unanswered and the responses not
// used. A response that does not answer its request reports an
// [*MCPError].
func answerRound(asked []Request, answers Answers, responses map[string]json.RawMessage) (Answers, []Request, map[string]json.RawMessage, error) {
	var missing []Request
	used := 0
	for i, req := range asked {
		raw, ok := responses[req.ID]
		if !ok || slices.ContainsFunc(asked[:i], func(r Request) bool { return r.ID == req.ID }) {
			// A response answers the first request with its ID only.
			missing = append(missing, req)
			continue
		}
		a, err := req.AnswerFromMCP(raw)
		if err != nil {
			text := reason(err)
			if !strings.Contains(text, msg.Quote(req.ID)) {
				text = "request " + msg.Quote(req.ID) + ": " + text
			}
			return nil, nil, nil, &MCPError{Code: CodeInvalidParams, Message: "Invalid inputResponses: " + text, Err: err}
		}
		used++
		answers = append(answers[:len(answers):len(answers)], a)
	}
	switch {
	case used == 0:
		return answers, missing, responses, nil
	case used == len(responses):
		return answers, missing, nil, nil
	}
	left := maps.Clone(responses) // the caller's map is never changed
	for _, req := range asked {
		delete(left, req.ID)
	}
	return answers, missing, left, nil
}

// reason returns the message of err without the package's prefixes, for a
// client to read.
func reason(err error) string {
	return strings.ReplaceAll(err.Error(), "toolnexus: ", "")
}

// answersAny reports whether responses hold a response to any of reqs.
func answersAny(reqs []Request, responses map[string]json.RawMessage) bool {
	for _, req := range reqs {
		if _, ok := responses[req.ID]; ok {
			return true
		}
	}
	return false
}

// run runs tool with answers, recovering its panic as an internal error.
func (s *MCPServer) run(ctx context.Context, c MCPToolCall, answers Answers, tool func(context.Context, Answers) ToolResult) (r ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			reason := fmt.Errorf("%w: tool %s: %v", ErrToolPanicked, msg.Quote(c.Tool), p)
			s.logger().ErrorContext(ctx, "toolnexus: MCP tool panicked",
				"tool", c.Tool, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = &MCPError{Code: CodeInternalError, Message: "Internal error", Err: reason}
		}
	}()
	return tool(ctx, answers), nil
}

// complete returns r as the result of c's call.
func (s *MCPServer) complete(c MCPToolCall, r ToolResult) MCPCallToolResult {
	res := r.MCPCallToolResult()
	if c.Client.multiRound() {
		res.ResultType = "complete"
	}
	return res
}

// withExpiry sets the server's Expiry on those of reqs that have no
// ExpiresAt and returns reqs. The caller owns reqs: a round's requests
// are those PendingAllOf or answerRound have just listed.
func (s *MCPServer) withExpiry(reqs []Request) []Request {
	if s.Expiry <= 0 {
		return reqs
	}
	at := s.clock().Add(s.Expiry)
	for i, req := range reqs {
		if req.ExpiresAt == "" {
			reqs[i] = req.WithExpiry(at)
		}
	}
	return reqs
}

// suspend returns the input_required result asking reqs, whose state
// carries answers.
func (s *MCPServer) suspend(ctx context.Context, c MCPToolCall, call StateCall, reqs []Request, answers Answers) (MCPCallToolResult, error) {
	inputs, err := s.inputRequests(c, reqs)
	if err != nil {
		return MCPCallToolResult{}, s.internal(ctx, c, err)
	}
	state, err := s.Sealer.Seal(call, State{Requests: reqs, Answers: answers}, s.clock())
	if err != nil {
		return MCPCallToolResult{}, s.internal(ctx, c, err)
	}
	return MCPCallToolResult{ResultType: inputRequired, InputRequests: inputs, RequestState: state}, nil
}

// inputRequests returns the input requests asking reqs, keyed by their
// IDs, as c's protocol writes them.
func (s *MCPServer) inputRequests(c MCPToolCall, reqs []Request) (map[string]MCPInputRequest, error) {
	inputs := make(map[string]MCPInputRequest, len(reqs))
	for _, req := range reqs {
		if _, dup := inputs[req.ID]; dup {
			return nil, msg.Errorf(ErrInvalidRequest, "tool %s asks two requests with the ID %s", msg.Quote(c.Tool), msg.Quote(req.ID))
		}
		in, err := req.MCPInputRequestFor(c.Client.Protocol)
		if err != nil {
			return nil, err
		}
		inputs[req.ID] = in
	}
	return inputs, nil
}

// ask sends each of reqs to the client through c.Ask and returns the
// responses, keyed by the requests' IDs.
func (s *MCPServer) ask(ctx context.Context, c MCPToolCall, reqs []Request) (map[string]json.RawMessage, error) {
	inputs, err := s.inputRequests(c, reqs)
	if err != nil {
		return nil, s.internal(ctx, c, err)
	}
	responses := make(map[string]json.RawMessage, len(reqs))
	for _, req := range reqs {
		resp, err := c.Ask(ctx, req.ID, inputs[req.ID])
		if err != nil {
			if e, ok := err.(*MCPError); ok {
				return nil, s.logged(ctx, c, e)
			}
			return nil, s.internal(ctx, c, fmt.Errorf("toolnexus: asking the client request %s: %w", msg.Quote(req.ID), err))
		}
		responses[req.ID] = resp
	}
	return responses, nil
}

// capability is a client capability a request needs: its name, as an
// error message says it, and its JSON in a ClientCapabilities object.
type capability struct{ name, json string }

// needs returns the capability the client must have declared to be asked
// req.
func needs(req Request) capability {
	switch {
	case req.Kind == KindAuthorization && req.URL != "":
		return capability{"elicitation.url", `"elicitation":{"url":{}}`}
	case req.Kind == KindSampling:
		return capability{"sampling", `"sampling":{}`}
	case req.Kind == KindRoots:
		return capability{"roots", ""}
	}
	return capability{"elicitation.form", `"elicitation":{"form":{}}`}
}

// has reports whether c declared cap.
func (c MCPClient) has(cap capability) bool {
	switch cap.name {
	case "elicitation.url":
		return c.ElicitURL
	case "sampling":
		return c.Sampling
	case "roots":
		return c.Roots
	}
	return c.ElicitForm
}

// canAsk returns the -32021 error naming what c's client lacks to be asked
// reqs, or nil when it can be asked all of them.
func (s *MCPServer) canAsk(ctx context.Context, c MCPToolCall, reqs []Request) error {
	var names, members []string
	for _, req := range reqs {
		cap := needs(req)
		if c.Client.has(cap) || contains(names, cap.name) {
			continue
		}
		names = append(names, cap.name)
		if cap.json != "" {
			members = append(members, cap.json)
		}
	}
	if len(names) == 0 {
		return nil
	}
	// The members in the order of the SDK's ClientCapabilities, whose
	// roots member encoding/json always writes (a struct with omitempty).
	data := `{"requiredCapabilities":{"roots":{}`
	for _, m := range []string{`"sampling"`, `"elicitation":{"form"`, `"elicitation":{"url"`} {
		for _, have := range members {
			if strings.HasPrefix(have, m) {
				data += "," + have
			}
		}
	}
	data = mergeElicitation(data) + "}}"
	err := &MCPError{
		Code:    CodeMissingClientCapability,
		Message: "Missing required client capability: " + strings.Join(names, ", "),
		Data:    json.RawMessage(data),
		Err:     msg.Errorf(ErrMissingCapability, "tool %s asks for %s", msg.Quote(c.Tool), strings.Join(names, ", ")),
	}
	s.refused(ctx, slog.LevelInfo, "toolnexus: MCP client lacks a capability the tool asks for", "tool", c.Tool, "err", err.Err)
	return err
}

// mergeElicitation joins the form and url members of data into one
// elicitation object, as one ClientCapabilities writes them.
func mergeElicitation(data string) string {
	return strings.Replace(data, `"elicitation":{"form":{}},"elicitation":{"url":{}}`, `"elicitation":{"form":{},"url":{}}`, 1)
}

// contains reports whether names holds name.
func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// invalidState logs why c's state did not open and returns the error the
// client gets for it.
func (s *MCPServer) invalidState(ctx context.Context, c MCPToolCall, err error) error {
	s.refused(ctx, slog.LevelWarn, "toolnexus: MCP request state refused", "tool", c.Tool, "err", err)
	return &MCPError{Code: CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData), Err: err}
}

// claimFailed returns the error of a state the Sealer could not claim: a
// replay is a state that does not open, to the client, and logged apart
// from a forged one (a client that retried after a lost response, a crash
// or a tool's panic sends a state already used); a claim store that
// cannot be reached is an internal error, and the call does not run.
func (s *MCPServer) claimFailed(ctx context.Context, c MCPToolCall, err error) error {
	if errors.Is(err, ErrStateReplayed) {
		s.refused(ctx, slog.LevelWarn, "toolnexus: MCP request state already used", "tool", c.Tool, "err", err)
		return &MCPError{Code: CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData), Err: err}
	}
	return s.internal(ctx, c, err)
}

// internal logs err and returns the internal error the client gets for it.
func (s *MCPServer) internal(ctx context.Context, c MCPToolCall, err error) error {
	s.logger().ErrorContext(ctx, "toolnexus: MCP call failed", "tool", c.Tool, "err", err)
	return &MCPError{Code: CodeInternalError, Message: "Internal error", Err: err}
}

// logged logs the reason of e, an error for the client, and returns it.
func (s *MCPServer) logged(ctx context.Context, c MCPToolCall, err error) error {
	s.refused(ctx, slog.LevelInfo, "toolnexus: MCP call refused", "tool", c.Tool, "err", err)
	return err
}

func (s *MCPServer) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *MCPServer) clock() time.Time {
	if s.Time != nil {
		return s.Time()
	}
	return time.Now()
}
