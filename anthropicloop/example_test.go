package anthropicloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
)

// defs are the tools as the model is told of them.
var defs = []anthropic.ToolUnionParam{
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: map[string]any{}}, "screenshot"),
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"env": map[string]any{"type": "string"}}, Required: []string{"env"}}, "deploy"),
}

// converse is the user's loop: it sends msgs, runs the tools the model
// calls and sends their results, until the model answers in text, or a
// call waits for a person and the turn is to be stored.
func converse(ctx context.Context, c anthropic.Client, msgs []anthropic.MessageParam) ([]anthropic.MessageParam, toolnexus.Turn, error) {
	for {
		resp, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Messages: msgs, Tools: defs})
		if err != nil {
			return msgs, toolnexus.Turn{}, err
		}
		turn, more, err := anthropicloop.Run(ctx, resp, tools)
		msgs = append(msgs, more...)
		if err != nil || len(turn.Calls) == 0 || !turn.Complete() {
			return msgs, turn, err // the model's last word, or a turn to store
		}
	}
}

// The model asks for a screenshot and a deploy at once; deploy waits for
// an approval, so the first process stores the turn and stops. Another
// process resumes it from the stored bytes with the person's answer and
// sends the one message that answers both calls. The fake API checks each
// request body the SDK sent, byte for byte.
func Example() {
	api := looptest.NewProvider(exchanges...)
	defer api.Close()
	ctx := context.Background()
	client := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	prompt := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Show me the screen, then deploy to prod."))}
	msgs, turn, err := converse(ctx, client, prompt)
	if err != nil {
		log.Fatal(err)
	}
	wait := turn.Waiting()[0]
	fmt.Printf("%s waits: %s\n", wait.Tool, wait.Request.Prompt)
	stored, _ := json.Marshal(turn) // a database row, with the conversation
	history, _ := json.Marshal(msgs)

	// Another process, with nothing but what was stored.
	client = anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	var again []anthropic.MessageParam
	if err := json.Unmarshal(history, &again); err != nil {
		log.Fatal(err)
	}
	turn, reply, err := anthropicloop.Resume(ctx, stored, wait.Request.Resolve(nil), tools)
	if err != nil {
		log.Fatal(err)
	}
	msgs, turn, err = converse(ctx, client, append(again, reply...))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msgs[len(msgs)-1].OfAssistant.Content[0].OfText.Text, len(turn.Calls))
	fmt.Println(api.Verify())
	// Output:
	// deploy waits: Deploy to prod?
	// Deployed. 0
	// 2 requests, each body as expected
}
