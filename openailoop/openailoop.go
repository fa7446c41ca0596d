// Package openailoop runs toolnexus tools in an agent loop written with the
// OpenAI Go SDK, on Chat Completions and on Responses. A [ChatConversation]
// holds the messages and a [ResponsesConversation] the previous response's
// id and the input to send, in the SDK's own param types, each with the
// turn parked while a call waits for a person: their Run methods take the
// model's reply, a *openai.ChatCompletion or a *responses.Response, run the
// tools it calls and give what answers them, or park the turn; a
// conversation marshals to the one value a host stores, and
// [ResumeChatConversation] and [ResumeResponsesConversation], in this
// process or another, read it back with the person's answer. [RunChat],
// [ResumeChat], [RunResponses] and [ResumeResponses] are the same steps
// for a host that stores the turn (a toolnexus.Turn) apart.
//
// Only function calls run toolnexus tools, whose arguments are a JSON
// object: a custom tool call, whose input is free text, is not one, and
// the host answers it itself. It is tested with openai-go v3.103.0.
package openailoop

import (
	"context"

	"github.com/toolnexus-go/toolnexus"
)

// resume reads stored, the JSON of a turn, records a and runs its call
// again, as ResumeChat and ResumeResponses document.
func resume(ctx context.Context, stored []byte, a toolnexus.Answer, tools map[string]toolnexus.Tool) (toolnexus.Turn, error) {
	turn, err := toolnexus.ParseTurn(stored, 0)
	if err != nil {
		return toolnexus.Turn{}, err
	}
	return turn.Resume(ctx, tools, a)
}

// answer appends to msgs what answers turn, made by send, when it has calls
// and all are done.
func answer[M any](turn toolnexus.Turn, send func(toolnexus.Turn) ([]M, error), msgs ...M) (toolnexus.Turn, []M, error) {
	if len(turn.Calls) == 0 || !turn.Complete() {
		return turn, msgs, nil
	}
	more, err := send(turn)
	if err != nil {
		return turn, nil, err
	}
	return turn, append(msgs, more...), nil
}
