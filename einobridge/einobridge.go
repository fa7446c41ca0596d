// Package einobridge runs a [toolnexus.Tool] as a tool of
// [cloudwego/eino], in a compose ToolsNode or an adk ChatModelAgent alike:
// its result reaches the model as eino's multimodal tool output, and a
// suspension becomes an eino interrupt that the run's checkpoint keeps
// until a person answers. Each call runs through the [Tool]'s
// park.Runner, so a parked call is answered once: a checkpoint resumed
// twice runs the tool once, and the second resume gets the first run's
// result, in one process with the zero Runner and across processes only
// when they share the Runner's Store (the redisclaims module's, say) as
// they share the checkpoint store. eino concatenates every chunk a
// streaming tool sends into the message the model reads, and takes an
// interrupt only before the first chunk, so a tool's progress
// ([toolnexus.ReportProgress]) goes to the Runner's Progress callback,
// never into eino's stream. It is tested with eino v0.9.13, whose
// checkpoint serializers know the types it keeps once the package loads.
//
// [cloudwego/eino]: https://github.com/cloudwego/eino
package einobridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// ErrInvalidTool reports a tool that cannot be built: no name, no function,
// or an input type whose schema eino cannot infer.
var ErrInvalidTool = errors.New("toolnexus: invalid eino tool")

// Tool is a [toolnexus.Tool] as an eino tool: it implements eino's
// EnhancedInvokableTool (tool.EnhancedInvokableTool), whose result holds
// the text and media parts a model reads (see [Result]). Each call of the
// model runs the tool through Park ([park.Runner.Run]): its arguments are
// checked there (arguments that are not a JSON object give the model an
// error result, and the tool does not run; empty arguments are {}), and a
// tool that panics gives the model an error result naming the tool alone
// ([toolnexus.ErrToolPanicked]), its panic and stack logged by Park: the
// run goes on. A result that [toolnexus.ToolResult.Validate] refuses, such
// as a request without a prompt, gives the model an error result saying
// why, and parks nothing.
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) interrupts the run, as eino's
// tool.StatefulInterrupt does: the interrupt's info is the
// [toolnexus.Request] (a []toolnexus.Request for several; [Requests] reads
// either, [Waiting] lists them), and its state, the requests, the answers
// so far and the parking Park minted, goes into the run's checkpoint.
// Resuming the interrupt with a [toolnexus.Answer] as its data
// (compose.ResumeWithData, or adk.Runner.ResumeWithParams with the
// interrupt's ID as the target) runs the tool again with the same
// arguments and every answer so far. Several answers at once are a
// [toolnexus.Answers]. A request the tool asks without ExpiresAt expires
// Park's Expiry after the call is parked (park.DefaultExpiry, ten minutes,
// unless set).
//
// A parking is answered once: the resume claims it in Park's Store before
// the tool runs again, so a checkpoint resumed twice, one resume after the
// other or at once, in one process or in two that share the Store, runs
// the tool once. The second resume gives the model the result of that one
// run, whatever answer it carries, or fails with [park.ErrRunning] while
// the first still runs, leaving the checkpoint as it was for a retry. A tool that is
// safe to repeat opts out by name in Park's Repeatable.
//
// Each answer is checked with [toolnexus.Answer.Check] against the request
// it names before the tool runs: an answer to no request of the interrupt
// ([toolnexus.ErrAnswerMismatch]), to a request that has expired
// ([toolnexus.ErrExpired]), or resume data that is not an answer, fails the
// resumed run with that error and the tool does not run. The checkpoint
// stays as it was, so the interrupt can be resumed again with the right
// answer; an expired request can no longer be answered, and the run must
// start anew. An interrupt the resume does not target interrupts again, as
// it was.
//
// Tool implements no streaming interface of eino: what a tool reports with
// [toolnexus.ReportProgress] reaches Park's Progress callback, with the
// call's ID (see the package doc). A Tool is safe for concurrent use once
// set up.
type Tool struct {
	info *schema.ToolInfo
	run  toolnexus.Tool

	// Park runs the tool: its clock, the expiry of a request asked
	// without one, its logger, the progress callback and the Store of
	// claims, which every process that may resume a checkpoint another
	// made must share. The zero Runner is ready to use, for one process.
	Park park.Runner
}

var _ tool.EnhancedInvokableTool = (*Tool)(nil)

// New returns t as an eino tool named name, described to the model by
// description and params (nil for a tool without parameters). An empty
// name or a nil t reports [ErrInvalidTool].
func New(name, description string, params *schema.ParamsOneOf, t toolnexus.Tool) (*Tool, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: the tool has no name", ErrInvalidTool)
	case t == nil:
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	return &Tool{info: &schema.ToolInfo{Name: name, Desc: description, ParamsOneOf: params}, run: t}, nil
}

// Infer returns fn as an eino tool whose parameters eino infers from the
// struct In, as its utils.InferTool does (json and jsonschema tags). The
// arguments are decoded into In as [toolnexus.ToolFor] decodes them, with
// exact keys: a key In does not take, even one that differs from a
// field's name only in case, is refused, and arguments that repeat a name,
// or hold two names that are one when case is folded, are refused.
// Arguments that do not decode give the model an error result naming them,
// and fn does not run.
func Infer[In any](name, description string, fn func(ctx context.Context, in In, answers toolnexus.Answers) toolnexus.ToolResult) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	params, err := utils.GoStruct2ParamsOneOf[In]()
	if err != nil {
		return nil, fmt.Errorf("%w: tool %s: %v", ErrInvalidTool, strconv.Quote(name), err)
	}
	return New(name, description, params, toolnexus.ToolFor(fn))
}

// Info returns the tool's name, description and parameters.
func (t *Tool) Info(context.Context) (*schema.ToolInfo, error) {
	return t.info, nil
}

// InvokableRun runs the tool for one call of the model, whose arguments
// are arg.Text: a first run, or the run of a resumed interrupt, as [Tool]
// says.
func (t *Tool) InvokableRun(ctx context.Context, arg *schema.ToolArgument, _ ...tool.Option) (*schema.ToolResult, error) {
	c := park.Call{ID: compose.GetToolCallID(ctx), Tool: t.info.Name}
	if arg != nil {
		c.Arguments = json.RawMessage(arg.Text)
	}
	if was, ok, st := tool.GetInterruptState[*parked](ctx); was {
		if !ok {
			return nil, fmt.Errorf("%w: tool %s was interrupted, but its checkpoint holds no state of this bridge", toolnexus.ErrInvalidRequest, strconv.Quote(t.info.Name))
		}
		target, _, data := tool.GetResumeContext[any](ctx)
		if !target {
			return nil, tool.StatefulInterrupt(ctx, interruptInfo(st.Requests), st)
		}
		c.Park, c.Until = st.park(c.ID), st.Until
		answers, err := st.answer(t.info.Name, data, t.Park.Now())
		if err != nil {
			t.Park.Log().WarnContext(ctx, "toolnexus: resume refused", "tool", c.Tool, "call", c.ID, "err", err)
			t.Park.Refused(ctx, c, err)
			return nil, err
		}
		c.Answers = answers
	}
	out, err := t.Park.Run(ctx, c, t.run)
	if err != nil {
		return nil, err
	}
	if out.Park != "" {
		reqs, _ := toolnexus.PendingAllOf(out.Result)
		safe, err := jsonSafe(reqs)
		if err != nil {
			return nil, err
		}
		st := &parked{Requests: safe, Answers: c.Answers, Park: out.Park, Until: until(safe)}
		return nil, tool.StatefulInterrupt(ctx, interruptInfo(st.Requests), st)
	}
	return Result(out.Result)
}
