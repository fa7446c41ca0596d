package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// chatDefs are the tools as the model is told of them.
var chatDefs = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "screenshot"}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "deploy", Parameters: openai.FunctionParameters{
		"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []string{"env"}}}),
}

// chat is the user's loop: it sends msgs, runs the tools the model calls
// and sends their results, until the model answers in text, or a call
// waits for a person and the turn is to be stored.
func chat(ctx context.Context, c openai.Client, msgs []openai.ChatCompletionMessageParamUnion) ([]openai.ChatCompletionMessageParamUnion, toolnexus.Turn, error) {
	for {
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: msgs, Tools: chatDefs})
		if err != nil {
			return msgs, toolnexus.Turn{}, err
		}
		turn, more, err := openailoop.RunChat(ctx, resp, tools)
		msgs = append(msgs, more...)
		if err != nil || len(turn.Calls) == 0 || !turn.Complete() {
			return msgs, turn, err // the model's last word, or a turn to store
		}
	}
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the turn and stops. Another
// process resumes it from the stored bytes with the person's answer and
// sends the tool messages of both calls, then the user message with the
// image. The fake API checks each request body the SDK sent, byte for
// byte.
func ExampleRunChat() {
	api := looptest.NewProvider(chatExchanges...)
	defer api.Close()
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	msgs, turn, err := chat(ctx, client, []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Show me the screen, then deploy to prod.")})
	if err != nil {
		log.Fatal(err)
	}
	wait := turn.Waiting()[0]
	fmt.Printf("%s waits: %s\n", wait.Tool, wait.Request.Prompt)
	stored, _ := json.Marshal(turn) // a database row, with the conversation
	history, _ := json.Marshal(msgs)

	// Another process, with nothing but what was stored.
	client = openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	var again []openai.ChatCompletionMessageParamUnion
	if err := json.Unmarshal(history, &again); err != nil {
		log.Fatal(err)
	}
	_, answers, err := openailoop.ResumeChat(ctx, stored, wait.Request.Resolve(nil), tools)
	if err != nil {
		log.Fatal(err)
	}
	msgs, turn, err = chat(ctx, client, append(again, answers...))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msgs[len(msgs)-1].OfAssistant.Content.OfString.Value, len(turn.Calls))
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. 0
	// 2 requests, each body as expected
}
