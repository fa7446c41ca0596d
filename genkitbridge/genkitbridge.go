// Package genkitbridge runs a [toolnexus.Tool] as a multipart tool of
// [Firebase Genkit]: its result reaches the model as genkit's tool output
// and media parts, and a suspension becomes a genkit tool interrupt that
// the host restarts with the answer ([Tool.Resume]). The interrupt and the
// restart live in the message history, which the host stores between the
// question and the answer. A request parked without ExpiresAt can be
// answered for [toolnexus.DefaultExpiry] (ten minutes) from when it was
// parked, or [Tool.Expiry], as in a Turn: a later answer is refused with
// [toolnexus.ErrExpired] and the tool does not run. A restarted tool's
// media reach the model as on a first run, and a tool's panic is an error
// result. It is tested with Genkit v1.12.0.
//
// [Firebase Genkit]: https://github.com/firebase/genkit
package genkitbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
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
// its result as [Response] writes it.
//
// A call whose tool returns a suspension ([toolnexus.Pending],
// [toolnexus.PendingAll]) is a tool interrupt: genkit.Generate returns a
// response whose FinishReason is "interrupted", and each interrupted tool
// request part (ModelResponse.Interrupts) carries the request in its
// "interrupt" metadata ([Requests] reads it; ai.InterruptAs of a
// toolnexus.Request reads the first). [Tool.Resume] checks a person's
// answer and returns the part to restart the call with (ai.WithToolRestarts,
// with the response's History as the messages): genkit runs the tool
// again, with the same input and every answer so far, and the generation
// goes on. The tool checks the answers again when it runs: an answer that
// the interrupt did not ask for, or given after its request expired, fails
// the generation and the tool does not run. A request the tool asks
// without ExpiresAt expires [Tool.Expiry] after the call is parked
// ([toolnexus.DefaultExpiry], ten minutes, unless set), as in a Turn.
//
// A restarted tool's result reaches the model whole, output and media, as
// on its first run. genkit fails a restarted generation whose tool asks
// again (ai/generate.go, handleResumeOption and GenerateWithRequest):
// [Tool.Answer] runs the tool in the host before the generation, and
// reports a tool that asks again as an error the host can act on.
//
// A tool that panics does not end the process: the panic and its stack go
// to [Tool.Logger], never to the model, which reads an error result saying
// that the tool panicked ([toolnexus.ErrToolPanicked]), as in a Turn.
//
// A Tool is safe for concurrent use once set up.
type Tool struct {
	*ai.ToolAction[any, *ai.MultipartToolResponse]
	fn toolnexus.Tool
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
// does. The arguments are decoded into In with exact keys, as
// [toolnexus.Answer.DecodeData] decodes: a key that differs from a field's
// name only in case is ignored. Arguments that do not decode give the model
// an error result naming them, and fn does not run.
func Infer[In any](name, description string, fn func(ctx context.Context, in In, answers toolnexus.Answers) toolnexus.ToolResult) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %s has no function", ErrInvalidTool, strconv.Quote(name))
	}
	var zero In
	return New(name, description, core.InferSchemaMap(zero), func(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		var in In
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			return toolnexus.Errorf("the arguments of %s do not fit its parameters: %v", name, fmt.Errorf("%w: %v", toolnexus.ErrInvalidJSON, err))
		}
		if err := (toolnexus.Answer{Data: m}).DecodeData(&in); err != nil {
			return toolnexus.Errorf("the arguments of %s do not fit its parameters: %v", name, err)
		}
		return fn(ctx, in, answers)
	})
}

// run runs tl for one call, given genkit's tool context and the input it
// decoded.
func (tl *Tool) run(tc *ai.ToolContext, input any) (*ai.MultipartToolResponse, error) {
	name := tl.Name()
	var answers toolnexus.Answers
	if tc.Resumed != nil {
		var err error
		if answers, err = resumedAnswers(name, tc.Resumed, tl.now()); err != nil {
			return nil, err
		}
	}
	args := json.RawMessage("{}")
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("%w: the input of tool %s: %v", toolnexus.ErrInvalidJSON, strconv.Quote(name), err)
		}
		args = b
	}
	r := tl.call(tc, args, answers)
	if reqs, ok := toolnexus.PendingAllOf(r); ok {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		meta, err := interruptMetadata(resume.Expire(reqs, tl.now(), tl.Expiry), answers)
		if err != nil {
			return nil, err
		}
		return nil, tc.Interrupt(&ai.InterruptOptions{Metadata: meta})
	}
	return Response(r)
}

// call runs tl's tool once with args and answers. A panic does not leave
// it: its value and stack go to tl's logger, and the result is an error
// that names the tool alone, as a Turn makes it.
func (tl *Tool) call(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) (r toolnexus.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			cmp.Or(tl.Logger, slog.Default()).ErrorContext(ctx, "toolnexus: tool panicked",
				"tool", tl.Name(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			r = toolnexus.Error(fmt.Sprintf("%v: %s", toolnexus.ErrToolPanicked, strconv.Quote(tl.Name())))
		}
	}()
	return tl.fn(ctx, args, answers)
}

// now returns the current time of tl's clock.
func (tl *Tool) now() time.Time {
	if tl.Time != nil {
		return tl.Time()
	}
	return time.Now()
}

// Resume checks answers, a person's answers to requests an interrupted
// tool request part asks (one of ModelResponse.Interrupts, from this
// tool), against them at tl's clock, and returns the part that restarts
// the call: pass it to genkit.Generate with ai.WithToolRestarts, and the
// interrupted response's History as the messages. Its "resumed" metadata
// holds the part's interrupt, as the tool parked it, and the answers,
// under "interrupt" and "answers".
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
	p, err := parkedOf(interrupt.Metadata["interrupt"])
	if err != nil {
		return nil, err
	}
	if _, err := p.answer(tl.Name(), answers, tl.now()); err != nil {
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
// now, and returns its result as the tool response part that answers the
// interrupted call, output and media: pass it to genkit.Generate with
// ai.WithToolResponses, and the interrupted response's History as the
// messages. A tool that suspends again reports [ErrAskedAgain] here,
// before any generation, where a restart that asks again fails the
// restarted generation.
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

// resumedAnswers returns the answers to run the tool named tool with, read
// from resumed, the metadata of its restart: those its interrupt held and
// the new ones, each checked against the interrupt's requests at now.
func resumedAnswers(tool string, resumed map[string]any, now time.Time) (toolnexus.Answers, error) {
	interrupt, ok := resumed["interrupt"]
	if !ok {
		return nil, fmt.Errorf("%w: tool %s was restarted without its interrupt; restart it with Tool.Resume", toolnexus.ErrAnswerMismatch, strconv.Quote(tool))
	}
	p, err := parkedOf(interrupt)
	if err != nil {
		return nil, err
	}
	var given toolnexus.Answers
	if err := fromJSON(resumed["answers"], &given); err != nil {
		return nil, err
	}
	return p.answer(tool, given, now)
}

// parked is what an interrupt of a Tool holds: the requests it waits on
// and the answers it was given before.
type parked struct {
	Requests []toolnexus.Request
	Answers  toolnexus.Answers
}

// answer checks given, new answers to p's requests, at now, and returns
// the answers to run the tool named tool with: those of p and the new
// ones, each replacing an earlier answer to the same request.
func (p parked) answer(tool string, given toolnexus.Answers, now time.Time) (toolnexus.Answers, error) {
	return resume.Answers(tool, p.Requests, p.Answers, given, now)
}
