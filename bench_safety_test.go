package toolnexus

import (
	"encoding/json"
	"runtime"
	"testing"
)

// BenchmarkDecodeHugePart decodes a result holding a 16 MiB part. Its
// B/op is about the encoded payload, 22.4 MB: encoding/json copies the data
// string once out of the input and the package adds nothing to it. The
// payload-copies metric is B/op divided by the encoded payload's length.
func BenchmarkDecodeHugePart(b *testing.B) {
	src, data := hugePartJSON(16 * mib)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		var r ToolResult
		if err := json.Unmarshal(src, &r); err != nil {
			b.Fatal(err)
		}
		if len(r.Parts) != 1 || len(r.Parts[0].Data) != len(data) {
			b.Fatal("decoded the wrong part")
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(data)), "payload-copies/op")
}
