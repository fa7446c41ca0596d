// Package anthropicloop runs toolnexus tools in an agent loop written with
// the Anthropic Go SDK. A [Conversation] holds the messages, in the SDK's
// own MessageParam, and the turn parked while a call waits for a person:
// [Conversation.Run] takes the model's reply, a *anthropic.Message, runs
// the tools its tool_use blocks call and appends the user message that
// answers them, or parks the turn; the conversation marshals to the one
// value a host stores, and [ResumeConversation], in this process or
// another, reads it back with the person's answer. [Run], [Resume] and
// [Message] are the same steps for a host that stores the turn (a
// toolnexus.Turn) and the messages apart. It is tested with
// anthropic-sdk-go v2.17.0.
package anthropicloop

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/toolnexus-go/toolnexus"
)

// Calls returns the calls m asks for: one for each tool_use block of its
// content, in order, with the block's id, tool name and input as the
// arguments. Other blocks (text, thinking, server tools) are not calls.
func Calls(m *anthropic.Message) []toolnexus.ToolCall {
	if m == nil {
		return nil
	}
	var calls []toolnexus.ToolCall
	for _, b := range m.Content {
		if u, ok := b.AsAny().(anthropic.ToolUseBlock); ok {
			calls = append(calls, toolnexus.ToolCall{ID: u.ID, Name: u.Name, Arguments: u.Input})
		}
	}
	return calls
}

// Run runs the tools that m, the model's reply, calls, with tools, as
// [toolnexus.RunTurn] runs them: an unknown tool, arguments that are not a
// JSON object and a tool that panics are error results the model reads.
// It returns the turn and the messages to append to the conversation: m
// itself, as its MessageParam, and, when every call has finished, the user
// message that answers them ([Message]), to send next.
//
// A reply without tool_use blocks gives the zero Turn: the model is done.
// A turn that waits ([toolnexus.Turn.Complete] is false) gives no answer
// yet: store the turn (its JSON) with the conversation, and hand it to
// [Resume] with the person's answer. Calls that are no turn (two with one
// id) report [toolnexus.ErrInvalidTurn], with no message.
func Run(ctx context.Context, m *anthropic.Message, tools map[string]toolnexus.Tool) (toolnexus.Turn, []anthropic.MessageParam, error) {
	turn, err := toolnexus.RunTurn(ctx, tools, Calls(m)...)
	if err != nil || m == nil {
		return toolnexus.Turn{}, nil, err
	}
	return reply(turn, m.ToParam())
}

// Resume reads stored, the JSON of a turn that [Run] or Resume returned,
// as [toolnexus.ParseTurn] reads it (exact keys, validated; no size limit,
// for it is the host's own store), records a, the person's answer to a
// request it waits on, and runs that call again, as
// [toolnexus.Turn.Resume] does: an unknown, finished or expired request is
// an error, and nothing runs. It returns the turn and, once every call has
// finished, the user message that answers them, to append to the stored
// conversation and send; a turn that still waits gives none, and is to be
// stored again.
func Resume(ctx context.Context, stored []byte, a toolnexus.Answer, tools map[string]toolnexus.Tool) (toolnexus.Turn, []anthropic.MessageParam, error) {
	turn, err := toolnexus.ParseTurn(stored, 0)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	if turn, err = turn.Resume(ctx, tools, a); err != nil {
		return toolnexus.Turn{}, nil, err
	}
	return reply(turn)
}

// reply returns turn and msgs, followed by the turn's message when it has
// calls and all are done.
func reply(turn toolnexus.Turn, msgs ...anthropic.MessageParam) (toolnexus.Turn, []anthropic.MessageParam, error) {
	if len(turn.Calls) == 0 || !turn.Complete() {
		return turn, msgs, nil
	}
	msg, err := Message(turn)
	if err != nil {
		return turn, nil, err
	}
	return turn, append(msgs, msg), nil
}

// Message returns the user message that answers the turn's tool_use
// blocks, [toolnexus.Turn.AnthropicMessage], as the SDK's MessageParam: it
// is sent as it is (param.Override), with no JSON round trip. A turn that
// still waits reports [toolnexus.ErrIncompleteTurn].
func Message(t toolnexus.Turn) (anthropic.MessageParam, error) {
	m, err := t.AnthropicMessage()
	if err != nil {
		return anthropic.MessageParam{}, err
	}
	return param.Override[anthropic.MessageParam](m), nil
}
