//go:build !race

package toolnexus_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// TestMCPCallToolResultAppendJSONAllocations guards the one copy of a
// payload AppendJSON makes: for a result of content alone (any image, any
// text), one allocation, of the JSON's exact size. Not parallel: it counts
// the process's allocations; built without the race detector, which
// allocates on its own.
func TestMCPCallToolResultAppendJSONAllocations(t *testing.T) {
	png, err := toolnexus.PartFromBytes(payload(1<<20), "image/png")
	require.NoError(t, err)
	c := toolnexus.Ok("a file\n", png).MCPCallToolResult()
	var out []byte
	allocs := testing.AllocsPerRun(10, func() { out, _ = c.AppendJSON(nil) })
	assert.Equal(t, 1.0, allocs)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err = c.AppendJSON(nil)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	// The runtime allocates a large object in whole pages of 8 KiB, and
	// the test's own goroutines may allocate a little meanwhile.
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.GreaterOrEqual(t, allocated, uint64(len(out)))
	assert.Less(t, allocated, uint64(len(out)+16<<10), "bytes allocated: the JSON's, once")
}
