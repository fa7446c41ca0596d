package toolnexus_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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
// file is read readChunk bytes at a time, and one read more finds its end,
// where os.ReadFile makes two reads (all of the file, and its end).
// The reads are counted by the kernel for the one thread that makes them:
// the test runs locked to it, and counts os.ReadFile of the same file the
// same way, with the reads of /proc that count them.
func TestPartFromFileReadCalls(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dir := t.TempDir()
	for _, n := range []int{1, 1 << 10, 48 << 10, 64 << 10, 1 << 20, 4 << 20} {
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
			want := empty + (n+readChunk-1)/readChunk + 1
			require.Equal(t, want, ours, "PartFromFile of %d bytes", n)
			require.Equal(t, want, fsys, "PartFromFS(os.DirFS) of %d bytes", n)
		}
	}
}

// statusKiB reads a size in KiB from /proc/self/status, such as VmRSS or
// VmHWM, its peak.
func statusKiB(b *testing.B, key string) int64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	must(b, err)
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(key+":")); ok {
			n, err := strconv.ParseInt(string(bytes.Fields(v)[0]), 10, 64)
			must(b, err)
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// peakRSS returns how many bytes the resident memory of the process grows
// by at its peak while f runs: the heap is collected and returned to the
// kernel first, and the kernel's peak is reset to what is resident then
// (clear_refs 5).
func peakRSS(b *testing.B, f func()) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	must(b, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0))
	base := statusKiB(b, "VmRSS")
	f()
	return (statusKiB(b, "VmHWM") - base) << 10
}

// BenchmarkMCPMemory measures the memory a 128 MiB file takes to MCP JSON
// and back, by the peak of the process's resident memory over what it was
// before, per byte of the JSON: writing, PartFromFile, MCPCallToolResult
// and json.Marshal (rss/json-write) or MCPCallToolResult.AppendJSON
// (rss/append-write); reading, FromMCPCallToolResult of the JSON already in
// memory (rss/json-read, which counts the result alone).
func BenchmarkMCPMemory(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.png")
	f, err := os.Create(path)
	must(b, err)
	chunk := payload(1 << 20)
	for range 128 {
		_, err = f.Write(chunk)
		must(b, err)
	}
	must(b, f.Close())
	var data []byte
	for b.Loop() {
		write := peakRSS(b, func() {
			p, err := toolnexus.PartFromFile(path)
			must(b, err)
			data, err = json.Marshal(toolnexus.Ok("a file", p).MCPCallToolResult())
			must(b, err)
		})
		appended := peakRSS(b, func() {
			p, err := toolnexus.PartFromFile(path)
			must(b, err)
			out, err := toolnexus.Ok("a file", p).MCPCallToolResult().AppendJSON(nil)
			must(b, err)
			if string(out) != string(data) {
				b.Fatal("AppendJSON wrote other JSON than json.Marshal")
			}
		})
		read := peakRSS(b, func() {
			r, err := toolnexus.FromMCPCallToolResult(data)
			must(b, err)
			resultSink = r
		})
		resultSink = toolnexus.ToolResult{}
		b.ReportMetric(float64(write)/float64(len(data)), "rss/json-write")
		b.ReportMetric(float64(appended)/float64(len(data)), "rss/append-write")
		b.ReportMetric(float64(read)/float64(len(data)), "rss/json-read")
	}
}
