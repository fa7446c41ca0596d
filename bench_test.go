package toolnexus

// Benchmarks put each operation next to the plain-stdlib way of doing the same
// job, in the same run: compare the impl=toolnexus and impl=baseline rows with
//
//	go test -run '^$' -bench . -benchmem -count 10 | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -col /impl new.txt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

var benchSizes = []struct {
	name string
	n    int
}{
	{"size=1KiB", 1 << 10},
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

// Sinks keep results alive so that the compiler cannot drop the work; they
// are typed so that storing a result does not box it into an allocation.
var (
	partSink    ContentPart
	stringSink  string
	bytesSink   []byte
	intSink     int64
	valueSink   slog.Value
	requestSink Request
	resultSink  ToolResult
	plainSink   plainResult
)

// onlyReader hides every method of a reader but Read, so that its size is
// unknown.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func BenchmarkFileToPart(b *testing.B) {
	for _, s := range benchSizes {
		path := filepath.Join(b.TempDir(), "bench.png")
		if err := os.WriteFile(path, payload(s.n), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				p, err := PartFromFile(path)
				if err != nil {
					b.Fatal(err)
				}
				partSink = p
			}
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				raw, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				stringSink = base64.StdEncoding.EncodeToString(raw)
			}
		})
	}
}

func BenchmarkReaderToPart(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				p, err := PartFromReader(onlyReader{bytes.NewReader(data)}, "image/png")
				if err != nil {
					b.Fatal(err)
				}
				partSink = p
			}
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				raw, err := io.ReadAll(onlyReader{bytes.NewReader(data)})
				if err != nil {
					b.Fatal(err)
				}
				stringSink = base64.StdEncoding.EncodeToString(raw)
			}
		})
	}
}

func BenchmarkBytesToPart(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				p, err := PartFromBytes(data, "image/png")
				if err != nil {
					b.Fatal(err)
				}
				partSink = p
			}
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			for range b.N {
				stringSink = base64.StdEncoding.EncodeToString(data)
			}
		})
	}
}

func BenchmarkSize(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for range b.N {
				n += p.Size()
			}
			intSink = n
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for range b.N {
				raw, err := base64.StdEncoding.DecodeString(p.Data)
				if err != nil {
					b.Fatal(err)
				}
				n += int64(len(raw))
			}
			intSink = n
		})
	}
}

// BenchmarkDescribe has no baseline: what matters is that describing or
// logging a part costs the same at every size (compare the rows by size).
func BenchmarkDescribe(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		res := Ok("a screenshot", p).WithMetadata("page", 1)
		b.Run(s.name+"/op=part.String", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				stringSink = p.String()
			}
		})
		b.Run(s.name+"/op=part.LogValue", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				valueSink = p.LogValue()
			}
		})
		b.Run(s.name+"/op=result.String", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				stringSink = res.String()
			}
		})
		b.Run(s.name+"/op=result.LogValue", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				valueSink = res.LogValue()
			}
		})
	}
}

// plainResult and plainPart have the tags of ToolResult and ContentPart and
// no methods: the baseline for encoding/json.
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

func BenchmarkEncodeResult(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		res := Ok("a screenshot", p)
		plain := plainResult{Output: res.Output, Parts: []plainPart{{Type: string(p.Type), MIMEType: p.MIMEType, Data: p.Data}}}
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.SetBytes(int64(len(p.Data)))
			b.ReportAllocs()
			for range b.N {
				out, err := json.Marshal(res)
				if err != nil {
					b.Fatal(err)
				}
				bytesSink = out
			}
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.SetBytes(int64(len(p.Data)))
			b.ReportAllocs()
			for range b.N {
				out, err := json.Marshal(plain)
				if err != nil {
					b.Fatal(err)
				}
				bytesSink = out
			}
		})
	}
}

func BenchmarkDecodeResult(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		res := Pending(Request{ID: "req-1", Kind: KindApproval, Prompt: "Send this screenshot?"})
		res.Parts = []ContentPart{p}
		data, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name+"/impl=toolnexus", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				var r ToolResult
				if err := json.Unmarshal(data, &r); err != nil {
					b.Fatal(err)
				}
				req, ok := PendingOf(r)
				if !ok {
					b.Fatal("no suspension")
				}
				requestSink = req
			}
		})
		b.Run(s.name+"/impl=baseline", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				var r plainResult
				if err := json.Unmarshal(data, &r); err != nil {
					b.Fatal(err)
				}
				plainSink = r
			}
		})
	}
}

func BenchmarkSuspension(b *testing.B) {
	req := Request{Kind: KindInput, Prompt: "Which environment?"}
	built := Pending(req)
	data, err := json.Marshal(built)
	if err != nil {
		b.Fatal(err)
	}
	var decoded ToolResult
	if err := json.Unmarshal(data, &decoded); err != nil {
		b.Fatal(err)
	}
	b.Run("op=Pending", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			resultSink = Pending(req)
		}
	})
	for _, c := range []struct {
		name string
		r    ToolResult
	}{{"op=PendingOf/in-process", built}, {"op=PendingOf/decoded", decoded}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				r, ok := PendingOf(c.r)
				if !ok {
					b.Fatal("no suspension")
				}
				requestSink = r
			}
		})
	}
}

func BenchmarkID(b *testing.B) {
	b.Run("impl=toolnexus", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			stringSink = newID()
		}
	})
	b.Run("impl=baseline", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			stringSink = uuid.NewString()
		}
	})
}
