package openailoop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// ResponsesConversation is a Responses conversation whose function calls
// run toolnexus tools, kept by the API as a chain of responses:
// PreviousResponseID, the id of the model's last response ("" before the
// first), Input, the items to send after it, in the SDK's input item param,
// Turn, the turn of calls parked while one of them waits for a person (the
// zero Turn while none waits), and FunctionCalls, the last response's
// function_call items while its turn is parked, which the turn is checked
// against before any of its calls runs again. It is what a host stores
// between the question and the answer: encoding/json marshals it to one
// JSON value,
// {"previousResponseId":"…","input":[…],"turn":{…},"functionCalls":[…]}
// (each key only when it is set), which [ParseResponsesConversation] reads
// back in any process. Its size does not grow with the conversation,
// which the API keeps.
// The responses must be stored by the API (store, its default) for the
// next request to follow them.
//
// A conversation starts with the user's input. A loop sends it while it is
// [ResponsesConversation.Ready], with [ResponsesConversation.Params], and
// hands each response to [ResponsesConversation.Run]; a parked one goes on
// with [ResponsesConversation.Resume] and the person's answer. A
// ResponsesConversation is a value: its methods never change it, and the
// copy they return shares no array they append to. The zero
// ResponsesConversation has no input and is not ready. It prints and logs
// its input items by their number only, and its turn without payload.
type ResponsesConversation struct {
	PreviousResponseID string                                  `json:"previousResponseId,omitempty"`
	Input              []responses.ResponseInputItemUnionParam `json:"input,omitempty"`
	Turn               toolnexus.Turn                          `json:"turn,omitzero"`
	FunctionCalls      []responses.ResponseInputItemUnionParam `json:"functionCalls,omitempty"`
}

// Ready reports whether c is for the model to read: no turn is parked and
// it has input to send, the user's, or the function_call_output items that
// answer the model's calls. A loop sends c while it is ready.
func (c ResponsesConversation) Ready() bool {
	return len(c.Turn.Calls) == 0 && len(c.Input) > 0
}

// Params returns p, the request's model, tools and other options, with c's
// input and, after the first response, its PreviousResponseID: the request
// that sends c.
func (c ResponsesConversation) Params(p responses.ResponseNewParams) responses.ResponseNewParams {
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: c.Input}
	if c.PreviousResponseID != "" {
		p.PreviousResponseID = openai.String(c.PreviousResponseID)
	}
	return p
}

// Run returns c after r, the model's response to it: r's ID is the
// response the next request follows, the input sent is gone, and the
// tools r's function calls name run with tools, as [RunResponses] runs
// them (an unknown tool, arguments that are not a JSON object and a tool
// that panics are error results the model reads). When every call has
// finished, the function_call_output items that answer them are the input
// to send, and the conversation is ready again; when one waits for a
// person, the turn is parked in Turn: store the conversation, and go on
// with [ResponsesConversation.Resume]. A response that calls no function
// is the model's last word: the conversation has no input, and is not
// ready.
//
// A nil r reports [ErrNoReply], a c whose turn is parked
// [toolnexus.ErrIncompleteTurn], and calls that are no turn (two with one
// call_id) [toolnexus.ErrInvalidTurn]; on error, c is returned as it was.
func (c ResponsesConversation) Run(ctx context.Context, r *responses.Response, tools map[string]toolnexus.Tool) (ResponsesConversation, error) {
	if err := loopstore.Runnable(c.Turn, r == nil); err != nil {
		return c, err
	}
	turn, input, err := RunResponses(ctx, r, tools)
	if err != nil {
		return c, err
	}
	next := ResponsesConversation{PreviousResponseID: r.ID, Input: input, Turn: loopstore.Park(turn)}
	if len(next.Turn.Calls) > 0 {
		next.FunctionCalls = ResponsesCallItems(r)
	}
	return next, nil
}

// Resume returns c after a, a person's answer to a request its parked turn
// waits on: the call that waits on it runs again with tools, as
// [park.Resume] runs it (an unknown, finished or expired request
// is an error, and nothing runs). Once every call of the turn has
// finished, the function_call_output items that answer them are the input
// to send, the turn is no longer parked and c is ready; a turn that still
// waits stays parked, to be stored again. A turn whose calls are not
// FunctionCalls, the model's, reports [ErrTurnMismatch], and nothing runs.
// On error, c is returned as it was.
func (c ResponsesConversation) Resume(ctx context.Context, a toolnexus.Answer, tools map[string]toolnexus.Tool) (ResponsesConversation, error) {
	if len(c.Turn.Calls) > 0 {
		calls, err := json.Marshal(c.FunctionCalls)
		if err != nil {
			return c, fmt.Errorf("%w: the model's function calls do not marshal: %w", ErrTurnMismatch, err)
		}
		if err := loopstore.Check(c.Turn, calls, loopstore.ResponsesCalls); err != nil {
			return c, err
		}
	}
	turn, more, err := loopstore.Resume(ctx, c.Turn, a, tools, ResponsesInput)
	if err != nil {
		return c, err
	}
	next := ResponsesConversation{PreviousResponseID: c.PreviousResponseID, Input: loopstore.Append(c.Input, more...), Turn: turn}
	if len(turn.Calls) > 0 {
		next.FunctionCalls = c.FunctionCalls
	}
	return next, nil
}

// ParseResponsesConversation reads data, the JSON of a
// [ResponsesConversation] a host stored, in this process or another, as
// [toolnexus.ParseTurn] reads a turn: data longer than maxBytes is refused
// with a *[toolnexus.PartTooLargeError] before any of it is read (zero or
// less means no limit); keys are exact, "previousResponseId", "input",
// "turn" and "functionCalls", and one that is unknown or repeated is
// refused ([toolnexus.ErrInvalidJSON], [toolnexus.ErrDuplicateKey]), as is
// a previousResponseId that is not a string or an item that is not a JSON
// object; the turn must pass [toolnexus.ParseTurn] and wait on a request
// ([toolnexus.ErrInvalidTurn]), and its calls must be the function_call
// items of functionCalls ([ErrTurnMismatch]).
//
// Each input item is kept as the JSON it was stored as, and sent as it is
// (param.Override): the request the conversation makes is the one the
// process that stored it would have made, byte for byte. The SDK's input
// item param does not read every item back: a message without its "type",
// as [responses.ResponseInputItemParamOfMessage] writes it, it cannot read
// at all.
func ParseResponsesConversation(data []byte, maxBytes int64) (ResponsesConversation, error) {
	members, err := loopstore.Document("the stored conversation", data, maxBytes, "previousResponseId", "input", "turn", "functionCalls")
	if err != nil {
		return ResponsesConversation{}, err
	}
	var c ResponsesConversation
	if id, ok := members["previousResponseId"]; ok && string(id) != "null" {
		if err := json.Unmarshal(id, &c.PreviousResponseID); err != nil {
			return ResponsesConversation{}, fmt.Errorf("%w: the stored previousResponseId is not a string", toolnexus.ErrInvalidJSON)
		}
	}
	stored, err := loopstore.Messages("stored input item", members["input"], false)
	if err != nil {
		return ResponsesConversation{}, err
	}
	if c.Turn, err = loopstore.Turn(members["turn"]); err != nil {
		return ResponsesConversation{}, err
	}
	calls, err := loopstore.Messages("stored function call", members["functionCalls"], false)
	if err != nil {
		return ResponsesConversation{}, err
	}
	if err := loopstore.Check(c.Turn, members["functionCalls"], loopstore.ResponsesCalls); err != nil {
		return ResponsesConversation{}, err
	}
	c.Input = loopstore.Params(stored, param.Override[responses.ResponseInputItemUnionParam])
	c.FunctionCalls = loopstore.Params(calls, param.Override[responses.ResponseInputItemUnionParam])
	return c, nil
}

// ResumeResponsesConversation reads stored, the JSON of a parked
// [ResponsesConversation], with [ParseResponsesConversation] and maxBytes,
// and resumes it with a, as [ResponsesConversation.Resume] does: what
// another process does with a person's answer, before it sends the
// conversation on while it is ready.
// A refused answer gives the conversation as it was stored, and the error.
func ResumeResponsesConversation(ctx context.Context, stored []byte, maxBytes int64, a toolnexus.Answer, tools map[string]toolnexus.Tool) (ResponsesConversation, error) {
	c, err := ParseResponsesConversation(stored, maxBytes)
	if err != nil {
		return ResponsesConversation{}, err
	}
	return c.Resume(ctx, a, tools)
}

// String returns c without payload, for %v: its previous response's id,
// the number of its input items, its turn as [toolnexus.Turn.String]
// shows it, and the number of the model's function calls.
func (c ResponsesConversation) String() string {
	return "{PreviousResponseID:" + strconv.Quote(c.PreviousResponseID) + " Input:" + items(len(c.Input)) +
		" Turn:" + c.Turn.String() + " FunctionCalls:" + items(len(c.FunctionCalls)) + "}"
}

// GoString returns c in Go syntax without payload, for %#v.
func (c ResponsesConversation) GoString() string {
	return "openailoop.ResponsesConversation{PreviousResponseID:" + strconv.Quote(c.PreviousResponseID) +
		", Input:[]responses.ResponseInputItemUnionParam" + items(len(c.Input)) + ", Turn:" + c.Turn.GoString() +
		", FunctionCalls:[]responses.ResponseInputItemUnionParam" + items(len(c.FunctionCalls)) + "}"
}

// Format prints c for every verb without payload, as
// [ResponsesConversation.String] (%#v: [ResponsesConversation.GoString]).
func (c ResponsesConversation) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as its previous response's
// id, the number of its input items, its turn and the number of the
// model's function calls, without payload.
func (c ResponsesConversation) LogValue() slog.Value {
	return slog.GroupValue(slog.String("previousResponseId", c.PreviousResponseID), slog.Int("input", len(c.Input)),
		slog.Any("turn", c.Turn), slog.Int("functionCalls", len(c.FunctionCalls)))
}

// items shows n input items by their number: their content may hold a
// part's base64.
func items(n int) string {
	return "(" + strconv.Itoa(n) + " items)"
}
