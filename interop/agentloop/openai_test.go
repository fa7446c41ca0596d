package agentloop_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolnexus-go/toolnexus/interop/agentloop"
)

const openAIToolCalls = `{"id":"chatcmpl-1","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
	`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}},` +
	`{"id":"call_02","type":"function","function":{"name":"deploy","arguments":"{\"env\":\"prod\"}"}}]}}]}`

const openAIDone = `{"id":"chatcmpl-2","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"stop",` +
	`"message":{"role":"assistant","content":"Done."}}]}`

const (
	openAIPrompt    = `{"content":"Show me the screen, then deploy to prod.","role":"user"}`
	openAIToolsJSON = `"tools":[{"function":{"name":"screenshot"},"type":"function"},` +
		`{"function":{"name":"deploy","parameters":{"properties":{"env":{"type":"string"}},"required":["env"],"type":"object"}},"type":"function"}]`
)

func openAIClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

func TestOpenAI(t *testing.T) {
	t.Parallel()
	checkLoop(t, loop{
		start: func(ctx context.Context, url, path string) (string, error) {
			return agentloop.OpenAI(ctx, openAIClient(url), path, "Show me the screen, then deploy to prod.")
		},
		resume: func(ctx context.Context, url, path string, person agentloop.Person) (string, error) {
			return agentloop.ResumeOpenAI(ctx, openAIClient(url), path, person)
		},
		replies: []string{openAIToolCalls, openAIDone},
		idKey:   "tool_call_id",
		ids:     []string{"call_01", "call_02"},
		bodies: func(t *testing.T, p person) []string {
			return []string{`{"messages":[` + openAIPrompt + `],"model":"gpt-5.5",` + openAIToolsJSON + `}`,
				`{"messages":[` + openAIPrompt + `,` +
					`{"tool_calls":[{"id":"call_01","function":{"arguments":"{}","name":"screenshot"},"type":"function"},{"id":"call_02","function":{"arguments":"{\"env\":\"prod\"}","name":"deploy"},"type":"function"}],"role":"assistant"},` +
					`{"role":"tool","tool_call_id":"call_01","content":"fixture.png (image/png, 82 bytes)"},` +
					`{"role":"tool","tool_call_id":"call_02","content":"` + p.deployed + `"},` +
					`{"role":"user","content":[{"type":"text","text":"Output of tool screenshot (call_01):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + goldenPNG(t) + `"}}]}],` +
					`"model":"gpt-5.5",` + openAIToolsJSON + `}`}
		},
	})
}
