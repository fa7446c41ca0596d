package agentloop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolnexus-go/toolnexus/interop/agentloop"
)

const anthropicToolUse = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use",` +
	`"content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_01","name":"screenshot","input":{}},` +
	`{"type":"tool_use","id":"toolu_02","name":"deploy","input":{"env":"prod"}}],"usage":{"input_tokens":1,"output_tokens":1}}`

const anthropicDone = `{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"end_turn",` +
	`"content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":1,"output_tokens":1}}`

const (
	anthropicPrompt    = `{"content":[{"text":"Show me the screen, then deploy to prod.","type":"text"}],"role":"user"}`
	anthropicToolsJSON = `"tools":[{"input_schema":{"properties":{},"type":"object"},"name":"screenshot"},` +
		`{"input_schema":{"properties":{"env":{"type":"string"}},"required":["env"],"type":"object"},"name":"deploy"}]`
)

func anthropicClient(url string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

func TestAnthropic(t *testing.T) {
	t.Parallel()
	checkLoop(t, loop{
		start: func(ctx context.Context, url, path string) (string, error) {
			return agentloop.Anthropic(ctx, anthropicClient(url), path, "Show me the screen, then deploy to prod.")
		},
		resume: func(ctx context.Context, url, path string, person agentloop.Person) (string, error) {
			return agentloop.ResumeAnthropic(ctx, anthropicClient(url), path, person)
		},
		replies: []string{anthropicToolUse, anthropicDone},
		idKey:   "tool_use_id",
		ids:     []string{"toolu_01", "toolu_02"},
		bodies: func(t *testing.T, p person) []string {
			return []string{`{"max_tokens":1024,"messages":[` + anthropicPrompt + `],"model":"claude-sonnet-5-5",` + anthropicToolsJSON + `}`,
				`{"max_tokens":1024,"messages":[` + anthropicPrompt + `,` +
					`{"content":[{"text":"Checking.","type":"text"},{"id":"toolu_01","input":{},"name":"screenshot","type":"tool_use"},{"id":"toolu_02","input":{"env":"prod"},"name":"deploy","type":"tool_use"}],"role":"assistant"},` +
					`{"role":"user","content":[` +
					`{"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[{"type":"text","text":"fixture.png (image/png, 82 bytes)"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + goldenPNG(t) + `"}}]},` +
					`{"type":"tool_result","tool_use_id":"toolu_02","is_error":` + fmt.Sprint(p.isError) + `,"content":[{"type":"text","text":"` + p.deployed + `"}]}]}],` +
					`"model":"claude-sonnet-5-5",` + anthropicToolsJSON + `}`}
		},
	})
}
