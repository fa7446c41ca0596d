// Package einobridge runs a [toolnexus.Tool] as a tool of
// [cloudwego/eino]: its result reaches the model as eino's multimodal tool
// output, and a suspension becomes an eino interrupt that a checkpoint
// store keeps until a person answers, for [toolnexus.DefaultExpiry] (ten
// minutes) unless the request says otherwise or [Tool.Expiry] is set, as
// in a Turn: a later answer is refused with [toolnexus.ErrExpired] and the
// tool does not run. A [Tool] works in a compose
// ToolsNode and in an adk ChatModelAgent alike; the types it keeps in a
// checkpoint are registered with eino when the package loads. It is
// tested with eino v0.9.13.
//
// [cloudwego/eino]: https://github.com/cloudwego/eino
package einobridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
)

// ErrInvalidTool reports a tool that cannot be built: no name, no function,
// or an input type whose schema eino cannot infer.
var ErrInvalidTool = errors.New("toolnexus: invalid eino tool")

// Tool is a [toolnexus.Tool] as an eino tool: it implements eino's
// EnhancedInvokableTool (tool.EnhancedInvokableTool), whose result holds
// the text and media parts a model reads (see [Result]).
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) interrupts the run, as eino's
// tool.StatefulInterrupt does: the interrupt's info is the
// [toolnexus.Request] (a []toolnexus.Request for several; [Requests] reads
// either, [Waiting] lists them), and its state, the requests and the
// answers so far, goes into the run's checkpoint. Resuming the interrupt
// with a [toolnexus.Answer] as its data (compose.ResumeWithData, or
// adk.Runner.ResumeWithParams with the interrupt's ID as the target) runs
// the tool again with the same arguments and every answer so far. Several
// answers at once are a [toolnexus.Answers].
//
// Each answer is checked with [toolnexus.Answer.Check] against the request
// it names before the tool runs: an answer to no request of the interrupt
// ([toolnexus.ErrAnswerMismatch]), to a request that has expired
// ([toolnexus.ErrExpired]), or resume data that is not an answer, fails the
// resumed run with that error and the tool does not run. The checkpoint
// stays as it was, so the interrupt can be resumed again with the right
// answer; an expired request can no longer be answered, and the run must
// start anew. A request the tool asks without ExpiresAt expires
// [Tool.Expiry] after the call is parked ([toolnexus.DefaultExpiry], ten
// minutes, unless set), as in a Turn. An interrupt the resume does not
// target interrupts again, as it was.
//
// Arguments that are not JSON give the model an error result, and the tool
// does not run; empty arguments are {}. A tool that panics gives the model
// an error result naming the tool alone ([toolnexus.ErrToolPanicked]), as
// in a Turn, and the panic and its stack go to [Tool.Logger]: the run goes
// on. A Tool is safe for concurrent use once set up.
type Tool struct {
	info *schema.ToolInfo
	run  toolnexus.Tool
	// Expiry is how long a request that the tool asks without ExpiresAt
	// can be answered, from when the call is parked: the interrupt's
	// request carries that ExpiresAt, and a later answer is refused with
	// [toolnexus.ErrExpired], as in a Turn ([toolnexus.TurnRunner.Expiry])
	// and over MCP. Zero means [toolnexus.DefaultExpiry], ten minutes; a
	// negative Expiry sets none, and such a request never expires.
	Expiry time.Duration
	// Time, when set, returns the current time at which requests are
	// parked and answers are checked, as in crypto/tls.Config; nil means
	// time.Now.
	Time func() time.Time
	// Logger gets the panic and stack of a tool that panicked, which the
	// model is never shown; nil means [slog.Default].
	Logger *slog.Logger
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
// exact keys: a key that differs from a field's name only in case is
// ignored, and arguments that repeat a name, or hold two names that are one
// when case is folded, are refused. Arguments that do not decode give the
// model an error result naming them, and fn does not run.
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
	var answers toolnexus.Answers
	if was, ok, st := tool.GetInterruptState[*parked](ctx); was {
		if !ok {
			return nil, fmt.Errorf("%w: tool %s was interrupted, but its checkpoint holds no state of this bridge", toolnexus.ErrInvalidRequest, strconv.Quote(t.info.Name))
		}
		target, _, data := tool.GetResumeContext[any](ctx)
		if !target {
			return nil, tool.StatefulInterrupt(ctx, interruptInfo(st.Requests), st)
		}
		var err error
		if answers, err = st.answer(t.info.Name, data, t.now()); err != nil {
			return nil, err
		}
	}
	var text string
	if arg != nil {
		text = arg.Text
	}
	args, err := arguments(text)
	if err != nil {
		return Result(toolnexus.Errorf("the arguments of %s are not JSON: %v", t.info.Name, err))
	}
	r := t.call(ctx, args, answers)
	if reqs, ok := toolnexus.PendingAllOf(r); ok {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		safe, err := jsonSafe(resume.Expire(reqs, t.now(), t.Expiry))
		if err != nil {
			return nil, err
		}
		st := &parked{Requests: safe, Answers: answers}
		return nil, tool.StatefulInterrupt(ctx, interruptInfo(st.Requests), st)
	}
	return Result(r)
}

// call runs t's tool once with args and answers. A panic does not leave
// it: its value and stack go to t's logger, and the result is an error
// that names the tool alone, as a Turn makes it.
func (t *Tool) call(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) (r toolnexus.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			cmp.Or(t.Logger, slog.Default()).ErrorContext(ctx, "toolnexus: tool panicked",
				"tool", t.info.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			r = toolnexus.Error(fmt.Sprintf("%v: %s", toolnexus.ErrToolPanicked, strconv.Quote(t.info.Name)))
		}
	}()
	return t.run(ctx, args, answers)
}

// now returns the current time of t's clock.
func (t *Tool) now() time.Time {
	if t.Time != nil {
		return t.Time()
	}
	return time.Now()
}

// arguments returns text, the arguments a model sent, as a JSON value:
// empty arguments are {}.
func arguments(text string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(text))
	if len(b) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%w: %s", toolnexus.ErrInvalidJSON, strconv.Quote(clip(text)))
	}
	return b, nil
}

// clip returns s cut to a length fit for an error message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
