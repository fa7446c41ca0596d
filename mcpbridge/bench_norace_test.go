//go:build !race

package mcpbridge_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTripAllocs returns the allocations one call of rt makes on cs, the
// process's, the fewest of runs calls each measured alone: the fewest, as
// any call may also count what another goroutine allocated meanwhile, or a
// buffer a sync.Pool dropped, which the race detector makes it do at random.
func roundTripAllocs(t *testing.T, rt roundTrip, cs *mcp.ClientSession, runs int) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	require.NoError(t, rt.call(cs)) // the pools filled
	runtime.GC()
	allocs := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range runs {
		runtime.ReadMemStats(&before)
		err := rt.call(cs)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		allocs = min(allocs, after.Mallocs-before.Mallocs)
	}
	return allocs
}

// TestRoundTripAllocations guards the bridge's overhead: a call over the
// in-memory transport, client and server, allocates no more through
// mcpbridge than as a plain handler of the SDK (a text call), or than on
// the SDK's own multi round-trip flow with a sealed state (an elicitation
// cycle, whose requests carry IDs and a sealed Request), but for what the
// park.Runner does that the SDK does not, a fixed count per flow (once),
// give or take the two allocations by which the fewest of 50 calls of one
// side varies from run to run. Not parallel: it counts the process's
// allocations. It is built without the race detector only, which adds
// allocations of its own: .ci/run runs it without.
func TestRoundTripAllocations(t *testing.T) {
	const slack = 2
	// once is what a flow pays for the park.Runner beyond the baseline,
	// whatever the payload: a text call, its Runner and the memo of its
	// checked arguments in the tool's context; an elicitation cycle,
	// besides, the claim of its answered state (its digest and record),
	// the reply kept for the state's retries and the expiry stamped on
	// its request. The SDK's own flow lets a state be answered any number
	// of times, and keeps nothing.
	once := map[string]uint64{"TextCall": 10, "Elicitation": 42}
	for _, job := range []string{"TextCall", "Elicitation"} {
		t.Run(job, func(t *testing.T) {
			var allocs [2]uint64
			for i, rt := range roundTrips[job] {
				cs, done := rt.session(t)
				allocs[i] = roundTripAllocs(t, rt, cs, 50)
				done()
			}
			t.Logf("%s: toolnexus %d allocations, baseline %d", job, allocs[0], allocs[1])
			assert.LessOrEqual(t, allocs[0], allocs[1]+once[job]+slack, "toolnexus allocations over the baseline's and once's")
		})
	}
}
