package benchpair_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// sink keeps what the jobs of TestReport allocate on the heap.
var sink []byte

// TestReport pairs a job that allocates 4 KiB a call with one that
// allocates nothing, and reads back every metric .ci/bench needs. It runs
// alone: the bytes and allocations are counted over the whole process.
func TestReport(t *testing.T) {
	var ours, base int
	res := testing.Benchmark(func(b *testing.B) {
		benchpair.Report(b, 4, func() { ours++; sink = make([]byte, 4096) }, func() { base++ })
	})
	require.Positive(t, res.N)
	assert.Equal(t, ours, base, "both sides ran as often")
	for _, unit := range []string{"ns/toolnexus", "ns/baseline", "toolnexus/baseline"} {
		assert.Positive(t, res.Extra[unit], unit)
	}
	assert.InDelta(t, res.Extra["ns/toolnexus"]/res.Extra["ns/baseline"], res.Extra["toolnexus/baseline"], 1e-9)
	assert.Equal(t, 4096.0, res.Extra["B/toolnexus"])
	assert.Equal(t, 1.0, res.Extra["allocs/toolnexus"])
	assert.Equal(t, 0.0, res.Extra["B/baseline"])
	assert.Equal(t, 0.0, res.Extra["allocs/baseline"])
}

// TestSizes runs one operation at two sizes: each is made once, the large
// one is the toolnexus side, and each side's allocations are its size's.
func TestSizes(t *testing.T) {
	var made []int
	res := testing.Benchmark(func(b *testing.B) {
		made = made[:0]
		benchpair.Sizes(b, 4, 8192, 64, func(n int) func() {
			made = append(made, n)
			return func() { sink = make([]byte, n) }
		})
	})
	assert.Equal(t, []int{8192, 64}, made)
	assert.Equal(t, 8192.0, res.Extra["B/toolnexus"])
	assert.Equal(t, 64.0, res.Extra["B/baseline"])
	assert.Positive(t, res.Extra["toolnexus/baseline"])
}
