package toolnexus_test

import (
	"bytes"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
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
var readTestdataFS embed.FS

// readChunkSize is the size of the package's read buffer, 48 KiB: the limit
// tests cross it.
const readChunkSize = 3 << 14

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

// endless is a reader of as many 'x' as asked for.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// writeTemp writes data to name in a fresh temporary directory and returns
// its path.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestPartFromFileFixture(t *testing.T) {
	t.Parallel()
	p, err := toolnexus.PartFromFile("testdata/fixture.png")
	require.NoError(t, err)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: fixturePNGBase64(t)}, p)
	assert.Equal(t, int64(82), p.Size())
	assert.Equal(t, "image (image/png, 82 bytes)", p.String())
	assert.Equal(t, "fixture.png (image/png, 82 bytes)", fmt.Sprintf("%s (%s, %d bytes)", filepath.Base("testdata/fixture.png"), p.MIMEType, p.Size()))
	assert.NoError(t, p.Validate())
}

func TestPartFromFile(t *testing.T) {
	t.Parallel()
	content := []byte(pdfBytes)
	b64 := pdfB64
	tests := []struct {
		name string // file name, possibly in subdirectories
		want toolnexus.ContentPart
	}{
		{"a.png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: b64}},
		{"a.jpg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: b64}},
		{"a.jpeg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: b64}},
		{"a.gif", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/gif", Data: b64}},
		{"a.webp", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/webp", Data: b64}},
		{"report.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: b64, Name: "report.pdf"}},
		{"a.mp3", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: b64}},
		{"a.wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: b64}},
		{"SHOT.PNG", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: b64}},
		{"Report.Final.PDF", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: b64, Name: "Report.Final.PDF"}},
		{"sub/dir/nested.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: b64, Name: "nested.pdf"}},
		{"notes.txt.jpg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: b64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeTemp(t, tt.name, content)
			p, err := toolnexus.PartFromFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NotContains(t, p.Name, string(filepath.Separator), "a part never holds a path")
			assert.NoError(t, p.Validate())
		})
	}
}

func TestPartFromFileLarge(t *testing.T) {
	t.Parallel()
	for _, n := range []int{readChunkSize - 1, readChunkSize, readChunkSize + 1, 3*readChunkSize + 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			b := bytes.Repeat([]byte("0123456789abcdefg"), n/17+1)[:n]
			p, err := toolnexus.PartFromFile(writeTemp(t, "big.pdf", b))
			require.NoError(t, err)
			assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf",
				Data: base64Std(b), Name: "big.pdf"}, p)
		})
	}
}

func TestPartFromFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.png"), 0o755))
	missing := filepath.Join(dir, "missing.png")
	tests := []struct {
		name     string
		path     string
		wantErr  error
		wantPath bool // the error wraps an *fs.PathError
		wantMsg  string
	}{
		{"unknown extension", writeTemp(t, "notes.txt", []byte("x")), toolnexus.ErrUnknownExtension, false, ""},
		{"unknown extension of a missing file", filepath.Join(dir, "missing.txt"), toolnexus.ErrUnknownExtension, false, ""},
		{"no extension", writeTemp(t, "README", []byte("x")), toolnexus.ErrUnknownExtension, false, ""},
		{"missing file", missing, fs.ErrNotExist, true, "toolnexus: open " + missing + ": no such file or directory"},
		{"directory", filepath.Join(dir, "folder.png"), syscall.EISDIR, true, "toolnexus: read " + filepath.Join(dir, "folder.png") + ": is a directory"},
		{"file under a file", filepath.Join(writeTemp(t, "a.png", []byte("x")), "b.png"), syscall.ENOTDIR, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFile(tt.path)
			require.Error(t, err)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			var pathErr *fs.PathError
			assert.Equal(t, tt.wantPath, errors.As(err, &pathErr))
			assert.Zero(t, p)
		})
	}
}

func TestPartFromFileUnknownExtensionMessage(t *testing.T) {
	t.Parallel()
	_, err := toolnexus.PartFromFile("data/notes.txt")
	assert.EqualError(t, err, `toolnexus: unknown file extension: ".txt" in "data/notes.txt"; pass its MIME type`)
}

func TestPartFromFileMIME(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"data.bin", "application/octet-stream",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", Data: pdfB64, Name: "data.bin"}},
		{"shot.heic", "image/heic", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/heic", Data: pdfB64}},
		{"clip.ogg", "audio/ogg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/ogg", Data: pdfB64}},
		{"README", "text/plain", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: pdfB64, Name: "README"}},
		{"table.csv", "text/csv", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/csv", Data: pdfB64, Name: "table.csv"}},
		{"given type wins over the table", "application/x-custom",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/x-custom", Data: pdfB64, Name: "given type wins over the table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFileMIME(writeTemp(t, tt.name, []byte(pdfBytes)), tt.mimeType)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
	t.Run("fixture.png as octet stream", func(t *testing.T) {
		t.Parallel()
		p, err := toolnexus.PartFromFileMIME("testdata/fixture.png", "application/octet-stream")
		require.NoError(t, err)
		assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", Data: fixturePNGBase64(t), Name: "fixture.png"}, p)
	})
}

func TestPartFromFileMIMEErrors(t *testing.T) {
	t.Parallel()
	existing := writeTemp(t, "data.bin", []byte("x"))
	tests := []struct {
		name     string
		path     string
		mimeType string
		wantErr  error
	}{
		{"missing MIME type", existing, "", toolnexus.ErrMissingMIMEType},
		{"bad MIME type", existing, "binary", toolnexus.ErrInvalidMIMEType},
		{"MIME type checked before the file is opened", filepath.Join(t.TempDir(), "missing.bin"), "", toolnexus.ErrMissingMIMEType},
		{"missing file", filepath.Join(t.TempDir(), "missing.bin"), "application/octet-stream", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFileMIME(tt.path, tt.mimeType)
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromFileLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limit   int64
		wantErr *toolnexus.PartTooLargeError
	}{
		{"no limit", -1, nil},
		{"at the limit", 82, nil},
		{"under the limit", 1 << 20, nil},
		{"max limit", math.MaxInt64, nil},
		// A regular file is refused from its size, before it is read.
		{"one byte over", 81, &toolnexus.PartTooLargeError{Limit: 81, Size: 82}},
		{"zero", 0, &toolnexus.PartTooLargeError{Limit: 0, Size: 82}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFileLimit("testdata/fixture.png", tt.limit)
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, fixturePNGPart(t), p)
				return
			}
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, tt.wantErr, tooLarge)
			assert.Zero(t, p)
		})
	}
}

// TestPartFromFileLimitStream reads a file that reports no size, a device
// behind a name with a known extension: the limit stops the read.
func TestPartFromFileLimitStream(t *testing.T) {
	t.Parallel()
	link := filepath.Join(t.TempDir(), "zero.png")
	require.NoError(t, os.Symlink("/dev/zero", link))
	for _, limit := range []int64{0, 10, readChunkSize, 3 * readChunkSize} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFileLimit(link, limit)
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, &toolnexus.PartTooLargeError{Limit: limit, Size: limit + 1}, tooLarge)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromFS(t *testing.T) {
	t.Parallel()
	png := fixturePNGBytes(t)
	fsys := fstest.MapFS{
		"fixture.png":             {Data: png},
		"docs/report.pdf":         {Data: []byte(pdfBytes)},
		"media/CLIP.WAV":          {Data: []byte(wavBytes)},
		"big/photo.jpg":           {Data: bytes.Repeat([]byte{0xab}, 2*readChunkSize+1)},
		"dev/stream.png":          {Data: png, Mode: fs.ModeDevice}, // no useful size: read as a stream
		"pipe/stream.pdf":         {Data: []byte(pdfBytes), Mode: fs.ModeNamedPipe},
		"old/modified/photo.webp": {Data: []byte{1, 2, 3}, ModTime: time.Unix(0, 0)},
	}
	tests := []struct {
		fsys fs.FS
		name string
		want toolnexus.ContentPart
	}{
		{fsys, "fixture.png", fixturePNGPart(t)},
		{fsys, "docs/report.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}},
		{fsys, "media/CLIP.WAV", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{fsys, "big/photo.jpg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: base64Std(bytes.Repeat([]byte{0xab}, 2*readChunkSize+1))}},
		{fsys, "dev/stream.png", fixturePNGPart(t)},
		{fsys, "pipe/stream.pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "stream.pdf"}},
		{fsys, "old/modified/photo.webp", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/webp", Data: "AQID"}},
		{readTestdataFS, "testdata/fixture.png", fixturePNGPart(t)},
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
		"notes.txt":         {Data: []byte("x")},
		"folder.png/inside": {Data: []byte("x")},
	}
	tests := []struct {
		name     string
		file     string
		wantErr  error
		wantPath bool
		wantMsg  string
	}{
		{"unknown extension", "notes.txt", toolnexus.ErrUnknownExtension, false,
			`toolnexus: unknown file extension: ".txt" in "notes.txt"; pass its MIME type`},
		{"missing", "missing.png", fs.ErrNotExist, true, "toolnexus: open missing.png: file does not exist"},
		{"directory", "folder.png", syscall.EISDIR, true, "toolnexus: read folder.png: is a directory"},
		{"invalid path", "../fixture.png", fs.ErrNotExist, true, ""},
		{"rooted path", "/fixture.png", fs.ErrNotExist, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromFS(fsys, tt.file)
			require.Error(t, err)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			var pathErr *fs.PathError
			assert.Equal(t, tt.wantPath, errors.As(err, &pathErr))
			assert.Zero(t, p)
		})
	}
}

// lyingFS serves files whose Stat reports size bytes, whatever their
// content: a file that changed size between Stat and the read. It records
// the bytes read and whether each file was closed.
type lyingFS struct {
	data []byte
	size int64
	file *lyingFile
}

func (l *lyingFS) Open(name string) (fs.File, error) {
	l.file = &lyingFile{countingReader: countingReader{r: bytes.NewReader(l.data)}, name: name, size: l.size}
	return l.file, nil
}

type lyingFile struct {
	countingReader
	name string
	size int64
}

func (f *lyingFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *lyingFile) Name() string               { return f.name }
func (f *lyingFile) Size() int64                { return f.size }
func (f *lyingFile) Mode() fs.FileMode          { return 0o444 }
func (f *lyingFile) ModTime() time.Time         { return time.Time{} }
func (f *lyingFile) IsDir() bool                { return false }
func (f *lyingFile) Sys() any                   { return nil }

func TestPartFromFSFileChangedWhileRead(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{7}, 2*readChunkSize)
	tests := []struct {
		name       string
		data       []byte
		size       int64
		wantErr    string // "" for success
		wantAtMost int64  // bytes read at most
	}{
		{"same size", []byte(pdfBytes), 13, "", 13},
		{"grew", []byte(pdfBytes), 10, `toolnexus: file changed while read: "doc.pdf" was 10 bytes when opened`, 11},
		{"shrank", []byte(pdfBytes), 20, `toolnexus: file changed while read: "doc.pdf" was 20 bytes when opened`, 13},
		{"grew a lot", big, 5, `toolnexus: file changed while read: "doc.pdf" was 5 bytes when opened`, 6},
		{"grew past a chunk", big, readChunkSize + 1, fmt.Sprintf(`toolnexus: file changed while read: "doc.pdf" was %d bytes when opened`, readChunkSize+1), readChunkSize + 2},
		{"shrank to nothing", nil, 82, `toolnexus: file changed while read: "doc.pdf" was 82 bytes when opened`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := &lyingFS{data: tt.data, size: tt.size}
			p, err := toolnexus.PartFromFS(fsys, "doc.pdf")
			require.NotNil(t, fsys.file)
			assert.True(t, fsys.file.closed, "the file PartFromFS opened is closed")
			assert.LessOrEqual(t, fsys.file.n, tt.wantAtMost, "bytes read")
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: base64Std(tt.data), Name: "doc.pdf"}, p)
				return
			}
			assert.ErrorIs(t, err, toolnexus.ErrFileChanged)
			assert.EqualError(t, err, tt.wantErr)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromReader(t *testing.T) {
	t.Parallel()
	png := fixturePNGBytes(t)
	big := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), 20_000) // 520,000 bytes: several read chunks and output blocks
	tests := []struct {
		name     string
		wrap     func(io.Reader) io.Reader
		data     []byte
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"fixture", nil, png, "image/png", fixturePNGPart(t)},
		{"pdf is an unnamed file", nil, []byte(pdfBytes), "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"wav", nil, []byte(wavBytes), "audio/wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{"one byte at a time", iotest.OneByteReader, png, "image/png", fixturePNGPart(t)},
		{"half reads", iotest.HalfReader, png, "image/png", fixturePNGPart(t)},
		{"data with EOF", iotest.DataErrReader, png, "image/png", fixturePNGPart(t)},
		{"one chunk less a byte", nil, big[:readChunkSize-1], "image/png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: base64Std(big[:readChunkSize-1])}},
		{"one chunk", nil, big[:readChunkSize], "image/png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: base64Std(big[:readChunkSize])}},
		{"one chunk and a byte", nil, big[:readChunkSize+1], "image/png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: base64Std(big[:readChunkSize+1])}},
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
			n, err := r.Read(make([]byte, 1))
			assert.Zero(t, n)
			assert.Equal(t, io.EOF, err)
		})
	}
}

func TestPartFromReaderErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name     string
		r        io.Reader
		mimeType string
		wantErr  error
		wantMsg  string
		wantRead int64
	}{
		{"missing MIME type is checked before reading", strings.NewReader("abc"), "", toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type", 0},
		{"bad MIME type is checked before reading", strings.NewReader("abc"), "image", toolnexus.ErrInvalidMIMEType, "", 0},
		{"read error", iotest.ErrReader(boom), "image/png", boom, "toolnexus: read image/png: boom", 0},
		{"read error after data", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), "image/png", boom, "toolnexus: read image/png: boom", 3},
		{"timeout on the second read", iotest.TimeoutReader(strings.NewReader(strings.Repeat("x", 2*readChunkSize))), "image/png", iotest.ErrTimeout, "", int64(readChunkSize)},
		// A truncated HTTP body or gzip stream fails with io.ErrUnexpectedEOF:
		// never a silently truncated part.
		{"unexpected EOF from the source", iotest.ErrReader(io.ErrUnexpectedEOF), "image/png", io.ErrUnexpectedEOF, "toolnexus: read image/png: unexpected EOF", 0},
		{"unexpected EOF after data", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF)), "image/png", io.ErrUnexpectedEOF, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &countingReader{r: tt.r}
			p, err := toolnexus.PartFromReader(r, tt.mimeType)
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			if tt.wantMsg != "" {
				assert.EqualError(t, err, tt.wantMsg)
			}
			assert.Equal(t, tt.wantRead, r.n)
			assert.False(t, r.closed)
			assert.Zero(t, p)
		})
	}
}

// TestPartFromReaderLimit checks that a read over the limit stops one byte
// past it, whatever the reader has left.
func TestPartFromReaderLimit(t *testing.T) {
	t.Parallel()
	limits := []int64{0, 1, 2, 3, 100, readChunkSize - 1, readChunkSize, readChunkSize + 1, 5*readChunkSize + 7}
	for _, limit := range limits {
		t.Run(fmt.Sprintf("endless/%d", limit), func(t *testing.T) {
			t.Parallel()
			r := &countingReader{r: endless{}}
			p, err := toolnexus.PartFromReaderLimit(r, "image/png", limit)
			requireErrorPrefix(t, err)
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
			assert.Equal(t, &toolnexus.PartTooLargeError{Limit: limit, Size: limit + 1}, tooLarge)
			assert.Equal(t, limit+1, r.n, "bytes read")
			assert.False(t, r.closed)
			assert.Zero(t, p)
		})
		t.Run(fmt.Sprintf("one byte at a time/%d", limit), func(t *testing.T) {
			t.Parallel()
			r := &countingReader{r: iotest.OneByteReader(endless{})}
			_, err := toolnexus.PartFromReaderLimit(r, "image/png", limit)
			assert.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
			assert.Equal(t, limit+1, r.n, "bytes read")
		})
		t.Run(fmt.Sprintf("exactly the limit/%d", limit), func(t *testing.T) {
			t.Parallel()
			if limit == 0 {
				return // empty input is refused: see TestEmptyPayload
			}
			data := bytes.Repeat([]byte{'x'}, int(limit))
			r := &countingReader{r: bytes.NewReader(data)}
			p, err := toolnexus.PartFromReaderLimit(r, "image/png", limit)
			require.NoError(t, err)
			assert.Equal(t, base64Std(data), p.Data)
			assert.Equal(t, limit, p.Size())
			assert.Equal(t, limit, r.n)
		})
		t.Run(fmt.Sprintf("one over the limit/%d", limit), func(t *testing.T) {
			t.Parallel()
			r := &countingReader{r: bytes.NewReader(bytes.Repeat([]byte{'x'}, int(limit)+1))}
			_, err := toolnexus.PartFromReaderLimit(r, "image/png", limit)
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, &toolnexus.PartTooLargeError{Limit: limit, Size: limit + 1}, tooLarge)
		})
	}
}

func TestPartFromReaderLimitHuge(t *testing.T) {
	t.Parallel()
	for _, limit := range []int64{-1, math.MaxInt64, math.MaxInt64 - 1, math.MaxInt32} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			t.Parallel()
			var p toolnexus.ContentPart
			var err error
			require.NotPanics(t, func() {
				p, err = toolnexus.PartFromReaderLimit(bytes.NewReader(fixturePNGBytes(t)), "image/png", limit)
			})
			require.NoError(t, err)
			assert.Equal(t, fixturePNGPart(t), p)
		})
	}
}

// TestEmptyPayload checks that no constructor returns a part with nothing
// in it, which Validate would refuse and JSON could not carry.
func TestEmptyPayload(t *testing.T) {
	t.Parallel()
	empty := writeTemp(t, "empty.png", nil)
	emptyPDF := writeTemp(t, "empty.bin", nil)
	tests := []struct {
		name    string
		build   func() (toolnexus.ContentPart, error)
		wantMsg string
	}{
		{"bytes nil", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromBytes(nil, "image/png") },
			`toolnexus: invalid part: empty "image/png" payload`},
		{"bytes empty", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromBytes([]byte{}, "application/pdf") },
			`toolnexus: invalid part: empty "application/pdf" payload`},
		{"reader", func() (toolnexus.ContentPart, error) {
			return toolnexus.PartFromReader(strings.NewReader(""), "audio/wav")
		},
			`toolnexus: invalid part: empty "audio/wav" payload`},
		{"reader with limit 0", func() (toolnexus.ContentPart, error) {
			return toolnexus.PartFromReaderLimit(strings.NewReader(""), "audio/wav", 0)
		}, `toolnexus: invalid part: empty "audio/wav" payload`},
		{"base64", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromBase64("", "image/png") }, ""},
		{"file", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromFile(empty) }, ""},
		{"file with MIME type", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromFileMIME(emptyPDF, "application/pdf") }, ""},
		{"file with limit", func() (toolnexus.ContentPart, error) { return toolnexus.PartFromFileLimit(empty, 10) }, ""},
		{"fs", func() (toolnexus.ContentPart, error) {
			return toolnexus.PartFromFS(fstest.MapFS{"empty.png": {}}, "empty.png")
		}, `toolnexus: invalid part: "empty.png" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.build()
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidPart)
			assert.True(t, strings.HasSuffix(err.Error(), " is empty") || strings.HasSuffix(err.Error(), " payload"), "message %q", err)
			if tt.wantMsg != "" {
				assert.EqualError(t, err, tt.wantMsg)
			}
			assert.Zero(t, p)
		})
	}
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
