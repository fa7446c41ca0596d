package anthropicloop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/anthropicloop"
)

// BenchmarkParseConversation reads back a stored conversation next to its
// baseline, json.Unmarshal into the SDK's MessageParam and a Turn: ten
// rounds of a screenshot tool and their answers, then the parked deploy,
// with the fixture's 82-byte PNG or a 1 MiB image as the screenshot.
func BenchmarkParseConversation(b *testing.B) {
	ctx := context.Background()
	shot := `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5","stop_reason":"tool_use",` +
		`"content":[{"type":"tool_use","id":"toolu_01","name":"screenshot","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}`
	big, err := toolnexus.PartFromBytes(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1<<18), "image/png")
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []string{"82B", "1MiB"} {
		tools := tools
		if size == "1MiB" {
			tools = map[string]toolnexus.Tool{"deploy": tools["deploy"], "screenshot": func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
				return toolnexus.Ok("screen.png (image/png, 1 MiB)", big)
			}}
		}
		c := prompted()
		for range 10 {
			if c, err = c.Run(ctx, message(b, shot), tools); err != nil {
				b.Fatal(err)
			}
		}
		if c, err = c.Run(ctx, message(b, toolUseJSON), tools); err != nil {
			b.Fatal(err)
		}
		stored, err := json.Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("reader=ParseConversation/image="+size, func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := anthropicloop.ParseConversation(stored, 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("reader=json.Unmarshal/image="+size, func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			b.ReportAllocs()
			for b.Loop() {
				var v struct {
					Messages []anthropic.MessageParam `json:"messages"`
					Turn     toolnexus.Turn           `json:"turn"`
				}
				if err := json.Unmarshal(stored, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
