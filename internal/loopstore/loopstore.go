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
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
	"github.com/toolnexus-go/toolnexus/park"
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
	return "{Role:" + msg.Quote(m.Role) + " JSON:" + strconv.Itoa(len(m.raw)) + " bytes}"
}

// GoString returns m in Go syntax without its JSON, for %#v.
func (m Message) GoString() string {
	return "loopstore.NewMessage(/* " + strconv.Itoa(len(m.raw)) + " bytes */, " + strconv.Quote(m.Role) + ")"
}

// Format prints m for every verb without its JSON, as [Message.String].
func (m Message) Format(f fmt.State, verb rune) { wire.Format(f, verb, m) }

// LogValue implements [slog.LogValuer]: m logs as its role and the size of
// its JSON.
func (m Message) LogValue() slog.Value {
	return slog.GroupValue(slog.String("role", m.Role), slog.Int("bytes", len(m.raw)))
}

// Object returns the members of data, the JSON of one object, by name.
// Names are matched exactly: one outside names (any name when names is
// empty) reports [toolnexus.ErrInvalidJSON] and a repeated one
// [toolnexus.ErrDuplicateKey], each saying it of what, as does data that is
// not JSON, or not an object, or that holds a string or key that is not
// UTF-8, as the module's reader refuses it. The values are data's own
// bytes.
func Object(what string, data []byte, names ...string) (map[string]json.RawMessage, error) {
	if !jsonscan.Valid(data) {
		return nil, fmt.Errorf("%w: %s is not JSON", toolnexus.ErrInvalidJSON, what)
	}
	return object(what, data, names)
}

// object is [Object] for data that jsonscan.Valid has checked.
func object(what string, data []byte, names []string) (map[string]json.RawMessage, error) {
	raw, values, err := split(what, data, '{')
	if err != nil {
		return nil, err
	}
	members := make(map[string]json.RawMessage, len(raw))
	for i, r := range raw {
		name := text(r)
		if _, ok := members[name]; ok {
			return nil, fmt.Errorf("%w: %s has the key %s twice", toolnexus.ErrDuplicateKey, what, msg.Quote(name))
		}
		if len(names) > 0 && !slices.Contains(names, name) {
			return nil, fmt.Errorf("%w: %s has an unknown key %s", toolnexus.ErrInvalidJSON, what, msg.Quote(name))
		}
		members[name] = values[i]
	}
	return members, nil
}

// split returns the members of b, JSON that jsonscan.Valid has checked, as
// [jsonscan.Split] does; what names b in errors.
func split(what string, b []byte, open byte) (names, values [][]byte, err error) {
	names, values, err = jsonscan.Split(b, open)
	switch {
	case err == jsonscan.ErrNotUTF8:
		return nil, nil, fmt.Errorf("%w: a string in %s %v", toolnexus.ErrInvalidJSON, what, err)
	case err != nil && open == '[':
		return nil, nil, fmt.Errorf("%w: %s are not a JSON array", toolnexus.ErrInvalidJSON, what)
	case err != nil:
		return nil, nil, fmt.Errorf("%w: %s is not a JSON object", toolnexus.ErrInvalidJSON, what)
	}
	return names, values, nil
}

// text returns the JSON string s, which jsonscan has checked, and found
// UTF-8, unquoted.
func text(s []byte) string {
	var t string
	if json.Unmarshal(s, &t) != nil {
		return "" // not reached: s is a checked string
	}
	return t
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
// absent or null), which jsonscan.Valid has checked, keeping each message
// as it was stored, in raw's own bytes; what names one in errors. Each
// must be a JSON object, with exact and unique keys at its top level, and,
// when withRole is set, a "role" that is a non-empty string.
func Messages(what string, raw json.RawMessage, withRole bool) ([]Message, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	_, list, err := split("the "+what+"s", raw, '[')
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(list))
	for i, m := range list {
		if msgs[i], err = message(what+" "+strconv.Itoa(i), m, withRole); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// message reads m, one stored message that jsonscan.Valid has checked, as
// [Messages] reads each; name names it in errors.
func message(name string, m []byte, withRole bool) (Message, error) {
	members, err := object(name, m, nil)
	if err != nil {
		return Message{}, err
	}
	if !withRole {
		return Message{raw: m}, nil
	}
	r := role(members)
	if r == "" {
		return Message{}, fmt.Errorf("%w: %s has no role", toolnexus.ErrInvalidJSON, name)
	}
	return Message{Role: r, raw: m}, nil
}

// One reads data, one message a host stored on its own, as [Messages]
// reads each message of a list (with its role when withRole is set),
// after refusing data longer than maxBytes (zero or less: no limit) with
// a *[toolnexus.PartTooLargeError], before reading any of it; what names
// it in errors. The message is a copy of data: the caller keeps its own.
func One(what string, data []byte, maxBytes int64, withRole bool) (Message, error) {
	if maxBytes > 0 && int64(len(data)) > maxBytes {
		return Message{}, &toolnexus.PartTooLargeError{Limit: maxBytes, Size: int64(len(data)), Document: true}
	}
	if !jsonscan.Valid(data) {
		return Message{}, fmt.Errorf("%w: %s is not JSON", toolnexus.ErrInvalidJSON, what)
	}
	return message(what, bytes.Clone(bytes.Trim(data, jsonscan.Space)), withRole)
}

// role returns the "role" of a message's members, when it is a string;
// else "".
func role(members map[string]json.RawMessage) string {
	r := members["role"]
	if len(r) == 0 || r[0] != '"' {
		return ""
	}
	return text(r)
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
	if err != nil {
		return ""
	}
	return role(members)
}

// Roles returns messages as a conversation shows them, by their roles
// only, for their content may hold a part's base64: ["user" "assistant"].
func Roles(roles []string) string {
	quoted := make([]string, len(roles))
	for i, r := range roles {
		quoted[i] = msg.Quote(r)
	}
	return "[" + strings.Join(quoted, " ") + "]"
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
// tools, as [park.Resume] does, and returns the turn to keep
// parked (the zero Turn once every call has finished) and what answers
// it, made by send once it is complete.
func Resume[M any](ctx context.Context, parked toolnexus.Turn, a toolnexus.Answer, tools map[string]toolnexus.Tool,
	send func(toolnexus.Turn) ([]M, error)) (toolnexus.Turn, []M, error) {
	turn, err := park.Resume(ctx, tools, parked, a)
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
// their roles, and [Turn], whose calls must be those that read finds in
// the last message ([Check]).
func Conversation(data []byte, maxBytes int64, read func([]byte) ([]toolnexus.ToolCall, error)) ([]Message, toolnexus.Turn, error) {
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
	if err := Check(turn, Last(msgs), read); err != nil {
		return nil, toolnexus.Turn{}, err
	}
	return msgs, turn, nil
}

// Last returns the JSON of the last of msgs; nil when there are none.
func Last(msgs []Message) []byte {
	if len(msgs) == 0 {
		return nil
	}
	return msgs[len(msgs)-1].raw
}

// ResumeTurn reads stored, the JSON of a parked turn a host stored apart,
// as [toolnexus.ParseTurn] reads it (no size limit: it is the host's own
// store), checks it against last, the stored JSON of the model's message
// whose calls it holds, read with read ([Check]), and resumes it with a
// and tools, as [park.Resume] does. A turn that disagrees runs
// nothing.
func ResumeTurn(ctx context.Context, stored, last []byte, read func([]byte) ([]toolnexus.ToolCall, error), a toolnexus.Answer, tools map[string]toolnexus.Tool) (toolnexus.Turn, error) {
	turn, err := toolnexus.ParseTurn(stored, 0)
	if err != nil {
		return toolnexus.Turn{}, err
	}
	if err := Check(turn, last, read); err != nil {
		return toolnexus.Turn{}, err
	}
	return park.Resume(ctx, tools, turn, a)
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
