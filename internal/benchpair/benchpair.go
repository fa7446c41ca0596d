// Package benchpair times a job of the module next to its baseline within
// one benchmark, in alternating blocks of calls, so that a machine that
// drifts (another process, a CPU that slows down as it warms) slows both
// sides alike and the ratio of their times stays true. The benchmarks of
// the module's packages report it beside each side's time per call; users
// of the module never name it.
package benchpair

import (
	"runtime"
	"testing"
	"time"
)

// Alternate runs ours and baseline in blocks of block calls each, in turn,
// the first of each pair of blocks flipping from turn to turn, for as long
// as b.Loop runs, and returns the time per call of each.
func Alternate(b *testing.B, block int, ours, baseline func()) (perOurs, perBase float64) {
	var tOurs, tBase time.Duration
	timed := func(f func()) time.Duration {
		start := time.Now()
		for range block {
			f()
		}
		return time.Since(start)
	}
	for turn := 0; b.Loop(); turn++ {
		if turn%2 == 0 {
			tOurs += timed(ours)
			tBase += timed(baseline)
		} else {
			tBase += timed(baseline)
			tOurs += timed(ours)
		}
	}
	calls := float64(b.N * block)
	return float64(tOurs.Nanoseconds()) / calls, float64(tBase.Nanoseconds()) / calls
}

// Report runs ours and baseline as [Alternate] does and reports what
// .ci/bench reads: the time per call of each (ns/toolnexus, ns/baseline),
// their ratio (toolnexus/baseline), and the bytes and allocations of one
// call of each (B/toolnexus, allocs/toolnexus, B/baseline,
// allocs/baseline). The two sides may be one operation at two sizes: the
// ratio is then what the larger size costs over the smaller.
func Report(b *testing.B, block int, ours, baseline func()) {
	b.ReportAllocs()
	perOurs, perBase := Alternate(b, block, ours, baseline)
	b.ReportMetric(perOurs, "ns/toolnexus")
	b.ReportMetric(perBase, "ns/baseline")
	b.ReportMetric(perOurs/perBase, "toolnexus/baseline")
	for _, side := range []struct {
		name string
		f    func()
	}{{"toolnexus", ours}, {"baseline", baseline}} {
		bytes, allocs := allocsOf(side.f)
		b.ReportMetric(bytes, "B/"+side.name)
		b.ReportMetric(allocs, "allocs/"+side.name)
	}
}

// allocsOf returns the bytes and the allocations of one call of f, the
// mean of a few after one to warm it, counted over the whole process.
func allocsOf(f func()) (bytes, allocs float64) {
	const calls = 4
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / calls, float64(after.Mallocs-before.Mallocs) / calls
}

// Sizes is [Report] for one operation at two sizes: op(large), made once,
// is the toolnexus side and op(small) the baseline, so that
// toolnexus/baseline is what the operation costs at large over what it
// costs at small.
func Sizes(b *testing.B, block, large, small int, op func(n int) func()) {
	Report(b, block, op(large), op(small))
}
