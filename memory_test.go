package toolnexus

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A source the host does not control may be endless. These tests feed the
// size-limited reads more than they may take and measure what they allocate.
// They do not call t.Parallel: the measure counts every allocation in the
// process, and parallel tests only start once the sequential ones are done.

const (
	gib = 1 << 30
	mib = 1 << 20
	kib = 1 << 10
)

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// endlessReader would give size bytes of 'A' and counts what it gives.
type endlessReader struct {
	size, given int64
}

func (r *endlessReader) Read(p []byte) (int, error) {
	if r.given >= r.size {
		return 0, nil
	}
	n := int(min(int64(len(p)), r.size-r.given))
	for i := range p[:n] {
		p[i] = 'A'
	}
	r.given += int64(n)
	return n, nil
}

func TestReaderLimitBoundedMemory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		limit    int64
		maxAlloc uint64
	}{
		// Refused on the first read: one chunk of input and nothing encoded.
		{"small limit", 4 * kib, 128 * kib},
		// Refused after the limit: the encoded limit plus one chunk.
		{"1 MiB limit", mib, 4 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &endlessReader{size: gib}
			var err error
			alloc := allocated(func() { _, err = PartFromReaderLimit(r, "image/png", tc.limit) })
			var tooLarge *PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, PartTooLargeError{Limit: tc.limit, Size: tc.limit + 1}, *tooLarge)
			assert.Equal(t, tc.limit+1, r.given, "read stops at the first byte over the limit")
			t.Logf("allocated %d bytes", alloc)
			assert.Less(t, alloc, tc.maxAlloc, "allocated %d bytes", alloc)
		})
	}
}

func TestFileLimitRefusesFromSize(t *testing.T) {
	// A sparse 1 GiB file: reading it would allocate 1.3 GiB of base64.
	path := filepath.Join(t.TempDir(), "huge.png")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Truncate(path, gib))

	var p ContentPart
	alloc := allocated(func() { p, err = PartFromFileLimit(path, mib) })
	var tooLarge *PartTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, PartTooLargeError{Limit: mib, Size: gib}, *tooLarge)
	assert.Equal(t, ContentPart{}, p)
	t.Logf("allocated %d bytes", alloc)
	assert.Less(t, alloc, uint64(64*kib), "allocated %d bytes", alloc)
}

// A name a model chose may be a link to a device with no size and no end.
func TestFileLimitEndlessDevice(t *testing.T) {
	link := filepath.Join(t.TempDir(), "zero.png")
	require.NoError(t, os.Symlink("/dev/zero", link))

	var err error
	alloc := allocated(func() { _, err = PartFromFileLimit(link, mib) })
	var tooLarge *PartTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, PartTooLargeError{Limit: mib, Size: mib + 1}, *tooLarge)
	t.Logf("allocated %d bytes", alloc)
	assert.Less(t, alloc, uint64(4*mib), "allocated %d bytes", alloc)
}

// An encoded payload over the limit is refused from its length alone: the
// payload here is not even base64, and the error says it is too large
// rather than invalid, with nothing decoded or copied.
func TestEncodedLimitFromLengthAlone(t *testing.T) {
	junk := strings.Repeat("!", 16*mib)
	dataURL := "data:image/png;base64," + junk
	want := PartTooLargeError{Limit: mib, Size: 12 * mib}

	for _, tc := range []struct {
		name string
		call func() (ContentPart, error)
	}{
		{"base64", func() (ContentPart, error) { return PartFromBase64Limit(junk, "image/png", mib) }},
		{"data URL", func() (ContentPart, error) { return PartFromURLLimit(dataURL, "", mib) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() { _, err = tc.call() })
			var tooLarge *PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, want, *tooLarge)
			assert.NotErrorIs(t, err, ErrInvalidBase64)
			t.Logf("allocated %d bytes", alloc)
			assert.Less(t, alloc, uint64(4*kib), "allocated %d bytes", alloc)
		})
	}
}

// Decoding a result that holds a huge part costs one copy of the payload:
// encoding/json copies the string once out of the input, and no custom
// UnmarshalJSON re-scans or re-copies it.
func TestDecodeHugePartOneCopy(t *testing.T) {
	src, data := hugePartJSON(16 * mib)
	var r ToolResult
	var err error
	alloc := allocated(func() { err = json.Unmarshal(src, &r) })
	require.NoError(t, err)
	require.Len(t, r.Parts, 1)
	assert.Equal(t, len(data), len(r.Parts[0].Data))
	assert.Equal(t, int64(16*mib), r.Parts[0].Size())
	t.Logf("allocated %d bytes", alloc)
	assert.Less(t, alloc, uint64(len(data))+64*kib, "allocated %d bytes for a %d-byte payload", alloc, len(data))
}

// hugePartJSON returns the JSON of a result holding one image part of n
// bytes, and that part's base64 data.
func hugePartJSON(n int) ([]byte, string) {
	data := base64.StdEncoding.EncodeToString(make([]byte, n))
	src, err := json.Marshal(Ok("huge", ContentPart{Type: PartImage, MIMEType: "image/png", Data: data}))
	if err != nil {
		panic(err)
	}
	return src, data
}
