// Package benchpair times a job of the module next to its baseline within
// one benchmark, in alternating blocks of calls, so that a machine that
// drifts (another process, a CPU that slows down as it warms) slows both
// sides alike and the ratio of their times stays true. The benchmarks of
// the module's packages report it beside each side's time per call; users
// of the module never name it.
package benchpair

import (
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
