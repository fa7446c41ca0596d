// Package genkitbridge runs a [toolnexus.Tool] as a multipart tool of
// [Firebase Genkit] (tested with Genkit v1.12.0): its result reaches the
// model as genkit's tool output and media parts, what it reports with
// [toolnexus.ReportProgress] reaches a streaming generation as partial
// tool output, and a suspension becomes a genkit tool interrupt that the
// host restarts with the answer ([Tool.Resume]) or answers itself
// ([Tool.Answer]). Each run goes through the Tool's [park.Runner], which
// declares the clock, the expiry of a request asked without one, the
// logger and the claim store, and turns a panic into an error result. An
// interrupt is answered once: a restart sent twice, or an Answer called
// twice, runs the tool once and the second gets the first run's result,
// in this process by default and across processes only when they share
// one [park.Store] (Runner.Store), such as the redisclaims module's.
//
// [Firebase Genkit]: https://github.com/firebase/genkit
package genkitbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/ai/exp/tool"
	"github.com/firebase/genkit/go/core"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
	"github.com/toolnexus-go/toolnexus/park"
)

var (
	// ErrInvalidTool reports a tool that cannot be built: no name or no
	// function.
	ErrInvalidTool = errors.New("toolnexus: invalid genkit tool")
	// ErrAskedAgain reports a tool that [Tool.Answer] ran with its
	// answers and that suspended again: a resumed generation cannot ask.
	ErrAskedAgain = errors.New("toolnexus: genkit tool asked again after its answers")
)

// Tool is a [toolnexus.Tool] as a genkit multipart tool: pass it to
// ai.WithTools, or register it with genkit.RegisterAction. The model reads
// its result as [Response] writes it. Every run of the tool goes through
// Park, as [park.Runner.Run] runs it: a panic is an error result saying
// that the tool panicked ([toolnexus.ErrToolPanicked]), its value and
// stack logged and never shown to the model.
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) is a tool interrupt: genkit.Generate returns a
// response whose FinishReason is "interrupted", and each interrupted tool
// request part (ModelResponse.Interrupts) carries the request in its
// "interrupt" metadata ([Requests] reads it; ai.InterruptAs of a
// toolnexus.Request reads the first), with the id of its parking that Park
// minted ("parked") and when the parking can no longer be answered
// ("until"). A request asked without ExpiresAt expires Park.Expiry after
// the call parked ([park.DefaultExpiry], ten minutes, unless set).
// [Tool.Resume] checks a person's answer and returns the part to restart
// the call with (ai.WithToolRestarts, with the response's History as the
// messages; a host that stored only the History, as JSON, finds the
// interrupted parts in its last message, the model's, where
// ai.Part.IsInterrupt reports them): genkit runs the tool again, with the same input and every
// answer so far, and the generation goes on. The tool checks the answers
// again when it runs: an answer that the interrupt did not ask for, or
// given after its request expired, fails the generation and the tool does
// not run.
//
// The parking is answered once ([park.Runner]): the first restart or
// [Tool.Answer] of an interrupt claims it in Park's Store and runs the
// tool; every later one, in any process that shares the Store, gets the
// result of that run, and the tool does not run again, or fails with
// [park.ErrRunning] while it still runs. A tool that is safe to repeat
// opts out by name, in Park.Repeatable.
//
// A restarted tool's result reaches the model whole, output and media, as
// on its first run. genkit fails a restarted generation whose tool asks
// again (ai/generate.go, handleResumeOption and GenerateWithRequest):
// [Tool.Answer] runs the tool in the host before the generation, and
// reports a tool that asks again as an error the host can act on.
//
// What the tool reports with [toolnexus.ReportProgress] reaches a
// generation that streams (ai.WithStreaming) as the Output of a partial
// tool response (ai.Part.IsPartial): {"progress": done}, with "total" when
// it is known and "message" when there is one, as in an MCP progress
// notification. Park rate-limits it, and Park.Progress gets it too.
// genkit v1.12.0 streams partial output from a first run only: a
// restarted tool, and one run by [Tool.Answer], report to Park.Progress
// alone.
//
// A Tool is safe for concurrent use once set up.
type Tool struct {
	*ai.ToolAction[any, *ai.MultipartToolResponse]
	fn toolnexus.Tool
	// Park runs the tool, and says its clock, the expiry of a request it
	// asks without ExpiresAt, its logger and the Store that makes each
	// interrupt answered once. The zero Runner is ready to use.
	Park park.Runner
}

var _ ai.Tool = (*Tool)(nil)

// New returns t as a genkit multipart tool named name, described to the
// model by description, whose input is the JSON object inputSchema
// describes (nil: genkit's schema of any value). genkit checks the model's
// arguments against the schema before the tool runs. An empty name or a
// nil t reports [ErrInvalidTool].
func New(name, description string, inputSchema map[string]any, t toolnexus.Tool) (*Tool, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: the tool has no name", ErrInvalidTool)
	case t == nil:
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	tl := &Tool{fn: t}
	var opts []ai.ToolOption
	if inputSchema != nil {
		opts = append(opts, ai.WithInputSchema(inputSchema))
	}
	tl.ToolAction = ai.NewMultipartTool(name, description, func(tc *ai.ToolContext, input any) (*ai.MultipartToolResponse, error) {
		return tl.run(tc, input)
	}, opts...)
	return tl, nil
}

// Infer returns fn as a genkit multipart tool whose input schema genkit
// infers from the struct In (json and jsonschema tags), as its DefineTool
// does. The arguments are decoded into In as [toolnexus.ToolFor] decodes
// them, with exact keys: a key In does not take (one that differs from a
// field's name only in case among them) gives the model an error result
// naming it and the keys the tool takes, and fn does not run.
func Infer[In any](name, description string, fn func(ctx context.Context, in In, answers toolnexus.Answers) toolnexus.ToolResult) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	var zero In
	return New(name, description, core.InferSchemaMap(zero), toolnexus.ToolFor(fn))
}

// run runs tl for one call through tl.Park, given genkit's tool context
// and the input it decoded.
func (tl *Tool) run(tc *ai.ToolContext, input any) (*ai.MultipartToolResponse, error) {
	r := tl.Park
	c := park.Call{Tool: tl.Name(), Progress: partial(tc)}
	var earlier toolnexus.Answers // what a new interrupt carries
	if tc.Resumed != nil {
		p, answers, err := resumed(c.Tool, tc.Resumed, r.Now())
		if err != nil {
			r.Refused(tc, park.Call{Tool: c.Tool, Park: p.Park}, err)
			return nil, err
		}
		c.Answers, c.Park, c.Until = answers, p.Park, p.Until
		earlier = p.Answers
	}
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("%w: the input of tool %s: %v", toolnexus.ErrInvalidJSON, strconv.Quote(c.Tool), err)
		}
		c.Arguments = b
	}
	out, err := r.Run(tc, c, tl.fn)
	if err != nil {
		return nil, err
	}
	if reqs, ok := toolnexus.PendingAllOf(out.Result); ok {
		// A replayed suspension was asked after the answers of the
		// resume that ran, not of this one: its interrupt carries only
		// the answers both had.
		if !out.Replayed {
			earlier = c.Answers
		}
		meta, err := interruptMetadata(reqs, earlier, out.Park)
		if err != nil {
			return nil, err
		}
		return nil, tc.Interrupt(&ai.InterruptOptions{Metadata: meta})
	}
	return Response(out.Result)
}

// progressOutput returns the partial tool output that a Tool streams for
// a report of progress: {"progress": done}, with "total" when total is
// known (above zero) and "message" when message is not empty, the members
// of an MCP progress notification.
func progressOutput(done, total float64, message string) map[string]any {
	out := map[string]any{"progress": done}
	if total > 0 {
		out["total"] = total
	}
	if message != "" {
		out["message"] = message
	}
	return out
}

// partial returns what hands a report of progress to genkit as partial
// output of the tool whose context tc is: a no-op where genkit streams
// nothing (tool.SendPartial).
func partial(tc *ai.ToolContext) func(done, total float64, message string) {
	return func(done, total float64, message string) {
		tool.SendPartial(tc, progressOutput(done, total, message))
	}
}

// Resume checks answers, a person's answers to requests an interrupted
// tool request part asks (one of ModelResponse.Interrupts, from this
// tool), against them at the time of tl.Park, and returns the part that
// restarts the call: pass it to genkit.Generate with ai.WithToolRestarts,
// and the interrupted response's History as the messages. Its "resumed"
// metadata holds the part's interrupt, as the tool parked it (its parking
// included), and the answers, under "interrupt" and "answers". Resume
// claims nothing: the restarted run does, once.
//
// A part that is not an interrupt of this tool reports
// [toolnexus.ErrInvalidRequest]; an answer that names none of its requests
// [toolnexus.ErrAnswerMismatch]; an answer to a request that has expired
// [toolnexus.ErrExpired] (see [toolnexus.Answer.Check]). No answer at all
// reports ErrAnswerMismatch too.
func (tl *Tool) Resume(interrupt *ai.Part, answers ...toolnexus.Answer) (*ai.Part, error) {
	if interrupt == nil || !interrupt.IsInterrupt() || interrupt.ToolRequest.Name != tl.Name() {
		return nil, fmt.Errorf("%w: the part is not an interrupt of tool %s", toolnexus.ErrInvalidRequest, strconv.Quote(tl.Name()))
	}
	p, err := parkedOf(tl.Name(), interrupt.Metadata["interrupt"])
	if err != nil {
		return nil, err
	}
	if _, err := p.answer(tl.Name(), answers, tl.Park.Now()); err != nil {
		tl.Park.Refused(context.Background(), park.Call{ID: interrupt.ToolRequest.Ref, Tool: tl.Name(), Park: p.Park}, err)
		return nil, err
	}
	given, err := jsonValue(answers)
	if err != nil {
		return nil, err
	}
	return tl.RestartWith(interrupt, ai.WithResumedMetadata[any](map[string]any{
		"interrupt": interrupt.Metadata["interrupt"],
		"answers":   given,
	}))
}

// Answer checks answers as [Tool.Resume] does, runs the tool with them
// now through tl.Park, and returns its result as the tool response part
// that answers the interrupted call, output and media: pass it to
// genkit.Generate with ai.WithToolResponses, and the interrupted
// response's History as the messages. The interrupt is answered once, as
// by a restart: a second Answer, or a restart, of the same interrupt gets
// the part of the first run's result, or [park.ErrRunning] while it still
// runs. A tool that suspends again reports [ErrAskedAgain] here, before
// any generation, where a restart that asks again fails the restarted
// generation.
func (tl *Tool) Answer(ctx context.Context, interrupt *ai.Part, answers ...toolnexus.Answer) (*ai.Part, error) {
	restart, err := tl.Resume(interrupt, answers...)
	if err != nil {
		return nil, err
	}
	resumed, _ := restart.Metadata["resumed"].(map[string]any)
	res, err := tl.run(&ai.ToolContext{Context: ctx, Resumed: resumed}, interrupt.ToolRequest.Input)
	if asked, _ := ai.IsToolInterruptError(err); asked {
		return nil, fmt.Errorf("%w: tool %s", ErrAskedAgain, strconv.Quote(tl.Name()))
	}
	if err != nil {
		return nil, err
	}
	part := ai.NewToolResponsePart(&ai.ToolResponse{
		Name: interrupt.ToolRequest.Name, Ref: interrupt.ToolRequest.Ref, Output: res.Output, Content: res.Content,
	})
	part.Metadata = map[string]any{"interruptResponse": true}
	return part, nil
}

// resumed reads resumed, the metadata of a restart of the tool named
// tool, and returns its interrupt's parking and the answers to run the
// tool with: those its interrupt held and the new ones, each checked
// against the interrupt's requests at now.
func resumed(tool string, resumed map[string]any, now time.Time) (parked, toolnexus.Answers, error) {
	interrupt, ok := resumed["interrupt"]
	if !ok {
		return parked{}, nil, fmt.Errorf("%w: tool %s was restarted without its interrupt; restart it with Tool.Resume", toolnexus.ErrAnswerMismatch, strconv.Quote(tool))
	}
	p, err := parkedOf(tool, interrupt)
	if err != nil {
		return parked{}, nil, err
	}
	var given toolnexus.Answers
	if err := fromJSON(resumed["answers"], &given); err != nil {
		return p, nil, err
	}
	answers, err := p.answer(tool, given, now)
	return p, answers, err
}

// parked is what an interrupt of a Tool holds: the requests it waits on,
// the answers it was given before, its parking and when that can no
// longer be answered (the zero time: never).
type parked struct {
	Requests []toolnexus.Request
	Answers  toolnexus.Answers
	Park     string
	Until    time.Time
}

// answer checks given, new answers to p's requests, at now, and returns
// the answers to run the tool named tool with: those of p and the new
// ones, each replacing an earlier answer to the same request.
func (p parked) answer(tool string, given toolnexus.Answers, now time.Time) (toolnexus.Answers, error) {
	return resume.Answers(tool, p.Requests, p.Answers, given, now)
}
