package mcpgobridge_test

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
)

// benchPayloads are the sizes of the image the benchmarks convert.
var benchPayloads = []struct {
	name string
	n    int
}{
	{"64KiB", 64 << 10},
	{"1MiB", 1 << 20},
	{"16MiB", 16 << 20},
}

// randomBytes returns n random bytes, the same on every run.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return b
}

// BenchmarkConvert converts a result with a text and one image to mcp-go's
// type and back from it: typed, and through the JSON round trip it replaces
// (json.Marshal of the toolnexus MCP JSON into json.Unmarshal of mcp-go's
// type, and json.Marshal of mcp-go's type into FromMCPCallToolResult).
func BenchmarkConvert(b *testing.B) {
	for _, size := range benchPayloads {
		p, err := toolnexus.PartFromBytes(randomBytes(size.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		r := toolnexus.Ok("screenshot.png (image/png)", p)
		res := &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("screenshot.png (image/png)"),
			mcp.NewImageContent(base64.StdEncoding.EncodeToString(randomBytes(size.n)), "image/png"),
		}}
		impls := []struct {
			dir, name string
			run       func() error
		}{
			{"to", "typed", func() error {
				mcpgobridge.CallToolResult(r)
				return nil
			}},
			{"to", "json", func() error {
				data, err := json.Marshal(r.MCPCallToolResult())
				if err != nil {
					return err
				}
				var res mcp.CallToolResult
				return json.Unmarshal(data, &res)
			}},
			{"from", "typed", func() error {
				_, err := mcpgobridge.FromCallToolResult(res)
				return err
			}},
			{"from", "json", func() error {
				data, err := json.Marshal(res)
				if err != nil {
					return err
				}
				_, err = toolnexus.FromMCPCallToolResult(data)
				return err
			}},
		}
		for _, impl := range impls {
			b.Run("dir="+impl.dir+"/size="+size.name+"/impl="+impl.name, func(b *testing.B) {
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
