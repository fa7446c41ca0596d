package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// responsesDefs are the tools as the model is told of them.
var responsesDefs = []responses.ToolUnionParam{
	responses.ToolParamOfFunction("screenshot", map[string]any{"type": "object", "properties": map[string]any{}}, false),
	responses.ToolParamOfFunction("deploy", map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []string{"env"}}, false),
}

// respond is the user's loop: it sends params, runs the tools the model
// calls and sends their results, until the model answers in text, or a
// call waits for a person and the turn is to be stored with the response.
func respond(ctx context.Context, c openai.Client, params responses.ResponseNewParams) (*responses.Response, toolnexus.Turn, error) {
	for {
		resp, err := c.Responses.New(ctx, params)
		if err != nil {
			return nil, toolnexus.Turn{}, err
		}
		turn, input, err := openailoop.RunResponses(ctx, resp, tools)
		if err != nil || len(turn.Calls) == 0 || !turn.Complete() {
			return resp, turn, err // the model's last word, or a turn to store with resp.ID
		}
		params.PreviousResponseID, params.Input = openai.String(resp.ID), responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	}
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the turn with the response's
// ID and stops. Another process resumes it from the stored bytes with the
// person's answer and sends both function_call_output items after that
// response. The fake API checks each request body the SDK sent, byte for
// byte.
func ExampleRunResponses() {
	api := looptest.NewProvider(responsesExchanges...)
	defer api.Close()
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	resp, turn, err := respond(ctx, client, responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: responsesDefs,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Show me the screen, then deploy to prod.")}})
	if err != nil {
		log.Fatal(err)
	}
	wait := turn.Waiting()[0]
	fmt.Printf("%s waits: %s\n", wait.Tool, wait.Request.Prompt)
	stored, _ := json.Marshal(turn) // a database row, with resp.ID
	previous := resp.ID

	// Another process, with nothing but what was stored.
	client = openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	_, input, err := openailoop.ResumeResponses(ctx, stored, wait.Request.Resolve(nil), tools)
	if err != nil {
		log.Fatal(err)
	}
	resp, turn, err = respond(ctx, client, responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: responsesDefs,
		PreviousResponseID: openai.String(previous), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.OutputText(), len(turn.Calls))
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. 0
	// 2 requests, each body as expected
}
