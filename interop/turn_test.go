package interop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

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

// turnOfTwo is a complete turn: a screenshot with the fixture image and a
// deploy that ran once approved.
func turnOfTwo() toolnexus.Turn {
	return toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_01", Name: "screenshot", Result: screenshot()},
		{ID: "call_02", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Result: toolnexus.Ok("deployed to prod")},
	}}
}

// bodyOf runs send against a server that answers reply, and returns the
// request body it received.
func bodyOf(t *testing.T, reply string, send func(url string) error) map[string]any {
	t.Helper()
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	defer srv.Close()
	require.NoError(t, send(srv.URL))
	var v map[string]any
	require.NoError(t, json.Unmarshal(body, &v))
	return v
}

// asJSON returns the JSON value of v, as a request body holds it.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// TestTurnOpenAIResponses sends a turn's function_call_output items through
// the SDK: the API receives them as they are, in call order.
func TestTurnOpenAIResponses(t *testing.T) {
	t.Parallel()
	items, err := turnOfTwo().OpenAIResponsesInput()
	require.NoError(t, err)
	input := make(responses.ResponseInputParam, len(items))
	for i, item := range items {
		input[i] = openaiparam.Override[responses.ResponseInputItemUnionParam](item)
	}
	body := bodyOf(t, openAIResponsesReply, func(url string) error {
		client := openai.NewClient(openaioption.WithBaseURL(url), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0))
		_, err := client.Responses.New(context.Background(), responses.ResponseNewParams{
			Model: openai.ChatModelGPT5_5, PreviousResponseID: openai.String("resp_01"),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		})
		return err
	})
	assert.Equal(t, asJSON(t, items), body["input"])
	assert.Equal(t, "data:image/png;base64,"+goldenPNG(t), at(body, "input", 0, "output", 1, "image_url"))
}

// TestTurnGemini sends a turn's content as genaibridge.Content makes it
// for genai: the API receives the turn's GeminiContent, the function
// responses in call order, the image's bytes unchanged.
func TestTurnGemini(t *testing.T) {
	t.Parallel()
	content, err := turnOfTwo().GeminiContent()
	require.NoError(t, err)
	answer, err := genaibridge.Content(genai.BackendGeminiAPI, turnOfTwo())
	require.NoError(t, err)
	body := bodyOf(t, geminiReply, func(url string) error {
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
			APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url},
		})
		if err != nil {
			return err
		}
		contents := []*genai.Content{
			genai.NewContentFromText("Show me the screen, then deploy to prod.", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{ID: "call_01", Name: "screenshot"}},
				{FunctionCall: &genai.FunctionCall{ID: "call_02", Name: "deploy", Args: map[string]any{"env": "prod"}}},
			}},
			answer,
		}
		_, err = client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, nil)
		return err
	})
	assert.Equal(t, asJSON(t, content), at(body, "contents", 2))
	assert.Equal(t, goldenPNG(t), at(body, "contents", 2, "parts", 0, "functionResponse", "parts", 0, "inlineData", "data"))
}
