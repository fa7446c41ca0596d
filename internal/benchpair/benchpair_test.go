package benchpair_test

import (
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/benchpair"
)

// BenchmarkAlternate pairs a job with itself: its ratio is about 1, and
// each side ran block calls a turn.
func BenchmarkAlternate(b *testing.B) {
	var ours, base int
	perOurs, perBase := benchpair.Alternate(b, 8, func() { ours++ }, func() { base++ })
	if ours != base || ours != 8*b.N {
		b.Fatalf("ours ran %d times, the baseline %d, for %d turns of 8", ours, base, b.N)
	}
	b.ReportMetric(perOurs/perBase, "ours/baseline")
}
