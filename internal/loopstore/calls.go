package loopstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// ErrTurnMismatch reports a stored parked turn whose calls are not the
// calls of the model's message it answers: another id, tool or arguments,
// a call the model did not make or one it made that the turn lacks. Such a
// turn would run a tool the model never asked for, and runs nothing. It
// matches [toolnexus.ErrInvalidTurn] too.
var ErrTurnMismatch = fmt.Errorf("%w: the parked turn is not the model's calls", toolnexus.ErrInvalidTurn)

// Agree reports whether the calls of turn, a parked turn, are calls, those
// of the model's message it answers, in their order: the same ids, tools
// and arguments (the same JSON value, as [toolnexus.Turn.WithCall] compares
// them). A turn with no calls agrees with any message. A disagreement
// reports [ErrTurnMismatch], saying where without a payload.
func Agree(turn toolnexus.Turn, calls []toolnexus.ToolCall) error {
	if len(turn.Calls) == 0 {
		return nil
	}
	if len(turn.Calls) != len(calls) {
		return fmt.Errorf("%w: the turn holds %d calls, the model made %d", ErrTurnMismatch, len(turn.Calls), len(calls))
	}
	for i, c := range turn.Calls {
		m := calls[i]
		switch {
		case c.ID != m.ID:
			return fmt.Errorf("%w: call %d is %s in the turn, %s in the model's message", ErrTurnMismatch, i, msg.Quote(c.ID), msg.Quote(m.ID))
		case c.Name != m.Name:
			return fmt.Errorf("%w: call %s is a call of %s in the turn, of %s in the model's message",
				ErrTurnMismatch, msg.Quote(c.ID), msg.Quote(c.Name), msg.Quote(m.Name))
		case !sameArguments(c.Arguments, m.Arguments):
			return fmt.Errorf("%w: call %s has other arguments in the turn than in the model's message", ErrTurnMismatch, msg.Quote(c.ID))
		}
	}
	return nil
}

// sameArguments reports whether a and b are one JSON value: the same
// bytes, or the same binding (see [jsonscan.SameArguments]).
func sameArguments(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	same, err := jsonscan.SameArguments(a, b)
	return err == nil && same
}

// Check reads calls from last, the stored JSON of the model's message that
// turn answers, with read ([AnthropicCalls], [ChatCalls] or
// [ResponsesCalls]), and reports whether they agree ([Agree]). A
// turn with no calls needs no message.
func Check(turn toolnexus.Turn, last []byte, read func([]byte) ([]toolnexus.ToolCall, error)) error {
	if len(turn.Calls) == 0 {
		return nil
	}
	calls, err := read(last)
	if err != nil {
		return err
	}
	return Agree(turn, calls)
}

// CheckLast is [Check] for the last of msgs, messages held as values that
// marshal to their JSON (an SDK's message params): a turn with calls needs
// a last message that marshals.
func CheckLast[M any](turn toolnexus.Turn, msgs []M, read func([]byte) ([]toolnexus.ToolCall, error)) error {
	if len(turn.Calls) == 0 {
		return nil
	}
	var last []byte
	if len(msgs) > 0 {
		var err error
		if last, err = json.Marshal(msgs[len(msgs)-1]); err != nil {
			return fmt.Errorf("%w: the model's message does not marshal: %w", ErrTurnMismatch, err)
		}
	}
	return Check(turn, last, read)
}

// AnthropicCalls reads the calls of data, a stored Anthropic message: one
// for each block of its content whose type is "tool_use", with its "id",
// "name" and "input" as the arguments, as the model wrote them. A message
// that is not the assistant's makes none.
func AnthropicCalls(data []byte) ([]toolnexus.ToolCall, error) {
	blocks, err := listOf(data, "the model's message", "assistant", "content")
	if err != nil || blocks == nil {
		return nil, err
	}
	var calls []toolnexus.ToolCall
	for i, b := range blocks {
		block, err := object("content block "+strconv.Itoa(i)+" of the model's message", b, nil)
		if err != nil {
			return nil, err
		}
		if str(block["type"]) != "tool_use" {
			continue
		}
		args := block["input"]
		if string(args) == "null" {
			args = nil
		}
		calls = append(calls, toolnexus.ToolCall{ID: str(block["id"]), Name: str(block["name"]), Arguments: args})
	}
	return calls, nil
}

// ChatCalls reads the calls of data, a stored Chat Completions message:
// one for each of its "tool_calls" whose type is "function", with its
// "id", its function's "name" and the JSON its "arguments" string holds,
// kept as [toolnexus.NewTurn] keeps it. A message that is not the
// assistant's makes none.
func ChatCalls(data []byte) ([]toolnexus.ToolCall, error) {
	list, err := listOf(data, "the model's message", "assistant", "tool_calls")
	if err != nil || list == nil {
		return nil, err
	}
	var calls []toolnexus.ToolCall
	for i, raw := range list {
		what := "tool call " + strconv.Itoa(i) + " of the model's message"
		call, err := object(what, raw, nil)
		if err != nil {
			return nil, err
		}
		if str(call["type"]) != "function" {
			continue
		}
		fn, err := object("the function of "+what, call["function"], nil)
		if err != nil {
			return nil, err
		}
		calls = append(calls, toolnexus.ToolCall{ID: str(call["id"]), Name: str(fn["name"]), Arguments: arguments(fn["arguments"])})
	}
	return calls, nil
}

// ResponsesCalls reads the calls of data, a stored JSON array of Responses
// output items (absent or null: [ErrTurnMismatch], for none were stored): one for each item whose type is "function_call", with its
// "call_id", "name" and the JSON its "arguments" string holds, kept as
// [toolnexus.NewTurn] keeps it.
func ResponsesCalls(data []byte) ([]toolnexus.ToolCall, error) {
	if len(data) == 0 || string(bytes.Trim(data, jsonscan.Space)) == "null" {
		return nil, fmt.Errorf("%w: the model's function calls are missing", ErrTurnMismatch)
	}
	if !jsonscan.Valid(data) {
		return nil, fmt.Errorf("%w: the model's function calls are not JSON", toolnexus.ErrInvalidJSON)
	}
	_, items, err := split("the model's function calls", data, '[')
	if err != nil {
		return nil, err
	}
	var calls []toolnexus.ToolCall
	for i, raw := range items {
		item, err := object("function call item "+strconv.Itoa(i), raw, nil)
		if err != nil {
			return nil, err
		}
		if str(item["type"]) != "function_call" {
			continue
		}
		calls = append(calls, toolnexus.ToolCall{ID: str(item["call_id"]), Name: str(item["name"]), Arguments: arguments(item["arguments"])})
	}
	return calls, nil
}

// listOf returns the elements of the array under key in data, the stored
// JSON of a message, named what in errors: none when its role is not
// role, or the key is absent, null or not an array (text content).
func listOf(data []byte, what, role, key string) ([][]byte, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: %s is missing", ErrTurnMismatch, what)
	}
	m, err := Object(what, data)
	if err != nil {
		return nil, err
	}
	list := m[key]
	if str(m["role"]) != role || len(list) == 0 || list[0] != '[' {
		return nil, nil
	}
	_, values, err := split("the "+key+" of "+what, list, '[')
	return values, err
}

// str returns the JSON string s, a checked value, unquoted; "" when it is
// not a string.
func str(s []byte) string {
	if len(s) == 0 || s[0] != '"' {
		return ""
	}
	return text(s)
}

// arguments returns what a turn keeps of s, an OpenAI arguments string
// (a checked value): the JSON its text holds, no arguments for white space
// or null, and other text, not JSON, as its JSON string, as
// [toolnexus.NewTurn] keeps a call's arguments.
func arguments(s []byte) json.RawMessage {
	t := []byte(str(s))
	switch trimmed := bytes.Trim(t, jsonscan.Space); {
	case len(trimmed) == 0 || string(trimmed) == "null":
		return nil
	case isJSON(t):
		return t
	}
	q, err := json.Marshal(string(t))
	if err != nil {
		return nil // not reached: a string marshals
	}
	return q
}

// isJSON reports whether b is one JSON value, of valid UTF-8, as a turn's
// runner reads arguments.
func isJSON(b []byte) bool {
	i, err := jsonscan.ScanValue(b, jsonscan.SkipSpace(b, 0), 0, true)
	return err == nil && jsonscan.SkipSpace(b, i) == len(b)
}
