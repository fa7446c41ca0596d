package openailoop

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// ErrNoReply reports a reply without a message given to
// [ChatConversation.Run] (nil, or a chat completion without a choice) or
// [ResponsesConversation.Run] (nil): running it would leave the
// conversation as it was, for a loop to send again.
var ErrNoReply = loopstore.ErrNoReply

// ChatConversation is a Chat Completions conversation whose function calls
// run toolnexus tools: Messages, what was said so far, in the SDK's message
// param, and Turn, the turn of calls parked while one of them waits for a
// person (the zero Turn while none waits). It is what a host stores
// between the question and the answer: encoding/json marshals it to one
// JSON value, {"messages":[…],"turn":{…}} ("turn" only while parked), which
// [ParseChatConversation] reads back in any process.
//
// A conversation starts with the user's message (and any system or
// developer message before it). A loop sends it while it is
// [ChatConversation.Ready], with [ChatConversation.Params], and hands each
// reply to [ChatConversation.Run]; a parked one goes on with
// [ChatConversation.Resume] and the person's answer. A ChatConversation is
// a value: its methods never change it, and the copy they return shares no
// array they append to. The zero ChatConversation has no messages and is
// not ready. It prints and logs its messages by their roles only, and its
// turn without payload.
//
// The one value grows with the conversation, and so does storing it. A
// host that stores each message on its own and the turn apart appends, at
// each step, the messages past the old ones (their JSON), and replaces the
// turn, or deletes it once none is parked; it resumes with [ResumeChat],
// from the turn and the model's message alone, and reads the messages back
// with [ParseChatMessage] to send them: a turn costs the same at 10
// messages as at 1,000, and the request is the same, byte for byte.
type ChatConversation struct {
	Messages []openai.ChatCompletionMessageParamUnion `json:"messages"`
	Turn     toolnexus.Turn                           `json:"turn,omitzero"`
}

// Ready reports whether c is for the model to read: no turn is parked and
// its last message is not the model's, but the user's, or those that
// answer the model's calls. A loop sends c while it is ready.
func (c ChatConversation) Ready() bool {
	return len(c.Turn.Calls) == 0 && len(c.Messages) > 0 && chatRole(c.Messages[len(c.Messages)-1]) != "assistant"
}

// Params returns p, the request's model, tools and other options, with c's
// messages: the request that sends c.
func (c ChatConversation) Params(p openai.ChatCompletionNewParams) openai.ChatCompletionNewParams {
	p.Messages = c.Messages
	return p
}

// Run returns c after cc, the model's reply to it: the message of its
// first choice is appended, and the tools its function calls name run
// with tools, as [RunChat] runs them (an unknown tool, arguments that are
// not a JSON object and a tool that panics are error results the model
// reads). When every call has finished, the messages that answer them
// follow (a role "tool" message per call, then one role "user" message
// with their media), and the conversation is ready to send again; when
// one waits for a person, the turn is parked in Turn: store the
// conversation, and go on with [ChatConversation.Resume]. A reply that
// calls no function is the model's last word: the conversation ends in
// it, not ready.
//
// A nil cc, or one without a choice, reports [ErrNoReply], a c whose turn
// is parked [toolnexus.ErrIncompleteTurn], and calls that are no turn (two
// with one id) [toolnexus.ErrInvalidTurn]; on error, c is returned as it
// was.
func (c ChatConversation) Run(ctx context.Context, cc *openai.ChatCompletion, tools map[string]toolnexus.Tool) (ChatConversation, error) {
	if err := loopstore.Runnable(c.Turn, cc == nil || len(cc.Choices) == 0); err != nil {
		return c, err
	}
	turn, more, err := RunChat(ctx, cc, tools)
	if err != nil {
		return c, err
	}
	return ChatConversation{Messages: loopstore.Append(c.Messages, more...), Turn: loopstore.Park(turn)}, nil
}

// Resume returns c after a, a person's answer to a request its parked turn
// waits on: the call that waits on it runs again with tools, as
// [park.Resume] runs it (an unknown, finished or expired request
// is an error, and nothing runs). Once every call of the turn has
// finished, the messages that answer them are appended, the turn is no
// longer parked and c is ready to send; a turn that still waits stays
// parked, to be stored again. A turn whose calls are not the function
// tool calls of c's last message, the model's, reports [ErrTurnMismatch],
// and nothing runs. On error, c is returned as it was.
func (c ChatConversation) Resume(ctx context.Context, a toolnexus.Answer, tools map[string]toolnexus.Tool) (ChatConversation, error) {
	if err := loopstore.CheckLast(c.Turn, c.Messages, loopstore.ChatCalls); err != nil {
		return c, err
	}
	turn, more, err := loopstore.Resume(ctx, c.Turn, a, tools, ChatMessages)
	if err != nil {
		return c, err
	}
	return ChatConversation{Messages: loopstore.Append(c.Messages, more...), Turn: turn}, nil
}

// ParseChatConversation reads data, the JSON of a [ChatConversation] a
// host stored, in this process or another, as [toolnexus.ParseTurn] reads
// a turn: data longer than maxBytes is refused with a
// *[toolnexus.PartTooLargeError] before any of it is read (zero or less
// means no limit); keys are exact, "messages" and "turn", and one that is
// unknown or repeated is refused ([toolnexus.ErrInvalidJSON],
// [toolnexus.ErrDuplicateKey]), as is a message that is not a JSON object
// with a "role"; the turn must pass [toolnexus.ParseTurn] and wait on a
// request ([toolnexus.ErrInvalidTurn]), and its calls must be the function
// tool calls of the last message, the model's ([ErrTurnMismatch]).
//
// Each message is kept as the JSON it was stored as, and sent as it is
// (param.Override): the request the conversation makes is the one the
// process that stored it would have made, byte for byte, whatever the
// SDK's message param would make of the JSON.
func ParseChatConversation(data []byte, maxBytes int64) (ChatConversation, error) {
	stored, turn, err := loopstore.Conversation(data, maxBytes, loopstore.ChatCalls)
	if err != nil {
		return ChatConversation{}, err
	}
	return ChatConversation{Messages: loopstore.Params(stored, param.Override[openai.ChatCompletionMessageParamUnion]), Turn: turn}, nil
}

// ResumeChatConversation reads stored, the JSON of a parked
// [ChatConversation], with [ParseChatConversation] and maxBytes, and
// resumes it with a, as [ChatConversation.Resume] does: what another
// process does with a person's answer, before it sends the conversation
// on while it is ready.
// A refused answer gives the conversation as it was stored, and the error.
func ResumeChatConversation(ctx context.Context, stored []byte, maxBytes int64, a toolnexus.Answer, tools map[string]toolnexus.Tool) (ChatConversation, error) {
	c, err := ParseChatConversation(stored, maxBytes)
	if err != nil {
		return ChatConversation{}, err
	}
	return c.Resume(ctx, a, tools)
}

// chatRole returns the role of m: that of its variant (whose Role field
// may be left empty, for the SDK sends its constant), that of the message it was made
// from (a toolnexus message, or one read back from storage), or the one
// its JSON names.
func chatRole(m openai.ChatCompletionMessageParamUnion) string {
	v, ok := m.Overrides()
	if !ok {
		switch {
		case m.OfDeveloper != nil:
			return "developer"
		case m.OfSystem != nil:
			return "system"
		case m.OfUser != nil:
			return "user"
		case m.OfAssistant != nil:
			return "assistant"
		case m.OfTool != nil:
			return "tool"
		case m.OfFunction != nil:
			return "function"
		}
		return ""
	}
	switch v := v.(type) {
	case toolnexus.OpenAIChatMessage:
		return v.Role
	}
	return loopstore.Role(v)
}

// roles returns the roles of c's messages.
func (c ChatConversation) roles() []string {
	roles := make([]string, len(c.Messages))
	for i, m := range c.Messages {
		roles[i] = chatRole(m)
	}
	return roles
}

// String returns c without payload, for %v: its messages by their roles,
// and its turn as [toolnexus.Turn.String] shows it.
func (c ChatConversation) String() string {
	return "{Messages:" + loopstore.Roles(c.roles()) + " Turn:" + c.Turn.String() + "}"
}

// GoString returns c in Go syntax without payload, for %#v.
func (c ChatConversation) GoString() string {
	return "openailoop.ChatConversation{Messages:[]openai.ChatCompletionMessageParamUnion" + loopstore.Roles(c.roles()) +
		", Turn:" + c.Turn.GoString() + "}"
}

// Format prints c for every verb without payload, as
// [ChatConversation.String] (%#v: [ChatConversation.GoString]).
func (c ChatConversation) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as the number and roles of
// its messages and its turn, without payload.
func (c ChatConversation) LogValue() slog.Value {
	return slog.GroupValue(slog.String("messages", strconv.Itoa(len(c.Messages))+" "+loopstore.Roles(c.roles())),
		slog.Any("turn", c.Turn))
}
