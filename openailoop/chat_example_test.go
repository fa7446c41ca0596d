package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// chatDefs are the tools as the model is told of them.
var chatDefs = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "screenshot"}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "deploy", Parameters: openai.FunctionParameters{
		"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []string{"env"}}}),
}

// chatParams are the request's model, tools and options; the conversation
// gives its messages.
var chatParams = openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Tools: chatDefs}

// chat is the user's loop: it sends conv while it is ready, and runs the
// tools each reply calls, until the model answers in text, or a call
// waits for a person and the conversation, its turn parked, is to be
// stored.
func chat(ctx context.Context, c openai.Client, conv openailoop.ChatConversation) (_ openailoop.ChatConversation, err error) {
	for err == nil && conv.Ready() {
		var resp *openai.ChatCompletion
		if resp, err = c.Chat.Completions.New(ctx, conv.Params(chatParams)); err == nil {
			conv, err = conv.Run(ctx, resp, tools)
		}
	}
	return conv, err
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the conversation, its turn
// parked, and stops. Another process reads it back from the stored bytes,
// resumes it with the person's answer and sends the tool messages of both
// calls, then the user message with the image. The fake API checks each
// request body the SDK sent, byte for byte.
func ExampleChatConversation() {
	api := looptest.NewProvider(chatExchanges...)
	defer api.Close()
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	prompt := openai.UserMessage("Show me the screen, then deploy to prod.")
	conv, err := chat(ctx, client, openailoop.ChatConversation{Messages: []openai.ChatCompletionMessageParamUnion{prompt}})
	if err != nil {
		log.Fatal(err)
	}
	wait := conv.Turn.Waiting()[0]
	fmt.Printf("%s waits: %s\n", wait.Tool, wait.Request.Prompt)
	stored, err := json.Marshal(conv) // one value to store: the messages and the parked turn
	if err != nil {
		log.Fatal(err)
	}

	// Another process, with nothing but the stored bytes and the answer.
	client = openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	conv, err = openailoop.ResumeChatConversation(ctx, stored, 1<<20, wait.Request.Resolve(nil), tools)
	if err == nil {
		conv, err = chat(ctx, client, conv)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(conv.Messages[len(conv.Messages)-1].OfAssistant.Content.OfString.Value, conv.Ready())
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. false
	// 2 requests, each body as expected
}
