package anthropicloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
)

// defs are the tools as the model is told of them.
var defs = []anthropic.ToolUnionParam{
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: map[string]any{}}, "screenshot"),
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"env": map[string]any{"type": "string"}}, Required: []string{"env"}}, "deploy"),
}

// params are the request's model, tools and options; the conversation
// gives its messages.
var params = anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: defs}

// converse is the user's loop: it sends conv while it is ready, and runs
// the tools each reply calls, until the model answers in text, or a call
// waits for a person and the conversation, its turn parked, is to be
// stored.
func converse(ctx context.Context, c anthropic.Client, conv anthropicloop.Conversation) (_ anthropicloop.Conversation, err error) {
	for err == nil && conv.Ready() {
		var resp *anthropic.Message
		if resp, err = c.Messages.New(ctx, conv.Params(params)); err == nil {
			conv, err = conv.Run(ctx, resp, tools)
		}
	}
	return conv, err
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the conversation, its turn
// parked, and stops. Another process reads it back from the stored bytes,
// resumes it with the person's answer and sends the one message that
// answers both calls. The fake API checks each request body the SDK sent,
// byte for byte.
func Example() {
	api := looptest.NewProvider(exchanges...)
	defer api.Close()
	ctx := context.Background()
	client := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	prompt := anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the screen, then deploy to prod."))
	conv, err := converse(ctx, client, anthropicloop.Conversation{Messages: []anthropic.MessageParam{prompt}})
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
	client = anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	conv, err = anthropicloop.ResumeConversation(ctx, stored, 1<<20, wait.Request.Resolve(nil), tools)
	if err == nil {
		conv, err = converse(ctx, client, conv)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(conv.Messages[len(conv.Messages)-1].OfAssistant.Content[0].OfText.Text, conv.Ready())
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. false
	// 2 requests, each body as expected
}
