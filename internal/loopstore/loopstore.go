// Package loopstore holds what the conversations of the agent loop modules
// (anthropicloop, openailoop) share: reading back the JSON a host stored,
// with exact keys and a size limit, keeping each message as the JSON it was
// stored as, and showing a conversation without its payload.
package loopstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus"
)

// ErrNoReply reports a conversation asked to run a reply that holds no
// message: a nil reply, or a chat completion without a choice. Running it
// would leave the conversation as it was, for a loop to send again.
var ErrNoReply = errors.New("toolnexus: no reply to run")

// Message is a message as a host stored it: the role its JSON names (""
// when it names none), and the JSON, which is sent as it is ([Params]) and
// never printed, logged or marshalled from the Message, for it may hold a
// part's data.
type Message struct {
	Role string
	raw  json.RawMessage
}

// NewMessage returns the stored message raw, whose role is role.
func NewMessage(raw json.RawMessage, role string) Message { return Message{Role: role, raw: raw} }

// Raw returns the message's JSON as it was stored.
func (m Message) Raw() json.RawMessage { return m.raw }

// String returns the message's role and the size of its JSON.
func (m Message) String() string {
	return "{Role:" + quote(m.Role) + " JSON:" + strconv.Itoa(len(m.raw)) + " bytes}"
}

// GoString returns m in Go syntax without its JSON, for %#v.
func (m Message) GoString() string {
	return "loopstore.NewMessage(/* " + strconv.Itoa(len(m.raw)) + " bytes */, " + strconv.Quote(m.Role) + ")"
}

// Format prints m for every verb without its JSON, as [Message.String].
func (m Message) Format(f fmt.State, verb rune) { Format(f, verb, m) }

// LogValue implements [slog.LogValuer]: m logs as its role and the size of
// its JSON.
func (m Message) LogValue() slog.Value {
	return slog.GroupValue(slog.String("role", m.Role), slog.Int("bytes", len(m.raw)))
}

// Object returns the members of data, the JSON of one object, by name.
// Names are matched exactly: one outside names (any name when names is
// empty) reports [toolnexus.ErrInvalidJSON] and a repeated one
// [toolnexus.ErrDuplicateKey], each saying it of what, as does data that is
// not JSON, or not an object. The values are data's own bytes.
func Object(what string, data []byte, names ...string) (map[string]json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: %s is not JSON", toolnexus.ErrInvalidJSON, what)
	}
	return object(what, data, names)
}

// object is [Object] for data that json.Valid has checked.
func object(what string, data []byte, names []string) (map[string]json.RawMessage, error) {
	raw, values, ok := split(data, '{', '}')
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a JSON object", toolnexus.ErrInvalidJSON, what)
	}
	members := make(map[string]json.RawMessage, len(raw))
	for i, r := range raw {
		var name string
		if err := json.Unmarshal(r, &name); err != nil {
			return nil, fmt.Errorf("%w: %s is not a JSON object", toolnexus.ErrInvalidJSON, what)
		}
		if _, ok := members[name]; ok {
			return nil, fmt.Errorf("%w: %s has the key %s twice", toolnexus.ErrDuplicateKey, what, quote(name))
		}
		if len(names) > 0 && !slices.Contains(names, name) {
			return nil, fmt.Errorf("%w: %s has an unknown key %s", toolnexus.ErrInvalidJSON, what, quote(name))
		}
		members[name] = values[i]
	}
	return members, nil
}

// Document returns the members of data, a stored conversation, as
// [Object] does, after refusing data longer than maxBytes (zero or less:
// no limit) with a *[toolnexus.PartTooLargeError], before reading any of
// it. The values are a copy of data: the caller keeps its own.
func Document(what string, data []byte, maxBytes int64, names ...string) (map[string]json.RawMessage, error) {
	if maxBytes > 0 && int64(len(data)) > maxBytes {
		return nil, &toolnexus.PartTooLargeError{Limit: maxBytes, Size: int64(len(data)), Document: true}
	}
	return Object(what, bytes.Clone(data), names...)
}

// Messages reads raw, a stored JSON array of messages (none when raw is
// absent or null), which json.Valid has checked, keeping each message as
// it was stored, in raw's own bytes; what names one in errors. Each must
// be a JSON object, with exact and unique keys at its top level, and,
// when withRole is set, a "role" that is a non-empty string.
func Messages(what string, raw json.RawMessage, withRole bool) ([]Message, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	_, list, ok := split(raw, '[', ']')
	if !ok {
		return nil, fmt.Errorf("%w: the %ss are not a JSON array", toolnexus.ErrInvalidJSON, what)
	}
	msgs := make([]Message, len(list))
	for i, m := range list {
		name := what + " " + strconv.Itoa(i)
		members, err := object(name, m, nil)
		if err != nil {
			return nil, err
		}
		msgs[i].raw = m
		if !withRole {
			continue
		}
		if err := json.Unmarshal(members["role"], &msgs[i].Role); err != nil || msgs[i].Role == "" {
			return nil, fmt.Errorf("%w: %s has no role", toolnexus.ErrInvalidJSON, name)
		}
	}
	return msgs, nil
}

// split returns the members of b, one JSON value that json.Valid has
// checked, when it is an object (open '{', end '}'): each name's JSON
// string and its value, in order; or when it is an array ('[', ']') its
// elements, with no names. Each is a slice of b. ok is false when b is
// another value.
func split(b []byte, open, end byte) (names, values [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != open {
		return nil, nil, false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == end {
		return nil, nil, true
	}
	for i < len(b) {
		if open == '{' {
			j := skipString(b, i)
			if j < 0 {
				return nil, nil, false
			}
			names = append(names, b[i:j])
			if i = skipSpace(b, j); i == len(b) || b[i] != ':' {
				return nil, nil, false
			}
			i = skipSpace(b, i+1)
		}
		j := skipValue(b, i)
		if j < 0 {
			return nil, nil, false
		}
		values = append(values, b[i:j])
		if i = skipSpace(b, j); i == len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case end:
			return names, values, true
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// skipSpace returns the index of the first byte of b from i on that is
// not JSON white space, or len(b).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the JSON string that starts at
// b[i], or -1 when there is none.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return -1
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i++ // the escaped byte
	}
	return -1
}

// skipValue returns the index just past the JSON value that starts at
// b[i], which json.Valid has checked, or -1 when b ends first.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[i])) { // a number or a literal
		i++
	}
	return i
}

// Turn reads raw, a stored parked turn (none when raw is absent or null),
// with [toolnexus.ParseTurn]. A turn is parked only while a call waits: one
// that waits on nothing reports [toolnexus.ErrInvalidTurn].
func Turn(raw json.RawMessage) (toolnexus.Turn, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return toolnexus.Turn{}, nil
	}
	turn, err := toolnexus.ParseTurn(raw, 0)
	if err != nil {
		return toolnexus.Turn{}, err
	}
	if turn.Complete() {
		return toolnexus.Turn{}, fmt.Errorf("%w: the parked turn waits on nothing", toolnexus.ErrInvalidTurn)
	}
	return turn, nil
}

// Role returns the "role" that v's JSON names, for a message held as a
// value of the host's own; "" when it names none or does not marshal.
func Role(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	members, err := Object("message", data)
	var role string
	if err != nil || json.Unmarshal(members["role"], &role) != nil {
		return ""
	}
	return role
}

// Roles returns messages as a conversation shows them, by their roles
// only, for their content may hold a part's base64: ["user" "assistant"].
func Roles(roles []string) string {
	quoted := make([]string, len(roles))
	for i, r := range roles {
		quoted[i] = quote(r)
	}
	return "[" + strings.Join(quoted, " ") + "]"
}

// Format prints v for every verb, as v.String (%#v: v.GoString, %q: the
// quoted String), so that no verb reaches a field's payload.
func Format(f fmt.State, verb rune, v interface {
	fmt.Stringer
	fmt.GoStringer
}) {
	switch {
	case verb == 'v' && f.Flag('#'):
		io.WriteString(f, v.GoString())
	case verb == 'q':
		io.WriteString(f, strconv.Quote(v.String()))
	default:
		io.WriteString(f, v.String())
	}
}

// quote returns s quoted for an error or a listing, cut to 64 bytes: a
// name read from storage is text others may have written.
func quote(s string) string {
	const most = 64
	if len(s) <= most {
		return strconv.Quote(s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// Runnable reports why a conversation with the turn parked cannot run a
// reply, noReply telling that the reply holds no message: [ErrNoReply], or
// [toolnexus.ErrIncompleteTurn] while a turn is parked; nil when it can.
func Runnable(parked toolnexus.Turn, noReply bool) error {
	if noReply {
		return ErrNoReply
	}
	if len(parked.Calls) > 0 {
		return fmt.Errorf("%w: the conversation's turn is parked: resume it first", toolnexus.ErrIncompleteTurn)
	}
	return nil
}

// Resume records a in parked, runs the call that waits on it again with
// tools, as [toolnexus.Turn.Resume] does, and returns the turn to keep
// parked (the zero Turn once every call has finished) and what answers
// it, made by send once it is complete.
func Resume[M any](ctx context.Context, parked toolnexus.Turn, a toolnexus.Answer, tools map[string]toolnexus.Tool,
	send func(toolnexus.Turn) ([]M, error)) (toolnexus.Turn, []M, error) {
	turn, err := parked.Resume(ctx, tools, a)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	if !turn.Complete() {
		return turn, nil, nil
	}
	more, err := send(turn)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	return toolnexus.Turn{}, more, nil
}

// Park returns the turn a conversation keeps parked after running turn:
// turn itself while a call waits, the zero Turn once all are done.
func Park(turn toolnexus.Turn) toolnexus.Turn {
	if turn.Complete() {
		return toolnexus.Turn{}
	}
	return turn
}

// Append returns msgs followed by more in an array of their own, so that
// two conversations grown from one never write into each other's.
func Append[M any](msgs []M, more ...M) []M {
	return append(slices.Clip(msgs), more...)
}

// Conversation reads data, a stored conversation of messages and a parked
// turn, {"messages":[…],"turn":{…}}, as the modules' Parse functions
// document: [Document] with those two keys and maxBytes, [Messages] with
// their roles, and [Turn].
func Conversation(data []byte, maxBytes int64) ([]Message, toolnexus.Turn, error) {
	members, err := Document("the stored conversation", data, maxBytes, "messages", "turn")
	if err != nil {
		return nil, toolnexus.Turn{}, err
	}
	msgs, err := Messages("stored message", members["messages"], true)
	if err != nil {
		return nil, toolnexus.Turn{}, err
	}
	turn, err := Turn(members["turn"])
	if err != nil {
		return nil, toolnexus.Turn{}, err
	}
	return msgs, turn, nil
}

// Params returns stored as the SDK's param type P, each made with
// override (the SDK's param.Override for P), to be sent as it was stored.
func Params[P any](stored []Message, override func(any) P) []P {
	if len(stored) == 0 {
		return nil
	}
	params := make([]P, len(stored))
	for i, m := range stored {
		params[i] = override(m.raw)
	}
	return params
}
