package openailoop

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/park"
)

// ChatCalls returns the calls c asks for: the function tool calls of its
// first choice's message, in order, each with its id, function name and
// arguments (the JSON its arguments string holds, as the model wrote it).
func ChatCalls(c *openai.ChatCompletion) []toolnexus.ToolCall {
	if c == nil || len(c.Choices) == 0 {
		return nil
	}
	var calls []toolnexus.ToolCall
	for _, tc := range c.Choices[0].Message.ToolCalls {
		if f, ok := tc.AsAny().(openai.ChatCompletionMessageFunctionToolCall); ok {
			calls = append(calls, toolnexus.ToolCall{ID: f.ID, Name: f.Function.Name, Arguments: []byte(f.Function.Arguments)})
		}
	}
	return calls
}

// RunChat runs the tools that c, the model's reply, calls, with tools, as
// [park.RunTurn] runs them: an unknown tool, arguments that are not a
// JSON object (a model's arguments string may hold anything) and a tool
// that panics are error results the model reads. It returns the turn and
// the messages to append to the conversation: c's first choice's message,
// as its param, and, when every call has finished, the messages that
// answer them ([ChatMessages]), to send next.
//
// A reply without function calls gives the zero Turn: the model is done.
// A turn that waits ([toolnexus.Turn.Complete] is false) gives no answer
// yet: store the turn (its JSON) with the conversation, and hand it to
// [ResumeChat] with the person's answer. Calls that are no turn (two with
// one id) report [toolnexus.ErrInvalidTurn], with no message.
func RunChat(ctx context.Context, c *openai.ChatCompletion, tools map[string]toolnexus.Tool) (toolnexus.Turn, []openai.ChatCompletionMessageParamUnion, error) {
	turn, err := park.RunTurn(ctx, tools, ChatCalls(c)...)
	if err != nil || c == nil || len(c.Choices) == 0 {
		return toolnexus.Turn{}, nil, err
	}
	return answer(turn, ChatMessages, c.Choices[0].Message.ToParam())
}

// ResumeChat reads turn, the JSON of a turn that [RunChat] or ResumeChat
// returned, as [toolnexus.ParseTurn] reads it (exact keys, validated; no
// size limit, for it is the host's own store), and last, the JSON of the
// model's message whose tool calls made its calls (the message RunChat
// returned first, as the host stored it); it records a, the person's
// answer to a request the turn waits on, and runs that call again, as
// [park.Resume] does: an unknown, finished or expired request is
// an error, and nothing runs. A turn whose calls are not last's function
// tool calls, in their order, with their ids, functions and arguments
// (other arguments by value, another function or id, a call too many or
// too few), reports [ErrTurnMismatch], and nothing runs either.
//
// It returns the turn and, once every call has finished, the messages that
// answer them, to append to the stored conversation and send; a turn that
// still waits gives none, and is to be stored again. It reads nothing but
// the turn and the one message: a host that stores each message on its
// own (read back with [ParseChatMessage]) and the turn apart resumes a
// conversation at the same cost whatever its length.
func ResumeChat(ctx context.Context, turn, last []byte, a toolnexus.Answer, tools map[string]toolnexus.Tool) (toolnexus.Turn, []openai.ChatCompletionMessageParamUnion, error) {
	t, err := loopstore.ResumeTurn(ctx, turn, last, loopstore.ChatCalls, a, tools)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	return answer(t, ChatMessages)
}

// ParseChatMessage reads data, the JSON of one message of a conversation
// that a host stored on its own, as [ParseChatConversation] reads each
// message: data longer than maxBytes is refused with a
// *[toolnexus.PartTooLargeError] (zero or less: no limit), and data that
// is not a JSON object with unique keys and a "role"
// ([toolnexus.ErrInvalidJSON], [toolnexus.ErrDuplicateKey]). The message
// is sent as it was stored (param.Override), byte for byte.
func ParseChatMessage(data []byte, maxBytes int64) (openai.ChatCompletionMessageParamUnion, error) {
	m, err := loopstore.One("the stored message", data, maxBytes, true)
	if err != nil {
		return openai.ChatCompletionMessageParamUnion{}, err
	}
	return param.Override[openai.ChatCompletionMessageParamUnion](m.Raw()), nil
}

// ChatMessages returns the messages that answer the turn's tool calls,
// [toolnexus.Turn.OpenAIChatMessages] (a role "tool" message per call,
// then one role "user" message with the media of them all), each as the
// SDK's message param: sent as it is (param.Override), with no JSON round
// trip. A turn that still waits reports [toolnexus.ErrIncompleteTurn].
func ChatMessages(t toolnexus.Turn) ([]openai.ChatCompletionMessageParamUnion, error) {
	msgs, err := t.OpenAIChatMessages()
	if err != nil {
		return nil, err
	}
	out := make([]openai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		out[i] = param.Override[openai.ChatCompletionMessageParamUnion](m)
	}
	return out, nil
}
