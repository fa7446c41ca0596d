package toolnexus_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// readCalls returns how many read system calls (read, pread, readv…) the
// calling thread has made, from /proc/thread-self/io.
func readCalls(t *testing.T) int {
	t.Helper()
	io, err := os.ReadFile("/proc/thread-self/io")
	require.NoError(t, err)
	for _, line := range bytes.Split(io, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("syscr: ")); ok {
			n, err := strconv.Atoi(string(v))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no syscr in /proc/thread-self/io")
	return 0
}

// TestPartFromFileReadCalls checks what the PartReader doc says: a regular
// file is read with no more system calls than os.ReadFile makes, at every
// size, here the two reads of os.ReadFile (all of the file, and its end).
// The reads are counted by the kernel for the one thread that makes them:
// the test runs locked to it, and counts os.ReadFile of the same file the
// same way, with the reads of /proc that count them.
func TestPartFromFileReadCalls(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dir := t.TempDir()
	for _, n := range []int{1, 1 << 10, 48 << 10, 64 << 10, 1 << 20, 16 << 20} {
		path := filepath.Join(dir, strconv.Itoa(n)+".png")
		require.NoError(t, os.WriteFile(path, payload(n), 0o600))
		count := func(read func() error) int {
			before := readCalls(t)
			require.NoError(t, read())
			return readCalls(t) - before
		}
		// Twice, so that the first call of each opens nothing of its own.
		for range 2 {
			stdlib := count(func() error { _, err := os.ReadFile(path); return err })
			ours := count(func() error { _, err := toolnexus.PartFromFile(path); return err })
			fsys := count(func() error { _, err := toolnexus.PartFromFS(os.DirFS(dir), filepath.Base(path)); return err })
			empty := count(func() error { return nil })
			require.Equal(t, 2, stdlib-empty, "os.ReadFile of %d bytes", n)
			require.Equal(t, stdlib, ours, "PartFromFile of %d bytes", n)
			require.Equal(t, stdlib, fsys, "PartFromFS(os.DirFS) of %d bytes", n)
		}
	}
}
