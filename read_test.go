package toolnexus_test

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

//go:embed testdata/fixture.png
var testdataFS embed.FS

// payload returns n pseudo-random bytes, the same for every run.
func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(b)
	return b
}

// readChunk is how much the package reads at a time, 48 KiB: tests cross it.
const readChunk = 3 << 14

const (
	kib = 1 << 10
	mib = 1 << 20
)

// callCost is the package's one allocation meter: it returns the
// allocations and bytes one call of f makes, the fewest of runs calls, each
// measured alone, as testing.AllocsPerRun measures (GOMAXPROCS at 1, a
// collection first, so that none is due while f runs). The fewest, not the
// mean: the runtime's counters are the process's, so any call may also
// count what another goroutine allocated meanwhile, or a buffer a sync.Pool
// (in fmt, log/slog and this package) dropped, which the race detector
// makes it do at random. A first call also fills the pools: f that can run
// only once (it drains a reader) is measured with runs 1. A test that calls
// it is not parallel: parallel tests only start once the sequential ones
// are done.
func callCost(runs int, f func()) (allocs, bytes uint64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.GC()
	allocs, bytes = math.MaxUint64, math.MaxUint64
	var before, after runtime.MemStats
	for range max(runs, 1) {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		allocs = min(allocs, after.Mallocs-before.Mallocs)
		bytes = min(bytes, after.TotalAlloc-before.TotalAlloc)
	}
	return allocs, bytes
}

// allocated returns the bytes one call of f allocates, measured once by
// [callCost].
func allocated(f func()) uint64 {
	_, bytes := callCost(1, f)
	return bytes
}

// countingReader counts the bytes it hands out and records Close.
type countingReader struct {
	r      io.Reader
	n      int64
	closed bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error {
	c.closed = true
	return nil
}

// endless is a reader of as many 'x' as asked for, that counts them.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// unsized hides every method of a reader but Read: its size is unknown.
type unsized struct{ r io.Reader }

func (u unsized) Read(p []byte) (int, error) { return u.r.Read(p) }

// writeTemp writes data to name in a fresh temporary directory and returns
// its path.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// fakeFS serves data under any valid name, as a file whose Stat claims
// claim bytes: a file that changed between Stat and the read, or an archive
// whose header lies. With seek, the file can also Seek and ReadAt, as an
// *os.File can. It keeps the last file it opened.
type fakeFS struct {
	data  []byte
	claim int64
	seek  bool
	mode  fs.FileMode
	file  *fakeFile
}

func (f *fakeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f.file = &fakeFile{r: bytes.NewReader(f.data), name: path.Base(name), claim: f.claim, mode: f.mode}
	if f.seek {
		return seekableFile{f.file}, nil
	}
	return f.file, nil
}

// fakeFile is a file of fakeFS: it counts the bytes it hands out and
// records Close.
type fakeFile struct {
	r      *bytes.Reader
	name   string
	claim  int64
	mode   fs.FileMode
	read   int64
	closed bool
}

func (f *fakeFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.read += int64(n)
	return n, err
}

func (f *fakeFile) Close() error               { f.closed = true; return nil }
func (f *fakeFile) Stat() (fs.FileInfo, error) { return fakeInfo{f}, nil }

type seekableFile struct{ *fakeFile }

func (f seekableFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f seekableFile) ReadAt(p []byte, off int64) (int, error)   { return f.r.ReadAt(p, off) }

type fakeInfo struct{ f *fakeFile }

func (i fakeInfo) Name() string       { return i.f.name }
func (i fakeInfo) Size() int64        { return i.f.claim }
func (i fakeInfo) Mode() fs.FileMode  { return i.f.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.f.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

// failingFS refuses to open locked.png and serves bad.png, which opens but
// cannot be read.
type failingFS struct{}

func (failingFS) Open(name string) (fs.File, error) {
	switch name {
	case "locked.png":
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	case "bad.png":
		return failingFile{}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type failingFile struct{}

func (failingFile) Stat() (fs.FileInfo, error) {
	return fakeInfo{&fakeFile{name: "bad.png", claim: 100}}, nil
}
func (failingFile) Read([]byte) (int, error) { return 0, syscall.EIO }
func (failingFile) Close() error             { return nil }

func TestPartFromFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string // file name, possibly in subdirectories
		want toolnexus.ContentPart
	}{
		{"a.png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: pdfB64}},
		{"a.jpeg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: pdfB64}},
		{"a.heic", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/heic", Data: pdfB64}},
		{"report.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}},
		{"notes.txt", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: pdfB64, Name: "notes.txt"}},
		{"README.md", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/markdown", Data: pdfB64, Name: "README.md"}},
		{"data.json", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/json", Data: pdfB64, Name: "data.json"}},
		{"a.mp3", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: pdfB64}},
		{"a.m4a", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mp4", Data: pdfB64}},
		{"SHOT.PNG", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: pdfB64}},
		{"Report.Final.PDF", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "Report.Final.PDF"}},
		{"sub/dir/nested.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "nested.pdf"}},
		{"notes.txt.jpg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: pdfB64}},
		// A name from outside is a base name: no control or format
		// character reaches the part.
		{"a\nb\u202e.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "ab.pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFile(writeTemp(t, tt.name, []byte(pdfBytes)))
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
	t.Run("relative path", func(t *testing.T) {
		t.Parallel()
		p, err := toolnexus.PartFromFile("testdata/../testdata/fixture.png")
		require.NoError(t, err)
		assert.Equal(t, fixturePNGPart(t), p)
	})
	t.Run("sizes around the read chunk", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{readChunk - 1, readChunk, readChunk + 1, 3*readChunk + 2} {
			b := bytes.Repeat([]byte("0123456789abcdefg"), n/17+1)[:n]
			p, err := toolnexus.PartFromFile(writeTemp(t, "big.pdf", b))
			require.NoError(t, err)
			assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: base64Std(b), Name: "big.pdf"}, p)
		}
	})
}

// TestPartFromFileErrors checks that every failure is an error value that
// matches a sentinel, and, for I/O, its cause.
func TestPartFromFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder.png")
	require.NoError(t, os.Mkdir(folder, 0o755))
	missing := filepath.Join(dir, "missing.png")
	regular := writeTemp(t, "a.png", []byte("x"))
	empty := writeTemp(t, "empty.png", nil)
	tests := []struct {
		name    string
		path    string
		wantErr []error
		wantMsg string
	}{
		{"unknown extension, checked before opening", filepath.Join(dir, "missing.svg"), []error{toolnexus.ErrUnknownExtension},
			`toolnexus: unknown file extension: ".svg" in ` + quoted(filepath.Join(dir, "missing.svg")) + `: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"no extension", filepath.Join(dir, "README"), []error{toolnexus.ErrUnknownExtension}, ""},
		{"missing file", missing, []error{toolnexus.ErrRead, fs.ErrNotExist},
			"toolnexus: cannot read: open " + missing + ": no such file or directory"},
		{"directory", folder, []error{toolnexus.ErrRead, syscall.EISDIR}, "toolnexus: cannot read: read " + folder + ": is a directory"},
		{"path through a file", filepath.Join(regular, "b.png"), []error{toolnexus.ErrRead, syscall.ENOTDIR},
			"toolnexus: cannot read: open " + filepath.Join(regular, "b.png") + ": not a directory"},
		{"empty file", empty, []error{toolnexus.ErrInvalidPart}, `toolnexus: invalid part: ` + quoted(empty) + ` is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFile(tt.path)
			assertErr(t, err, tt.wantErr[0], tt.wantMsg)
			for _, cause := range tt.wantErr[1:] {
				assert.ErrorIs(t, err, cause)
			}
			assert.Zero(t, p)
		})
	}
}

func TestPartFromFS(t *testing.T) {
	t.Parallel()
	png := fixturePNGBytes(t)
	big := bytes.Repeat([]byte{0xab}, 2*readChunk+1)
	fsys := fstest.MapFS{
		"fixture.png":             {Data: png},
		"docs/report.pdf":         {Data: []byte(pdfBytes)},
		"media/CLIP.WAV":          {Data: []byte(wavBytes)},
		"big/photo.jpg":           {Data: big},
		"dev/stream.png":          {Data: png, Mode: fs.ModeDevice}, // no useful size: read as a stream
		"pipe/stream.pdf":         {Data: []byte(pdfBytes), Mode: fs.ModeNamedPipe},
		"old/modified/photo.webp": {Data: []byte{1, 2, 3}, ModTime: time.Unix(0, 0)},
		"odd/re\u202eport\n.pdf":  {Data: []byte(pdfBytes)},
	}
	tests := []struct {
		fsys fs.FS
		name string
		want toolnexus.ContentPart
	}{
		{fsys, "fixture.png", fixturePNGPart(t)},
		{fsys, "docs/report.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}},
		{fsys, "media/CLIP.WAV", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{fsys, "big/photo.jpg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: base64Std(big)}},
		{fsys, "dev/stream.png", fixturePNGPart(t)},
		{fsys, "pipe/stream.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "stream.pdf"}},
		{fsys, "old/modified/photo.webp", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/webp", Data: "AQID"}},
		{fsys, "odd/re\u202eport\n.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}},
		{testdataFS, "testdata/fixture.png", fixturePNGPart(t)},
		{os.DirFS("testdata"), "fixture.png", fixturePNGPart(t)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%T/%s", tt.fsys, tt.name), func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFS(tt.fsys, tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
}

func TestPartFromFSErrors(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"notes.svg":         {Data: []byte("x")},
		"folder.png/inside": {Data: []byte("x")},
		"empty.png":         {},
	}
	tests := []struct {
		name    string
		fsys    fs.FS
		file    string
		wantErr []error
		wantMsg string
	}{
		{"nil fs.FS", nil, "a.png", []error{toolnexus.ErrInvalidPart}, "toolnexus: invalid part: nil fs.FS"},
		{"unknown extension", fsys, "notes.svg", []error{toolnexus.ErrUnknownExtension},
			`toolnexus: unknown file extension: ".svg" in "notes.svg": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"missing", fsys, "missing.png", []error{toolnexus.ErrRead, fs.ErrNotExist}, "toolnexus: cannot read: open missing.png: file does not exist"},
		{"directory", fsys, "folder.png", []error{toolnexus.ErrRead, syscall.EISDIR}, "toolnexus: cannot read: read folder.png: is a directory"},
		{"path out of the root", os.DirFS("testdata"), "../fixture.png", []error{toolnexus.ErrInvalidPath, fs.ErrInvalid},
			`toolnexus: invalid path: "../fixture.png" is outside the files this tool reads: send a path inside them, without ".."`},
		{"rooted path", fsys, "/fixture.png", []error{toolnexus.ErrInvalidPath, fs.ErrInvalid},
			`toolnexus: invalid path: "/fixture.png" is outside the files this tool reads: send a path relative to them, such as "fixture.png"`},
		{"refused at open", failingFS{}, "locked.png", []error{toolnexus.ErrRead, fs.ErrPermission},
			"toolnexus: cannot read: open locked.png: permission denied"},
		{"failing read", failingFS{}, "bad.png", []error{toolnexus.ErrRead, syscall.EIO},
			`toolnexus: cannot read: "bad.png": input/output error`},
		{"empty file", fsys, "empty.png", []error{toolnexus.ErrInvalidPart}, `toolnexus: invalid part: "empty.png" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p toolnexus.ContentPart
			var err error
			require.NotPanics(t, func() { p, err = toolnexus.PartFromFS(tt.fsys, tt.file) })
			assertErr(t, err, tt.wantErr[0], tt.wantMsg)
			for _, cause := range tt.wantErr[1:] {
				assert.ErrorIs(t, err, cause)
			}
			assert.Zero(t, p)
		})
	}
}

func TestPartFromReader(t *testing.T) {
	t.Parallel()
	png := fixturePNGBytes(t)
	big := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), 20_000) // several read chunks and blocks
	tests := []struct {
		name     string
		wrap     func(io.Reader) io.Reader
		data     []byte
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"fixture", nil, png, "image/png", fixturePNGPart(t)},
		{"pdf is an unnamed file", nil, []byte(pdfBytes), "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"MIME type with parameters", nil, []byte("hi"), "text/plain; charset=utf-8", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGk="}},
		{"one byte at a time", iotest.OneByteReader, png, "image/png", fixturePNGPart(t)},
		{"half reads", iotest.HalfReader, png, "image/png", fixturePNGPart(t)},
		{"data with EOF", iotest.DataErrReader, png, "image/png", fixturePNGPart(t)},
		{"one chunk less a byte", nil, big[:readChunk-1], "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: base64Std(big[:readChunk-1])}},
		{"one chunk", nil, big[:readChunk], "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: base64Std(big[:readChunk])}},
		{"one chunk and a byte", nil, big[:readChunk+1], "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: base64Std(big[:readChunk+1])}},
		{"many chunks", nil, big, "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: base64Std(big)}},
		{"many chunks, half reads", iotest.HalfReader, big, "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: base64Std(big)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := io.Reader(bytes.NewReader(tt.data))
			if tt.wrap != nil {
				src = tt.wrap(src)
			}
			r := &countingReader{r: src}
			p, err := toolnexus.PartFromReader(r, tt.mimeType)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.Equal(t, int64(len(tt.data)), r.n, "the reader is drained")
			assert.False(t, r.closed, "the reader is never closed")
		})
	}
	t.Run("sized readers", func(t *testing.T) {
		t.Parallel()
		f, err := os.Open("testdata/fixture.png")
		require.NoError(t, err)
		defer f.Close()
		for _, r := range []io.Reader{
			bytes.NewReader(png),
			strings.NewReader(string(png)),
			io.NewSectionReader(bytes.NewReader(append([]byte("skip"), png...)), 4, 82),
			f,
		} {
			p, err := toolnexus.PartFromReader(r, "image/png")
			require.NoError(t, err, "%T", r)
			assert.Equal(t, fixturePNGPart(t), p, "%T", r)
		}
	})
	t.Run("a sized reader is read from where it is", func(t *testing.T) {
		t.Parallel()
		r := bytes.NewReader([]byte("skip" + pdfBytes))
		_, err := r.Seek(4, io.SeekStart)
		require.NoError(t, err)
		p, err := toolnexus.PartFromReader(r, "application/pdf")
		require.NoError(t, err)
		assert.Equal(t, pdfB64, p.Data)
	})
}

func TestPartFromReaderErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name     string
		r        io.Reader
		mimeType string
		wantErr  []error
		wantMsg  string
		wantRead int64
	}{
		{"missing MIME type, checked before reading", strings.NewReader("abc"), "", []error{toolnexus.ErrMissingMIMEType}, "toolnexus: missing MIME type", 0},
		{"bad MIME type, checked before reading", strings.NewReader("abc"), "image", []error{toolnexus.ErrInvalidMIMEType}, "", 0},
		{"empty", strings.NewReader(""), "audio/wav", []error{toolnexus.ErrInvalidPart}, `toolnexus: invalid part: empty "audio/wav" payload`, 0},
		{"empty, unsized", unsized{strings.NewReader("")}, "audio/wav", []error{toolnexus.ErrInvalidPart}, `toolnexus: invalid part: empty "audio/wav" payload`, 0},
		{"read error", iotest.ErrReader(boom), "image/png", []error{toolnexus.ErrRead, boom}, `toolnexus: cannot read: the reader: boom`, 0},
		{"read error after data", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), "image/png",
			[]error{toolnexus.ErrRead, boom}, `toolnexus: cannot read: the reader: boom`, 3},
		{"timeout on the second read", iotest.TimeoutReader(unsized{strings.NewReader(strings.Repeat("x", 2*readChunk))}), "image/png",
			[]error{toolnexus.ErrRead, iotest.ErrTimeout}, `toolnexus: cannot read: the reader: timeout`, 512}, // the first block of a reader of unknown size
		// A truncated HTTP body or gzip stream fails with io.ErrUnexpectedEOF:
		// never a silently truncated part.
		{"unexpected EOF", iotest.ErrReader(io.ErrUnexpectedEOF), "image/png", []error{toolnexus.ErrRead, io.ErrUnexpectedEOF},
			`toolnexus: cannot read: the reader: unexpected EOF`, 0},
		{"unexpected EOF after data", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF)), "image/png",
			[]error{toolnexus.ErrRead, io.ErrUnexpectedEOF}, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &countingReader{r: tt.r}
			p, err := toolnexus.PartFromReader(r, tt.mimeType)
			assertErr(t, err, tt.wantErr[0], tt.wantMsg)
			for _, cause := range tt.wantErr[1:] {
				assert.ErrorIs(t, err, cause)
			}
			assert.Equal(t, tt.wantRead, r.n)
			assert.False(t, r.closed)
			assert.Zero(t, p)
		})
	}
	t.Run("nil reader", func(t *testing.T) {
		t.Parallel()
		var p toolnexus.ContentPart
		var err error
		require.NotPanics(t, func() { p, err = toolnexus.PartFromReader(nil, "image/png") })
		assertErr(t, err, toolnexus.ErrInvalidPart, "toolnexus: invalid part: nil reader")
		assert.Zero(t, p)
	})
}

// TestPartReaderReaderLimit checks the limit on readers: a reader holding
// exactly MaxBytes is read whole, one holding a byte more is refused, from
// its size when it has one, one byte past the limit otherwise.
func TestPartReaderReaderLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int64{1, 2, 3, 100, readChunk - 1, readChunk, readChunk + 1, 5*readChunk + 7} {
		data := bytes.Repeat([]byte{'x'}, int(limit)+1)
		pr := toolnexus.PartReader{MaxBytes: limit, MIMEType: "image/png"}
		tooLarge := fmt.Sprintf("toolnexus: part too large: %d bytes, over the limit of %d bytes: send a smaller one, or a link to it", limit+1, limit)
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"sized":   func(r io.Reader) io.Reader { return r },
			"unsized": func(r io.Reader) io.Reader { return unsized{r} },
		} {
			p, err := pr.Reader(wrap(bytes.NewReader(data[:limit])))
			require.NoError(t, err, "%s, limit %d", name, limit)
			assert.Equal(t, base64Std(data[:limit]), p.Data, "%s, limit %d", name, limit)

			_, err = pr.Reader(wrap(bytes.NewReader(data)))
			assertErr(t, err, toolnexus.ErrPartTooLarge, tooLarge)
		}
	}
	for _, limit := range []int64{0, -1, math.MaxInt64, math.MaxInt64 - 1, math.MaxInt32} {
		for _, r := range []io.Reader{bytes.NewReader(fixturePNGBytes(t)), unsized{bytes.NewReader(fixturePNGBytes(t))}} {
			p, err := toolnexus.PartReader{MaxBytes: limit, MIMEType: "image/png"}.Reader(r)
			require.NoError(t, err, "limit %d", limit)
			assert.Equal(t, fixturePNGPart(t), p, "limit %d", limit)
		}
	}
}

// TestPartReaderZeroValue checks the doc: the zero PartReader reads as the
// PartFrom functions do, for success and failure alike.
func TestPartReaderZeroValue(t *testing.T) {
	t.Parallel()
	file := writeTemp(t, "doc.pdf", []byte(pdfBytes))
	fsys := fstest.MapFS{"doc.pdf": {Data: []byte(pdfBytes)}}
	type result struct {
		p   toolnexus.ContentPart
		err error
	}
	r := func(p toolnexus.ContentPart, err error) result { return result{p, err} }
	for _, name := range []string{file, file + ".svg", "missing.png"} {
		assert.Equal(t, r(toolnexus.PartFromFile(name)), r(toolnexus.PartReader{}.File(name)), name)
	}
	for _, name := range []string{"doc.pdf", "missing.png"} {
		assert.Equal(t, r(toolnexus.PartFromFS(fsys, name)), r(toolnexus.PartReader{}.FS(fsys, name)), name)
	}
	for _, m := range []string{"application/pdf", "", "image"} {
		assert.Equal(t, r(toolnexus.PartFromReader(strings.NewReader(pdfBytes), m)), r(toolnexus.PartReader{MIMEType: m}.Reader(strings.NewReader(pdfBytes))), m)
		assert.Equal(t, r(toolnexus.PartFromBytes([]byte(pdfBytes), m)), r(toolnexus.PartReader{MIMEType: m}.Bytes([]byte(pdfBytes))), m)
		assert.Equal(t, r(toolnexus.PartFromBase64(pdfB64, m)), r(toolnexus.PartReader{MIMEType: m}.Base64(pdfB64)), m)
		assert.Equal(t, r(toolnexus.PartFromURL("https://example.com/r.pdf", m)), r(toolnexus.PartReader{MIMEType: m}.URL("https://example.com/r.pdf")), m)
	}
	for _, in := range []string{`{"content":[{"type":"text","text":"x"}]}`, `[]`} {
		want, wantErr := toolnexus.FromMCPCallToolResult([]byte(in))
		got, err := toolnexus.ParseMCPCallToolResult([]byte(in), 0)
		assert.Equal(t, want, got, in)
		assert.Equal(t, wantErr, err, in)
	}
}

// TestPartReaderFiles runs every combination of a file or an fs.FS, a limit
// or none, and a MIME type or the extension table.
func TestPartReaderFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fsys := fstest.MapFS{}
	for _, name := range []string{"doc.pdf", "doc.bin"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(pdfBytes), 0o644))
		fsys["docs/"+name] = &fstest.MapFile{Data: []byte(pdfBytes)}
	}
	sources := map[string]struct {
		read func(pr toolnexus.PartReader, name string) (toolnexus.ContentPart, error)
		path func(name string) string
	}{
		"File": {func(pr toolnexus.PartReader, name string) (toolnexus.ContentPart, error) {
			return pr.File(filepath.Join(dir, name))
		},
			func(name string) string { return filepath.Join(dir, name) }},
		"FS": {func(pr toolnexus.PartReader, name string) (toolnexus.ContentPart, error) {
			return pr.FS(fsys, "docs/"+name)
		},
			func(name string) string { return "docs/" + name }},
	}
	for source, s := range sources {
		for _, name := range []string{"doc.pdf", "doc.bin"} {
			for _, limit := range []int64{0, 13, 12} {
				for _, mimeType := range []string{"", "image/png", "text/plain; charset=utf-8"} {
					pr := toolnexus.PartReader{MaxBytes: limit, MIMEType: mimeType}
					t.Run(fmt.Sprintf("%s/%s/%d/%s", source, name, limit, mimeType), func(t *testing.T) {
						t.Parallel()
						p, err := s.read(pr, name)
						switch {
						case mimeType == "" && name == "doc.bin":
							assertErr(t, err, toolnexus.ErrUnknownExtension,
								`toolnexus: unknown file extension: ".bin" in `+quoted(s.path(name))+`: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`)
						case limit == 12:
							assertErr(t, err, toolnexus.ErrPartTooLarge, "toolnexus: part too large: 13 bytes, over the limit of 12 bytes: send a smaller one, or a link to it")
						case mimeType == "image/png":
							require.NoError(t, err)
							assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: pdfB64}, p)
						case mimeType == "":
							require.NoError(t, err)
							assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "doc.pdf"}, p)
						default:
							require.NoError(t, err)
							assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: pdfB64, Name: name}, p)
						}
					})
				}
			}
		}
	}
}

// TestPartReaderSizeClaims checks that a size a file reports is a claim: a
// claim over the limit is refused before a byte is read, a false claim is
// found out one byte past it at most, and a negative claim is no claim. A
// file that can seek is asked where its end is, and its Stat is not
// believed.
func TestPartReaderSizeClaims(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{7}, 2*readChunk)
	changed := func(claim, gave string) string {
		return `toolnexus: size changed while read: "doc.pdf" reported ` + claim + ` bytes and gave ` + gave
	}
	tests := []struct {
		name     string
		fsys     *fakeFS
		limit    int64
		wantMsg  string // "" for success
		wantRead int64  // bytes read at most
	}{
		{"true claim", &fakeFS{data: []byte(pdfBytes), claim: 13}, 0, "", 13},
		{"claim under the content", &fakeFS{data: []byte(pdfBytes), claim: 10}, 0, changed("10", "more"), 11},
		{"claim over the content", &fakeFS{data: []byte(pdfBytes), claim: 20}, 0, changed("20", "13"), 13},
		{"claim far under the content", &fakeFS{data: big, claim: 5}, 0, changed("5", "more"), 6},
		{"claim under the content past a chunk", &fakeFS{data: big, claim: readChunk + 1}, 0, changed(fmt.Sprint(readChunk+1), "more"), readChunk + 2},
		{"claim of a file with nothing", &fakeFS{claim: 82}, 0, changed("82", "0"), 0},
		{"huge claim", &fakeFS{data: []byte(pdfBytes), claim: 1 << 62}, 0, changed("4611686018427387904", "13"), 13},
		{"claim past what base64 can hold", &fakeFS{data: []byte(pdfBytes), claim: math.MaxInt64}, 0, changed("9223372036854775807", "13"), 13},
		{"negative claim is unknown", &fakeFS{data: []byte(pdfBytes), claim: -5}, 0, "", 13},
		{"claim over the limit, refused unread", &fakeFS{data: []byte(pdfBytes), claim: 1 << 30}, 1 << 20,
			"toolnexus: part too large: 1073741824 bytes, over the limit of 1048576 bytes: send a smaller one, or a link to it", 0},
		{"false claim under the limit, content over it", &fakeFS{data: big, claim: 5}, 100, changed("5", "more"), 6},
		{"negative claim, content over the limit", &fakeFS{data: big, claim: -1}, 100, "toolnexus: part too large: 101 bytes, over the limit of 100 bytes: send a smaller one, or a link to it", 101},
		{"seekable, claim under the content", &fakeFS{data: []byte(pdfBytes), claim: 10, seek: true}, 0, "", 13},
		{"seekable, claim over the content", &fakeFS{data: []byte(pdfBytes), claim: 1 << 40, seek: true}, 0, "", 13},
		{"seekable, claim over the limit", &fakeFS{data: []byte(pdfBytes), claim: 1 << 40, seek: true}, 13, "", 13},
		{"seekable, content over the limit", &fakeFS{data: []byte(pdfBytes), claim: 1, seek: true}, 12,
			"toolnexus: part too large: 13 bytes, over the limit of 12 bytes: send a smaller one, or a link to it", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartReader{MaxBytes: tt.limit}.FS(tt.fsys, "doc.pdf")
			require.NotNil(t, tt.fsys.file)
			assert.True(t, tt.fsys.file.closed, "the file is closed")
			assert.LessOrEqual(t, tt.fsys.file.read, tt.wantRead, "bytes read")
			if tt.wantMsg == "" {
				require.NoError(t, err)
				assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: base64Std(tt.fsys.data), Name: "doc.pdf"}, p)
				return
			}
			want := toolnexus.ErrFileChanged
			if strings.Contains(tt.wantMsg, "too large") {
				want = toolnexus.ErrPartTooLarge
			}
			assertErr(t, err, want, tt.wantMsg)
			assert.Zero(t, p)
		})
	}
}

// hostileZip returns a zip archive holding big.pdf, 4 bytes whose headers
// claim size bytes, as an archive from anywhere may.
func hostileZip(t testing.TB, size uint64) *zip.Reader {
	t.Helper()
	content := []byte("%PDF")
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	// CreateRaw writes the sizes it is given into the local header and the
	// central directory (with a zip64 extra past 4 GiB), unchecked.
	fw, err := w.CreateRaw(&zip.FileHeader{Name: "big.pdf", Method: zip.Store,
		CRC32: crc32.ChecksumIEEE(content), CompressedSize64: uint64(len(content)), UncompressedSize64: size})
	require.NoError(t, err)
	_, err = fw.Write(content)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	fi, err := fs.Stat(zr, "big.pdf")
	require.NoError(t, err)
	require.Equal(t, int64(size), fi.Size(), "the archive claims its size")
	return zr
}

// TestPartReaderHostileZip reads zip entries whose headers claim 2^49,
// 2^64-5 (negative as an int64) and 2^40 bytes for 4 bytes of content:
// each read ends in an error, without a panic, and allocates little. Not
// parallel: it measures the process's allocation.
func TestPartReaderHostileZip(t *testing.T) {
	for _, size := range []uint64{1 << 49, 1<<64 - 5, 1 << 40} {
		zr := hostileZip(t, size)
		for _, pr := range []toolnexus.PartReader{{}, {MIMEType: "application/octet-stream"}, {MaxBytes: 1 << 20}} {
			var p toolnexus.ContentPart
			var err error
			_, alloc := callCost(3, func() {
				assert.NotPanics(t, func() { p, err = pr.FS(zr, "big.pdf") })
			})
			t.Logf("claim %d, %+v: %d bytes allocated: %v", size, pr, alloc, err)
			assert.Less(t, alloc, uint64(64<<20), "bytes allocated")
			assert.Zero(t, p)
			if pr.MaxBytes > 0 && int64(size) > 0 {
				assertErr(t, err, toolnexus.ErrPartTooLarge, fmt.Sprintf("toolnexus: part too large: %d bytes, over the limit of 1048576 bytes: send a smaller one, or a link to it", size))
				continue
			}
			// archive/zip finds the entry shorter than its header says.
			assertErr(t, err, toolnexus.ErrRead, `toolnexus: cannot read: "big.pdf": unexpected EOF`)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		}
	}
	// An entry whose header claims less than it holds.
	_, err := toolnexus.PartFromFS(hostileZip(t, 2), "big.pdf")
	assertErr(t, err, toolnexus.ErrRead, `toolnexus: cannot read: "big.pdf": zip: not a valid zip file`)
	assert.ErrorIs(t, err, zip.ErrFormat)
	// And the honest one.
	p, err := toolnexus.PartFromFS(hostileZip(t, 4), "big.pdf")
	require.NoError(t, err)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: "JVBERg==", Name: "big.pdf"}, p)
}

// TestPartReaderEndless checks the promise of the doc: with a limit, no
// more than MaxBytes+1 bytes are read or held, whatever the source has
// left. Not parallel: it measures the process's allocation.
func TestPartReaderEndless(t *testing.T) {
	for _, limit := range []int64{1, 10, readChunk - 1, readChunk, readChunk + 1, 5*readChunk + 7, mib} {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"reader":             func(r io.Reader) io.Reader { return r },
			"one byte at a time": iotest.OneByteReader,
		} {
			if name != "reader" && limit > readChunk {
				continue
			}
			var src *endless
			var err error
			_, alloc := callCost(3, func() {
				src = &endless{}
				_, err = toolnexus.PartReader{MaxBytes: limit, MIMEType: "image/png"}.Reader(wrap(src))
			})
			assertErr(t, err, toolnexus.ErrPartTooLarge, fmt.Sprintf("toolnexus: part too large: %d bytes, over the limit of %d bytes: send a smaller one, or a link to it", limit+1, limit))
			assert.Equal(t, limit+1, src.n, "%s, limit %d: bytes read", name, limit)
			t.Logf("%s, limit %d: %d bytes allocated", name, limit, alloc)
			assert.LessOrEqual(t, alloc, uint64(limit+1)+8*kib, "%s, limit %d: bytes allocated", name, limit)
		}
	}
	// A file a model named may be a link to a device with no size and no
	// end.
	link := filepath.Join(t.TempDir(), "zero.png")
	require.NoError(t, os.Symlink("/dev/zero", link))
	for _, limit := range []int64{10, mib} {
		var err error
		_, alloc := callCost(3, func() { _, err = toolnexus.PartReader{MaxBytes: limit}.File(link) })
		assertErr(t, err, toolnexus.ErrPartTooLarge, fmt.Sprintf("toolnexus: part too large: %d bytes, over the limit of %d bytes: send a smaller one, or a link to it", limit+1, limit))
		t.Logf("/dev/zero, limit %d: %d bytes allocated", limit, alloc)
		assert.LessOrEqual(t, alloc, uint64(limit+1)+8*kib, "/dev/zero, limit %d: bytes allocated", limit)
	}
}

// TestPartReaderRefusesFileFromSize refuses a sparse 1 GiB file from its
// size: reading it would allocate 1.3 GiB of base64. Not parallel: it
// measures the process's allocation.
func TestPartReaderRefusesFileFromSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.png")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	require.NoError(t, os.Truncate(p, 1<<30))
	var err error
	_, alloc := callCost(3, func() { _, err = toolnexus.PartReader{MaxBytes: mib}.File(p) })
	assertErr(t, err, toolnexus.ErrPartTooLarge, "toolnexus: part too large: 1073741824 bytes, over the limit of 1048576 bytes: send a smaller one, or a link to it")
	t.Logf("%d bytes allocated", alloc)
	assert.Less(t, alloc, uint64(64*kib))
}

// TestPartReaderBytesPerInputByte measures what reading a part costs: a
// source whose size is known is encoded into a string allocated once, at
// its exact size, about 1.33 bytes per input byte; a reader of unknown size
// is kept in blocks, then encoded. Not parallel: it measures the process's
// allocation.
func TestPartReaderBytesPerInputByte(t *testing.T) {
	sources := []struct {
		name  string
		known bool
		read  func(path string, data []byte, s string) func() (toolnexus.ContentPart, error)
	}{
		{"PartFromFile", true, func(path string, _ []byte, _ string) func() (toolnexus.ContentPart, error) {
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromFile(path) }
		}},
		{"PartFromBytes", true, func(_ string, data []byte, _ string) func() (toolnexus.ContentPart, error) {
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromBytes(data, "application/pdf") }
		}},
		{"*bytes.Reader", true, func(_ string, data []byte, _ string) func() (toolnexus.ContentPart, error) {
			r := bytes.NewReader(data)
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromReader(r, "application/pdf") }
		}},
		{"*strings.Reader", true, func(_ string, _ []byte, s string) func() (toolnexus.ContentPart, error) {
			r := strings.NewReader(s)
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromReader(r, "application/pdf") }
		}},
		{"*os.File", true, func(path string, _ []byte, _ string) func() (toolnexus.ContentPart, error) {
			f, err := os.Open(path)
			if err != nil {
				return func() (toolnexus.ContentPart, error) { return toolnexus.ContentPart{}, err }
			}
			return func() (toolnexus.ContentPart, error) {
				defer f.Close()
				return toolnexus.PartFromReader(f, "application/pdf")
			}
		}},
		{"*io.SectionReader", true, func(_ string, data []byte, _ string) func() (toolnexus.ContentPart, error) {
			r := io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data)))
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromReader(r, "application/pdf") }
		}},
		{"unknown size", false, func(_ string, data []byte, _ string) func() (toolnexus.ContentPart, error) {
			r := unsized{bytes.NewReader(data)}
			return func() (toolnexus.ContentPart, error) { return toolnexus.PartFromReader(r, "application/pdf") }
		}},
	}
	for _, n := range []int{kib, 64 * kib, mib, 4 * mib} {
		data := bytes.Repeat([]byte("0123456789abcdef"), n/16)
		s := string(data)
		path := writeTemp(t, "data.pdf", data)
		for _, src := range sources {
			read := src.read(path, data, s)
			var p toolnexus.ContentPart
			var err error
			alloc := allocated(func() { p, err = read() })
			require.NoError(t, err, src.name)
			require.Equal(t, int64(n), p.Size(), src.name)
			perByte := float64(alloc) / float64(n)
			t.Logf("%s, %d bytes: %d bytes allocated, %.3f per input byte", src.name, n, alloc, perByte)
			switch {
			case n < mib:
				assert.LessOrEqual(t, float64(alloc), 1.5*float64(n)+64*kib, "%s, %d bytes: bytes allocated", src.name, n)
			case src.known:
				assert.LessOrEqual(t, perByte, 1.40, "%s, %d bytes: bytes allocated per input byte", src.name, n)
			default:
				assert.LessOrEqual(t, perByte, 2.4, "%s, %d bytes: bytes allocated per input byte", src.name, n)
			}
		}
	}
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestPartFromFileAllocs holds reading a file to no more allocations than
// the stdlib way, os.ReadFile and base64.StdEncoding.EncodeToString: the
// file's size comes from its one Stat and the read buffer is reused, so
// that a call allocates the file, its Stat and the string it returns. Up
// to 64 KiB, where a collection seldom empties the pool of buffers. Not
// parallel: callCost counts the process's allocations.
func TestPartFromFileAllocs(t *testing.T) {
	for _, n := range []int{1, kib, readChunk, readChunk + 1, 64 * kib} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := bytes.Repeat([]byte{0xa5}, n)
			path := writeTemp(t, "data.pdf", data)
			ours, _ := callCost(20, func() {
				p, err := toolnexus.PartFromFile(path)
				if err != nil || p.Size() != int64(n) {
					t.Errorf("PartFromFile: %d bytes, %v", p.Size(), err)
				}
			})
			stdlib, _ := callCost(20, func() {
				raw, err := os.ReadFile(path)
				if err != nil || base64.StdEncoding.EncodeToString(raw) == "" {
					t.Errorf("os.ReadFile: %v", err)
				}
			})
			assert.LessOrEqual(t, ours, stdlib, "allocations of PartFromFile vs the stdlib way")
		})
	}
}

// countedFile is an open file whose reads are counted; it keeps the Stat,
// Seek and ReadAt of the file, so that it is read as a regular file is.
type countedFile struct {
	*os.File
	reads *int
}

func (f countedFile) Read(p []byte) (int, error) {
	*f.reads++
	return f.File.Read(p)
}

// TestPartReaderReadCalls checks what the PartReader doc says: a regular
// file is read at the size its stat reports, readChunk bytes at a time,
// and one read more finds its end, whether it comes as a reader or from an
// fs.FS.
func TestPartReaderReadCalls(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, kib, readChunk, 64 * kib, mib, 4 * mib} {
		data := payload(n)
		path := writeTemp(t, "data.png", data)
		open := func(t *testing.T, reads *int) countedFile {
			f, err := os.Open(path)
			require.NoError(t, err)
			t.Cleanup(func() { f.Close() })
			return countedFile{File: f, reads: reads}
		}
		for name, read := range map[string]func(t *testing.T, reads *int) (toolnexus.ContentPart, error){
			"Reader": func(t *testing.T, reads *int) (toolnexus.ContentPart, error) {
				return toolnexus.PartFromReader(open(t, reads), "image/png")
			},
			"FS": func(t *testing.T, reads *int) (toolnexus.ContentPart, error) {
				fsys := openFS(func(string) (fs.File, error) { return open(t, reads), nil })
				return toolnexus.PartFromFS(fsys, "data.png")
			},
		} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				t.Parallel()
				reads := 0
				p, err := read(t, &reads)
				require.NoError(t, err)
				assert.Equal(t, base64Std(data), p.Data)
				assert.Equal(t, (n+readChunk-1)/readChunk+1, reads)
			})
		}
	}
}

// openFS is an fs.FS whose Open is the function.
type openFS func(name string) (fs.File, error)

func (o openFS) Open(name string) (fs.File, error) { return o(name) }

// TestPartReaderFSPath checks that a name an fs.FS does not take says what
// was wrong and what to send instead, so that a model can correct its
// call: a path outside the FS is outside, not a file without extension.
func TestPartReaderFSPath(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"x.png": {Data: fixturePNGBytes(t)}}
	for _, tc := range []struct{ name, want string }{
		{"/etc/passwd", `toolnexus: invalid path: "/etc/passwd" is outside the files this tool reads: send a path relative to them, such as "passwd"`},
		{"/x.png", `toolnexus: invalid path: "/x.png" is outside the files this tool reads: send a path relative to them, such as "x.png"`},
		{"../x.png", `toolnexus: invalid path: "../x.png" is outside the files this tool reads: send a path inside them, without ".."`},
		{"a/../../x.png", `toolnexus: invalid path: "a/../../x.png" is outside the files this tool reads: send a path inside them, without ".."`},
		{"./x.png", `toolnexus: invalid path: "./x.png" is not a clean path: send "x.png"`},
		{"a/../x.png", `toolnexus: invalid path: "a/../x.png" is not a clean path: send "x.png"`},
		{"x.png/", `toolnexus: invalid path: "x.png/" is not a clean path: send "x.png"`},
		{"", `toolnexus: invalid path: "" names no file: send the path of a file`},
		{"x\xff.png", `toolnexus: invalid path: "x\xff.png" is not UTF-8`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := toolnexus.PartReader{}.FS(fsys, tc.name)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, toolnexus.ErrInvalidPath)
			assert.ErrorIs(t, err, fs.ErrInvalid)
		})
	}
	p, err := toolnexus.PartReader{}.FS(fsys, "x.png")
	require.NoError(t, err)
	assert.Equal(t, int64(82), p.Size())
}
