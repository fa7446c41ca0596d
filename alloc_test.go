package toolnexus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These guards keep the promises of the benchmarks in plain go test, with
// allocation counts and sizes, which do not depend on the machine's speed.

func TestAllocsSize(t *testing.T) {
	p, err := PartFromBytes(payload(1<<20), "image/png")
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(100, func() { intSink = p.Size() }))
}

func TestAllocsPendingOfInProcess(t *testing.T) {
	res := Pending(Request{Kind: KindInput, Prompt: "Which environment?"})
	assert.Zero(t, testing.AllocsPerRun(100, func() { requestSink, _ = PendingOf(res) }))
}

func TestAllocsDescribeIndependentOfSize(t *testing.T) {
	var allocs []float64
	for _, n := range []int{1 << 10, 16 << 20} {
		p, err := PartFromBytes(payload(n), "image/png")
		require.NoError(t, err)
		allocs = append(allocs, testing.AllocsPerRun(20, func() { stringSink = p.String() }))
	}
	assert.Equal(t, []float64{1, 1}, allocs, "String of a 1 KiB and a 16 MiB part")
}

func TestAllocsBytesToPartOneAllocation(t *testing.T) {
	data := payload(1 << 20)
	assert.Equal(t, 1.0, testing.AllocsPerRun(10, func() { partSink, _ = PartFromBytes(data, "image/png") }))
}

// TestFileToPartBytesAllocated reads a 4 MiB file and checks that no more than
// 1.40 times its size is allocated: the encoded string (4/3) and small change,
// where os.ReadFile and base64.StdEncoding.EncodeToString take about 3.7.
func TestFileToPartBytesAllocated(t *testing.T) {
	const size = 4 << 20
	path := filepath.Join(t.TempDir(), "big.pdf")
	require.NoError(t, os.WriteFile(path, payload(size), 0o600))
	_, err := PartFromFile(path) // warm the read buffer pool
	require.NoError(t, err)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := PartFromFile(path)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.EqualValues(t, size, p.Size())

	allocated := after.TotalAlloc - before.TotalAlloc
	assert.LessOrEqual(t, float64(allocated), 1.40*size, "bytes allocated for a %d-byte file", size)
	assert.GreaterOrEqual(t, allocated, uint64(size/3*4), "the encoded string itself is allocated")

	// Opening, stat, the path for the system call and the string: at most 5
	// allocations, even when a garbage collection runs during every read.
	allocs := testing.AllocsPerRun(5, func() {
		runtime.GC()
		partSink, _ = PartFromFile(path)
	})
	assert.LessOrEqual(t, allocs, 5.0, "allocations to read a file")
}
