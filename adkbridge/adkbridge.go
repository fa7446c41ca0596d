// Package adkbridge runs a [toolnexus.Tool] as a tool of Google's Agent
// Development Kit for Go (ADK, google.golang.org/adk/v2): its images, files
// and audio reach the model as the genai parts of its function response,
// and a suspension becomes ADK's own human-in-the-loop confirmation
// (adk_request_confirmation), which a later run on the same session
// answers with [toolnexus.Answer]s. The call runs through a park.Runner,
// the kernel every carrier shares, so a parked call is answered once, in
// every process that shares the Runner's Store. It is tested with ADK
// v2.2.0 and genai v1.79.1, through a real runner.Runner
// with an in-memory session service and a scripted model: v2 is ADK's
// current major version, whose agent.Context gives a tool the confirmation
// flow, and v1, which gets no new features, offers nothing this bridge
// needs.
package adkbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolutils"
	"google.golang.org/genai"
)

// ErrInvalidTool reports a tool that cannot be built: no name, no function,
// or an input type whose schema cannot be inferred.
var ErrInvalidTool = errors.New("toolnexus: invalid ADK tool")

// ErrReplayed reports a confirmation that answers a parked call which the
// session says was resumed already, while the Store of the [Tool]'s Runner
// holds no record of that run (the run was in a process that does not
// share the Store): the tool does not run again.
var ErrReplayed = errors.New("toolnexus: parked call already resumed")

// Tool is a [toolnexus.Tool] as an ADK function tool, for the Tools of an
// llmagent.Config. Each call of the model runs the tool with the call's
// arguments, through Park ([park.Runner.Run]); its result reaches the model
// as a function response whose response is {"output": text}, or
// {"error": text} for a failed result (a parked call's is {"output": the
// requests' text, "status": "waiting for a person's answer"}), and whose
// parts hold its media, as
// [toolnexus.ToolResult.GeminiFunctionResponse] lays them out (a part
// Gemini does not take leaves its placeholder in the text).
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) is parked: the call is recorded in the session's
// state under the parking id the Runner mints, with its arguments and
// requests, and ADK asks for a confirmation (agent.Context.RequestConfirmation),
// whose payload holds the parking id and the requests; [Waiting] reads
// them from the event ADK emits, and [Wait.Reply] is the content that
// answers them. A run on the same session with that content (a new
// runner.Runner will do) runs the tool again with the arguments the person
// saw and every answer so far, once: the parking is claimed in the
// Runner's Store, bound to the tool, the arguments and the session's user,
// and the same reply given again, here or in any process that shares the
// Store, gives the model the result of that one run, or [park.ErrRunning]
// while it runs, and the tool does not run again. A reply that the
// session says was answered, where the Store holds no record of its run,
// gives [ErrReplayed]. An answer to no request of the call
// ([toolnexus.ErrAnswerMismatch]) or to an expired request
// ([toolnexus.ErrExpired]) gives the model that error, and the tool does
// not run. A resumed call that parks again is answered through the
// confirmation that resumed it: ADK v2.2.0 emits no new confirmation call
// for it, and asks the model meanwhile; [Waiting] finds it in the function
// response's event.
//
// A tool that panics gives the model an error result matching
// [toolnexus.ErrToolPanicked], its stack logged by Park. ADK has no channel
// for the progress of a function tool: what a tool reports with
// [toolnexus.ReportProgress] reaches Park's Progress callback, with the
// function call's ID. A Tool is safe for concurrent use once set up.
type Tool struct {
	name        string
	description string
	params      *jsonschema.Schema
	fn          toolnexus.Tool

	// Park runs the tool: its clock, the expiry of a request asked
	// without one, its logger and the Store of claims, shared by every
	// process that may answer a call another parked. The zero Runner is
	// ready to use, for one process.
	Park park.Runner
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
	return &Tool{name: name, description: description, params: params, fn: fn}, nil
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
	c := park.Call{ID: ctx.FunctionCallID(), Tool: t.name, Arguments: raw, Principal: ctx.UserID()}
	fn := t.fn
	var was *parked
	var resumedBy string
	if conf := ctx.ToolConfirmation(); conf != nil {
		var reply answered
		if was, reply, err = t.resume(ctx, conf.Payload, raw); err != nil {
			c.Park = reply.ParkID
			t.Park.Log().WarnContext(ctx, "toolnexus: resume refused", "tool", t.name, "call", c.ID, "err", err)
			t.Park.Refused(ctx, c, err)
			return nil, err
		}
		c.Answers, c.Park, c.Until, resumedBy = reply.Answers, was.ParkID, until(was.Requests), reply.ConfirmationID
		if was.Done && !t.repeatable() {
			fn = t.spent(was.ParkID)
		}
	}
	out, err := t.Park.Run(ctx, c, fn)
	if err != nil {
		return nil, err
	}
	if was != nil && !was.Done {
		was.Done = true
		if err := was.save(ctx.State()); err != nil {
			return nil, err
		}
	}
	if out.Park != "" {
		return t.park(ctx, out, raw, c.Answers, resumedBy)
	}
	return t.response(out.Result), nil
}

// spent returns what runs in place of the tool for the call parked as id,
// which the session says was resumed already, when the Runner's Store
// holds no record of that run: an error result, kept for the retries.
func (t *Tool) spent(id string) toolnexus.Tool {
	return func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Errorf("%v: tool %s, parked as %s (its run is not recorded in this Runner's Store)",
			ErrReplayed, strconv.Quote(t.name), strconv.Quote(id))
	}
}

// repeatable reports whether Park lets t's parked calls run again.
func (t *Tool) repeatable() bool {
	return slices.Contains(t.Park.Repeatable, t.name)
}
