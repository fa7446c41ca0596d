package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// responsesPrompted is a conversation of the user's input alone.
func responsesPrompted() openailoop.ResponsesConversation {
	return openailoop.ResponsesConversation{Input: []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("Show me the screen, then deploy to prod.", responses.EasyInputMessageRoleUser),
	}}
}

// responsesParked is responsesPrompted after the response
// responsesCallsJSON: the screenshot finished, the deploy waits.
func responsesParked(t testing.TB) openailoop.ResponsesConversation {
	t.Helper()
	c, err := responsesPrompted().Run(context.Background(), decode[responses.Response](t, responsesCallsJSON), tools)
	require.NoError(t, err)
	require.Len(t, c.Turn.Waiting(), 1)
	return c
}

func TestResponsesConversationRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prompted := responsesPrompted()
	assert.True(t, prompted.Ready())
	assert.False(t, openailoop.ResponsesConversation{}.Ready())
	assert.Equal(t, `{"input":[{"content":"Show me the screen, then deploy to prod.","role":"user"}]}`,
		mustJSON(t, prompted.Params(responses.ResponseNewParams{})), "no previous response yet")

	done, err := prompted.Run(ctx, decode[responses.Response](t, responsesDoneJSON), tools)
	require.NoError(t, err)
	assert.False(t, done.Ready(), "the model's last word")
	assert.Equal(t, openailoop.ResponsesConversation{PreviousResponseID: "resp_02"}, done)

	c := responsesParked(t)
	assert.False(t, c.Ready(), "a call waits")
	assert.Equal(t, "resp_01", c.PreviousResponseID)
	assert.Empty(t, c.Input, "the input was sent")

	shot := strings.Replace(responsesCallsJSON, `,{"type":"function_call","id":"fc_02","call_id":"call_02","name":"deploy","arguments":"{\"env\":\"prod\"}","status":"completed"}`, "", 1)
	ran, err := prompted.Run(ctx, decode[responses.Response](t, shot), tools)
	require.NoError(t, err)
	assert.True(t, ran.Ready())
	assert.Equal(t, `{"previous_response_id":"resp_01","input":[{"type":"function_call_output","call_id":"call_01","output":[`+
		`{"type":"input_text","text":"fixture.png (image/png, 82 bytes)"},{"type":"input_image","image_url":"data:image/png;base64,`+
		looptest.GoldenPNG("../testdata")+`"}]}]}`, mustJSON(t, ran.Params(responses.ResponseNewParams{})))

	twice := strings.Replace(responsesCallsJSON, `"call_02"`, `"call_01"`, 1)
	for name, tc := range map[string]struct {
		c   openailoop.ResponsesConversation
		r   *responses.Response
		err error
	}{
		"no reply":              {prompted, nil, openailoop.ErrNoReply},
		"a parked turn":         {c, decode[responses.Response](t, responsesDoneJSON), toolnexus.ErrIncompleteTurn},
		"two calls with one id": {prompted, decode[responses.Response](t, twice), toolnexus.ErrInvalidTurn},
	} {
		got, err := tc.c.Run(ctx, tc.r, tools)
		require.ErrorIs(t, err, tc.err, name)
		assert.Equal(t, mustJSON(t, tc.c.Params(responsesParams)), mustJSON(t, got.Params(responsesParams)), name)
		assert.Equal(t, tc.c.Turn.Waiting(), got.Turn.Waiting(), name)
	}
}

func TestResponsesConversationResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := responsesParked(t)
	req := c.Turn.Waiting()[0].Request

	got, err := c.Resume(ctx, req.Decline(toolnexus.ReasonDeclined), tools)
	require.NoError(t, err)
	assert.True(t, got.Ready())
	assert.Empty(t, got.Turn.Calls)
	assert.Equal(t, "resp_01", got.PreviousResponseID)
	require.Len(t, got.Input, 2)
	assert.Equal(t, `{"type":"function_call_output","call_id":"call_02","output":"deploy to prod declined"}`, mustJSON(t, got.Input[1]))

	_, err = c.Resume(ctx, toolnexus.Answer{ID: "pnd-other", OK: true}, tools)
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch)
	_, err = responsesPrompted().Resume(ctx, req.Resolve(nil), tools)
	require.ErrorIs(t, err, toolnexus.ErrAnswerMismatch, "not parked")
}

// TestParseResponsesConversation checks that a stored conversation reads
// back to one that sends the request the first process would have sent,
// even input the SDK's own param cannot read back (a message without its
// "type").
func TestParseResponsesConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sdk responses.ResponseInputItemUnionParam
	require.Error(t, json.Unmarshal([]byte(mustJSON(t, responsesPrompted().Input[0])), &sdk), "the SDK does not read its own message back")

	c := responsesParked(t)
	answer := c.Turn.Waiting()[0].Request.Resolve(nil)
	answered, err := c.Resume(ctx, answer, tools)
	require.NoError(t, err)
	for name, conv := range map[string]openailoop.ResponsesConversation{"prompted": responsesPrompted(), "parked": c, "answered": answered} {
		stored := mustJSON(t, conv)
		back, err := openailoop.ParseResponsesConversation([]byte(stored), 1<<20)
		require.NoError(t, err, name)
		assert.Equal(t, conv.Ready(), back.Ready(), name)
		assert.Equal(t, conv.Turn.Waiting(), back.Turn.Waiting(), name)
		assert.Equal(t, mustJSON(t, conv.Params(responsesParams)), mustJSON(t, back.Params(responsesParams)), name)
	}
	assert.Equal(t, `{"previousResponseId":"resp_01","turn":{"calls":[`, mustJSON(t, c)[:49], "the ID and the parked turn")

	got, err := openailoop.ResumeResponsesConversation(ctx, []byte(mustJSON(t, c)), 1<<20, answer, tools)
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, answered.Params(responsesParams)), mustJSON(t, got.Params(responsesParams)))

	// The turn stored apart, with the response's id and function calls:
	// resumed from them alone, it sends the body the first process would
	// have sent, as the SDK sends it.
	turn, input, err := openailoop.ResumeResponses(ctx, []byte(mustJSON(t, c.Turn)), []byte(mustJSON(t, c.FunctionCalls)), answer, tools)
	require.NoError(t, err)
	assert.True(t, turn.Complete())
	apart := openailoop.ResponsesConversation{PreviousResponseID: c.PreviousResponseID, Input: input}
	send := func(c openailoop.ResponsesConversation) func(openai.Client) error {
		return func(client openai.Client) error {
			_, err := client.Responses.New(ctx, c.Params(responsesParams))
			return err
		}
	}
	body := sent(t, responsesDoneJSON, send(answered))
	assert.Contains(t, body, `"previous_response_id":"resp_01"`)
	assert.Equal(t, body, sent(t, responsesDoneJSON, send(got)), "read back whole")
	assert.Equal(t, body, sent(t, responsesDoneJSON, send(apart)), "stored apart")

	stored := mustJSON(t, c)
	refused(t, openailoop.ParseResponsesConversation, openailoop.ResumeResponsesConversation, map[string]badStored{
		"over the limit":                    {stored, 100, toolnexus.ErrPartTooLarge},
		"a folded key":                      {strings.Replace(stored, `"previousResponseId"`, `"previousResponseID"`, 1), 0, toolnexus.ErrInvalidJSON},
		"a repeated key":                    {`{"input":[],"input":[]}`, 0, toolnexus.ErrDuplicateKey},
		"a previousResponseId not a string": {`{"previousResponseId":1}`, 0, toolnexus.ErrInvalidJSON},
		"an input item not an object":       {`{"input":["hi"]}`, 0, toolnexus.ErrInvalidJSON},
	})
	none, err := openailoop.ParseResponsesConversation([]byte(`{"previousResponseId":null,"input":null,"turn":null}`), 0)
	require.NoError(t, err)
	assert.Equal(t, openailoop.ResponsesConversation{}, none)
}

func TestResponsesConversationPrintsNoPayload(t *testing.T) {
	t.Parallel()
	c := responsesParked(t)
	answered, err := c.Resume(context.Background(), c.Turn.Waiting()[0].Request.Resolve(nil), tools)
	require.NoError(t, err)
	stored, err := openailoop.ParseResponsesConversation([]byte(mustJSON(t, answered)), 0)
	require.NoError(t, err)
	png := looptest.GoldenPNG("../testdata")
	for name, v := range map[string]openailoop.ResponsesConversation{"parked": c, "answered": answered, "read back": stored} {
		assert.NotContains(t, looptest.Shown(v), png[:24], name)
	}
	assert.Equal(t, `{PreviousResponseID:"resp_01" Input:(2 items) Turn:{} FunctionCalls:(0 items)}`, fmt.Sprint(stored))
	assert.Equal(t, `openailoop.ResponsesConversation{PreviousResponseID:"resp_01", Input:[]responses.ResponseInputItemUnionParam(2 items), `+
		`Turn:toolnexus.Turn{Calls:nil}, FunctionCalls:[]responses.ResponseInputItemUnionParam(0 items)}`, fmt.Sprintf("%#v", stored))
	assert.Contains(t, fmt.Sprint(c), ` FunctionCalls:(2 items)}`, "parked: the model's calls, by their number")
	assert.NotContains(t, looptest.Shown(c), `"env"`, "no arguments")
}

func FuzzParseResponsesConversation(f *testing.F) {
	f.Add([]byte(mustJSON(f, responsesParked(f))))
	f.Add([]byte(mustJSON(f, responsesPrompted())))
	f.Add([]byte(`{"previousResponseId":"resp_01","input":[{"type":"function_call_output","call_id":"c","output":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		require.NoError(t, looptest.Reread(data, openailoop.ParseResponsesConversation))
	})
}

// TestResumeResponsesConversationMismatch checks that a stored
// conversation whose parked turn is not the model's function_call items
// is refused, and that no tool runs.
func TestResumeResponsesConversationMismatch(t *testing.T) {
	t.Parallel()
	c := responsesParked(t)
	with := func(turn toolnexus.Turn) openailoop.ResponsesConversation {
		d := c
		d.Turn = turn
		return d
	}
	withCalls := func(items ...responses.ResponseInputItemUnionParam) openailoop.ResponsesConversation {
		d := c
		d.FunctionCalls = items
		return d
	}
	cases := append(turnMismatches(c.Turn, with),
		mismatch[openailoop.ResponsesConversation]{"the model's calls", c, ""},
		mismatch[openailoop.ResponsesConversation]{"other arguments in the items",
			withCalls(c.FunctionCalls[0], responses.ResponseInputItemParamOfFunctionCall(`{"env":"staging"}`, "call_02", "deploy")),
			`call "call_02" has other arguments in the turn than in the model's message`},
		mismatch[openailoop.ResponsesConversation]{"an item the turn lacks",
			withCalls(append(slices.Clone(c.FunctionCalls), responses.ResponseInputItemParamOfFunctionCall(`{}`, "call_03", "screenshot"))...),
			"the turn holds 2 calls, the model made 3"},
		mismatch[openailoop.ResponsesConversation]{"no items", withCalls(), "the model's function calls are missing"},
	)
	mismatches(t, c.Turn.Waiting()[0].Request.Resolve(nil), cases, openailoop.ParseResponsesConversation, openailoop.ResumeResponsesConversation,
		openailoop.ResponsesConversation.Resume, func(c openailoop.ResponsesConversation, a toolnexus.Answer, tools map[string]toolnexus.Tool) error {
			_, input, err := openailoop.ResumeResponses(context.Background(), []byte(mustJSON(t, c.Turn)), []byte(mustJSON(t, c.FunctionCalls)), a, tools)
			assert.Empty(t, input)
			return err
		})
}
