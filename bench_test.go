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

// sideBySide runs a job done by this package and by the baseline as the
// sub-benchmarks name/impl=toolnexus and name/impl=baseline. Each function
// does the job b.N times; n is the bytes of input per job, 0 for none.
func sideBySide(b *testing.B, name string, n int64, ours, baseline func(b *testing.B)) {
	for _, impl := range []struct {
		name string
		run  func(*testing.B)
	}{{"toolnexus", ours}, {"baseline", baseline}} {
		b.Run(name+"/impl="+impl.name, func(b *testing.B) {
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
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkFileToPart(b *testing.B) {
	for _, s := range benchSizes {
		path := filepath.Join(b.TempDir(), "bench.png")
		must(b, os.WriteFile(path, payload(s.n), 0o600))
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				p, err := PartFromFile(path)
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

func BenchmarkReaderToPart(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				p, err := PartFromReader(onlyReader{bytes.NewReader(data)}, "image/png")
				must(b, err)
				partSink = p
			}
		}, func(b *testing.B) {
			for range b.N {
				raw, err := io.ReadAll(onlyReader{bytes.NewReader(data)})
				must(b, err)
				stringSink = base64.StdEncoding.EncodeToString(raw)
			}
		})
	}
}

func BenchmarkBytesToPart(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				p, err := PartFromBytes(data, "image/png")
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
		p, err := PartFromBytes(payload(s.n), "image/png")
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

// BenchmarkDescribe has no baseline: what matters is that describing or
// logging a part costs the same at every size (compare the rows by size).
func BenchmarkDescribe(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		must(b, err)
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
		must(b, err)
		res := Ok("a screenshot", p)
		plain := plainResult{Output: res.Output, Parts: []plainPart{{Type: string(p.Type), MIMEType: p.MIMEType, Data: p.Data}}}
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

func BenchmarkDecodeResult(b *testing.B) {
	for _, s := range benchSizes {
		p, err := PartFromBytes(payload(s.n), "image/png")
		must(b, err)
		res := Pending(Request{ID: "req-1", Kind: KindApproval, Prompt: "Send this screenshot?"})
		res.Parts = []ContentPart{p}
		data, err := json.Marshal(res)
		must(b, err)
		sideBySide(b, s.name, int64(len(data)), func(b *testing.B) {
			for range b.N {
				var r ToolResult
				must(b, json.Unmarshal(data, &r))
				req, ok := PendingOf(r)
				if !ok {
					b.Fatal("no suspension")
				}
				requestSink = req
			}
		}, func(b *testing.B) {
			for range b.N {
				var r plainResult
				must(b, json.Unmarshal(data, &r))
				plainSink = r
			}
		})
	}
}

func BenchmarkSuspension(b *testing.B) {
	req := Request{Kind: KindInput, Prompt: "Which environment?"}
	built := Pending(req)
	data, err := json.Marshal(built)
	must(b, err)
	var decoded ToolResult
	must(b, json.Unmarshal(data, &decoded))
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
	sideBySide(b, "op=id", 0, func(b *testing.B) {
		for range b.N {
			stringSink = newID()
		}
	}, func(b *testing.B) {
		for range b.N {
			stringSink = uuid.NewString()
		}
	})
}
