package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	anthropicparam "github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	openaiparam "github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genaibridge"
)

// The examples send a tool result through each provider's own SDK client to
// a fake API, then print what the request held at the tool result's
// position, each payload shown as its length.

// Example_anthropic puts the tool_result block into the user message that
// follows the assistant's tool_use, as it is: param.Override sends a value
// whose JSON is already the API's.
func Example_anthropic() {
	api := newFakeAPI(anthropicReply)
	defer api.Close()
	client := anthropic.NewClient(anthropicoption.WithBaseURL(api.URL), anthropicoption.WithAPIKey("test"))
	r := screenshot()

	block := r.AnthropicToolResult("toolu_01")
	reply := anthropic.NewUserMessage(anthropicparam.Override[anthropic.ContentBlockParamUnion](block))
	_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model:     "claude-sonnet-5-5", // a string: SDK releases drop the constants of older models
		MaxTokens: 1024,
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the test card.")),
			anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_01", map[string]any{}, "screenshot")),
			reply,
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.sent("messages", 2))
	// Output:
	// {
	//   "content": [
	//     {
	//       "content": [
	//         {
	//           "text": "A test card, 8 by 8 pixels.",
	//           "type": "text"
	//         },
	//         {
	//           "source": {
	//             "data": "<112 chars>",
	//             "media_type": "image/png",
	//             "type": "base64"
	//           },
	//           "type": "image"
	//         }
	//       ],
	//       "is_error": false,
	//       "tool_use_id": "toolu_01",
	//       "type": "tool_result"
	//     }
	//   ],
	//   "role": "user"
	// }
}

// Example_openAIChat appends the role "tool" message, and the role "user"
// message that carries the image, after the assistant message that made the
// call.
func Example_openAIChat() {
	api := newFakeAPI(openAIChatReply)
	defer api.Close()
	client := openai.NewClient(openaioption.WithBaseURL(api.URL), openaioption.WithAPIKey("test"))
	r := screenshot()

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
	for _, m := range r.OpenAIChatMessages("call_01", "screenshot") {
		messages = append(messages, openaiparam.Override[openai.ChatCompletionMessageParamUnion](m))
	}
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4_1,
		Messages: messages,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.sent("messages", 2))
	fmt.Println(api.sent("messages", 3))
	// Output:
	// {
	//   "content": "A test card, 8 by 8 pixels.",
	//   "role": "tool",
	//   "tool_call_id": "call_01"
	// }
	// {
	//   "content": [
	//     {
	//       "text": "Output of tool screenshot (call_01):",
	//       "type": "text"
	//     },
	//     {
	//       "image_url": {
	//         "url": "data:image/png;base64,<112 chars>"
	//       },
	//       "type": "image_url"
	//     }
	//   ],
	//   "role": "user"
	// }
}

// Example_openAIResponses sends the function_call_output item as the input
// that continues the response which made the call.
func Example_openAIResponses() {
	api := newFakeAPI(openAIResponsesReply)
	defer api.Close()
	client := openai.NewClient(openaioption.WithBaseURL(api.URL), openaioption.WithAPIKey("test"))
	r := screenshot()

	item := openaiparam.Override[responses.ResponseInputItemUnionParam](r.OpenAIResponsesOutput("call_01"))
	_, err := client.Responses.New(context.Background(), responses.ResponseNewParams{
		Model:              openai.ChatModelGPT4_1,
		PreviousResponseID: openai.String("resp_01"),
		Input: responses.ResponseNewParamsInputUnion{
			OfInputItemList: responses.ResponseInputParam{
				item,
			},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.sent("input", 0))
	// Output:
	// {
	//   "call_id": "call_01",
	//   "output": [
	//     {
	//       "text": "A test card, 8 by 8 pixels.",
	//       "type": "input_text"
	//     },
	//     {
	//       "image_url": "data:image/png;base64,<112 chars>",
	//       "type": "input_image"
	//     }
	//   ],
	//   "type": "function_call_output"
	// }
}

// Example_gemini makes genai's own function response part, whose media
// are bytes, with genaibridge.Part for the client's backend, and sends it
// in the user turn after the model's functionCall.
func Example_gemini() {
	api := newFakeAPI(geminiReply)
	defer api.Close()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: api.URL},
	})
	if err != nil {
		log.Fatal(err)
	}
	r := screenshot()

	answer, err := genaibridge.Part(client.ClientConfig().Backend, r, "screenshot", "call_01")
	if err != nil {
		log.Fatal(err)
	}
	contents := []*genai.Content{
		genai.NewContentFromText("Show me the test card.", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "call_01", Name: "screenshot"}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{answer}},
	}
	if _, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.sent("contents", 2))
	// Output:
	// {
	//   "parts": [
	//     {
	//       "functionResponse": {
	//         "id": "call_01",
	//         "name": "screenshot",
	//         "parts": [
	//           {
	//             "inlineData": {
	//               "data": "<112 chars>",
	//               "mimeType": "image/png"
	//             }
	//           }
	//         ],
	//         "response": {
	//           "output": "A test card, 8 by 8 pixels."
	//         }
	//       }
	//     }
	//   ],
	//   "role": "user"
	// }
}

// screenshot is what the examples' tool returned: a caption and the 82-byte
// PNG fixture.
func screenshot() toolnexus.ToolResult {
	img, err := toolnexus.PartFromFile("../testdata/fixture.png")
	if err != nil {
		log.Fatal(err)
	}
	return toolnexus.Ok("A test card, 8 by 8 pixels.", img)
}

// The smallest valid answers of each API, which the clients read back.
const (
	anthropicReply       = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	openAIChatReply      = `{"id":"chatcmpl-01","object":"chat.completion","created":0,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
	openAIResponsesReply = `{"id":"resp_02","object":"response","created_at":0,"model":"gpt-4.1","status":"completed","output":[{"type":"message","id":"msg_01","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}]}`
	geminiReply          = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`
)

// fakeAPI stands in for a provider's API: it answers every request with one
// reply and keeps the path and body of the last request.
type fakeAPI struct {
	*httptest.Server
	mu   sync.Mutex
	path string
	body []byte
}

func newFakeAPI(reply string) *fakeAPI {
	a := &fakeAPI{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.path, a.body = req.URL.Path, body
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	return a
}

// lastPath returns the path of the last request.
func (a *fakeAPI) lastPath() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.path
}

// lastBody returns the body of the last request.
func (a *fakeAPI) lastBody() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.body
}

// sent returns, as indented JSON, what the last request held at path (see
// [at]), each string longer than 64 bytes shown as its length: "<112
// chars>", or for a data URL its head and the length of its data.
func (a *fakeAPI) sent(path ...any) string {
	var body any
	if err := json.Unmarshal(a.lastBody(), &body); err != nil {
		return err.Error()
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(elide(at(body, path...))); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// at returns the value at path in v, a JSON value decoded into any: a string
// in path selects a key of an object, an int an element of an array. It
// returns nil when v has nothing there.
func at(v any, path ...any) any {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s]
		case int:
			a, ok := v.([]any)
			if !ok || s < 0 || s >= len(a) {
				return nil
			}
			v = a[s]
		default:
			return nil
		}
	}
	return v
}

// elide returns v with each string longer than 64 bytes replaced by its
// length, after the head of a data URL.
func elide(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) <= 64 {
			return v
		}
		head := ""
		if i := strings.IndexByte(v, ','); strings.HasPrefix(v, "data:") && i >= 0 {
			head, v = v[:i+1], v[i+1:]
		}
		return fmt.Sprintf("%s<%d chars>", head, len(v))
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = elide(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = elide(e)
		}
		return out
	}
	return v
}
