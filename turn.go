package toolnexus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// Turn is one assistant turn of tool calls: the calls one reply of a model
// asked for, in the order it asked, each with the result of running it. A
// provider wants every result of a turn in one reply, and takes a call id
// once, so a host that runs the calls and finds some of them suspended keeps
// the whole turn, the finished results too, until every call is done, and
// only then sends it ([Turn.AnthropicMessage], [Turn.OpenAIChatMessages],
// [Turn.OpenAIResponsesInput], [Turn.GeminiContent], [Turn.VertexContent]).
//
// A Turn is what a host stores between the question and the answer: its JSON
// survives a file, a database and a restart, read back with json.Unmarshal
// (JSON this process wrote) or [ParseTurn] (JSON from anywhere else).
// [Turn.Waiting] says which calls wait and on what; [Turn.Answer] checks a
// person's [Answer] and gives the call to run again, and [Turn.WithCall]
// records what the run returned. A Turn is a value: its methods never change
// it, and With… methods return a copy that shares no slice they change. It
// is not comparable with ==. The zero Turn has no calls; it is complete but
// cannot be sent.
type Turn struct {
	Calls []ToolCall `json:"calls"`
}

// String returns v's fields without payload, for %v.
func (v Turn) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v Turn) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [Turn.String] (%#v: [Turn.GoString]).
func (v Turn) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v Turn) LogValue() slog.Value { return logWire(v) }

// ToolCall is one call of a [Turn]: ID is the provider's id for it (a
// tool_use id, a tool call id, a function call's call_id or id), Name the
// tool's name and Arguments the arguments the model gave, as raw JSON (an
// object, or for OpenAI the JSON its arguments string holds). Result is what
// the tool returned, finished or a suspension ([Pending], or [PendingAll]
// for several requests at once). Answers are the answers given to its
// suspensions so far, earliest first, with which the tool is run again: a
// tool that asked several requests is run again with each answer as it
// comes, and asks again for what is still missing. Parked names the
// parking of a call whose Result is a suspension: an id the Runner of
// package park minted when the call parked, which it claims when the call
// is resumed, so that one parking is answered once however often the turn
// is read back and resumed.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty" toolnexus:"payload"`
	Result    ToolResult      `json:"result"`
	Answers   Answers         `json:"answers,omitempty"`
	Parked    string          `json:"parked,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v ToolCall) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v ToolCall) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [ToolCall.String] (%#v: [ToolCall.GoString]).
func (v ToolCall) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v ToolCall) LogValue() slog.Value { return logWire(v) }

// Wait is one request a call of a [Turn] waits on: the call's id and tool
// name, and the [Request] to put to a person.
type Wait struct {
	CallID  string  `json:"callId"`
	Tool    string  `json:"tool"`
	Request Request `json:"request"`
}

// String returns v's fields without payload, for %v.
func (v Wait) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v Wait) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [Wait.String] (%#v: [Wait.GoString]).
func (v Wait) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v Wait) LogValue() slog.Value { return logWire(v) }

// requestsOf returns the requests a suspension asks, or none for a result
// that is not one.
func requestsOf(r ToolResult) []Request {
	reqs, _ := PendingAllOf(r)
	return reqs
}

// Waits are the requests a turn waits on, as [Turn.Waiting] lists them.
// They print and log as each [Wait] does, without the requests' data.
type Waits []Wait

// String returns the waits as [Wait.String] writes each.
func (ws Waits) String() string {
	var w walk
	return w.wireField(reflect.ValueOf([]Wait(ws)), false, 0)
}

// GoString returns the waits in Go syntax, each as [Wait.GoString] writes it.
func (ws Waits) GoString() string {
	if ws == nil {
		return "toolnexus.Waits(nil)"
	}
	var w walk
	return "toolnexus.Waits" + w.wireField(reflect.ValueOf([]Wait(ws)), true, 0)
}

// Format prints the waits for every verb without their requests' Data, as [Waits.String] (%#v: [Waits.GoString]).
func (ws Waits) Format(f fmt.State, verb rune) { wire.Format(f, verb, ws) }

// LogValue implements [slog.LogValuer]: the waits log as a group, one
// member a wait by its index, each as [Wait.LogValue] logs it.
func (ws Waits) LogValue() slog.Value {
	attrs := make([]slog.Attr, len(ws))
	for i, w := range ws {
		attrs[i] = slog.Any(strconv.Itoa(i), w.LogValue())
	}
	return slog.GroupValue(attrs...)
}

// Waiting returns every request the calls of t wait on, in call order. It
// is empty when t is complete.
func (t Turn) Waiting() Waits {
	var waits Waits
	for _, c := range t.Calls {
		for _, req := range requestsOf(c.Result) {
			waits = append(waits, Wait{CallID: c.ID, Tool: c.Name, Request: req})
		}
	}
	return waits
}

// Complete reports whether no call of t waits: every result is finished,
// and t can be sent.
func (t Turn) Complete() bool {
	for _, c := range t.Calls {
		if c.Result.IsPending() {
			return false
		}
	}
	return true
}

// Answer checks a, an answer to one of the requests t waits on, and returns
// the call that waits on it with a added to its Answers (in place of an
// earlier answer to the same request), for the host to run again. The
// answer's id must name a request some call of t waits on now
// ([ErrAnswerMismatch]: an unknown id, or one whose call has finished), and
// that request must not have expired at now ([ErrExpired]), as
// [Answer.Check] decides. t itself is not changed: record the run's result
// with [Turn.WithCall].
func (t Turn) Answer(a Answer, now time.Time) (ToolCall, error) {
	for _, c := range t.Calls {
		for _, req := range requestsOf(c.Result) {
			if a.ID == "" || req.ID != a.ID {
				continue
			}
			if err := a.Check(req, now); err != nil {
				return ToolCall{}, err
			}
			answers := slices.DeleteFunc(slices.Clone(c.Answers), func(b Answer) bool { return b.ID == a.ID })
			c.Answers = append(answers, a)
			return c, nil
		}
	}
	return ToolCall{}, msg.Errorf(ErrAnswerMismatch, "no call of the turn waits on request %s", msg.Quote(a.ID))
}

// WithCall returns a copy of t in which c replaces the call with c's ID:
// the call [Turn.Answer] returned, with the Result of running it again. c
// must be a call of t, of the same tool with the same arguments, else
// WithCall reports [ErrInvalidTurn], as it does when c waits on a request
// that another call waits on. Arguments are the same when they are the
// same JSON value, as a request state of package requeststate binds them:
// the order of keys, the spacing and the escapes do not matter, and
// arguments that are not JSON, or repeat a name ([ErrDuplicateKey]), are no
// call's.
func (t Turn) WithCall(c ToolCall) (Turn, error) {
	i := slices.IndexFunc(t.Calls, func(d ToolCall) bool { return d.ID == c.ID })
	switch {
	case i < 0:
		return t, msg.Errorf(ErrInvalidTurn, "no call has id %s", msg.Quote(c.ID))
	case t.Calls[i].Name != c.Name:
		return t, msg.Errorf(ErrInvalidTurn, "call %s is a call of %s, not %s", msg.Quote(c.ID), msg.Quote(t.Calls[i].Name), msg.Quote(c.Name))
	}
	if same, err := jsonscan.SameArguments(t.Calls[i].Arguments, c.Arguments); err != nil {
		return t, errorfCause(ErrInvalidTurn, err, "call %s", msg.Quote(c.ID))
	} else if !same {
		return t, msg.Errorf(ErrInvalidTurn, "call %s was made with other arguments", msg.Quote(c.ID))
	}
	for _, req := range requestsOf(c.Result) {
		for j, d := range t.Calls {
			if j != i && slices.ContainsFunc(requestsOf(d.Result), func(r Request) bool { return r.ID == req.ID }) {
				if j < i {
					return t, waitedTwice(d.ID, c.ID, req.ID)
				}
				return t, waitedTwice(c.ID, d.ID, req.ID)
			}
		}
	}
	t.Calls = slices.Clone(t.Calls)
	t.Calls[i] = c
	return t, nil
}

// NewTurn returns the turn of calls, a model's new calls (ID, Name and
// Arguments set, in the model's order), before any has run: what the Runner
// of package park runs. It keeps each call's arguments as json.Marshal
// writes them (compacted, with <, > and & escaped), so that the turn equals
// what [ParseTurn] reads back from its JSON; arguments that are not JSON
// at all (nor UTF-8) are kept as the JSON string of their text (a byte
// that is not UTF-8 as \ufffd, with GOEXPERIMENT=jsonv2 too), and white
// space or null as no arguments. Calls that are not a turn (a call without
// an id or tool name, two calls with one id) report [ErrInvalidTurn]. No
// calls at all give the zero Turn: the model asked for nothing.
func NewTurn(calls ...ToolCall) (Turn, error) {
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
	return t, nil
}

// Validate reports whether t is well formed: it has calls, each with an id
// no other call has, a tool name, arguments that are JSON (or none),
// answers with ids and requests that no other call waits on (an [Answer]
// names its request, and must reach the one call that asked it)
// ([ErrInvalidTurn]), and a result that passes [ToolResult.Validate].
func (t Turn) Validate() error {
	if err := t.check(); err != nil {
		return err
	}
	for _, c := range t.Calls {
		if err := c.Result.Validate(); err != nil {
			return fmt.Errorf("%w (call %s)", err, msg.Quote(c.ID))
		}
	}
	return nil
}

// check checks what a turn needs to be sent, its results aside.
func (t Turn) check() error {
	if len(t.Calls) == 0 {
		return msg.Errorf(ErrInvalidTurn, "no calls")
	}
	seen := make(map[string]bool, len(t.Calls))
	waits := map[string]string{} // the id of each request waited on, and its call's
	for i, c := range t.Calls {
		switch {
		case c.ID == "":
			return msg.Errorf(ErrInvalidTurn, "call %d has no id", i)
		case seen[c.ID]:
			return msg.Errorf(ErrInvalidTurn, "two calls have id %s", msg.Quote(c.ID))
		case c.Name == "":
			return msg.Errorf(ErrInvalidTurn, "call %s has no tool name", msg.Quote(c.ID))
		case len(c.Arguments) > 0 && !json.Valid(c.Arguments):
			return msg.Errorf(ErrInvalidTurn, "the arguments of call %s are not JSON", msg.Quote(c.ID))
		case slices.ContainsFunc(c.Answers, func(a Answer) bool { return a.ID == "" }):
			return msg.Errorf(ErrInvalidTurn, "call %s holds an answer without id", msg.Quote(c.ID))
		}
		seen[c.ID] = true
		for _, req := range requestsOf(c.Result) {
			if other, ok := waits[req.ID]; ok && other != c.ID {
				return waitedTwice(other, c.ID, req.ID)
			}
			waits[req.ID] = c.ID
		}
	}
	return nil
}

// waitedTwice returns the error of two calls that wait on one request: an
// answer names its request only, and would reach one of them, not the one
// it answers.
func waitedTwice(first, second, request string) error {
	return msg.Errorf(ErrInvalidTurn, "calls %s and %s both wait on request %s: an answer could not tell them apart", msg.Quote(first), msg.Quote(second), msg.Quote(request))
}

// sendable reports why t cannot be sent yet, if it cannot.
func (t Turn) sendable() error {
	if err := t.check(); err != nil {
		return err
	}
	for _, c := range t.Calls {
		if reqs := requestsOf(c.Result); len(reqs) > 0 {
			return msg.Errorf(ErrIncompleteTurn, "call %s waits on request %s", msg.Quote(c.ID), msg.Quote(reqs[0].ID))
		}
	}
	return nil
}

// AnthropicMessage is an Anthropic Messages user message whose content is
// tool_result blocks, the value [Turn.AnthropicMessage] returns.
type AnthropicMessage struct {
	Role    string                     `json:"role"` // always "user"
	Content []AnthropicToolResultBlock `json:"content"`
}

// String returns v's fields without payload, for %v.
func (v AnthropicMessage) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicMessage) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicMessage.String] (%#v: [AnthropicMessage.GoString]).
func (v AnthropicMessage) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicMessage) LogValue() slog.Value { return logWire(v) }

// AnthropicMessage returns the user message that answers the turn's
// tool_use blocks: one tool_result block per call, in call order, each as
// [ToolResult.AnthropicToolResult] makes it. A turn that fails the checks of
// [Turn.Validate] on its calls reports [ErrInvalidTurn], and one that still
// waits [ErrIncompleteTurn].
func (t Turn) AnthropicMessage() (AnthropicMessage, error) {
	if err := t.sendable(); err != nil {
		return AnthropicMessage{}, err
	}
	m := AnthropicMessage{Role: "user", Content: make([]AnthropicToolResultBlock, len(t.Calls))}
	for i, c := range t.Calls {
		m.Content[i] = c.Result.AnthropicToolResult(c.ID)
	}
	return m, nil
}

// OpenAIChatMessages returns the OpenAI Chat Completions messages that
// answer the turn's tool calls: the role "tool" message of every call, in
// call order, and then, when any result has media OpenAI takes, one role
// "user" message holding the media of all calls, each call's under its
// heading "Output of tool NAME (CALL_ID):". Each call's messages are those of
// [ToolResult.OpenAIChatMessages]. A turn that fails the checks of
// [Turn.Validate] on its calls reports [ErrInvalidTurn], and one that still
// waits [ErrIncompleteTurn].
func (t Turn) OpenAIChatMessages() ([]OpenAIChatMessage, error) {
	if err := t.sendable(); err != nil {
		return nil, err
	}
	msgs := make([]OpenAIChatMessage, 0, len(t.Calls)+1)
	var media []OpenAIChatContentPart
	for _, c := range t.Calls {
		m := c.Result.OpenAIChatMessages(c.ID, c.Name)
		msgs = append(msgs, m[0])
		for _, user := range m[1:] {
			parts, _ := user.Content.([]OpenAIChatContentPart)
			media = append(media, parts...)
		}
	}
	if len(media) > 0 {
		msgs = append(msgs, OpenAIChatMessage{Role: "user", Content: media})
	}
	return msgs, nil
}

// OpenAIResponsesInput returns the OpenAI Responses input items that answer
// the turn's function calls: one function_call_output per call, in call
// order, as [ToolResult.OpenAIResponsesOutput] makes it. A turn that fails
// the checks of [Turn.Validate] on its calls reports [ErrInvalidTurn], and
// one that still waits [ErrIncompleteTurn].
func (t Turn) OpenAIResponsesInput() ([]OpenAIFunctionCallOutput, error) {
	if err := t.sendable(); err != nil {
		return nil, err
	}
	items := make([]OpenAIFunctionCallOutput, len(t.Calls))
	for i, c := range t.Calls {
		items[i] = c.Result.OpenAIResponsesOutput(c.ID)
	}
	return items, nil
}

// GeminiContent is a Gemini content of role "user" whose parts are function
// responses, the value [Turn.GeminiContent] returns.
type GeminiContent struct {
	Role  string       `json:"role"` // always "user"
	Parts []GeminiPart `json:"parts"`
}

// String returns v's fields without payload, for %v.
func (v GeminiContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiContent.String] (%#v: [GeminiContent.GoString]).
func (v GeminiContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiContent) LogValue() slog.Value { return logWire(v) }

// GeminiPart is one part of a [GeminiContent]: a function response.
type GeminiPart struct {
	FunctionResponse *GeminiFunctionResponse `json:"functionResponse"`
}

// String returns v's fields without payload, for %v.
func (v GeminiPart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiPart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiPart.String] (%#v: [GeminiPart.GoString]).
func (v GeminiPart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiPart) LogValue() slog.Value { return logWire(v) }

// GeminiContent returns the content that answers the turn's function calls
// on the Gemini API: one functionResponse part per call, in call order, as
// [ToolResult.GeminiFunctionResponse] makes it, with the call's id. A turn
// that fails the checks of [Turn.Validate] on its calls reports
// [ErrInvalidTurn], and one that still waits [ErrIncompleteTurn].
func (t Turn) GeminiContent() (GeminiContent, error) {
	return t.geminiContent(ToolResult.GeminiFunctionResponse)
}

// VertexContent returns the content that answers the turn's function calls
// on Gemini on Vertex AI, as [Turn.GeminiContent] does, each response as
// [ToolResult.VertexFunctionResponse] makes it.
func (t Turn) VertexContent() (GeminiContent, error) {
	return t.geminiContent(ToolResult.VertexFunctionResponse)
}

func (t Turn) geminiContent(response func(r ToolResult, name, id string) GeminiFunctionResponse) (GeminiContent, error) {
	if err := t.sendable(); err != nil {
		return GeminiContent{}, err
	}
	g := GeminiContent{Role: "user", Parts: make([]GeminiPart, len(t.Calls))}
	for i, c := range t.Calls {
		fr := response(c.Result, c.Name, c.ID)
		g.Parts[i] = GeminiPart{FunctionResponse: &fr}
	}
	return g, nil
}

// ParseTurn decodes data, the JSON of a turn that came from another process
// or from storage others can write, as [ParseToolResult] decodes a result:
// keys are matched exactly ("calls", and "id", "name", "arguments",
// "result", "answers", "parked" in each call), input longer than maxBytes is refused
// with a [*PartTooLargeError] before any of it is decoded (zero or less
// means no limit), and the turn must pass [Turn.Validate]. A value of the
// wrong type, or input that is not JSON, reports [ErrInvalidJSON].
func ParseTurn(data []byte, maxBytes int64) (Turn, error) {
	d, err := openPeerJSON(data, maxBytes, ErrInvalidJSON)
	if err != nil {
		return Turn{}, err
	}
	t, err := d.turn()
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return Turn{}, peerError(data, err, ErrInvalidJSON)
	}
	if err := t.Validate(); err != nil {
		return Turn{}, err
	}
	return t, nil
}

func (d *jsonReader) turn() (Turn, error) {
	var t Turn
	err := d.members("turn", func(key []byte) (known bool, err error) {
		if string(key) != "calls" {
			return false, nil
		}
		t.Calls, err = readList(d, "calls", (*jsonReader).toolCall)
		return true, err
	})
	return t, err
}

func (d *jsonReader) toolCall() (ToolCall, error) {
	var c ToolCall
	err := d.members("call", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "id":
			c.ID, err = d.str("id")
		case "name":
			c.Name, err = d.str("name")
		case "arguments":
			var raw []byte
			if raw, err = d.skip(); err == nil && string(raw) != "null" {
				c.Arguments = bytes.Clone(raw)
			}
		case "result":
			if !d.null() {
				c.Result, err = d.toolResult()
			}
		case "answers":
			c.Answers, err = readList(d, "answers", (*jsonReader).answer)
		case "parked":
			c.Parked, err = d.str("parked")
		default:
			return false, nil
		}
		return true, err
	})
	return c, err
}

// readList reads an array of objects with read, or null as nil.
func readList[T any](d *jsonReader, key string, read func(*jsonReader) (T, error)) ([]T, error) {
	if d.null() {
		return nil, nil
	}
	if err := d.openArray(key); err != nil {
		return nil, err
	}
	out := []T{}
	for {
		ok, err := d.nextElem(len(out))
		if err != nil || !ok {
			return out, err
		}
		v, err := read(d)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, len(out), err)
		}
		out = append(out, v)
	}
}
