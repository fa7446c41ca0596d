package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// responsesDefs are the tools as the model is told of them.
var responsesDefs = []responses.ToolUnionParam{
	responses.ToolParamOfFunction("screenshot", map[string]any{"type": "object", "properties": map[string]any{}}, false),
	responses.ToolParamOfFunction("deploy", map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []string{"env"}}, false),
}

// responsesParams are the request's model, tools and options; the
// conversation gives its input and the response it follows.
var responsesParams = responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: responsesDefs}

// respond is the user's loop: it sends conv while it is ready, and runs
// the tools each response calls, until the model answers in text, or a
// call waits for a person and the conversation, its turn parked, is to be
// stored. resp is the model's last response, whose text the conversation
// does not keep: the API does.
func respond(ctx context.Context, c openai.Client, conv openailoop.ResponsesConversation) (_ openailoop.ResponsesConversation, resp *responses.Response, err error) {
	for err == nil && conv.Ready() {
		if resp, err = c.Responses.New(ctx, conv.Params(responsesParams)); err == nil {
			conv, err = conv.Run(ctx, resp, tools)
		}
	}
	return conv, resp, err
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the conversation, the
// response's ID and the parked turn, and stops. Another process reads it
// back from the stored bytes, resumes it with the person's answer and
// sends both function_call_output items after that response. The fake
// API checks each request body the SDK sent, byte for byte.
func ExampleResponsesConversation() {
	api := looptest.NewProvider(responsesExchanges...)
	defer api.Close()
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	prompt := responses.ResponseInputItemParamOfMessage("Show me the screen, then deploy to prod.", responses.EasyInputMessageRoleUser)
	conv, _, err := respond(ctx, client, openailoop.ResponsesConversation{Input: []responses.ResponseInputItemUnionParam{prompt}})
	if err != nil {
		log.Fatal(err)
	}
	wait := conv.Turn.Waiting()[0]
	fmt.Printf("%s waits: %s\n", wait.Tool, wait.Request.Prompt)
	stored, err := json.Marshal(conv) // one value to store: the response's ID and the parked turn
	if err != nil {
		log.Fatal(err)
	}

	// Another process, with nothing but the stored bytes and the answer.
	client = openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	conv, err = openailoop.ResumeResponsesConversation(ctx, stored, 1<<20, wait.Request.Resolve(nil), tools)
	var resp *responses.Response
	if err == nil {
		conv, resp, err = respond(ctx, client, conv)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.OutputText(), conv.Ready())
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. false
	// 2 requests, each body as expected
}
