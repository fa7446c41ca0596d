package anthropicloop

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// ErrNoReply reports a nil reply given to [Conversation.Run]: running it
// would leave the conversation as it was, for a loop to send again.
var ErrNoReply = loopstore.ErrNoReply

// ErrTurnMismatch reports a parked turn whose calls are not the tool_use
// blocks of the model's last message: another id, tool or input, a call
// the model did not make, or one it made that the turn lacks. Nothing
// runs. It matches [toolnexus.ErrInvalidTurn] too.
var ErrTurnMismatch = loopstore.ErrTurnMismatch

// Conversation is an Anthropic conversation whose tool calls run toolnexus
// tools: Messages, what was said so far, in the SDK's MessageParam, and
// Turn, the turn of calls parked while one of them waits for a person (the
// zero Turn while none waits). It is what a host stores between the
// question and the answer: encoding/json marshals it to one JSON value,
// {"messages":[…],"turn":{…}} ("turn" only while parked), which
// [ParseConversation] reads back in any process.
//
// A conversation starts with the user's message. A loop sends it while it
// is [Conversation.Ready], with [Conversation.Params], and hands each reply
// to [Conversation.Run]; a parked one goes on with [Conversation.Resume]
// and the person's answer. A Conversation is a value: its methods never
// change it, and the copy they return shares no array they append to. The
// zero Conversation has no messages and is not ready. It prints and logs
// its messages by their roles only, and its turn without payload.
//
// The one value grows with the conversation, and so does storing it. A
// host that stores each message on its own and the turn apart appends, at
// each step, the messages past the old ones (their JSON), and replaces the
// turn, or deletes it once none is parked; it resumes with [Resume], from
// the turn and the model's message alone, and reads the messages back
// with [ParseMessage] to send them: a turn costs the same at 10 messages
// as at 1,000, and the request is the same, byte for byte.
type Conversation struct {
	Messages []anthropic.MessageParam `json:"messages"`
	Turn     toolnexus.Turn           `json:"turn,omitzero"`
}

// Ready reports whether c is for the model to read: no turn is parked and
// its last message is not the model's, but the user's, or the one that
// answers the model's calls. A loop sends c while it is ready.
func (c Conversation) Ready() bool {
	return len(c.Turn.Calls) == 0 && len(c.Messages) > 0 &&
		role(c.Messages[len(c.Messages)-1]) != "assistant"
}

// Params returns p, the request's model, tools and other options, with c's
// messages: the request that sends c.
func (c Conversation) Params(p anthropic.MessageNewParams) anthropic.MessageNewParams {
	p.Messages = c.Messages
	return p
}

// Run returns c after m, the model's reply to it: m is appended, and the
// tools its tool_use blocks call run with tools, as [Run] runs them (an
// unknown tool, input that is not a JSON object and a tool that panics are
// error results the model reads). When every call has finished, the user
// message that answers them follows m, and the conversation is ready to
// send again; when one waits for a person, the turn is parked in Turn:
// store the conversation, and go on with [Conversation.Resume]. A reply
// that calls no tool is the model's last word: the conversation ends in
// it, not ready.
//
// A nil m reports [ErrNoReply], a c whose turn is parked
// [toolnexus.ErrIncompleteTurn], and calls that are no turn (two with one
// id) [toolnexus.ErrInvalidTurn]; on error, c is returned as it was.
func (c Conversation) Run(ctx context.Context, m *anthropic.Message, tools map[string]toolnexus.Tool) (Conversation, error) {
	if err := loopstore.Runnable(c.Turn, m == nil); err != nil {
		return c, err
	}
	turn, more, err := Run(ctx, m, tools)
	if err != nil {
		return c, err
	}
	return Conversation{Messages: loopstore.Append(c.Messages, more...), Turn: loopstore.Park(turn)}, nil
}

// Resume returns c after a, a person's answer to a request its parked turn
// waits on: the call that waits on it runs again with tools, as
// [park.Resume] runs it (an unknown, finished or expired request
// is an error, and nothing runs). Once every call of the turn has
// finished, the user message that answers them is appended, the turn is
// no longer parked and c is ready to send; a turn that still waits stays
// parked, to be stored again. A turn whose calls are not the tool_use
// blocks of c's last message, the model's, reports [ErrTurnMismatch], and
// nothing runs. On error, c is returned as it was.
func (c Conversation) Resume(ctx context.Context, a toolnexus.Answer, tools map[string]toolnexus.Tool) (Conversation, error) {
	if err := loopstore.CheckLast(c.Turn, c.Messages, loopstore.AnthropicCalls); err != nil {
		return c, err
	}
	turn, more, err := loopstore.Resume(ctx, c.Turn, a, tools, messages)
	if err != nil {
		return c, err
	}
	return Conversation{Messages: loopstore.Append(c.Messages, more...), Turn: turn}, nil
}

// messages returns the message that answers t, as a list.
func messages(t toolnexus.Turn) ([]anthropic.MessageParam, error) {
	m, err := Message(t)
	if err != nil {
		return nil, err
	}
	return []anthropic.MessageParam{m}, nil
}

// ParseConversation reads data, the JSON of a [Conversation] a host
// stored, in this process or another, as [toolnexus.ParseTurn] reads a
// turn: data longer than maxBytes is refused with a
// *[toolnexus.PartTooLargeError] before any of it is read (zero or less
// means no limit); keys are exact, "messages" and "turn", and one that is
// unknown or repeated is refused ([toolnexus.ErrInvalidJSON],
// [toolnexus.ErrDuplicateKey]), as is a message that is not a JSON object
// with a "role"; the turn must pass [toolnexus.ParseTurn] and wait on a
// request ([toolnexus.ErrInvalidTurn]), and its calls must be the tool_use
// blocks of the last message, the model's ([ErrTurnMismatch]).
//
// Each message is kept as the JSON it was stored as, and sent as it is
// (param.Override): the request the conversation makes is the one the
// process that stored it would have made, byte for byte. The SDK's
// MessageParam does not read every message back as it was: it reorders
// the keys of a tool_use block's input and rounds its large numbers.
func ParseConversation(data []byte, maxBytes int64) (Conversation, error) {
	stored, turn, err := loopstore.Conversation(data, maxBytes, loopstore.AnthropicCalls)
	if err != nil {
		return Conversation{}, err
	}
	return Conversation{Messages: loopstore.Params(stored, param.Override[anthropic.MessageParam]), Turn: turn}, nil
}

// ResumeConversation reads stored, the JSON of a parked [Conversation],
// with [ParseConversation] and maxBytes, and resumes it with a, as
// [Conversation.Resume] does: what another process does with a person's
// answer, before it sends the conversation on while it is ready.
// A refused answer gives the conversation as it was stored, and the error.
func ResumeConversation(ctx context.Context, stored []byte, maxBytes int64, a toolnexus.Answer, tools map[string]toolnexus.Tool) (Conversation, error) {
	c, err := ParseConversation(stored, maxBytes)
	if err != nil {
		return Conversation{}, err
	}
	return c.Resume(ctx, a, tools)
}

// role returns the role of m: that of its variant (whose Role field may be
// left empty, for the SDK sends its constant), that of the message it was made
// from (a toolnexus message, or one read back from storage), or the one
// its JSON names.
func role(m anthropic.MessageParam) string {
	v, ok := m.Overrides()
	if !ok {
		switch {
		case m.OfUser != nil:
			return "user"
		case m.OfAssistant != nil:
			return "assistant"
		case m.OfSystem != nil:
			return "system"
		}
		return ""
	}
	switch v := v.(type) {
	case toolnexus.AnthropicMessage:
		return v.Role
	}
	return loopstore.Role(v)
}

// roles returns the roles of c's messages.
func (c Conversation) roles() []string {
	roles := make([]string, len(c.Messages))
	for i, m := range c.Messages {
		roles[i] = role(m)
	}
	return roles
}

// String returns c without payload, for %v: its messages by their roles,
// and its turn as [toolnexus.Turn.String] shows it.
func (c Conversation) String() string {
	return "{Messages:" + loopstore.Roles(c.roles()) + " Turn:" + c.Turn.String() + "}"
}

// GoString returns c in Go syntax without payload, for %#v.
func (c Conversation) GoString() string {
	return "anthropicloop.Conversation{Messages:[]anthropic.MessageParam" + loopstore.Roles(c.roles()) +
		", Turn:" + c.Turn.GoString() + "}"
}

// Format prints c for every verb without payload, as [Conversation.String]
// (%#v: [Conversation.GoString]).
func (c Conversation) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as the number and roles of
// its messages and its turn, without payload.
func (c Conversation) LogValue() slog.Value {
	return slog.GroupValue(slog.String("messages", strconv.Itoa(len(c.Messages))+" "+loopstore.Roles(c.roles())),
		slog.Any("turn", c.Turn))
}
