package mcpcall

import (
	"cmp"
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

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The reasons of the errors [Runner.Run] answers with, besides those of
// its [requeststate.Sealer], of [toolnexus.Request.AnswerFromMCP] and
// [toolnexus.ErrToolPanicked]. An [*Error] wraps its reason, so
// [errors.Is] matches them.
var (
	// ErrMissingCapability reports a tool that asked for input the client
	// did not declare it takes, such as sampling from a client without the
	// sampling capability.
	ErrMissingCapability = errors.New("toolnexus: client lacks a capability")
	// ErrNoPrincipal reports a call that came with a credential, such as
	// an OAuth token, but names no user: binding its state to no user
	// would let anyone without a token open it, so the call is refused.
	ErrNoPrincipal = errors.New("toolnexus: authenticated call without a principal")
	// ErrInvalidOptions reports [Options] out of bounds, such as a
	// negative Expiry, or no Sealer for [NewRunner].
	ErrInvalidOptions = errors.New("toolnexus: invalid MCP runner options")
)

// The message and data of the JSON-RPC error that a request state which
// does not open gets, whatever the reason: the client learns nothing more.
const (
	invalidStateMessage = "Invalid or expired requestState"
	invalidStateData    = `{"reason":"invalid_request_state"}`
)

// maxCallRounds bounds the rounds of one [Runner.Run]: the runs of the
// tool that one call's input responses, or the client's answers on an
// older protocol, may lead to.
const maxCallRounds = 10

// DefaultRefusalLines is how many lines the refused calls of a [Runner]
// log in a second when [Options].RefusalLines is zero.
const DefaultRefusalLines = 10

// Options configures a [Runner]. The zero Options is ready to use.
type Options struct {
	// Expiry is how long a Request that a tool asks without ExpiresAt can
	// be answered; zero means [toolnexus.DefaultExpiry]. A state never
	// outlives its Sealer's maximum age, whatever its requests say.
	Expiry time.Duration
	// Logger gets what a client is never told, such as why a state did
	// not open and the stack of a tool that panicked; nil means
	// [slog.Default].
	Logger *slog.Logger
	// RefusalLines is how many lines the refused calls of a client (a
	// state that does not open, a malformed answer, arguments that repeat
	// a name) log in a second at most, so that a client cannot fill the
	// log; zero means [DefaultRefusalLines]. The others are counted, and
	// the next line logged says how many were left out under
	// "suppressed".
	RefusalLines int
	// Time, when set, returns the current time, as in crypto/tls.Config;
	// nil means time.Now.
	Time func() time.Time
}

// Runner runs MCP tool calls that may suspend, for any MCP server code:
// the mcpbridge and mcpgobridge modules adapt it to their SDKs. Its
// [requeststate.Sealer] seals the state a client holds between a
// suspension and its answers; every server that may receive the retry of
// a call needs a Runner whose Sealer has the same keys and audience.
//
// A Runner is safe for concurrent use. Its zero value has no Sealer and
// answers every call with an internal error.
type Runner struct {
	sealer   *requeststate.Sealer
	expiry   time.Duration
	logger   *slog.Logger
	now      func() time.Time
	refusals refusalLog
}

// NewRunner returns a Runner whose calls seal and open their states with
// sealer, configured by o. It reports [ErrInvalidOptions] for a nil
// sealer, a negative Expiry or a negative RefusalLines.
func NewRunner(sealer *requeststate.Sealer, o Options) (*Runner, error) {
	switch {
	case sealer == nil:
		return nil, msg.Errorf(ErrInvalidOptions, "no Sealer")
	case o.Expiry < 0:
		return nil, msg.Errorf(ErrInvalidOptions, "Expiry %v is negative", o.Expiry)
	case o.RefusalLines < 0:
		return nil, msg.Errorf(ErrInvalidOptions, "RefusalLines %d is negative", o.RefusalLines)
	}
	r := &Runner{sealer: sealer, expiry: cmp.Or(o.Expiry, toolnexus.DefaultExpiry), logger: o.Logger, now: o.Time}
	r.refusals.max = cmp.Or(o.RefusalLines, DefaultRefusalLines)
	return r, nil
}

// The accessors below give code that serves calls beside a Runner, such
// as mcpbridge's relay of another server's tools, the Runner's settings,
// so that they are configured once, in [Options].

// Sealer returns the Sealer that seals and opens the states of s's calls;
// nil for the zero Runner.
func (s *Runner) Sealer() *requeststate.Sealer { return s.sealer }

// Expiry returns how long a request asked without ExpiresAt can be
// answered: [Options].Expiry, or [toolnexus.DefaultExpiry].
func (s *Runner) Expiry() time.Duration { return cmp.Or(s.expiry, toolnexus.DefaultExpiry) }

// Now returns the current time by s's clock ([Options].Time).
func (s *Runner) Now() time.Time { return s.clock() }

// Logger returns the logger of s: [Options].Logger, or [slog.Default].
func (s *Runner) Logger() *slog.Logger { return s.log() }

// LogRefusal logs the line of a refused call at level, as s logs those of
// its own calls and in the same count: at most [Options].RefusalLines
// lines a second, the others counted under "suppressed" in the next line
// logged, so that a client cannot fill the log.
func (s *Runner) LogRefusal(ctx context.Context, level slog.Level, msg string, args ...any) {
	s.refused(ctx, level, msg, args...)
}

// refusalLog counts the lines of refused calls logged in the current
// second, and those left out since the last one logged.
type refusalLog struct {
	mu         sync.Mutex
	max        int       // the most lines logged in a second; 0: DefaultRefusalLines
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
	if r.lines >= cmp.Or(r.max, DefaultRefusalLines) {
		r.suppressed++
		return false, 0
	}
	r.lines++
	suppressed, r.suppressed = r.suppressed, 0
	return true, suppressed
}

// refused logs the line of a refused call at level, unless too many have
// been logged this second.
func (s *Runner) refused(ctx context.Context, level slog.Level, msg string, args ...any) {
	ok, suppressed := s.refusals.allow(s.clock())
	if !ok {
		return
	}
	if suppressed > 0 {
		args = append(args, "suppressed", suppressed)
	}
	s.log().Log(ctx, level, msg, args...)
}

// Run runs one tools/call of tool, with c's arguments and every answer so
// far, earliest first, and returns the result to send, or an [*Error] to
// send as the JSON-RPC error.
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
// from the one a state binds (see [toolnexus.ErrDuplicateKey]).
//
// A request without ExpiresAt can be answered for the Runner's
// [Options].Expiry, ten minutes by default, and never longer than the
// state's maximum age; a host reads until when from the requestState with
// [requeststate.Expiry].
//
// A retry's requestState is opened first: one that does not open (altered,
// sealed with a key the Sealer does not hold, for another tool, other
// arguments or another principal, expired, or already used when the Sealer
// claims states) is the error -32602 "Invalid or expired requestState" with
// data {"reason":"invalid_request_state"}, its reason logged. Each request the
// state holds is answered by the input response under its ID, read by
// [toolnexus.Request.AnswerFromMCP]: a response that is malformed or off the
// schema it was asked with is the error -32602, and the tool does not run;
// keys that name no request are ignored. A request left unanswered is asked
// again, with the answers given so far kept in the new state. A first call (no
// requestState) whose tool asks requests that its inputResponses already
// answer is answered at once in the same way.
//
// A result that is not a suspension is sent as
// [toolnexus.ToolResult.MCPCallToolResult] writes it, with resultType
// "complete" on protocols that have it. A suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) is an input_required result asking each of its
// requests, keyed by its ID, with a requestState that seals them and every
// answer so far for this call and principal, so that the tool, run again, sees
// all of them. A request the client did not declare the capability for is
// never sent: on [MultiRoundTrip] the call is the error -32021 naming the
// capabilities in MCP's MissingRequiredClientCapabilityData; on older
// protocols the suspension's text is sent as an error result. With c.Ask set,
// Run asks the client each round's requests through it and runs the tool again
// with the answers, at most ten rounds, instead of returning input_required. A
// tool that panics is the error -32603 "Internal error", its panic and stack
// logged; when the Sealer claims states, the state it ran with stays claimed,
// since the tool may have acted before it panicked, and the same retry is
// refused as a state already used.
func (s *Runner) Run(ctx context.Context, c Call, tool toolnexus.Tool) (toolnexus.MCPCallToolResult, error) {
	if s.sealer == nil {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, errors.New("toolnexus: the Runner has no Sealer: make it with NewRunner"))
	}
	if c.Authenticated && c.Principal == "" {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, msg.Errorf(ErrNoPrincipal, "call of %s: its token names no subject", msg.Quote(c.Tool)))
	}
	if err := jsonscan.CheckNames(c.Arguments); err != nil {
		return toolnexus.MCPCallToolResult{}, s.logged(ctx, c, &Error{Code: CodeInvalidParams, Message: "Invalid arguments: " + msg.Unprefixed(err), Err: err})
	}
	call := requeststate.Call{Tool: c.Tool, Arguments: c.Arguments, Principal: c.Principal}
	var (
		opened  requeststate.Opened
		answers toolnexus.Answers
		asked   []toolnexus.Request
	)
	if c.RequestState != "" {
		st, err := s.sealer.Open(c.RequestState, call, s.clock())
		if err != nil {
			return toolnexus.MCPCallToolResult{}, s.invalidState(ctx, c, err)
		}
		opened, answers, asked = st, st.Answers(), st.Requests()
	}
	responses := c.InputResponses
	for round := 1; ; round++ {
		var (
			missing []toolnexus.Request
			err     error
		)
		answers, missing, responses, err = answerRound(asked, answers, responses)
		if err != nil {
			return toolnexus.MCPCallToolResult{}, s.logged(ctx, c, err)
		}
		if round == 1 && c.RequestState != "" {
			// The state is used once its answers have been read: a
			// malformed one leaves it to be retried.
			if err := s.sealer.Claim(ctx, opened); err != nil {
				return toolnexus.MCPCallToolResult{}, s.claimFailed(ctx, c, err)
			}
		}
		reqs, r := missing, toolnexus.ToolResult{}
		if len(missing) == 0 {
			if r, err = s.run(ctx, c, answers, tool); err != nil {
				return toolnexus.MCPCallToolResult{}, err
			}
			var ok bool
			if reqs, ok = toolnexus.PendingAllOf(r); !ok {
				return s.complete(c, r), nil
			}
		} else {
			r = toolnexus.PendingAll(missing...)
		}
		if err := s.canAsk(ctx, c, reqs); err != nil {
			if c.Client.multiRound() {
				return toolnexus.MCPCallToolResult{}, err
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
				return toolnexus.MCPCallToolResult{}, err
			}
		default:
			return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, fmt.Errorf("toolnexus: tool %s asked more than %d rounds in one call", msg.Quote(c.Tool), maxCallRounds))
		}
		asked = reqs
	}
}

// answerRound takes the answers to asked from responses, appending them to
// answers, and returns the requests left unanswered and the responses not
// used. A response that does not answer its request reports an
// [*Error].
func answerRound(asked []toolnexus.Request, answers toolnexus.Answers, responses map[string]json.RawMessage) (toolnexus.Answers, []toolnexus.Request, map[string]json.RawMessage, error) {
	var missing []toolnexus.Request
	used := 0
	for i, req := range asked {
		raw, ok := responses[req.ID]
		if !ok || slices.ContainsFunc(asked[:i], func(r toolnexus.Request) bool { return r.ID == req.ID }) {
			// A response answers the first request with its ID only.
			missing = append(missing, req)
			continue
		}
		a, err := req.AnswerFromMCP(raw)
		if err != nil {
			text := msg.Unprefixed(err)
			if !strings.Contains(text, msg.Quote(req.ID)) {
				text = "request " + msg.Quote(req.ID) + ": " + text
			}
			return nil, nil, nil, &Error{Code: CodeInvalidParams, Message: "Invalid inputResponses: " + text, Err: err}
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

// answersAny reports whether responses hold a response to any of reqs.
func answersAny(reqs []toolnexus.Request, responses map[string]json.RawMessage) bool {
	for _, req := range reqs {
		if _, ok := responses[req.ID]; ok {
			return true
		}
	}
	return false
}

// run runs tool with answers, recovering its panic as an internal error.
func (s *Runner) run(ctx context.Context, c Call, answers toolnexus.Answers, tool toolnexus.Tool) (r toolnexus.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			reason := fmt.Errorf("%w: tool %s: %v", toolnexus.ErrToolPanicked, msg.Quote(c.Tool), p)
			s.log().ErrorContext(ctx, "toolnexus: MCP tool panicked",
				"tool", c.Tool, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = &Error{Code: CodeInternalError, Message: "Internal error", Err: reason}
		}
	}()
	return tool(ctx, c.Arguments, answers), nil
}

// complete returns r as the result of c's call.
func (s *Runner) complete(c Call, r toolnexus.ToolResult) toolnexus.MCPCallToolResult {
	res := r.MCPCallToolResult()
	if c.Client.multiRound() {
		res.ResultType = "complete"
	}
	return res
}

// withExpiry sets the Runner's expiry on those of reqs that have no
// ExpiresAt and returns reqs. The caller owns reqs: a round's requests
// are those PendingAllOf or answerRound have just listed.
func (s *Runner) withExpiry(reqs []toolnexus.Request) []toolnexus.Request {
	at := s.clock().Add(s.expiry)
	for i, req := range reqs {
		if req.ExpiresAt == "" {
			reqs[i] = req.WithExpiry(at)
		}
	}
	return reqs
}

// suspend returns the input_required result asking reqs, whose state
// carries answers.
func (s *Runner) suspend(ctx context.Context, c Call, call requeststate.Call, reqs []toolnexus.Request, answers toolnexus.Answers) (toolnexus.MCPCallToolResult, error) {
	inputs, err := s.inputRequests(c, reqs)
	if err != nil {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, err)
	}
	state, err := s.sealer.Seal(call, requeststate.State{Requests: reqs, Answers: answers}, s.clock())
	if err != nil {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, err)
	}
	return toolnexus.MCPCallToolResult{ResultType: "input_required", InputRequests: inputs, RequestState: state}, nil
}

// inputRequests returns the input requests asking reqs, keyed by their
// IDs, as c's protocol writes them.
func (s *Runner) inputRequests(c Call, reqs []toolnexus.Request) (map[string]toolnexus.MCPInputRequest, error) {
	inputs := make(map[string]toolnexus.MCPInputRequest, len(reqs))
	for _, req := range reqs {
		if _, dup := inputs[req.ID]; dup {
			return nil, msg.Errorf(toolnexus.ErrInvalidRequest, "tool %s asks two requests with the ID %s", msg.Quote(c.Tool), msg.Quote(req.ID))
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
func (s *Runner) ask(ctx context.Context, c Call, reqs []toolnexus.Request) (map[string]json.RawMessage, error) {
	inputs, err := s.inputRequests(c, reqs)
	if err != nil {
		return nil, s.internal(ctx, c, err)
	}
	responses := make(map[string]json.RawMessage, len(reqs))
	for _, req := range reqs {
		resp, err := c.Ask(ctx, req.ID, inputs[req.ID])
		if err != nil {
			if e, ok := err.(*Error); ok {
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

// capabilityFor returns the capability the client must have declared to be
// asked req.
func capabilityFor(req toolnexus.Request) capability {
	switch {
	case req.Kind == toolnexus.KindAuthorization && req.URL != "":
		return capability{"elicitation.url", `"elicitation":{"url":{}}`}
	case req.Kind == toolnexus.KindSampling:
		return capability{"sampling", `"sampling":{}`}
	case req.Kind == toolnexus.KindRoots:
		return capability{"roots", ""}
	}
	return capability{"elicitation.form", `"elicitation":{"form":{}}`}
}

// has reports whether c declared cap.
func (c Client) has(cap capability) bool {
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
func (s *Runner) canAsk(ctx context.Context, c Call, reqs []toolnexus.Request) error {
	var names, members []string
	for _, req := range reqs {
		cap := capabilityFor(req)
		if c.Client.has(cap) || slices.Contains(names, cap.name) {
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
	err := &Error{
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

// invalidState logs why c's state did not open and returns the error the
// client gets for it.
func (s *Runner) invalidState(ctx context.Context, c Call, err error) error {
	s.refused(ctx, slog.LevelWarn, "toolnexus: MCP request state refused", "tool", c.Tool, "err", err)
	return &Error{Code: CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData), Err: err}
}

// claimFailed returns the error of a state the Sealer could not claim: a
// replay is a state that does not open, to the client, and logged apart
// from a forged one (a client that retried after a lost response, a crash
// or a tool's panic sends a state already used); a claim store that
// cannot be reached is an internal error, and the call does not run.
func (s *Runner) claimFailed(ctx context.Context, c Call, err error) error {
	if errors.Is(err, requeststate.ErrReplayed) {
		s.refused(ctx, slog.LevelWarn, "toolnexus: MCP request state already used", "tool", c.Tool, "err", err)
		return &Error{Code: CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData), Err: err}
	}
	return s.internal(ctx, c, err)
}

// internal logs err and returns the internal error the client gets for it.
func (s *Runner) internal(ctx context.Context, c Call, err error) error {
	s.log().ErrorContext(ctx, "toolnexus: MCP call failed", "tool", c.Tool, "err", err)
	return &Error{Code: CodeInternalError, Message: "Internal error", Err: err}
}

// logged logs the reason of e, an error for the client, and returns it.
func (s *Runner) logged(ctx context.Context, c Call, err error) error {
	s.refused(ctx, slog.LevelInfo, "toolnexus: MCP call refused", "tool", c.Tool, "err", err)
	return err
}

// log returns the logger of s.
func (s *Runner) log() *slog.Logger {
	if s.logger != nil {
		return s.logger
	}
	return slog.Default()
}

// clock returns the current time by s's clock.
func (s *Runner) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}
