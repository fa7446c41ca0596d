package toolnexus_test

// Benchmarks put each job done by this package next to the plain-stdlib way
// of doing the same job: every row is named BenchmarkJOB/impl=toolnexus/… or
// BenchmarkJOB/impl=baseline/…, so that benchstat -col /impl prints the
// ratio of each pair. .ci/bench runs them as BENCH.md reports them,
// alternating the two sides process by process, job by job, with the files
// they read written once for the whole run:
//
//	.ci/bench                      # every job, 6 rounds
//	BENCH=FromMCP ROUNDS=10 .ci/bench
//
// The README's ratios come from
//
//	PAIRED=ReadResult .ci/bench
//	PAIRED=ReadResult GOEXPERIMENT=simd .ci/bench
//	PAIRED=ReadResult GOEXPERIMENT=jsonv2 .ci/bench
//	PAIRED=PartFromFileFloor GOEXPERIMENT=simd .ci/bench
//	BENCH=PartFromFile .ci/bench
//	BENCH=PartFromFile GOEXPERIMENT=simd .ci/bench
//	go test -run '^$' -bench MCPMemory -benchtime 3x .
//
// and the Sealer's from BenchmarkSealerVsBareGCM (package requeststate),
// which pairs each side within one benchmark:
//
//	go test -run '^$' -bench SealerVsBareGCM -count 6 ./requeststate

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/b64"
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

// payload returns n pseudo-random bytes, the same for every run.
func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(b)
	return b
}

// Sinks keep results alive so that the compiler cannot drop the work.
var (
	partSink   toolnexus.ContentPart
	resultSink toolnexus.ToolResult
	stringSink string
	bytesSink  []byte
	intSink    int64
	anySink    any
)

// readOnly hides every method of a reader but Read, so that its size is
// unknown.
type readOnly struct{ r io.Reader }

func (o readOnly) Read(p []byte) (int, error) { return o.r.Read(p) }

// sideBySide runs a job done by this package and by the baseline as the
// sub-benchmarks impl=toolnexus/name and impl=baseline/name. Each function
// does the job b.N times; n is the bytes of input per job, 0 for none.
func sideBySide(b *testing.B, name string, n int64, ours, baseline func(b *testing.B)) {
	for _, impl := range []struct {
		name string
		run  func(*testing.B)
	}{{"toolnexus", ours}, {"baseline", baseline}} {
		b.Run("impl="+impl.name+"/"+name, func(b *testing.B) {
			if n > 0 {
				b.SetBytes(n)
			}
			b.ReportAllocs()
			impl.run(b)
		})
	}
}

// must stops the benchmark on an error.
func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// benchDirEnv names the directory where benchFile keeps its files: .ci/bench
// sets it for a whole run of many processes, so that every process reads
// files written once, long before, as a program reads its files.
const benchDirEnv = "TOOLNEXUS_BENCH_DIR"

// benchFile returns the path of a file of payload(n) named name, written
// once: in the directory $TOOLNEXUS_BENCH_DIR if set, where a file already
// there at its size is reused, else in a directory of this process.
func benchFile(b *testing.B, name string, n int) string {
	dir := os.Getenv(benchDirEnv)
	if dir == "" {
		dir = processBenchDir(b)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d-%s", n, name))
	if fi, err := os.Stat(path); err == nil && fi.Size() == int64(n) {
		return path
	}
	// Written under another name and renamed, so that a process never
	// reads a file another is still writing.
	tmp, err := os.CreateTemp(dir, "partial-*")
	must(b, err)
	_, err = tmp.Write(payload(n))
	must(b, errors.Join(err, tmp.Close()))
	must(b, os.Rename(tmp.Name(), path))
	return path
}

// processBenchDir returns a directory that lives as long as the process.
var processBenchDir = func() func(b *testing.B) string {
	var once sync.Once
	var dir string
	var err error
	return func(b *testing.B) string {
		once.Do(func() { dir, err = os.MkdirTemp("", "toolnexus-bench-") })
		must(b, err)
		return dir
	}
}()

func BenchmarkPartFromFile(b *testing.B) {
	for _, s := range benchSizes {
		path := benchFile(b, "bench.png", s.n)
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				p, err := toolnexus.PartFromFile(path)
				must(b, err)
				partSink = p
			}
		}, func(b *testing.B) {
			for range b.N {
				raw, err := os.ReadFile(path)
				must(b, err)
				stringSink = base64.StdEncoding.EncodeToString(raw)
			}
		})
	}
}

// readerJob runs PartFromReader on the readers open gives, next to the
// stdlib way: io.ReadAll of the same reader, and the bytes encoded.
func readerJob(b *testing.B, name string, n int, open func() io.Reader) {
	closeIt := func(r io.Reader) {
		if f, ok := r.(*os.File); ok {
			f.Close()
		}
	}
	sideBySide(b, name, int64(n), func(b *testing.B) {
		for range b.N {
			in := open()
			p, err := toolnexus.PartFromReader(in, "image/png")
			must(b, err)
			partSink = p
			closeIt(in)
		}
	}, func(b *testing.B) {
		for range b.N {
			in := open()
			raw, err := io.ReadAll(in)
			must(b, err)
			stringSink = base64.StdEncoding.EncodeToString(raw)
			closeIt(in)
		}
	})
}

// BenchmarkPartFromReader reads a bytes.Reader, which reports its size.
func BenchmarkPartFromReader(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		readerJob(b, s.name, s.n, func() io.Reader { return bytes.NewReader(data) })
	}
}

// BenchmarkPartFromReaderUnknownSize reads a reader that reports no size.
func BenchmarkPartFromReaderUnknownSize(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		readerJob(b, s.name, s.n, func() io.Reader { return readOnly{bytes.NewReader(data)} })
	}
}

// BenchmarkPartFromReaderKinds reads the other readers that report their
// size: a strings.Reader, an io.SectionReader and an *os.File.
func BenchmarkPartFromReaderKinds(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		text := string(data)
		path := benchFile(b, "bench.bin", s.n)
		readerJob(b, "reader=strings.Reader/"+s.name, s.n, func() io.Reader { return strings.NewReader(text) })
		readerJob(b, "reader=SectionReader/"+s.name, s.n, func() io.Reader {
			return io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data)))
		})
		readerJob(b, "reader=os.File/"+s.name, s.n, func() io.Reader {
			f, err := os.Open(path)
			must(b, err)
			return f
		})
	}
}

// BenchmarkFloor has the floors the part constructors are measured by,
// next to the stdlib way of reading a file as a part, os.ReadFile and
// base64.StdEncoding.EncodeToString: impl=toolnexus/op=read reads the file
// into a buffer allocated once, and impl=toolnexus/op=encode encodes its
// bytes into a buffer allocated once, with the package's encoder.
func BenchmarkFloor(b *testing.B) {
	for _, s := range benchSizes {
		path := benchFile(b, "bench.png", s.n)
		data := payload(s.n)
		buf := make([]byte, s.n+1)
		dst := make([]byte, base64.StdEncoding.EncodedLen(s.n))
		stdlib := func(b *testing.B) {
			for range b.N {
				raw, err := os.ReadFile(path)
				must(b, err)
				stringSink = base64.StdEncoding.EncodeToString(raw)
			}
		}
		sideBySide(b, "op=read/"+s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				f, err := os.Open(path)
				must(b, err)
				n, err := readAll(f, buf)
				must(b, errors.Join(err, f.Close()))
				intSink = int64(n)
			}
		}, stdlib)
		sideBySide(b, "op=encode/"+s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				intSink = int64(b64.Encode(dst, data))
			}
		}, stdlib)
	}
}

// readAll reads r into buf until r ends, as os.ReadFile does into a buffer
// one byte larger than the file.
func readAll(r io.Reader, buf []byte) (int, error) {
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil || n == len(buf) {
			return n, err
		}
	}
}

func BenchmarkPartFromBytes(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				p, err := toolnexus.PartFromBytes(data, "image/png")
				must(b, err)
				partSink = p
			}
		}, func(b *testing.B) {
			for range b.N {
				stringSink = base64.StdEncoding.EncodeToString(data)
			}
		})
	}
}

func BenchmarkSize(b *testing.B) {
	for _, s := range benchSizes {
		p, err := toolnexus.PartFromBytes(payload(s.n), "image/png")
		must(b, err)
		sideBySide(b, s.name, 0, func(b *testing.B) {
			for range b.N {
				intSink = p.Size()
			}
		}, func(b *testing.B) {
			for range b.N {
				raw, err := base64.StdEncoding.DecodeString(p.Data)
				must(b, err)
				intSink = int64(len(raw))
			}
		})
	}
}

// plainResult and plainPart have the tags of ToolResult and ContentPart and
// no methods: the baseline for encoding/json, which matches their keys
// without regard to case.
type plainResult struct {
	Output   string         `json:"output"`
	IsError  bool           `json:"isError"`
	Parts    []plainPart    `json:"parts,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type plainPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
	URL      string `json:"url,omitempty"`
	Name     string `json:"name,omitempty"`
}

// screenshotJSON is the JSON of a suspended result holding an n-byte image.
func screenshotJSON(b *testing.B, n int) ([]byte, toolnexus.ToolResult) {
	p, err := toolnexus.PartFromBytes(payload(n), "image/png")
	must(b, err)
	res := toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Send this screenshot?"})
	res.Parts = []toolnexus.ContentPart{p}
	data, err := json.Marshal(res)
	must(b, err)
	return data, res
}

func BenchmarkEncodeResult(b *testing.B) {
	for _, s := range benchSizes {
		_, res := screenshotJSON(b, s.n)
		p := res.Parts[0]
		plain := plainResult{Output: res.Output, IsError: true, Metadata: res.Metadata,
			Parts: []plainPart{{Type: string(p.Type), MIMEType: p.MIMEType, Data: p.Data}}}
		sideBySide(b, s.name, int64(len(p.Data)), func(b *testing.B) {
			for range b.N {
				out, err := json.Marshal(res)
				must(b, err)
				bytesSink = out
			}
		}, func(b *testing.B) {
			for range b.N {
				out, err := json.Marshal(plain)
				must(b, err)
				bytesSink = out
			}
		})
	}
}

// exactResult is a ToolResult whose UnmarshalJSON reads exact keys: the
// design measured against encoding/json's own, and left out of the package
// for what it costs on large results.
type exactResult toolnexus.ToolResult

func (e *exactResult) UnmarshalJSON(data []byte) error {
	r, err := toolnexus.DecodeExact(data)
	*e = exactResult(r)
	return err
}

// BenchmarkDecodeResult measures what exact keys would cost json.Unmarshal,
// next to encoding/json decoding a plain struct, which matches keys without
// regard to case: json.Unmarshal into a ToolResult, which is just that, and
// json.Unmarshal through an UnmarshalJSON method that reads exact keys, which
// the package left out for what it adds on large results.
func BenchmarkDecodeResult(b *testing.B) {
	for _, s := range benchSizes {
		data, _ := screenshotJSON(b, s.n)
		for _, how := range []struct {
			name   string
			decode func() error
		}{
			{"json.Unmarshal", func() error {
				var r toolnexus.ToolResult
				err := json.Unmarshal(data, &r)
				resultSink = r
				return err
			}},
			{"exact-UnmarshalJSON", func() error {
				var r exactResult
				err := json.Unmarshal(data, &r)
				resultSink = toolnexus.ToolResult(r)
				return err
			}},
		} {
			sideBySide(b, "how="+how.name+"/"+s.name, int64(len(data)), func(b *testing.B) {
				for range b.N {
					must(b, how.decode())
				}
			}, decodePlain(data))
		}
	}
}

// BenchmarkParseToolResult reads a result as JSON from a peer is read: exact
// keys, validated.
func BenchmarkParseToolResult(b *testing.B) {
	for _, s := range benchSizes {
		data, _ := screenshotJSON(b, s.n)
		sideBySide(b, s.name, int64(len(data)), func(b *testing.B) {
			for range b.N {
				r, err := toolnexus.ParseToolResult(data, 0)
				must(b, err)
				resultSink = r
			}
		}, decodePlain(data))
	}
}

// decodePlain is the baseline of decoding a result: encoding/json into a
// plain struct.
func decodePlain(data []byte) func(*testing.B) {
	return func(b *testing.B) {
		for range b.N {
			var r plainResult
			must(b, json.Unmarshal(data, &r))
			anySink = r
		}
	}
}

// plainMCP is an MCP CallToolResult as a plain struct: the baseline for
// reading one.
type plainMCP struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// BenchmarkFromMCP reads one image from the JSON of an MCP CallToolResult,
// exact keys and checked base64, next to a plain json.Unmarshal of the same
// bytes.
func BenchmarkFromMCP(b *testing.B) {
	for _, s := range benchSizes {
		img, err := toolnexus.PartFromBytes(payload(s.n), "image/png")
		must(b, err)
		data, err := json.Marshal(toolnexus.Ok("a screenshot", img).MCPCallToolResult())
		must(b, err)
		sideBySide(b, s.name, int64(len(data)), func(b *testing.B) {
			for range b.N {
				r, err := toolnexus.FromMCPCallToolResult(data)
				must(b, err)
				resultSink = r
			}
		}, func(b *testing.B) {
			for range b.N {
				var r plainMCP
				must(b, json.Unmarshal(data, &r))
				anySink = r
			}
		})
	}
}

// scaled builds results of n parts of each kind, and the JSON of MCP
// results of n blocks of each kind.
var partKinds = []struct {
	name string
	part func(i int) toolnexus.ContentPart
}{
	{"text", func(i int) toolnexus.ContentPart { return toolnexus.TextPart(fmt.Sprintf("line %d", i)) }},
	{"image", func(int) toolnexus.ContentPart {
		return toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "iVBORw0KGgo="}
	}},
	{"unsupported", func(int) toolnexus.ContentPart {
		return toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/bmp", Data: "Qk0="}
	}},
}

// blockKinds are the MCP content blocks of BenchmarkScaling. In the
// structured kind, the structured content lists one item per block and each
// text block holds one item's JSON, so that comparing each text with the
// structured content costs what both hold.
var blockKinds = []struct {
	name       string
	block      func(i int) string
	structured bool
}{
	{"text", func(i int) string { return fmt.Sprintf(`{"type":"text","text":"line %d"}`, i) }, false},
	{"image", func(int) string { return `{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}` }, false},
	{"unknown", func(int) string { return `{"type":"widget","mimeType":"x/y","data":"AAAA"}` }, false},
	{"structured", func(i int) string { return fmt.Sprintf(`{"type":"text","text":"{\"n\":%d}"}`, i) }, true},
}

// BenchmarkScaling runs every conversion on 1, 100, 1 000 and 10 000 parts
// or blocks of each kind: 10× the parts must cost no more than about 10×
// the time and bytes. The baseline is json.Marshal of the result, or a
// plain json.Unmarshal of the MCP JSON: work linear in the input.
//
// The time includes the collections a call's allocation draws. With a heap
// as small as a benchmark's, under the runtime's 4 MB minimum, a call on
// 10 000 parts draws one every few calls, and each scans the 10 000 parts
// held as input: the collector's share grows faster than the parts do.
// GOGC=off shows the conversions' own cost.
func BenchmarkScaling(b *testing.B) {
	for _, n := range []int{1, 100, 1000, 10000} {
		for _, k := range partKinds {
			parts := make([]toolnexus.ContentPart, n)
			for i := range parts {
				parts[i] = k.part(i)
			}
			r := toolnexus.Ok("out", parts...)
			for _, c := range []struct {
				name string
				run  func() any
			}{
				{"anthropic", func() any { return r.AnthropicToolResult("t") }},
				{"openai-chat", func() any { return r.OpenAIChatMessages("c", "n") }},
				{"openai-responses", func() any { return r.OpenAIResponsesOutput("c") }},
				{"gemini", func() any { return r.GeminiFunctionResponse("n", "c") }},
				{"mcp", func() any { return r.MCPCallToolResult() }},
				{"openai-agents", func() any { o, _ := r.OpenAIAgentsToolResult("c", "t"); return o }},
			} {
				sideBySide(b, fmt.Sprintf("to=%s/kind=%s/parts=%d", c.name, k.name, n), 0, func(b *testing.B) {
					for range b.N {
						anySink = c.run()
					}
				}, func(b *testing.B) {
					for range b.N {
						out, err := json.Marshal(r)
						must(b, err)
						bytesSink = out
					}
				})
			}
		}
		for _, k := range blockKinds {
			var sb strings.Builder
			sb.WriteString(`{"content":[`)
			for i := range n {
				if i > 0 {
					sb.WriteByte(',')
				}
				sb.WriteString(k.block(i))
			}
			sb.WriteString(`]`)
			if k.structured {
				sb.WriteString(`,"structuredContent":{"items":[`)
				for i := range n {
					if i > 0 {
						sb.WriteByte(',')
					}
					fmt.Fprintf(&sb, `{"n":%d}`, i)
				}
				sb.WriteString(`]}`)
			}
			sb.WriteString(`}`)
			data := []byte(sb.String())
			sideBySide(b, fmt.Sprintf("to=from-mcp/kind=%s/parts=%d", k.name, n), int64(len(data)), func(b *testing.B) {
				for range b.N {
					res, err := toolnexus.FromMCPCallToolResult(data)
					must(b, err)
					resultSink = res
				}
			}, func(b *testing.B) {
				for range b.N {
					var r plainMCP
					must(b, json.Unmarshal(data, &r))
					anySink = r
				}
			})
		}
	}
}

// BenchmarkDescribe has no baseline: what matters is that describing or
// logging a part costs the same at every size (compare the rows by size).
func BenchmarkDescribe(b *testing.B) {
	for _, s := range benchSizes {
		p, err := toolnexus.PartFromBytes(payload(s.n), "image/png")
		must(b, err)
		res := toolnexus.Ok("a screenshot", p).WithMetadata("page", 1)
		for _, op := range []struct {
			name string
			run  func()
		}{
			{"part.String", func() { stringSink = p.String() }},
			{"part.LogValue", func() { anySink = p.LogValue() }},
			{"result.String", func() { stringSink = res.String() }},
			{"result.LogValue", func() { anySink = res.LogValue() }},
		} {
			b.Run("op="+op.name+"/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					op.run()
				}
			})
		}
	}
}

// BenchmarkSuspension has no baseline: it is what a suspension costs to
// build and to find, in this process and after JSON.
func BenchmarkSuspension(b *testing.B) {
	req := toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	built := toolnexus.Pending(req)
	data, err := json.Marshal(built)
	must(b, err)
	var decoded toolnexus.ToolResult
	must(b, json.Unmarshal(data, &decoded))
	b.Run("op=Pending", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			resultSink = toolnexus.Pending(req)
		}
	})
	for _, c := range []struct {
		name string
		r    toolnexus.ToolResult
	}{{"op=PendingOf/in-process", built}, {"op=PendingOf/decoded", decoded}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				r, ok := toolnexus.PendingOf(c.r)
				if !ok {
					b.Fatal("no suspension")
				}
				anySink = r
			}
		})
	}
}

// BenchmarkToolFor decodes a model's arguments into a tool's input with
// exact keys, next to a plain json.Unmarshal of the same bytes into the
// same struct (which folds case).
func BenchmarkToolFor(b *testing.B) {
	type in struct {
		Env    string   `json:"env"`
		Region string   `json:"region"`
		Count  int      `json:"count"`
		Tags   []string `json:"tags"`
	}
	args := json.RawMessage(`{"env":"prod","region":"eu-west-1","count":3,"tags":["a","b","c"]}`)
	tool := toolnexus.ToolFor(func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
		anySink = v
		return toolnexus.ToolResult{}
	})
	sideBySide(b, "small", int64(len(args)), func(b *testing.B) {
		for range b.N {
			resultSink = tool(context.Background(), args, nil)
		}
	}, func(b *testing.B) {
		for range b.N {
			var v in
			must(b, json.Unmarshal(args, &v))
			anySink = v
		}
	})
}

// toolText returns n bytes of what tools print: lines of a test run, with
// tabs, quotes, a Windows path's backslashes and text that is not ASCII,
// the same for every run.
func toolText(n int) string {
	var sb strings.Builder
	words := []string{"ok", "FAIL", "café", "naïve", "✓ passed", "状態", "😀"}
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "%5d\t%s: \"TestRead/case_%d\" in C:\\work\\pkg\\file_%d.go (%d.%03ds) — %s\n",
			i, words[i%len(words)], i, i%97, i%7, i%1000, words[(i*3)%len(words)])
	}
	s := sb.String()[:n]
	return strings.ToValidUTF8(s[:len(s)-4], "") + "done" // whole runes
}

// repeatText returns unit repeated to n bytes, cut at a whole rune.
func repeatText(unit string, n int) string {
	s := strings.Repeat(unit, n/len(unit)+1)[:n]
	return strings.ToValidUTF8(s, "")
}

// readKinds are the results BenchmarkReadResult reads, by kind: a result
// whose output is tool text; one whose output is JSON, which a tool that
// returns a document as text has, an escape every few bytes; one in
// Japanese, every rune past ASCII; and a screenshot, an image with a line
// of text.
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

// readJob is one reader of BenchmarkReadResult next to its baseline, a
// decoder of the same JSON into a plain struct.
type readJob struct {
	name     string
	wire     func(r toolnexus.ToolResult) any // what is sent as JSON
	read     func(data []byte) error
	baseline func(data []byte) error
}

// readJobs are ParseToolResult and FromMCPCallToolResult, each next to
// decode, the baseline's decoder of a plain struct.
func readJobs(decode func(data []byte, v any) error) []readJob {
	return []readJob{
		{"ParseToolResult", func(r toolnexus.ToolResult) any { return r }, func(data []byte) error {
			r, err := toolnexus.ParseToolResult(data, 0)
			resultSink = r
			return err
		}, func(data []byte) error {
			var r plainResult
			err := decode(data, &r)
			anySink = r
			return err
		}},
		{"FromMCPCallToolResult", func(r toolnexus.ToolResult) any { return r.MCPCallToolResult() }, func(data []byte) error {
			r, err := toolnexus.FromMCPCallToolResult(data)
			resultSink = r
			return err
		}, func(data []byte) error {
			var r plainMCP
			err := decode(data, &r)
			anySink = r
			return err
		}},
	}
}

// benchReaders runs each reader of readJobs on each kind and size of result,
// paired with its baseline as benchAlternating pairs them.
func benchReaders(b *testing.B, decode func(data []byte, v any) error) {
	for _, job := range readJobs(decode) {
		for _, k := range readKinds {
			for _, s := range benchSizes {
				data := []byte(mustJSON(b, job.wire(k.result(s.n))))
				b.Run(fmt.Sprintf("reader=%s/kind=%s/%s", job.name, k.name, s.name), func(b *testing.B) {
					b.SetBytes(int64(len(data)))
					benchAlternating(b, len(data), func() { must(b, job.read(data)) }, func() { must(b, job.baseline(data)) })
				})
			}
		}
	}
}

// BenchmarkReadResult reads results as they come from a peer, text and
// images of 1 KiB to 16 MiB, with exact keys, every string checked and the
// result validated, next to json.Unmarshal into a plain struct, which folds
// keys and checks nothing: the two sides alternate within the process.
func BenchmarkReadResult(b *testing.B) { benchReaders(b, json.Unmarshal) }

// benchAlternating times ours and baseline in alternating blocks of calls,
// as many as make about 1 MiB of input, of n bytes each, so that a machine
// whose load drifts slows both sides alike, and reports the time per call
// of each (ns/toolnexus, ns/baseline) and their ratio (toolnexus/baseline).
func benchAlternating(b *testing.B, n int, ours, baseline func()) {
	b.ReportAllocs()
	perOurs, perBase := benchpair.Alternate(b, max(1, (1<<20)/max(n, 1)), ours, baseline)
	b.ReportMetric(perOurs, "ns/toolnexus")
	b.ReportMetric(perBase, "ns/baseline")
	b.ReportMetric(perOurs/perBase, "toolnexus/baseline")
}

// BenchmarkPartFromFileFloor pairs PartFromFile with the floor of reading a
// file as a part, alternating within the process: open, one pread of all of
// it and the package's encoder, into buffers allocated once (floor=strict);
// the same with encoding/base64's encoder (floor=stdlib-encoder); or, as a
// part must own its data, the first into an output buffer allocated for
// each call, without zeroing (floor=fresh-output), as PartFromFile does.
func BenchmarkPartFromFileFloor(b *testing.B) {
	for _, s := range benchSizes {
		path := benchFile(b, "bench.png", s.n)
		buf := make([]byte, s.n+1)
		size := base64.StdEncoding.EncodedLen(s.n)
		dst := make([]byte, size)
		floor := func(dst []byte) {
			f, err := os.Open(path)
			must(b, err)
			n, err := f.ReadAt(buf, 0)
			if err != io.EOF {
				must(b, err)
			}
			must(b, f.Close())
			intSink = int64(b64.Encode(dst, buf[:n]))
		}
		for _, side := range []struct {
			name  string
			floor func()
		}{
			{"strict", func() { floor(dst) }},
			{"stdlib-encoder", func() {
				f, err := os.Open(path)
				must(b, err)
				n, err := f.ReadAt(buf, 0)
				if err != io.EOF {
					must(b, err)
				}
				must(b, f.Close())
				base64.StdEncoding.Encode(dst, buf[:n])
			}},
			{"fresh-output", func() {
				var sb strings.Builder
				sb.Grow(size)
				floor(dst)
				sb.Write(dst)
				stringSink = sb.String()
			}},
		} {
			b.Run("floor="+side.name+"/"+s.name, func(b *testing.B) {
				b.SetBytes(int64(s.n))
				benchAlternating(b, s.n, func() {
					p, err := toolnexus.PartFromFile(path)
					must(b, err)
					partSink = p
				}, side.floor)
			})
		}
	}
}

// BenchmarkReportProgress measures a report of progress with no listener,
// the path of every tool that reports while nothing listens: 0 allocs/op.
func BenchmarkReportProgress(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		toolnexus.ReportProgress(ctx, 1, 2, "half")
	}
}
