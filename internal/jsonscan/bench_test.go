package jsonscan_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/benchpair"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// texts are the strings a tool's result holds, by kind: lines of a test
// run, with tabs, quotes and backslashes; JSON as text, an escape every few
// bytes; and Japanese, every rune past ASCII.
var texts = []struct {
	name string
	unit string
}{
	{"text", "   12\tok: \"TestRead/case_12\" in C:\\work\\pkg\\file_12.go (5.012s) — café ✓\n"},
	{"json-text", `{"name": "report.pdf", "size": 1024, "path": "C:\\docs\\report.pdf", "tags": ["a", "b"]}` + "\n"},
	{"cjk-text", "テストはすべて成功しました。状態：正常。"},
}

// quoted returns the JSON string of unit repeated to about n bytes.
func quoted(b *testing.B, unit string, n int) []byte {
	s, err := json.Marshal(strings.Repeat(unit, n/len(unit)+1))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// paired times ours and baseline, each a call on n bytes, in alternating
// blocks of calls that read about 1 MiB, and reports both and their ratio.
func paired(b *testing.B, n int, ours, baseline func()) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	perOurs, perBase := benchpair.Alternate(b, max(1, (1<<20)/n), ours, baseline)
	b.ReportMetric(perOurs, "ns/toolnexus")
	b.ReportMetric(perBase, "ns/baseline")
	b.ReportMetric(perOurs/perBase, "toolnexus/baseline")
}

// BenchmarkSkipString checks a JSON string as the readers of results do,
// UTF-8 included, next to json.Valid of the same string.
func BenchmarkSkipString(b *testing.B) {
	for _, k := range texts {
		for _, n := range []int{1 << 10, 64 << 10, 1 << 20} {
			s := quoted(b, k.unit, n)
			b.Run(fmt.Sprintf("kind=%s/size=%dKiB", k.name, n>>10), func(b *testing.B) {
				paired(b, len(s), func() {
					if next, isUTF8, ok := jsonscan.SkipString(s, 0); !ok || !isUTF8 || next != len(s) {
						b.Fatalf("SkipString: %d, %v, %v", next, isUTF8, ok)
					}
				}, func() {
					if !json.Valid(s) {
						b.Fatal("json.Valid refused it")
					}
				})
			})
		}
	}
}

// BenchmarkValid checks a document of objects that hold strings and
// numbers, next to json.Valid.
func BenchmarkValid(b *testing.B) {
	for _, n := range []int{1 << 10, 64 << 10, 1 << 20} {
		var sb strings.Builder
		sb.WriteString(`{"items":[`)
		for i := 0; sb.Len() < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"n":%d,"name":"file_%d.go","size":%d.5,"ok":true,"tags":["a","b"]}`, i, i, i*37)
		}
		sb.WriteString(`]}`)
		doc := []byte(sb.String())
		b.Run(fmt.Sprintf("size=%dKiB", n>>10), func(b *testing.B) {
			paired(b, len(doc), func() {
				if !jsonscan.Valid(doc) {
					b.Fatal("Valid refused it")
				}
			}, func() {
				if !json.Valid(doc) {
					b.Fatal("json.Valid refused it")
				}
			})
		})
	}
}
