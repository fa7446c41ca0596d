package toolnexus

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// DefaultExpiry is how long a request that a tool asks without ExpiresAt
// can be answered once a [TurnRunner] has parked it: ten minutes, as over
// MCP (the DefaultExpiry of the mcpbridge and mcpgobridge modules).
const DefaultExpiry = 10 * time.Minute

// ErrInvalidArguments reports arguments a model sent a tool that are not a
// JSON object, or that do not decode into what the tool takes.
var ErrInvalidArguments = errors.New("toolnexus: invalid arguments")

// TurnRunner runs the calls of a [Turn] with the tools they name:
// [TurnRunner.Run] runs a model's new calls, and [TurnRunner.Resume] runs a
// waiting call again with a person's answer. [RunTurn] and [Turn.Resume]
// are its zero configuration. The zero TurnRunner has no tools: every call
// it runs is an error result naming the unknown tool. A TurnRunner is safe
// for concurrent use once set up, as long as its tools are.
type TurnRunner struct {
	// Tools are the tools the model may call, by name.
	Tools map[string]Tool
	// Expiry is how long a request that a tool asks without ExpiresAt can
	// be answered, from the run that asked it: each such request gets
	// that ExpiresAt, so that [Turn.Answer] refuses a later answer, as
	// over MCP. Zero means [DefaultExpiry]; a negative Expiry sets none,
	// and such a request can be answered at any time.
	Expiry time.Duration
	// Time, when set, returns the current time, as in crypto/tls.Config;
	// nil means time.Now.
	Time func() time.Time
	// Logger gets the panic and stack of a tool that panicked, which the
	// model is never shown; nil means [slog.Default].
	Logger *slog.Logger
}

// RunTurn runs calls, a model's new calls, with tools, as the zero
// [TurnRunner] with these Tools runs them (see [TurnRunner.Run]).
func RunTurn(ctx context.Context, tools map[string]Tool, calls ...ToolCall) (Turn, error) {
	return TurnRunner{Tools: tools}.Run(ctx, calls...)
}

// Resume records a, a person's answer to a request t waits on, and runs the
// call that waits on it again with tools, as the zero [TurnRunner] with
// these Tools does (see [TurnRunner.Resume]).
func (t Turn) Resume(ctx context.Context, tools map[string]Tool, a Answer) (Turn, error) {
	return TurnRunner{Tools: tools}.Resume(ctx, t, a)
}

// Run returns the turn of calls, a model's new calls (ID, Name and
// Arguments set, in the model's order), each with the result of running
// its tool with its arguments and its Answers (none for a new call). The
// calls run one after the other, in order. Run never fails because of a
// tool: what the model reads is each call's result.
//
//   - A call of a tool that Tools does not hold gets the error result
//     `toolnexus: unknown tool "NAME"`.
//   - Arguments that are not a JSON object (no arguments, white space and
//     null are read as {}) get an error result naming the tool and what is wrong,
//     such as `toolnexus: arguments of "deploy" are not JSON: invalid
//     character 'x' looking for beginning of value`, and the tool does not
//     run. Arguments that are not JSON at all (nor UTF-8) are kept in the
//     turn as the JSON string of their text (a byte that is not UTF-8 as
//     \ufffd, with GOEXPERIMENT=jsonv2 too), and white space or null as
//     no arguments, so that the turn marshals and [ParseTurn] reads it back.
//   - A tool that panics gets the error result
//     `toolnexus: tool panicked: "NAME"`; the panic and its stack go to
//     the Logger, never to the model.
//   - A result that fails [ToolResult.Validate] is replaced by an error
//     result saying why, so that the turn always passes [Turn.Validate].
//   - A suspension's requests without ExpiresAt get one, Expiry from now.
//
// The turn keeps each call's arguments as json.Marshal writes them
// (compacted, with <, > and & escaped), so that it equals what [ParseTurn]
// reads back from its JSON.
// calls that are not a turn (a call without an id or tool name, two calls
// with one id) report [ErrInvalidTurn], and no tool runs. No calls at all
// give the zero Turn: the model asked for nothing.
func (r TurnRunner) Run(ctx context.Context, calls ...ToolCall) (Turn, error) {
	if len(calls) == 0 {
		return Turn{}, nil
	}
	t := Turn{Calls: make([]ToolCall, len(calls))}
	for i, c := range calls {
		switch trimmed := bytes.Trim(c.Arguments, jsonscan.Space); {
		case len(trimmed) == 0 || string(trimmed) == "null":
			c.Arguments = nil
		case !isJSON(c.Arguments):
			c.Arguments = marshalString(string(c.Arguments))
		default:
			c.Arguments, _ = json.Marshal(c.Arguments) // valid: it cannot fail
		}
		t.Calls[i] = c
	}
	if err := t.check(); err != nil {
		return Turn{}, err
	}
	for i, c := range calls {
		args := t.Calls[i].Arguments
		if !isJSON(c.Arguments) {
			args = c.Arguments // for the error result to say what is wrong
		}
		t.Calls[i].Result = r.run(ctx, c.Name, args, c.Answers)
	}
	return t, nil
}

// Resume checks a, a person's answer to a request t waits on, with the
// rules of [Turn.Answer] at the runner's current time (an unknown or
// finished request reports [ErrAnswerMismatch], an expired one
// [ErrExpired]), runs the call that waits on it again with its arguments
// and every answer so far, as [TurnRunner.Run] runs a call, and returns t
// with that call's new result, as [Turn.WithCall] records it. A refused
// answer runs nothing, and t is never changed.
//
// A request that expired can no longer be answered: to finish its call
// all the same, record a result of the host's own, such as an [Error]
// saying the approval expired, with [Turn.WithCall].
func (r TurnRunner) Resume(ctx context.Context, t Turn, a Answer) (Turn, error) {
	c, err := t.Answer(a, r.now())
	if err != nil {
		return t, err
	}
	c.Result = r.run(ctx, c.Name, c.Arguments, c.Answers)
	return t.WithCall(c)
}

// run returns the result of a call of the tool name with args and
// answers, as Run documents it.
func (r TurnRunner) run(ctx context.Context, name string, args json.RawMessage, answers Answers) ToolResult {
	tool, ok := r.Tools[name]
	if !ok || tool == nil {
		return Error("toolnexus: unknown tool " + msg.Quote(name))
	}
	args, err := readArguments(name, args, nil)
	if err != nil {
		return Error(err.Error())
	}
	res := r.safely(ctx, tool, name, args, answers)
	if err := res.Validate(); err != nil {
		return Errorf("toolnexus: tool %s returned an invalid result: %s", msg.Quote(name), msg.Unprefixed(err))
	}
	return r.withExpiry(res)
}

// safely runs tool, recovering its panic as an error result.
func (r TurnRunner) safely(ctx context.Context, tool Tool, name string, args json.RawMessage, answers Answers) (res ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			r.logger().ErrorContext(ctx, "toolnexus: tool panicked",
				"tool", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = Error(fmt.Sprintf("%v: %s", ErrToolPanicked, msg.Quote(name)))
		}
	}()
	return tool(ctx, args, answers)
}

// withExpiry returns res with ExpiresAt set on each request it asks
// without one, Expiry from now.
func (r TurnRunner) withExpiry(res ToolResult) ToolResult {
	reqs, ok := PendingAllOf(res)
	if !ok || r.Expiry < 0 {
		return res
	}
	at, changed := r.now().Add(cmp.Or(r.Expiry, DefaultExpiry)), false
	for i, req := range reqs {
		if req.ExpiresAt == "" {
			reqs[i], changed = req.WithExpiry(at), true
		}
	}
	if !changed {
		return res
	}
	res.Metadata = maps.Clone(res.Metadata)
	res.Metadata[MetadataPending] = reqs[0]
	if len(reqs) > 1 {
		res.Metadata[MetadataPendingMore] = reqs[1:]
	}
	return res
}

func (r TurnRunner) now() time.Time {
	if r.Time != nil {
		return r.Time()
	}
	return time.Now()
}

func (r TurnRunner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// ToolFor returns fn as a [Tool] whose arguments are decoded into In, a
// struct (or map) of the tool's input, as [Answer.DecodeData] decodes:
// as encoding/json decodes, except that keys are matched exactly (a key
// that differs from a field's JSON name only in case is ignored, as an
// unknown key is), and numbers keep every digit until they reach In.
// Arguments that are not a JSON object, or hold a value of the wrong type
// for In, make the error result that the model reads, and fn does not run.
// The answers are handed to fn as they come: [Answers.Latest] is the
// answer of a tool that asks once.
func ToolFor[In any](fn func(ctx context.Context, in In, answers Answers) ToolResult) Tool {
	return func(ctx context.Context, args json.RawMessage, answers Answers) ToolResult {
		var in In
		if _, err := readArguments("", args, &in); err != nil {
			return Error(err.Error())
		}
		return fn(ctx, in, answers)
	}
}

// emptyObject is the arguments a tool is given for none.
var emptyObject = json.RawMessage("{}")

// readArguments checks args, the arguments a model sent the tool name (""
// when it is not known), and returns them as a tool reads them: a JSON
// object, empty arguments and null read as {}. When v is not nil, it also
// decodes them into v with exact keys. Every decoding of a model's
// arguments goes through it; its errors match [ErrInvalidArguments].
func readArguments(name string, args json.RawMessage, v any) (json.RawMessage, error) {
	trimmed := bytes.Trim(args, jsonscan.Space)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		args = emptyObject
	}
	if !isJSON(args) {
		return nil, argumentsError(name, "are not JSON: %s", syntaxError(args))
	}
	d := jsonReader{data: args}
	if d.peek() != '{' {
		return nil, argumentsError(name, "are not a JSON object but %s", d.kind())
	}
	if err := jsonscan.CheckNames(args); err != nil {
		return nil, &argumentsRefused{msg: argumentsMessage(name, "are ambiguous: %s", strings.TrimPrefix(err.Error(), "toolnexus: ")), cause: err}
	}
	if v == nil {
		return args, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, argumentsError(name, "cannot be decoded into %T, which is not a non-nil pointer", v)
	}
	if err := decodeExact(args, v); err != nil {
		return nil, &argumentsRefused{msg: argumentsMessage(name, "are not what the tool takes: %s", strings.TrimPrefix(err.Error(), "toolnexus: invalid JSON: arguments: ")), cause: err}
	}
	return args, nil
}

// isJSON reports whether b is one JSON value that holds only UTF-8, as
// [ParseTurn] reads arguments.
func isJSON(b []byte) bool {
	i, err := jsonscan.ScanValue(b, jsonscan.SkipSpace(b, 0), 0, true)
	return err == nil && jsonscan.SkipSpace(b, i) == len(b)
}

// syntaxError says why b, which isJSON refused, is not JSON.
func syntaxError(b []byte) string {
	if jsonscan.Valid(b) {
		return "a string " + jsonscan.ErrNotUTF8.Error()
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "unexpected end of JSON input"
		}
		return err.Error()
	}
	return "more than one JSON value"
}

// argumentsError returns the error of arguments of the tool name.
func argumentsError(name, format string, args ...any) error {
	return &argumentsRefused{msg: argumentsMessage(name, format, args...)}
}

// argumentsMessage is the message of an [argumentsRefused].
func argumentsMessage(name, format string, args ...any) string {
	of := "arguments "
	if name != "" {
		of = "arguments of " + msg.Quote(name) + " "
	}
	return "toolnexus: " + of + fmt.Sprintf(format, args...)
}

// argumentsRefused is the error of arguments a tool cannot take: it
// matches [ErrInvalidArguments] and, through its cause, the error that
// refused them ([ErrDuplicateKey], [ErrInvalidJSON]).
type argumentsRefused struct {
	msg   string
	cause error
}

func (e *argumentsRefused) Error() string { return e.msg }

// Is reports whether target is [ErrInvalidArguments].
func (e *argumentsRefused) Is(target error) bool { return target == ErrInvalidArguments }

// Unwrap returns the error that refused the arguments, if any.
func (e *argumentsRefused) Unwrap() error { return e.cause }
