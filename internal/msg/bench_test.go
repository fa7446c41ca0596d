package msg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// sink keeps results alive so that the compiler cannot drop the work.
var sink string

// BenchmarkQuote has no baseline: what matters is that describing a value
// in an error or a log line, by its head and its size, costs the same at
// every size (compare the rows by size).
func BenchmarkQuote(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20, 16 << 20} {
		s := strings.Repeat("iVBORw0KGgo", n/11+1)[:n]
		b.Run(fmt.Sprintf("op=Quote/size=%dKiB", n>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = msg.Quote(s)
			}
		})
		b.Run(fmt.Sprintf("op=Cut/size=%dKiB", n>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				head, tail := msg.Cut(s, 64)
				sink = head + tail
			}
		})
	}
}
