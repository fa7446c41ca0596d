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
// for a host that stores the turn (a toolnexus.Turn) apart, and each
// message on its own, so that a turn costs the same whatever the
// conversation's length. Either way, a stored turn runs only the calls
// the model made.
//
// Only function calls run toolnexus tools, whose arguments are a JSON
// object: a custom tool call, whose input is free text, is not one, and
// the host answers it itself.
//
// The tools run through the park.Runner of the context (park.NewContext),
// or the zero Runner: a parked call is answered once, and a conversation
// read back and resumed twice runs its tool once. Processes that resume
// each other's conversations share one Store:
// ctx = park.NewContext(ctx, park.Runner{Store: redisStore}). Tested with
// openai-go v3.103.0.
package openailoop

import (
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
)

// ErrTurnMismatch reports a parked turn whose calls are not the function
// calls of the model's last message or response: another id, function or
// arguments, a call the model did not make, or one it made that the turn
// lacks. Nothing runs. It matches [toolnexus.ErrInvalidTurn] too.
var ErrTurnMismatch = loopstore.ErrTurnMismatch

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
