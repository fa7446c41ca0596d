package agentloop

import (
	"context"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/toolnexus-go/toolnexus"
)

// anthropicTools are the tools the model may call.
var anthropicTools = []anthropic.ToolUnionParam{
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: map[string]any{}}, "screenshot"),
	anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"env": map[string]any{"type": "string"}}, Required: []string{"env"}}, "deploy"),
}

// Anthropic runs a conversation with Claude that starts with prompt, and
// returns the model's last text. A run whose tool waits for a person parks
// in the file path and returns [ErrParked].
func Anthropic(ctx context.Context, c anthropic.Client, path, prompt string) (string, error) {
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}
	return anthropicLoop(ctx, c, path, msgs, toolnexus.Turn{})
}

// ResumeAnthropic resumes the run parked in the file path once the person
// has answered, in this process or any other.
func ResumeAnthropic(ctx context.Context, c anthropic.Client, path string, person Person) (string, error) {
	msgs, turn, err := unpark(path, person, param.Override[anthropic.MessageParam])
	if err != nil {
		return "", err
	}
	return anthropicLoop(ctx, c, path, msgs, turn)
}

func anthropicLoop(ctx context.Context, c anthropic.Client, path string, msgs []anthropic.MessageParam, turn toolnexus.Turn) (string, error) {
	for {
		if len(turn.Calls) > 0 {
			if !turn.Complete() {
				return "", park(path, msgs, turn)
			}
			m, err := turn.AnthropicMessage()
			if err != nil {
				return "", err
			}
			msgs = append(msgs, param.Override[anthropic.MessageParam](m))
		}
		resp, err := c.Messages.New(ctx, anthropic.MessageNewParams{
			Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Messages: msgs, Tools: anthropicTools})
		if err != nil {
			return "", err
		}
		os.Remove(path) // the turn is sent: it must never be sent again
		msgs, turn = append(msgs, resp.ToParam()), toolnexus.Turn{}
		text := ""
		for _, b := range resp.Content {
			switch b := b.AsAny().(type) {
			case anthropic.ToolUseBlock:
				turn.Calls = append(turn.Calls, newCall(b.ID, b.Name, b.Input))
			case anthropic.TextBlock:
				text += b.Text
			}
		}
		if len(turn.Calls) == 0 {
			return text, nil
		}
	}
}
