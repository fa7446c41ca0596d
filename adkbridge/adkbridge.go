// Package adkbridge runs a [toolnexus.Tool] as a tool of Google's Agent
// Development Kit for Go (ADK, google.golang.org/adk/v2): its images, files
// and audio reach the model as the genai parts of its function response,
// and a suspension becomes ADK's own human-in-the-loop confirmation
// (adk_request_confirmation), carrying the [toolnexus.Request]s, which a
// later run on the same session answers once with a [toolnexus.Answer].
// It is tested with ADK v2.2.0 (and the genai v1.66.0 it requires):
// v2 is ADK's current major version, whose agent.Context gives a tool the
// confirmation flow and whose v1 line gets no new features, and both lines
// build the function response from the same map, so v1 offers nothing this
// bridge needs. Its tests drive a real runner.Runner with an in-memory
// session service and a scripted model.
package adkbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/claims"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolutils"
	"google.golang.org/genai"
)

// ErrInvalidTool reports a tool that cannot be built: no name, no function,
// or an input type whose schema cannot be inferred.
var ErrInvalidTool = errors.New("toolnexus: invalid ADK tool")

// ErrReplayed reports a confirmation that answers a parked call which has
// already been resumed: the tool ran once, and does not run again.
var ErrReplayed = errors.New("toolnexus: parked call already resumed")

// Tool is a [toolnexus.Tool] as an ADK function tool, for the Tools of an
// llmagent.Config. Each call of the model runs the tool with the call's
// arguments; its result reaches the model as a function response whose
// response is {"output": text}, or {"error": text} for a failed result, and
// whose parts hold its media, as [toolnexus.ToolResult.GeminiFunctionResponse]
// lays them out (a part Gemini does not take leaves its placeholder in the
// text).
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) is parked: the call is recorded in the session's
// state under a fresh random park id, with its arguments and requests, and
// ADK asks for a confirmation (agent.Context.RequestConfirmation), whose
// payload holds the park id and the requests; [Waiting] reads them from the
// event ADK emits, and [Wait.Reply] is the content that answers them. A run
// on the same session with that content (a new runner.Runner will do) runs
// the tool again, once, with the arguments the person saw and every answer
// so far. An answer to no request of the call ([toolnexus.ErrAnswerMismatch]),
// to an expired request ([toolnexus.ErrExpired]), or to a call already
// resumed ([ErrReplayed]) gives the model that error, and the tool does not
// run. A request asked without ExpiresAt expires [Tool.Expiry] after the
// call is parked. A resumed call that parks again is answered through the
// confirmation that resumed it: ADK v2.2.0 emits no new confirmation call
// for it, and asks the model meanwhile; [Waiting] finds it in the function
// response's event.
//
// A tool that panics gives the model an error result matching
// [toolnexus.ErrToolPanicked]. A Tool is safe for concurrent use once set up.
type Tool struct {
	name        string
	description string
	params      *jsonschema.Schema
	fn          toolnexus.Tool
	claims      *claims.Memory

	// Expiry is how long a request that the tool asks without ExpiresAt
	// can be answered, from when the call is parked. Zero means
	// [toolnexus.DefaultExpiry], ten minutes; a negative Expiry sets none,
	// and such a request never expires.
	Expiry time.Duration
	// Time, when set, returns the current time at which calls are parked
	// and answers are checked; nil means time.Now.
	Time func() time.Time
	// Logger receives the panic of a tool, with its stack; nil means
	// slog.Default().
	Logger *slog.Logger
}

var _ tool.Tool = (*Tool)(nil)

// New returns fn as an ADK tool named name, described to the model by
// description and params, the JSON schema of its arguments (nil for a tool
// without parameters). An empty name or a nil fn reports [ErrInvalidTool].
func New(name, description string, params *jsonschema.Schema, fn toolnexus.Tool) (*Tool, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: the tool has no name", ErrInvalidTool)
	case fn == nil:
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	t := &Tool{name: name, description: description, params: params, fn: fn}
	t.claims = claims.NewMemory(0, t.now, "parked ADK calls")
	return t, nil
}

// Infer returns fn as an ADK tool whose parameters are the JSON schema of
// the struct In (json and jsonschema tags), as ADK's functiontool infers
// them. The arguments are decoded into In as [toolnexus.ToolFor] decodes
// them, with exact keys; arguments that do not decode give the model an
// error result, and fn does not run.
func Infer[In any](name, description string, fn func(ctx context.Context, in In, answers toolnexus.Answers) toolnexus.ToolResult) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	params, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %s: %v", ErrInvalidTool, strconv.Quote(name), err)
	}
	return New(name, description, params, toolnexus.ToolFor(fn))
}

// Name returns the tool's name, as ADK's tool.Tool asks.
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description, as ADK's tool.Tool asks.
func (t *Tool) Description() string { return t.description }

// IsLongRunning reports false: a parked call waits on a confirmation, not on
// a long-running operation.
func (t *Tool) IsLongRunning() bool { return false }

// Declaration returns the function declaration the model is given.
func (t *Tool) Declaration() *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: t.name, Description: t.description}
	if t.params != nil {
		d.ParametersJsonSchema = t.params
	}
	return d
}

// ProcessRequest adds the tool's declaration to req, and the media of the
// tool's results in req's contents to their function responses, as genai
// FunctionResponse parts. It reports a result whose media cannot be read
// back.
func (t *Tool) ProcessRequest(_ agent.Context, req *model.LLMRequest) error {
	if err := toolutils.PackTool(req, t); err != nil {
		return err
	}
	return t.attachMedia(req.Contents)
}

// Run runs the tool for one call of the model, whose arguments are args
// (the map ADK decodes from the call): a first run, or the run that a
// confirmation resumes, as [Tool] says. A refused confirmation is the error
// ADK gives the model.
func (t *Tool) Run(ctx agent.Context, args any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return t.response(toolnexus.Errorf("toolnexus: the arguments of %s are not JSON: %v", strconv.Quote(t.name), err)), nil
	}
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	var was *parked
	var reply answered
	if c := ctx.ToolConfirmation(); c != nil {
		if was, reply, err = t.resume(ctx, c.Payload, raw); err != nil {
			return nil, err
		}
	}
	r := t.run(ctx, raw, reply.Answers)
	if was != nil {
		was.Done = true
		if err := was.save(ctx.State()); err != nil {
			return nil, err
		}
	}
	if reqs, ok := toolnexus.PendingAllOf(r); ok {
		return t.park(ctx, r, reqs, raw, reply.Answers, reply.ConfirmationID)
	}
	return t.response(r), nil
}

// run runs the tool once with args and answers: a panic is an error result
// matching [toolnexus.ErrToolPanicked], and an invalid result an error
// result that says so.
func (t *Tool) run(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) (r toolnexus.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			t.logger().ErrorContext(ctx, "toolnexus: tool panicked",
				"tool", t.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			r = toolnexus.Error(fmt.Sprintf("%v: %s", toolnexus.ErrToolPanicked, strconv.Quote(t.name)))
		}
	}()
	r = t.fn(ctx, args, answers)
	if err := r.Validate(); err != nil {
		return toolnexus.Errorf("toolnexus: tool %s returned an invalid result: %v", strconv.Quote(t.name), err)
	}
	return r
}

// now returns the current time of t's clock.
func (t *Tool) now() time.Time {
	if t.Time != nil {
		return t.Time()
	}
	return time.Now()
}

// logger returns t's logger.
func (t *Tool) logger() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.Default()
}
