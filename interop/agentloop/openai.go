package agentloop

import (
	"context"
	"errors"
	"os"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/toolnexus-go/toolnexus"
)

// openAITools are the tools the model may call.
var openAITools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "screenshot"}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "deploy", Parameters: openai.FunctionParameters{
		"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []string{"env"}}}),
}

// OpenAI runs a conversation with an OpenAI Chat Completions model that
// starts with prompt, and returns the model's last text. A run whose tool
// waits for a person parks in the file path and returns [ErrParked].
func OpenAI(ctx context.Context, c openai.Client, path, prompt string) (string, error) {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}
	return openAILoop(ctx, c, path, msgs, toolnexus.Turn{})
}

// ResumeOpenAI resumes the run parked in the file path once the person has
// answered, in this process or any other.
func ResumeOpenAI(ctx context.Context, c openai.Client, path string, person Person) (string, error) {
	msgs, turn, err := unpark(path, person, param.Override[openai.ChatCompletionMessageParamUnion])
	if err != nil {
		return "", err
	}
	return openAILoop(ctx, c, path, msgs, turn)
}

func openAILoop(ctx context.Context, c openai.Client, path string, msgs []openai.ChatCompletionMessageParamUnion, turn toolnexus.Turn) (string, error) {
	for {
		if len(turn.Calls) > 0 {
			if !turn.Complete() {
				return "", park(path, msgs, turn)
			}
			out, err := turn.OpenAIChatMessages()
			if err != nil {
				return "", err
			}
			for _, m := range out {
				msgs = append(msgs, param.Override[openai.ChatCompletionMessageParamUnion](m))
			}
		}
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: msgs, Tools: openAITools})
		if err != nil {
			return "", err
		} else if len(resp.Choices) == 0 {
			return "", errors.New("agentloop: the model sent no choice")
		}
		os.Remove(path) // the turn is sent: it must never be sent again
		m := resp.Choices[0].Message
		msgs, turn = append(msgs, m.ToParam()), toolnexus.Turn{}
		for _, tc := range m.ToolCalls {
			turn.Calls = append(turn.Calls, newCall(tc.ID, tc.Function.Name, []byte(tc.Function.Arguments)))
		}
		if len(turn.Calls) == 0 {
			return m.Content, nil
		}
	}
}
