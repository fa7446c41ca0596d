package mcpcall

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/park"
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
	// ErrReplayed reports the retry of an answered state whose first run
	// ended in a JSON-RPC error: the retry gets the same error, and the
	// tool does not run again.
	ErrReplayed = errors.New("toolnexus: retry of an answered call")
	// ErrInvalidOptions reports [Options] out of bounds, such as a
	// negative RefusalLines, or no Sealer for [NewRunner].
	ErrInvalidOptions = errors.New("toolnexus: invalid MCP runner options")
)

// The message and data of the JSON-RPC error that a request state which
// does not open gets, whatever the reason: the client learns nothing more.
const (
	invalidStateMessage = "Invalid or expired requestState"
	invalidStateData    = `{"reason":"invalid_request_state"}`
)

// The message and data of the JSON-RPC error that the retry of a state
// whose first run still goes on gets: retry later, and get its result.
const (
	runningMessage = "Call still running: retry later"
	runningData    = `{"reason":"call_in_progress"}`
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
	// Park is how the Runner's calls run: the clock, the expiry of a
	// request asked without ExpiresAt, the logger and the store in which
	// each answered requestState is claimed, so that it runs its tool once
	// and its retries get the result of that run. Its zero value is ready
	// to use, for one process; servers that share states share its Store
	// too. A state never outlives its Sealer's maximum age, whatever its
	// requests say.
	Park park.Runner
	// RefusalLines is how many lines the refused calls of a client (a
	// state that does not open, a malformed answer, arguments that repeat
	// a name) log in a second at most, so that a client cannot fill the
	// log; zero means [DefaultRefusalLines]. The others are counted, and
	// the next line logged says how many were left out under
	// "suppressed".
	RefusalLines int
}

// Runner runs MCP tool calls that may suspend, for any MCP server code:
// the mcpbridge and mcpgobridge modules adapt it to their SDKs. Its
// [requeststate.Sealer] seals the state a client holds between a
// suspension and its answers; every server that may receive the retry of
// a call needs a Runner whose Sealer has the same keys and audience, and
// whose [Options].Park has the same Store.
//
// A Runner is safe for concurrent use. Its zero value has no Sealer and
// answers every call with an internal error.
type Runner struct {
	sealer   *requeststate.Sealer
	park     park.Runner
	refusals refusalLog
}

// NewRunner returns a Runner whose calls seal and open their states with
// sealer, configured by o. It reports [ErrInvalidOptions] for a nil
// sealer or a negative RefusalLines.
func NewRunner(sealer *requeststate.Sealer, o Options) (*Runner, error) {
	switch {
	case sealer == nil:
		return nil, msg.Errorf(ErrInvalidOptions, "no Sealer")
	case o.RefusalLines < 0:
		return nil, msg.Errorf(ErrInvalidOptions, "RefusalLines %d is negative", o.RefusalLines)
	}
	r := &Runner{sealer: sealer, park: o.Park}
	r.refusals.max = cmp.Or(o.RefusalLines, DefaultRefusalLines)
	return r, nil
}

// The accessors below give code that serves calls beside a Runner, such
// as mcpbridge's relay of another server's tools, the Runner's settings,
// so that they are configured once, in [Options].

// Sealer returns the Sealer that seals and opens the states of s's calls;
// nil for the zero Runner.
func (s *Runner) Sealer() *requeststate.Sealer { return s.sealer }

// Park returns how s's calls run: [Options].Park.
func (s *Runner) Park() park.Runner { return s.park }

// Expiry returns how long a request asked without ExpiresAt can be
// answered: [Options].Park's Expiry, or [park.DefaultExpiry].
func (s *Runner) Expiry() time.Duration { return cmp.Or(s.park.Expiry, park.DefaultExpiry) }

// Now returns the current time by s's clock.
func (s *Runner) Now() time.Time { return s.clock() }

// Logger returns the logger of s: [Options].Park's Logger, or [slog.Default].
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
// arguments or another principal, or expired) is the error -32602 "Invalid or expired requestState" with
// data {"reason":"invalid_request_state"}, its reason logged. Each request the
// state holds is answered by the input response under its ID, read by
// [toolnexus.Request.AnswerFromMCP]: a response that is malformed or off the
// schema it was asked with is the error -32602, and the tool does not run;
// keys that name no request are ignored. A request left unanswered is asked
// again, with the answers given so far kept in the new state. A first call (no
// requestState) whose tool asks requests that its inputResponses already
// answer is answered at once in the same way.
//
// A state is answered once, by default: once its responses have been read,
// it is claimed in the Store of [Options].Park before the tool runs, and
// the reply is kept with the claim. A client that lost the reply and sends
// the same state again (with any responses) gets the same reply, the same
// bytes, and the tool does not run again; one that retries while the first
// run still goes on gets the error -32603 "Call still running: retry later"
// with data {"reason":"call_in_progress"}; a reply too large to keep
// (park.Runner's ResultLimit) makes the retry an invalid state. A claim
// store that fails is -32603, and the tool does not run.
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
// tool that panics is the error result `toolnexus: tool panicked: "NAME"`,
// as on every carrier, its panic and stack logged, and the retries of the
// state it ran with get the same result, since the tool may have acted
// before it panicked. A result that fails
// [toolnexus.ToolResult.Validate] is an error result saying why.
func (s *Runner) Run(ctx context.Context, c Call, tool toolnexus.Tool) (toolnexus.MCPCallToolResult, error) {
	if s.sealer == nil {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, errors.New("toolnexus: the Runner has no Sealer: make it with NewRunner"))
	}
	if c.Authenticated && c.Principal == "" {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, msg.Errorf(ErrNoPrincipal, "call of %s: its token names no subject", msg.Quote(c.Tool)))
	}
	call := requeststate.Call{Tool: c.Tool, Arguments: c.Arguments, Principal: c.Principal}
	if binding, ok := jsonscan.BindObject(c.Arguments); ok {
		// Read once, here: the Sealer, the claim, the Runner's checks and
		// what the tool wraps take what this read established.
		ctx = argmemo.With(ctx, c.Tool, c.Arguments, binding)
		call = argmemo.BindCall(call, binding).(requeststate.Call)
	} else if err := jsonscan.CheckNames(c.Arguments); err != nil {
		return toolnexus.MCPCallToolResult{}, s.logged(ctx, c, &Error{Code: CodeInvalidParams, Message: "Invalid arguments: " + msg.Unprefixed(err), Err: err})
	}
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
	answers, missing, responses, err := answerRound(asked, answers, c.InputResponses)
	if err != nil {
		// A malformed answer leaves the state to be answered again.
		return toolnexus.MCPCallToolResult{}, s.logged(ctx, c, err)
	}
	if c.RequestState == "" {
		return s.rounds(ctx, c, call, tool, answers, missing, responses)
	}
	claim, held, err := s.park.Claim(ctx, park.Call{
		Tool: c.Tool, Arguments: c.Arguments, Principal: c.Principal,
		Park: opened.ID, Until: opened.Until(), ParkedAt: opened.IssuedAt, Answers: answers,
	})
	switch {
	case err != nil:
		return toolnexus.MCPCallToolResult{}, s.claimFailed(ctx, c, err)
	case held != nil:
		return s.replay(ctx, c, held)
	}
	res, err := s.rounds(ctx, c, call, tool, answers, missing, responses)
	if claim != nil {
		if ferr := claim.Finish(ctx, keptReply(res, err)); ferr != nil {
			s.log().ErrorContext(ctx, "toolnexus: the reply of an answered MCP call was not kept for its retries", "tool", c.Tool, "err", ferr)
		}
	}
	return res, err
}

// rounds runs c's tool with answers, round after round, as [Runner.Run]
// says: missing are the requests of the state left unanswered, and
// responses the input responses not used yet.
func (s *Runner) rounds(ctx context.Context, c Call, call requeststate.Call, tool toolnexus.Tool,
	answers toolnexus.Answers, missing []toolnexus.Request, responses map[string]json.RawMessage) (toolnexus.MCPCallToolResult, error) {
	for round := 1; ; round++ {
		if round > 1 {
			var (
				asked = missing
				err   error
			)
			answers, missing, responses, err = answerRound(asked, answers, responses)
			if err != nil {
				return toolnexus.MCPCallToolResult{}, s.logged(ctx, c, err)
			}
		}
		reqs, r := missing, toolnexus.ToolResult{}
		if len(missing) == 0 {
			r = s.run(ctx, c, answers, tool)
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
		switch {
		case round < maxCallRounds && answersAny(reqs, responses):
			// Answered already: a client may send what it knows it
			// will be asked.
		case c.Ask == nil:
			return s.suspend(ctx, c, call, reqs, answers)
		case round < maxCallRounds:
			var err error
			if responses, err = s.ask(ctx, c, reqs); err != nil {
				return toolnexus.MCPCallToolResult{}, err
			}
		default:
			return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, fmt.Errorf("toolnexus: tool %s asked more than %d rounds in one call", msg.Quote(c.Tool), maxCallRounds))
		}
		missing = reqs
	}
}

// kept is what a Runner keeps of the reply to an answered state, for the
// retries of that state: the result, or the JSON-RPC error, sent.
type kept struct {
	Result *toolnexus.MCPCallToolResult `json:"result,omitempty"`
	Error  *keptError                   `json:"error,omitempty"`
}

// keptError is a JSON-RPC error kept for the retries of a state.
type keptError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	Reason  string          `json:"reason,omitempty"`
}

// keptReply returns the JSON kept of the reply res, err to an answered
// state.
func keptReply(res toolnexus.MCPCallToolResult, err error) []byte {
	k := kept{Result: &res}
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = &Error{Code: CodeInternalError, Message: "Internal error", Err: err}
		}
		k = kept{Error: &keptError{Code: e.Code, Message: e.Message, Data: e.Data}}
		if e.Err != nil {
			k.Error.Reason = e.Err.Error()
		}
	}
	b, merr := json.Marshal(k)
	if merr != nil {
		b, _ = json.Marshal(kept{Error: &keptError{Code: CodeInternalError, Message: "Internal error", Reason: merr.Error()}})
	}
	return b
}

// replay returns the reply kept for the retry of an answered state: the
// first run's, as it was sent.
func (s *Runner) replay(ctx context.Context, c Call, held []byte) (toolnexus.MCPCallToolResult, error) {
	var k kept
	if err := json.Unmarshal(held, &k); err != nil || k.Result == nil && k.Error == nil {
		return toolnexus.MCPCallToolResult{}, s.internal(ctx, c, fmt.Errorf("%w: the kept reply of %s does not read", park.ErrStore, msg.Quote(c.Tool)))
	}
	s.refused(ctx, slog.LevelInfo, "toolnexus: MCP retry answered with the kept reply", "tool", c.Tool)
	if k.Error != nil {
		return toolnexus.MCPCallToolResult{}, &Error{Code: k.Error.Code, Message: k.Error.Message, Data: k.Error.Data,
			Err: fmt.Errorf("%w: the first run's error: %s", ErrReplayed, k.Error.Reason)}
	}
	return *k.Result, nil
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

// run runs tool with answers through the Runner's park.Runner.
func (s *Runner) run(ctx context.Context, c Call, answers toolnexus.Answers, tool toolnexus.Tool) toolnexus.ToolResult {
	// A tool that panics is the kernel's error result, which the client's
	// model reads as the tool's failure; its panic and stack are logged.
	r, _ := s.park.Exec(ctx, park.Call{Tool: c.Tool, Arguments: c.Arguments, Answers: answers, Principal: c.Principal, Progress: c.Progress}, tool)
	return r
}

// complete returns r as the result of c's call.
func (s *Runner) complete(c Call, r toolnexus.ToolResult) toolnexus.MCPCallToolResult {
	res := r.MCPCallToolResult()
	if c.Client.multiRound() {
		res.ResultType = "complete"
	}
	return res
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
	s.park.Parked(ctx, park.Call{Tool: c.Tool, Principal: c.Principal}, "", toolnexus.PendingAll(reqs...))
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
	s.park.Refused(ctx, park.Call{Tool: c.Tool, Principal: c.Principal}, err)
	s.refused(ctx, slog.LevelWarn, "toolnexus: MCP request state refused", "tool", c.Tool, "err", err)
	return &Error{Code: CodeInvalidParams, Message: invalidStateMessage, Data: json.RawMessage(invalidStateData), Err: err}
}

// claimFailed returns the error of a state whose claim was refused: one
// whose first run still goes on is an error the client can retry later,
// one whose result was too large to keep an invalid state, and a claim
// store that cannot be reached an internal error; the tool does not run.
func (s *Runner) claimFailed(ctx context.Context, c Call, err error) error {
	switch {
	case errors.Is(err, park.ErrRunning):
		s.refused(ctx, slog.LevelInfo, "toolnexus: MCP retry while its first run goes on", "tool", c.Tool, "err", err)
		return &Error{Code: CodeInternalError, Message: runningMessage, Data: json.RawMessage(runningData), Err: err}
	case errors.Is(err, park.ErrResultTooLarge), errors.Is(err, park.ErrOtherCall):
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
func (s *Runner) log() *slog.Logger { return s.park.Log() }

// clock returns the current time by s's clock.
func (s *Runner) clock() time.Time { return s.park.Now() }
