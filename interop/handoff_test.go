package interop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	anthropicparam "github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	openaiparam "github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genaibridge"
)

// The hand-off: each converted value put into its SDK's request as the
// examples show, the conversation before it being the same everywhere: the
// user asks, the model calls screenshot with the id toolu_01 or call_01.

// anthropicRequest is the request of Example_anthropic, answer being the
// content of its last user message.
func anthropicRequest(answer anthropic.ContentBlockParamUnion) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-5-5", // a string: SDK releases drop the constants of older models
		MaxTokens: 1024,
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the test card.")),
			anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_01", map[string]any{}, "screenshot")),
			anthropic.NewUserMessage(answer),
		},
	}
}

func anthropicHandoff(block toolnexus.AnthropicToolResultBlock) anthropic.MessageNewParams {
	return anthropicRequest(anthropicparam.Override[anthropic.ContentBlockParamUnion](block))
}

// openAIChatRequest is the request of Example_openAIChat, answer being the
// messages after the assistant's.
func openAIChatRequest(answer ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	messages := []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage("Show me the test card."),
		{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
			ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       "call_01",
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "screenshot", Arguments: "{}"},
				},
			}},
		}},
	}
	return openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4_1, Messages: append(messages, answer...)}
}

func openAIChatHandoff(msgs []toolnexus.OpenAIChatMessage) openai.ChatCompletionNewParams {
	answer := make([]openai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		answer[i] = openaiparam.Override[openai.ChatCompletionMessageParamUnion](m)
	}
	return openAIChatRequest(answer...)
}

// openAIResponsesRequest is the request of Example_openAIResponses, answer
// being its one input item.
func openAIResponsesRequest(answer responses.ResponseInputItemUnionParam) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:              openai.ChatModelGPT4_1,
		PreviousResponseID: openai.String("resp_01"),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{answer}},
	}
}

func openAIResponsesHandoff(item toolnexus.OpenAIFunctionCallOutput) responses.ResponseNewParams {
	return openAIResponsesRequest(openaiparam.Override[responses.ResponseInputItemUnionParam](item))
}

// geminiRequest is the contents of Example_gemini, answer being the
// function response of the last user turn.
func geminiRequest(answer *genai.FunctionResponse) []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromText("Show me the test card.", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "call_01", Name: "screenshot"}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: answer}}},
	}
}

// geminiHandoff is the contents of Example_gemini, answering with fr as
// genaibridge reads it.
func geminiHandoff(fr toolnexus.GeminiFunctionResponse) ([]*genai.Content, error) {
	answer, err := genaibridge.FunctionResponse(fr)
	if err != nil {
		return nil, err
	}
	return geminiRequest(answer), nil
}

// handoffCase is a tool result with the output and error flag the request
// must carry next to the fixture image.
type handoffCase struct {
	name    string
	result  toolnexus.ToolResult
	output  string
	isError bool
}

func handoffCases(t *testing.T) []handoffCase {
	img := part(t, fixturePNG(t), "image/png")
	return []handoffCase{
		{"ok", toolnexus.Ok("A test card, 8 by 8 pixels.", img), "A test card, 8 by 8 pixels.", false},
		{"error", toolnexus.Error("The card rendered only halfway.", img), "The card rendered only halfway.", true},
	}
}

// goldenPNG returns the base64 of the PNG fixture, as its golden file holds it.
func goldenPNG(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/fixture.png.base64")
	require.NoError(t, err)
	golden := strings.TrimSpace(string(b))
	require.Equal(t, base64.StdEncoding.EncodeToString(fixturePNG(t)), golden)
	return golden
}

// handoffAPI is one provider's side of the hand-off: its fake API's reply,
// the call of its real SDK client that sends c's result there, and the
// check of the request body the API received.
type handoffAPI struct {
	name  string
	reply string
	send  func(ctx context.Context, baseURL string, r toolnexus.ToolResult) error
	check func(t assert.TestingT, body []byte, c handoffCase, golden string) bool
}

var handoffAPIs = []handoffAPI{
	{"anthropic", anthropicReply, sendAnthropic, checkAnthropic},
	{"openai-chat", openAIChatReply, sendOpenAIChat, checkOpenAIChat},
	{"openai-responses", openAIResponsesReply, sendOpenAIResponses, checkOpenAIResponses},
	{"gemini", geminiReply, sendGemini, checkGemini},
}

func sendAnthropic(ctx context.Context, baseURL string, r toolnexus.ToolResult) error {
	client := anthropic.NewClient(anthropicoption.WithBaseURL(baseURL), anthropicoption.WithAPIKey("test"), anthropicoption.WithMaxRetries(0))
	_, err := client.Messages.New(ctx, anthropicHandoff(r.AnthropicToolResult("toolu_01")))
	return err
}

func sendOpenAIChat(ctx context.Context, baseURL string, r toolnexus.ToolResult) error {
	client := openai.NewClient(openaioption.WithBaseURL(baseURL), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0))
	_, err := client.Chat.Completions.New(ctx, openAIChatHandoff(r.OpenAIChatMessages("call_01", "screenshot")))
	return err
}

func sendOpenAIResponses(ctx context.Context, baseURL string, r toolnexus.ToolResult) error {
	client := openai.NewClient(openaioption.WithBaseURL(baseURL), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0))
	_, err := client.Responses.New(ctx, openAIResponsesHandoff(r.OpenAIResponsesOutput("call_01")))
	return err
}

func sendGemini(ctx context.Context, baseURL string, r toolnexus.ToolResult) error {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
	})
	if err != nil {
		return err
	}
	contents, err := geminiHandoff(r.GeminiFunctionResponse("screenshot", "call_01"))
	if err != nil {
		return err
	}
	_, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, nil)
	return err
}

// pathValue is the value a request body must hold at a path (see [at]); a
// nil value means nothing is there.
type pathValue struct {
	path  []any
	value any
}

// checkPaths decodes body and asserts the value at each path.
func checkPaths(t assert.TestingT, body []byte, want []pathValue) bool {
	var v any
	if !assert.NoError(t, json.Unmarshal(body, &v), "request body") {
		return false
	}
	ok := true
	for _, w := range want {
		ok = assert.Equal(t, w.value, at(v, w.path...), "at %v", w.path) && ok
	}
	return ok
}

type object = map[string]any

func path(steps ...any) []any { return steps }

// checkAnthropic: the last user message holds the tool_result block, its
// content the text and then the image as a base64 source.
func checkAnthropic(t assert.TestingT, body []byte, c handoffCase, golden string) bool {
	return checkPaths(t, body, []pathValue{
		{path("messages", 1, "content", 0, "type"), "tool_use"},
		{path("messages", 1, "content", 0, "id"), "toolu_01"},
		{path("messages", 2, "role"), "user"},
		{path("messages", 2, "content", 0, "type"), "tool_result"},
		{path("messages", 2, "content", 0, "tool_use_id"), "toolu_01"},
		{path("messages", 2, "content", 0, "is_error"), c.isError},
		{path("messages", 2, "content", 0, "content", 0), object{"type": "text", "text": c.output}},
		{path("messages", 2, "content", 0, "content", 1, "type"), "image"},
		{path("messages", 2, "content", 0, "content", 1, "source", "type"), "base64"},
		{path("messages", 2, "content", 0, "content", 1, "source", "media_type"), "image/png"},
		{path("messages", 2, "content", 0, "content", 1, "source", "data"), golden},
		// Nothing else: no other key, block or message.
		{path("messages", 2), object{"role": "user", "content": []any{object{
			"type": "tool_result", "tool_use_id": "toolu_01", "is_error": c.isError,
			"content": []any{
				object{"type": "text", "text": c.output},
				object{"type": "image", "source": object{"type": "base64", "media_type": "image/png", "data": golden}},
			},
		}}}},
		{path("messages", 3), nil},
	})
}

// checkOpenAIChat: the role "tool" message answers the call with the text,
// and the role "user" message after it carries the image as a data URL.
func checkOpenAIChat(t assert.TestingT, body []byte, c handoffCase, golden string) bool {
	dataURL := "data:image/png;base64," + golden
	return checkPaths(t, body, []pathValue{
		{path("messages", 1, "tool_calls", 0, "id"), "call_01"},
		{path("messages", 2, "role"), "tool"},
		{path("messages", 2, "tool_call_id"), "call_01"},
		{path("messages", 2, "content"), c.output},
		{path("messages", 3, "role"), "user"},
		{path("messages", 3, "content", 0), object{"type": "text", "text": "Output of tool screenshot (call_01):"}},
		{path("messages", 3, "content", 1, "type"), "image_url"},
		{path("messages", 3, "content", 1, "image_url", "url"), dataURL},
		{path("messages", 2), object{"role": "tool", "tool_call_id": "call_01", "content": c.output}},
		{path("messages", 3), object{"role": "user", "content": []any{
			object{"type": "text", "text": "Output of tool screenshot (call_01):"},
			object{"type": "image_url", "image_url": object{"url": dataURL}},
		}}},
		{path("messages", 4), nil},
	})
}

// checkOpenAIResponses: the one input item is the function_call_output,
// its output the text and then the image as a data URL.
func checkOpenAIResponses(t assert.TestingT, body []byte, c handoffCase, golden string) bool {
	dataURL := "data:image/png;base64," + golden
	return checkPaths(t, body, []pathValue{
		{path("previous_response_id"), "resp_01"},
		{path("input", 0, "type"), "function_call_output"},
		{path("input", 0, "call_id"), "call_01"},
		{path("input", 0, "output", 0), object{"type": "input_text", "text": c.output}},
		{path("input", 0, "output", 1, "type"), "input_image"},
		{path("input", 0, "output", 1, "image_url"), dataURL},
		{path("input", 0), object{"type": "function_call_output", "call_id": "call_01", "output": []any{
			object{"type": "input_text", "text": c.output},
			object{"type": "input_image", "image_url": dataURL},
		}}},
		{path("input", 1), nil},
	})
}

// checkGemini: the last user turn holds the functionResponse, its response
// the text under "output" or "error" and its parts the image inline.
func checkGemini(t assert.TestingT, body []byte, c handoffCase, golden string) bool {
	key := "output"
	if c.isError {
		key = "error"
	}
	fr := func(steps ...any) []any {
		return append([]any{"contents", 2, "parts", 0, "functionResponse"}, steps...)
	}
	return checkPaths(t, body, []pathValue{
		{path("contents", 1, "role"), "model"},
		{path("contents", 1, "parts", 0, "functionCall", "id"), "call_01"},
		{path("contents", 2, "role"), "user"},
		{fr("id"), "call_01"},
		{fr("name"), "screenshot"},
		{fr("response"), object{key: c.output}},
		{fr("parts", 0, "inlineData", "mimeType"), "image/png"},
		{fr("parts", 0, "inlineData", "data"), golden},
		{path("contents", 2), object{"role": "user", "parts": []any{object{"functionResponse": object{
			"id": "call_01", "name": "screenshot", "response": object{key: c.output},
			"parts": []any{object{"inlineData": object{"mimeType": "image/png", "data": golden}}},
		}}}}},
		{path("contents", 3), nil},
	})
}

// sendThrough sends c's result with the real SDK client of api to a fake
// API and returns the request body it received.
func sendThrough(t *testing.T, api handoffAPI, c handoffCase) []byte {
	t.Helper()
	fake := newFakeAPI(api.reply)
	t.Cleanup(fake.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, api.send(ctx, fake.URL, c.result))
	body := fake.lastBody()
	require.NotEmpty(t, body)
	return body
}

// TestHandoff sends a result holding the PNG fixture through each SDK's
// client and finds its base64, byte for byte, where each API reads it.
func TestHandoff(t *testing.T) {
	t.Parallel()
	golden := goldenPNG(t)
	for _, api := range handoffAPIs {
		for _, c := range handoffCases(t) {
			t.Run(api.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				api.check(t, sendThrough(t, api, c), c, golden)
			})
		}
	}
}

// failures counts the assertions that fail.
type failures int

func (f *failures) Errorf(string, ...any) { *f++ }

// TestHandoffCanFail shows that the checks of TestHandoff fail on a request
// that is wrong in one place: a payload byte, an id, the error flag or the
// position of the result.
func TestHandoffCanFail(t *testing.T) {
	t.Parallel()
	golden := goldenPNG(t)
	c := handoffCases(t)[0]
	flipped := golden[:40] + "A" + golden[41:]
	require.NotEqual(t, golden, flipped)
	edits := map[string][]struct{ old, new string }{
		"anthropic": {
			{golden, flipped},
			{`"tool_use_id":"toolu_01"`, `"tool_use_id":"toolu_02"`},
			{`"is_error":false`, `"is_error":true`},
			{`"media_type":"image/png"`, `"media_type":"image/jpeg"`},
			{`],"role":"user"}],"model"`, `],"role":"assistant"}],"model"`},
		},
		"openai-chat": {
			{golden, flipped},
			{`"tool_call_id":"call_01"`, `"tool_call_id":"call_02"`},
			{`"role":"tool"`, `"role":"user"`},
			{"data:image/png", "data:image/jpeg"},
		},
		"openai-responses": {
			{golden, flipped},
			{`"call_id":"call_01"`, `"call_id":"call_02"`},
			{"input_image", "input_file"},
			{`"input":[`, `"input":[{"type":"message","role":"user","content":"Go on."},`},
		},
		"gemini": {
			{golden, flipped},
			{`"id":"call_01","name":"screenshot","parts"`, `"id":"call_02","name":"screenshot","parts"`},
			{`"output"`, `"error"`},
			{`}}}],"role":"user"}]}`, `}}}],"role":"model"}]}`},
		},
	}
	for _, api := range handoffAPIs {
		t.Run(api.name, func(t *testing.T) {
			t.Parallel()
			body := sendThrough(t, api, c)
			require.True(t, api.check(t, body, c, golden), "the request as sent passes")
			require.NotEmpty(t, edits[api.name])
			for _, e := range edits[api.name] {
				require.Equal(t, 1, bytes.Count(body, []byte(e.old)), "%s is in the body once", e.old)
				var f failures
				bad := bytes.Replace(body, []byte(e.old), []byte(e.new), 1)
				assert.False(t, api.check(&f, bad, c, golden), "%s -> %s", e.old, e.new)
				assert.NotZero(t, int(f), "%s -> %s", e.old, e.new)
			}
		})
	}
}

// TestHandoffMatchesRoundTrip checks that each hand-off sends the JSON that
// the round trip through the SDK's param types sends.
func TestHandoffMatchesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range handoffCases(t) {
		for _, impl := range handoffImpls(c.result) {
			t.Run(impl.sdk+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				handoff, err := impl.handoff()
				require.NoError(t, err)
				roundTrip, err := impl.roundTrip()
				require.NoError(t, err)
				assert.JSONEq(t, string(roundTrip), string(handoff))
			})
		}
	}
}
