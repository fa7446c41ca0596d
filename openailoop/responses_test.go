package openailoop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

const (
	responsesCallsJSON = `{"id":"resp_01","object":"response","created_at":0,"model":"gpt-5.5","status":"completed","output":[` +
		`{"type":"function_call","id":"fc_01","call_id":"call_01","name":"screenshot","arguments":"{}","status":"completed"},` +
		`{"type":"function_call","id":"fc_02","call_id":"call_02","name":"deploy","arguments":"{\"env\":\"prod\"}","status":"completed"}]}`
	responsesDoneJSON = `{"id":"resp_02","object":"response","created_at":0,"model":"gpt-5.5","status":"completed","output":[` +
		`{"type":"message","id":"msg_01","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Deployed.","annotations":[]}]}]}`
	responsesToolsJSON = `"tools":[{"strict":false,"parameters":{"properties":{},"type":"object"},"name":"screenshot","type":"function"},` +
		`{"strict":false,"parameters":{"properties":{"env":{"type":"string"}},"required":["env"],"type":"object"},"name":"deploy","type":"function"}]`
)

// responsesExchanges are the requests of the example, as the SDK sends
// them.
var responsesExchanges = []looptest.Exchange{
	{Path: "/responses", Want: `{"input":[{"content":"Show me the screen, then deploy to prod.","role":"user"}],"model":"gpt-5.5",` + responsesToolsJSON + `}`, Reply: responsesCallsJSON},
	{Path: "/responses", Want: `{"previous_response_id":"resp_01","input":[` +
		`{"type":"function_call_output","call_id":"call_01","output":[{"type":"input_text","text":"fixture.png (image/png, 82 bytes)"},` +
		`{"type":"input_image","image_url":"data:image/png;base64,` + looptest.GoldenPNG("../testdata") + `"}]},` +
		`{"type":"function_call_output","call_id":"call_02","output":"deployed to prod"}],` +
		`"model":"gpt-5.5",` + responsesToolsJSON + `}`, Reply: responsesDoneJSON},
}

func TestResponsesCalls(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []toolnexus.ToolCall{
		{ID: "call_01", Name: "screenshot", Arguments: []byte(`{}`)},
		{ID: "call_02", Name: "deploy", Arguments: []byte(`{"env":"prod"}`)},
	}, openailoop.ResponsesCalls(decode[responses.Response](t, responsesCallsJSON)))
	assert.Empty(t, openailoop.ResponsesCalls(decode[responses.Response](t, responsesDoneJSON)))
	assert.Empty(t, openailoop.ResponsesCalls(nil))
}

func TestRunResponses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	turn, input, err := openailoop.RunResponses(ctx, decode[responses.Response](t, responsesDoneJSON), tools)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Turn{}, turn, "no function call: the model is done")
	assert.Empty(t, input)

	turn, input, err = openailoop.RunResponses(ctx, decode[responses.Response](t, responsesCallsJSON), tools)
	require.NoError(t, err)
	assert.False(t, turn.Complete())
	assert.Empty(t, input, "nothing to send while a call waits")
	_, err = openailoop.ResponsesInput(turn)
	assert.ErrorIs(t, err, toolnexus.ErrIncompleteTurn)

	hostile := `{"id":"resp_03","object":"response","created_at":0,"model":"gpt-5.5","status":"completed","output":[` +
		`{"type":"function_call","call_id":"call_01","name":"rm -rf","arguments":"{}"},` +
		`{"type":"function_call","call_id":"call_02","name":"deploy","arguments":"{\"env\": prod}"},` +
		`{"type":"function_call","call_id":"call_03","name":"deploy","arguments":"[\"prod\"]"}]}`
	turn, input, err = openailoop.RunResponses(ctx, decode[responses.Response](t, hostile), tools)
	hostileCalls(t, turn, err)
	require.Len(t, input, 3)
	assert.Equal(t, `{"type":"function_call_output","call_id":"call_02","output":"toolnexus: arguments of \"deploy\" are not JSON: invalid character 'p' looking for beginning of value"}`,
		mustJSON(t, input[1]))

	twice := `{"id":"resp_04","object":"response","created_at":0,"model":"gpt-5.5","status":"completed","output":[` +
		`{"type":"function_call","call_id":"call_01","name":"screenshot","arguments":"{}"},{"type":"function_call","call_id":"call_01","name":"screenshot","arguments":"{}"}]}`
	_, input, err = openailoop.RunResponses(ctx, decode[responses.Response](t, twice), tools)
	assert.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
	assert.Empty(t, input)
}

func TestResumeResponses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reply := decode[responses.Response](t, responsesCallsJSON)
	parked, _, err := openailoop.RunResponses(ctx, reply, tools)
	require.NoError(t, err)
	req := parked.Waiting()[0].Request
	stored := []byte(mustJSON(t, parked))
	calls := []byte(mustJSON(t, openailoop.ResponsesCallItems(reply)))

	turn, input, err := openailoop.ResumeResponses(ctx, stored, calls, req.Decline(toolnexus.ReasonDeclined), tools)
	require.NoError(t, err)
	assert.Equal(t, "deploy to prod declined", turn.Calls[1].Result.Output)
	want, err := turn.OpenAIResponsesInput()
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, want), mustJSON(t, input), "the turn's items, as they are")

	_, input, err = openailoop.ResumeResponses(ctx, stored, calls, toolnexus.Answer{ID: "pnd-other", OK: true}, tools)
	assert.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	assert.Empty(t, input)
	_, _, err = openailoop.ResumeResponses(ctx, []byte(`{"calls":`), calls, req.Resolve(nil), tools)
	assert.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
	_, input, err = openailoop.ResumeResponses(ctx, []byte(strings.Replace(string(stored), `"env":"prod"`, `"env":"dev"`, 1)), calls, req.Resolve(nil), tools)
	assert.ErrorIs(t, err, openailoop.ErrTurnMismatch, "other arguments")
	assert.Empty(t, input)
	_, input, err = openailoop.ResumeResponses(ctx, stored, []byte(`[]`), req.Resolve(nil), tools)
	assert.ErrorIs(t, err, openailoop.ErrTurnMismatch, "calls the model did not make")
	assert.Empty(t, input)
	assert.Equal(t, `[{"arguments":"{}","call_id":"call_01","name":"screenshot","type":"function_call"},`+
		`{"arguments":"{\"env\":\"prod\"}","call_id":"call_02","name":"deploy","type":"function_call"}]`, string(calls))
	assert.Empty(t, openailoop.ResponsesCallItems(nil))
}
