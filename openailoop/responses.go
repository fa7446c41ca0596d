package openailoop

import (
	"context"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/park"
)

// ResponsesCalls returns the calls r asks for: its function_call output
// items, in order, each with its call_id, function name and arguments
// (the JSON its arguments string holds, as the model wrote it).
func ResponsesCalls(r *responses.Response) []toolnexus.ToolCall {
	if r == nil {
		return nil
	}
	var calls []toolnexus.ToolCall
	for _, item := range r.Output {
		if f, ok := item.AsAny().(responses.ResponseFunctionToolCall); ok {
			calls = append(calls, toolnexus.ToolCall{ID: f.CallID, Name: f.Name, Arguments: []byte(f.Arguments)})
		}
	}
	return calls
}

// RunResponses runs the tools that r, the model's response, calls, with
// tools, as [park.RunTurn] runs them: an unknown tool, arguments that
// are not a JSON object and a tool that panics are error results the
// model reads. It returns the turn and, when every call has finished, the
// function_call_output items that answer them ([ResponsesInput]): the
// input of the next request, whose PreviousResponseID is r's ID.
//
// A response without function calls gives the zero Turn: the model is
// done. A turn that waits ([toolnexus.Turn.Complete] is false) gives no
// input yet: store the turn (its JSON) with r's ID and r's function_call
// items ([ResponsesCallItems]), and hand them to [ResumeResponses] with
// the person's answer. Calls that are no turn (two
// with one call_id) report [toolnexus.ErrInvalidTurn].
func RunResponses(ctx context.Context, r *responses.Response, tools map[string]toolnexus.Tool) (toolnexus.Turn, []responses.ResponseInputItemUnionParam, error) {
	turn, err := park.RunTurn(ctx, tools, ResponsesCalls(r)...)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	return answer(turn, ResponsesInput)
}

// ResumeResponses reads turn, the JSON of a turn that [RunResponses] or
// ResumeResponses returned, as [toolnexus.ParseTurn] reads it (exact
// keys, validated; no size limit, for it is the host's own store), and
// calls, the JSON of the model's function_call items whose calls it holds
// (a JSON array of output items, such as [ResponsesCallItems] gives, as
// the host stored them); it records a, the person's answer to a request
// the turn waits on, and runs that call again, as [park.Resume]
// does: an unknown, finished or expired request is an error, and nothing
// runs. A turn whose calls are not the function_call items, in their
// order, with their call_ids, functions and arguments (other arguments by
// value, another function or call_id, a call too many or too few),
// reports [ErrTurnMismatch], and nothing runs either.
//
// It returns the turn and, once every call has finished, the input of the
// next request, whose PreviousResponseID is the ID stored with the turn; a
// turn that still waits gives none, and is to be stored again.
func ResumeResponses(ctx context.Context, turn, calls []byte, a toolnexus.Answer, tools map[string]toolnexus.Tool) (toolnexus.Turn, []responses.ResponseInputItemUnionParam, error) {
	t, err := loopstore.ResumeTurn(ctx, turn, calls, loopstore.ResponsesCalls, a, tools)
	if err != nil {
		return toolnexus.Turn{}, nil, err
	}
	return answer(t, ResponsesInput)
}

// ResponsesCallItems returns r's function_call output items, in order, as
// input item params, each with its call_id, name and arguments: what a
// parked turn of r is checked against. A host that stores the turn apart
// stores their JSON with it, for [ResumeResponses].
func ResponsesCallItems(r *responses.Response) []responses.ResponseInputItemUnionParam {
	if r == nil {
		return nil
	}
	var items []responses.ResponseInputItemUnionParam
	for _, item := range r.Output {
		if f, ok := item.AsAny().(responses.ResponseFunctionToolCall); ok {
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(f.Arguments, f.CallID, f.Name))
		}
	}
	return items
}

// ResponsesInput returns the function_call_output items that answer the
// turn's function calls, [toolnexus.Turn.OpenAIResponsesInput], each as
// the SDK's input item param: sent as it is (param.Override), with no JSON
// round trip. A turn that still waits reports
// [toolnexus.ErrIncompleteTurn].
func ResponsesInput(t toolnexus.Turn) ([]responses.ResponseInputItemUnionParam, error) {
	items, err := t.OpenAIResponsesInput()
	if err != nil {
		return nil, err
	}
	out := make([]responses.ResponseInputItemUnionParam, len(items))
	for i, item := range items {
		out[i] = param.Override[responses.ResponseInputItemUnionParam](item)
	}
	return out, nil
}
