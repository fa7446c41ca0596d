//go:build !race

package toolnexus_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus"
)

// TestSealerAllocations guards what a state costs the collector: Seal
// and Open allocate as many times for a prompt of 8 KiB as for a short one
// (once for Seal's text, and for Open the State's parts, the benchmarks
// show). Not parallel: it counts the process's allocations. It is built
// without the race detector only, which makes sync.Pool drop items at
// random: .ci/run runs it without.
func TestSealerAllocations(t *testing.T) {
	s := newSealer(t, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	large := benchState
	large.Requests = []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: strings.Repeat("Deploy? ", 1<<10)}}
	seals, opens := map[string]float64{}, map[string]float64{}
	for name, st := range map[string]toolnexus.State{"small": benchState, "large": large} {
		seals[name] = testing.AllocsPerRun(100, func() {
			if _, err := s.Seal(benchCall, st, stateNow); err != nil {
				panic(err)
			}
		})
		state := seal(t, s, benchCall, st, stateNow)
		opens[name] = testing.AllocsPerRun(100, func() {
			if _, err := s.Open(state, benchCall, stateNow); err != nil {
				panic(err)
			}
		})
	}
	t.Logf("allocations of Seal %v, of Open %v", seals, opens)
	assert.Equal(t, seals["small"], seals["large"], "Seal")
	assert.Equal(t, opens["small"], opens["large"], "Open")
}
