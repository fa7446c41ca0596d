package mcpbridge_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

// benchSizes are the image payloads of the benchmarks.
var benchSizes = []struct {
	name string
	n    int
}{
	{"1MiB", 1 << 20},
	{"16MiB", 16 << 20},
}

// benchImage returns n random bytes, the same on every run.
func benchImage(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{}).Read(b)
	return b
}

// BenchmarkCallToolResult converts a result with one image to the SDK's
// type: typed, and through the JSON bridge it replaces.
func BenchmarkCallToolResult(b *testing.B) {
	for _, size := range benchSizes {
		p, err := toolnexus.PartFromBytes(benchImage(size.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		r := toolnexus.Ok("screenshot.png (image/png)", p)
		impls := []struct {
			name string
			run  func() error
		}{
			{"typed", func() error {
				mcpbridge.CallToolResult(r)
				return nil
			}},
			{"json", func() error {
				data, err := json.Marshal(r.MCPCallToolResult())
				if err != nil {
					return err
				}
				var res mcp.CallToolResult
				return json.Unmarshal(data, &res)
			}},
		}
		for _, impl := range impls {
			b.Run("size="+size.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size.n))
				for b.Loop() {
					if err := impl.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFromCallToolResult reads a result of the SDK with one image:
// typed, and through the JSON bridge it replaces.
func BenchmarkFromCallToolResult(b *testing.B) {
	for _, size := range benchSizes {
		res := &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "screenshot.png (image/png)"},
			&mcp.ImageContent{Data: benchImage(size.n), MIMEType: "image/png"},
		}}
		impls := []struct {
			name string
			run  func() (toolnexus.ToolResult, error)
		}{
			{"typed", func() (toolnexus.ToolResult, error) { return mcpbridge.FromCallToolResult(res) }},
			{"json", func() (toolnexus.ToolResult, error) {
				data, err := json.Marshal(res)
				if err != nil {
					return toolnexus.ToolResult{}, err
				}
				return toolnexus.FromMCPCallToolResult(data)
			}},
		}
		for _, impl := range impls {
			b.Run("size="+size.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size.n))
				for b.Loop() {
					r, err := impl.run()
					if err != nil || len(r.Parts) != 1 {
						b.Fatal(err, len(r.Parts))
					}
				}
			})
		}
	}
}
