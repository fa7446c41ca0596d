package toolnexus_test

// The root package's benchmarks are what a user calls, each paired with its
// natural baseline within one process by internal/benchpair, which reports
// the time per call of each side (ns/toolnexus, ns/baseline) and their
// ratio (toolnexus/baseline):
//
//	PAIRED=ReadResult .ci/bench
//	PAIRED=ReadResult GOEXPERIMENT=jsonv2 .ci/bench
//	PAIRED='PartFrom|WriteResult|ToolFor' .ci/bench
//
// The kernels they stand on have their own benchmarks, beside them:
// internal/b64 (the base64 encoder and check), internal/jsonscan (strings
// and documents), internal/rfc3339 and internal/msg.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/benchpair"
)

var benchSizes = []struct {
	name string
	n    int
}{
	{"size=1KiB", 1 << 10},
	{"size=64KiB", 64 << 10},
	{"size=1MiB", 1 << 20},
	{"size=16MiB", 16 << 20},
}

// sink keeps results alive so that the compiler cannot drop the work.
var sink any

// must stops the benchmark on an error.
func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// paired times ours and baseline, calls on n bytes of input each, in
// alternating blocks of as many calls as make about 1 MiB of input, so that
// a machine whose load drifts slows both sides alike.
func paired(b *testing.B, n int, ours, baseline func()) {
	b.ReportAllocs()
	if n > 0 {
		b.SetBytes(int64(n))
	}
	perOurs, perBase := benchpair.Alternate(b, max(1, (1<<20)/max(n, 1)), ours, baseline)
	b.ReportMetric(perOurs, "ns/toolnexus")
	b.ReportMetric(perBase, "ns/baseline")
	b.ReportMetric(perOurs/perBase, "toolnexus/baseline")
}

// BenchmarkPartFromFile reads a file as a part, next to os.ReadFile and
// base64.StdEncoding.EncodeToString.
func BenchmarkPartFromFile(b *testing.B) {
	dir := b.TempDir()
	for _, s := range benchSizes {
		path := filepath.Join(dir, fmt.Sprintf("%d.png", s.n))
		must(b, os.WriteFile(path, payload(s.n), 0o600))
		b.Run(s.name, func(b *testing.B) {
			paired(b, s.n, func() {
				p, err := toolnexus.PartFromFile(path)
				must(b, err)
				sink = p
			}, func() {
				raw, err := os.ReadFile(path)
				must(b, err)
				sink = base64.StdEncoding.EncodeToString(raw)
			})
		})
	}
}

// BenchmarkPartFromReader reads a reader that reports no size, next to
// io.ReadAll and base64.StdEncoding.EncodeToString.
func BenchmarkPartFromReader(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		b.Run(s.name, func(b *testing.B) {
			paired(b, s.n, func() {
				p, err := toolnexus.PartFromReader(unsized{bytes.NewReader(data)}, "image/png")
				must(b, err)
				sink = p
			}, func() {
				raw, err := io.ReadAll(unsized{bytes.NewReader(data)})
				must(b, err)
				sink = base64.StdEncoding.EncodeToString(raw)
			})
		})
	}
}

// plainMCP is an MCP CallToolResult as a plain struct: the baseline for
// reading or writing one.
type plainMCP struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		Data     string `json:"data,omitempty"`
		MIMEType string `json:"mimeType,omitempty"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// readKinds are the results the readers read and the writers write, by
// kind: tool text; JSON as text, an escape every few bytes; Japanese, every
// rune past ASCII; and a screenshot, an image with a line of text.
var readKinds = []struct {
	name   string
	result func(n int) toolnexus.ToolResult
}{
	{"text", func(n int) toolnexus.ToolResult { return toolnexus.Ok(toolText(n)) }},
	{"json-text", func(n int) toolnexus.ToolResult {
		return toolnexus.Ok(repeatText(`{"name": "report.pdf", "size": 1024, "path": "C:\\docs\\report.pdf", "tags": ["a", "b"]}`+"\n", n))
	}},
	{"cjk-text", func(n int) toolnexus.ToolResult {
		return toolnexus.Ok(repeatText("テストはすべて成功しました。状態：正常。", n))
	}},
	{"image", func(n int) toolnexus.ToolResult {
		p, err := toolnexus.PartFromBytes(payload(n), "image/png")
		if err != nil {
			panic(err)
		}
		return toolnexus.Ok("a screenshot", p)
	}},
}

// repeatText returns unit repeated to n bytes, cut at a whole rune.
func repeatText(unit string, n int) string {
	return strings.ToValidUTF8(strings.Repeat(unit, n/len(unit)+1)[:n], "")
}

// benchReaders runs ParseToolResult and FromMCPCallToolResult on each kind
// and size of result, each paired with decode of the same JSON into a
// plain struct.
func benchReaders(b *testing.B, decode func(data []byte, v any) error) {
	for _, job := range []struct {
		name  string
		wire  func(r toolnexus.ToolResult) any
		read  func(data []byte) (toolnexus.ToolResult, error)
		plain func() any
	}{
		{"ParseToolResult", func(r toolnexus.ToolResult) any { return r },
			func(data []byte) (toolnexus.ToolResult, error) { return toolnexus.ParseToolResult(data, 0) },
			func() any { return new(plainResult) }},
		{"FromMCPCallToolResult", func(r toolnexus.ToolResult) any { return r.MCPCallToolResult() },
			toolnexus.FromMCPCallToolResult,
			func() any { return new(plainMCP) }},
	} {
		for _, k := range readKinds {
			for _, s := range benchSizes {
				data := []byte(mustJSON(b, job.wire(k.result(s.n))))
				b.Run(fmt.Sprintf("reader=%s/kind=%s/%s", job.name, k.name, s.name), func(b *testing.B) {
					paired(b, len(data), func() {
						r, err := job.read(data)
						must(b, err)
						sink = r
					}, func() {
						v := job.plain()
						must(b, decode(data, v))
						sink = v
					})
				})
			}
		}
	}
}

// BenchmarkReadResult reads results as they come from a peer, with exact
// keys, every string checked and the result validated, next to
// json.Unmarshal into a plain struct, which folds keys and checks nothing.
func BenchmarkReadResult(b *testing.B) { benchReaders(b, json.Unmarshal) }

// BenchmarkWriteResult writes results as JSON: json.Marshal of a ToolResult
// and the AppendJSON of its MCPCallToolResult, next to json.Marshal of the
// same JSON read into a plain struct.
func BenchmarkWriteResult(b *testing.B) {
	for _, k := range readKinds {
		for _, s := range benchSizes {
			r := k.result(s.n)
			var plain plainResult
			must(b, json.Unmarshal([]byte(mustJSON(b, r)), &plain))
			var plainM plainMCP
			must(b, json.Unmarshal([]byte(mustJSON(b, r.MCPCallToolResult())), &plainM))
			for _, w := range []struct {
				name        string
				ours, plain func() ([]byte, error)
			}{
				{"json.Marshal", func() ([]byte, error) { return json.Marshal(r) }, func() ([]byte, error) { return json.Marshal(plain) }},
				{"MCPCallToolResult", func() ([]byte, error) { return r.MCPCallToolResult().AppendJSON(nil) }, func() ([]byte, error) { return json.Marshal(plainM) }},
			} {
				b.Run(fmt.Sprintf("writer=%s/kind=%s/%s", w.name, k.name, s.name), func(b *testing.B) {
					paired(b, s.n, func() {
						out, err := w.ours()
						must(b, err)
						sink = out
					}, func() {
						out, err := w.plain()
						must(b, err)
						sink = out
					})
				})
			}
		}
	}
}

// BenchmarkToolFor decodes a model's arguments into a tool's input with
// exact keys, next to json.Unmarshal of the same bytes into the same struct.
func BenchmarkToolFor(b *testing.B) {
	type in struct {
		Env    string   `json:"env"`
		Region string   `json:"region"`
		Count  int      `json:"count"`
		Tags   []string `json:"tags"`
	}
	args := json.RawMessage(`{"env":"prod","region":"eu-west-1","count":3,"tags":["a","b","c"]}`)
	tool := toolnexus.ToolFor(func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
		sink = v
		return toolnexus.ToolResult{}
	})
	ctx := context.Background()
	if r := tool(ctx, args, nil); r.IsError {
		b.Fatalf("the tool refused its arguments: %s", r.Output)
	}
	paired(b, len(args), func() { sink = tool(ctx, args, nil) }, func() {
		var v in
		must(b, json.Unmarshal(args, &v))
		sink = v
	})
}
