package openailoop_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
	"github.com/toolnexus-go/toolnexus/park"
)

// tools are the tools of the examples and tests: screenshot returns the
// repository's 82-byte PNG fixture, deploy waits for an approval.
var tools = looptest.Tools("../testdata")

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// decode decodes a reply of the API into v as the SDK does.
func decode[T any](t testing.TB, reply string) *T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(reply), &v))
	return &v
}

// hostileCalls checks what a run makes of calls a host must not trust: a
// tool it does not have, arguments that are not JSON, and arguments that
// are not an object. Each is an error result the model reads, and the turn
// is complete.
func hostileCalls(t *testing.T, turn toolnexus.Turn, err error) {
	t.Helper()
	require.NoError(t, err)
	require.True(t, turn.Complete())
	var outputs []string
	for _, c := range turn.Calls {
		assert.True(t, c.Result.IsError, c.ID)
		outputs = append(outputs, c.Result.Output)
	}
	assert.Equal(t, []string{
		`toolnexus: unknown tool "rm -rf"`,
		`toolnexus: arguments of "deploy" are not JSON: invalid character 'p' looking for beginning of value`,
		`toolnexus: arguments of "deploy" are not a JSON object but an array`,
	}, outputs)
	assert.Equal(t, json.RawMessage(`"{\"env\": prod}"`), turn.Calls[1].Arguments, "kept as a JSON string")
	_, err = json.Marshal(turn)
	assert.NoError(t, err, "the turn marshals")
}

// badStored is stored JSON that a conversation's parser refuses with err,
// given the limit max.
type badStored struct {
	data string
	max  int64
	err  error
}

// refused checks that parse, and resume with any answer, refuse each of
// cases with its error.
func refused[C any](t *testing.T, parse func([]byte, int64) (C, error),
	resume func(context.Context, []byte, int64, toolnexus.Answer, map[string]toolnexus.Tool) (C, error), cases map[string]badStored) {
	t.Helper()
	for name, tc := range cases {
		_, err := parse([]byte(tc.data), tc.max)
		require.ErrorIs(t, err, tc.err, name)
		_, err = resume(context.Background(), []byte(tc.data), tc.max, toolnexus.Answer{ID: "pnd-1", OK: true}, tools)
		require.ErrorIs(t, err, tc.err, name)
	}
}

// mismatch is a conversation whose parked turn is changed by a test: msg
// is the end of the error it is refused with, "" when it still agrees.
type mismatch[C any] struct {
	name string
	c    C
	msg  string
}

// mismatches checks each of cases, stored and resumed with answer: one
// whose turn disagrees with the model's calls is refused as it is read
// (parse), resumed from storage (resume), resumed as a value (again),
// and stored apart (apart, which resumes from the turn and the model's
// message or items alone), with [openailoop.ErrTurnMismatch], and no tool
// runs; one that agrees runs the waiting call once.
func mismatches[C any](t *testing.T, answer toolnexus.Answer, cases []mismatch[C],
	parse func([]byte, int64) (C, error),
	resume func(context.Context, []byte, int64, toolnexus.Answer, map[string]toolnexus.Tool) (C, error),
	again func(C, context.Context, toolnexus.Answer, map[string]toolnexus.Tool) (C, error),
	apart func(C, toolnexus.Answer, map[string]toolnexus.Tool) error) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A Store of the case's own: the cases share the conversation
			// they resume, whose parking the process's store answers once.
			ctx := park.NewContext(context.Background(), park.Runner{Store: park.NewMemoryStore(0, 0)})
			var ran atomic.Int32
			counted := map[string]toolnexus.Tool{"screenshot": tools["screenshot"], "deploy": func(ctx context.Context, args json.RawMessage, a toolnexus.Answers) toolnexus.ToolResult {
				ran.Add(1)
				return tools["deploy"](ctx, args, a)
			}}
			stored := []byte(mustJSON(t, tt.c))
			_, err := resume(ctx, stored, 1<<20, answer, counted)
			if tt.msg == "" {
				require.NoError(t, err)
				assert.Equal(t, int32(1), ran.Load())
				return
			}
			require.ErrorIs(t, err, openailoop.ErrTurnMismatch)
			require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
			assert.EqualError(t, err, "toolnexus: invalid turn: the parked turn is not the model's calls: "+tt.msg)
			_, err = parse(stored, 1<<20)
			require.ErrorIs(t, err, openailoop.ErrTurnMismatch, "refused as it is read")
			kept, err := again(tt.c, ctx, answer, counted)
			require.ErrorIs(t, err, openailoop.ErrTurnMismatch)
			assert.Equal(t, string(stored), mustJSON(t, kept), "returned as it was")
			require.ErrorIs(t, apart(tt.c, answer, counted), openailoop.ErrTurnMismatch, "stored apart")
			assert.Zero(t, ran.Load(), "no tool ran")
		})
	}
}

// changed returns a copy of turn whose calls change made.
func changed(turn toolnexus.Turn, change func([]toolnexus.ToolCall) []toolnexus.ToolCall) toolnexus.Turn {
	return toolnexus.Turn{Calls: change(slices.Clone(turn.Calls))}
}

// turnMismatches are the changes of a parked turn of a screenshot call
// (call_01) and a deploy call waiting (call_02) that the model's calls
// refuse, and one they take.
func turnMismatches[C any](turn toolnexus.Turn, with func(toolnexus.Turn) C) []mismatch[C] {
	return []mismatch[C]{
		{"the same arguments, otherwise written", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall {
			c[1].Arguments = json.RawMessage(`{"\u0065nv" : "prod"}`)
			return c
		})), ""},
		{"other arguments", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall {
			c[1].Arguments = json.RawMessage(`{"env":"dev"}`)
			return c
		})), `call "call_02" has other arguments in the turn than in the model's message`},
		{"another tool", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall {
			c[0].Name = "deploy"
			return c
		})), `call "call_01" is a call of "deploy" in the turn, of "screenshot" in the model's message`},
		{"another id", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall {
			c[1].ID = "call_09"
			return c
		})), `call 1 is "call_09" in the turn, "call_02" in the model's message`},
		{"a call the model did not make", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall {
			return append(c, toolnexus.ToolCall{ID: "call_03", Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`), Result: toolnexus.Ok("deployed to dev")})
		})), "the turn holds 3 calls, the model made 2"},
		{"a call the turn lacks", with(changed(turn, func(c []toolnexus.ToolCall) []toolnexus.ToolCall { return c[1:] })),
			"the turn holds 1 calls, the model made 2"},
	}
}

// sent returns the body of the request that send makes with a client of
// an API that answers reply.
func sent(t *testing.T, reply string, send func(openai.Client) error) string {
	t.Helper()
	var body []byte
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	defer api.Close()
	require.NoError(t, send(openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))))
	return string(body)
}

// leakTurn is a parked turn whose call's arguments and result hold data.
func leakTurn(data string) toolnexus.Turn {
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	return toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call-1", Name: "shot", Arguments: json.RawMessage(`{"image":"` + data + `"}`), Result: toolnexus.Ok("done", img)},
		{ID: "call-2", Name: "deploy", Arguments: json.RawMessage(`{"url":"data:image/png;base64,` + data + `"}`),
			Result: toolnexus.Pending(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"image": data}}), Parked: "p"},
	}}
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments, encrypted content), that must print and log
// no part of it; a type that can hold none says why instead.
var leakValues = leaktest.Values{
	"openailoop.ChatConversation": func(data string) []any {
		return []any{openailoop.ChatConversation{
			Messages: []openai.ChatCompletionMessageParamUnion{
				openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("Show me the screen."),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64," + data})}),
				openai.ToolMessage(data, "call-0"),
			},
			Turn: leakTurn(data),
		}}
	},
	"openailoop.ResponsesConversation": func(data string) []any {
		calls := []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfFunctionCall(`{"image":"`+data+`"}`, "call-1", "shot"),
			responses.ResponseInputItemParamOfFunctionCall(`{"url":"data:image/png;base64,`+data+`"}`, "call-2", "deploy"),
		}
		return []any{openailoop.ResponsesConversation{
			PreviousResponseID: "resp-1",
			Input:              append(slices.Clone(calls), responses.ResponseInputItemParamOfCompaction(data)),
			Turn:               leakTurn(data),
			FunctionCalls:      calls,
		}}
	},
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "openailoop", leakValues)
}
