package toolnexus

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// PartFromFile reads the file at path into a part whose type and MIME type
// come from the fixed extension table (see [MIMETypeOf]). A file part is named
// after the file's base name; image and audio parts carry no name. The part
// holds the encoded bytes, not the path.
//
// A file the caller does not control, such as one a model chose, should be
// read with [PartFromFileLimit].
func PartFromFile(path string) (ContentPart, error) {
	return partFromFile(path, "", -1)
}

// PartFromFileMIME is [PartFromFile] with an explicit MIME type, for a file
// whose extension is not in the table; the part type follows the MIME type
// (image/*, audio/*, else file).
func PartFromFileMIME(path, mimeType string) (ContentPart, error) {
	if err := checkMIMEType(mimeType); err != nil {
		return ContentPart{}, err
	}
	return partFromFile(path, mimeType, -1)
}

// PartFromFileLimit is [PartFromFile] for a file of untrusted size: a file
// over limit bytes is refused from its size before it is read, with a
// [*PartTooLargeError], and a file that grows while it is read fails with
// [ErrFileChanged] after at most limit+1 bytes. A negative limit means no limit.
func PartFromFileLimit(path string, limit int64) (ContentPart, error) {
	return partFromFile(path, "", limit)
}

// PartFromFS reads the file name from fsys, such as an [embed.FS], like
// [PartFromFile].
func PartFromFS(fsys fs.FS, name string) (ContentPart, error) {
	mimeType, err := MIMETypeOf(name)
	if err != nil {
		return ContentPart{}, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return ContentPart{}, fmt.Errorf("toolnexus: %w", err)
	}
	defer f.Close()
	data, err := readFile(f, name, -1)
	if err != nil {
		return ContentPart{}, err
	}
	return newPart(mimeType, data, name), nil
}

// PartFromReader reads r to its end into a part with the given MIME type; the
// part type follows the MIME type (image/*, audio/*, else file). It does not
// close r. Name a file part with [ContentPart.WithName].
//
// A reader the caller does not control should be read with
// [PartFromReaderLimit].
func PartFromReader(r io.Reader, mimeType string) (ContentPart, error) {
	return PartFromReaderLimit(r, mimeType, -1)
}

// PartFromReaderLimit is [PartFromReader] for untrusted input: it reads at most
// limit+1 bytes and fails with a [*PartTooLargeError] as soon as r gives more
// than limit, having held no more than those bytes (in buffers at most a
// quarter larger). A negative limit means no limit.
func PartFromReaderLimit(r io.Reader, mimeType string, limit int64) (ContentPart, error) {
	if err := checkMIMEType(mimeType); err != nil {
		return ContentPart{}, err
	}
	data, err := readAll(r, limit)
	if err != nil {
		if errors.Is(err, ErrPartTooLarge) {
			return ContentPart{}, err
		}
		return ContentPart{}, fmt.Errorf("toolnexus: read %s: %w", mimeType, err)
	}
	if data == "" {
		return ContentPart{}, errorf(ErrInvalidPart, "empty %s payload", quote(mimeType))
	}
	return newPart(mimeType, data, ""), nil
}

func partFromFile(path, mimeType string, limit int64) (ContentPart, error) {
	if mimeType == "" {
		m, err := MIMETypeOf(path)
		if err != nil {
			return ContentPart{}, err
		}
		mimeType = m
	}
	f, err := os.Open(path)
	if err != nil {
		return ContentPart{}, fmt.Errorf("toolnexus: %w", err)
	}
	defer f.Close()
	data, err := readFile(f, path, limit)
	if err != nil {
		return ContentPart{}, err
	}
	return newPart(mimeType, data, path), nil
}

// readChunk is how much input is read at a time: a multiple of 3, so that each
// chunk but the last encodes without padding.
const readChunk = 3 << 14 // 48 KiB

// maxEncodable is the largest input whose encoding fits in an int.
const maxEncodable = (math.MaxInt - 3) / 4 * 3

// Read buffers come from spareChunk, one buffer kept across garbage
// collections, then from chunkPool, which every collection empties (and
// refilling it allocates).
var (
	spareChunk atomic.Pointer[[]byte]
	chunkPool  = sync.Pool{New: func() any {
		b := make([]byte, readChunk)
		return &b
	}}
)

func getChunk() *[]byte {
	if b := spareChunk.Swap(nil); b != nil {
		return b
	}
	return chunkPool.Get().(*[]byte)
}

func putChunk(b *[]byte) {
	if !spareChunk.CompareAndSwap(nil, b) {
		chunkPool.Put(b)
	}
}

// readFile encodes the file f, opened as name. A regular file of known size is
// encoded straight into one buffer of the exact encoded size; anything else is
// read like a stream. An empty file is an error: a part cannot be empty.
func readFile(f fs.File, name string, limit int64) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("toolnexus: %w", err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("toolnexus: %w", &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR})
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() || size == 0 {
		// Pipes, devices and files such as those in /proc report no
		// useful size.
		data, err := readAll(f, limit)
		if err == nil && data == "" {
			return "", errorf(ErrInvalidPart, "%s is empty", quote(name))
		}
		return data, pathError(err, name)
	}
	if err := checkLimit(size, limit); err != nil {
		return "", err
	}
	if size > maxEncodable {
		return "", &PartTooLargeError{Limit: maxEncodable, Size: size}
	}
	data, err := readSize(f, size)
	if errors.Is(err, ErrFileChanged) {
		return "", errorf(ErrFileChanged, "%s was %d bytes when opened", quote(name), size)
	}
	return data, pathError(err, name)
}

// pathError adds the toolnexus prefix to a read error, which names the path
// itself when it comes from an *os.File; other errors get the name.
func pathError(err error, name string) error {
	if err == nil || errors.Is(err, ErrPartTooLarge) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("toolnexus: %w", err)
	}
	return fmt.Errorf("toolnexus: read %s: %w", name, err)
}

// readSize encodes exactly size bytes of r into a string allocated once at its
// exact encoded length. It reports ErrFileChanged if r ends early or has more.
func readSize(r io.Reader, size int64) (string, error) {
	bufp := getChunk()
	defer putChunk(bufp)
	buf := *bufp

	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(int(size)))
	for left := size; left > 0; {
		want := int(min(int64(len(buf)), left))
		n, err := readFull(r, buf[:want])
		switch {
		case n < want && err == io.EOF:
			return "", ErrFileChanged
		case err != nil && err != io.EOF:
			return "", err
		}
		encodeTo(&sb, buf[:n])
		left -= int64(n)
	}
	switch n, err := readFull(r, buf[:1]); {
	case n > 0:
		return "", ErrFileChanged
	case err != io.EOF:
		return "", err
	}
	return sb.String(), nil
}

// readAll encodes r to its end, failing once it has read more than limit bytes
// (a negative limit is none). Input that fits in one read buffer is encoded
// from there into one allocation of the exact size. Longer input is kept as
// it arrives in blocks, each about a quarter of what came before (so that at
// most a quarter is allocated and left unused), and encoded once at the end
// into a string of the exact size.
func readAll(r io.Reader, limit int64) (string, error) {
	bufp := getChunk()
	buf := *bufp
	n, err := readFull(r, buf[:clampRead(len(buf), 0, limit)])
	if err := checkLimit(int64(n), limit); err != nil {
		putChunk(bufp)
		return "", err
	}
	if err == io.EOF {
		var sb strings.Builder
		sb.Grow(base64.StdEncoding.EncodedLen(n))
		encodeTo(&sb, buf[:n])
		putChunk(bufp)
		return sb.String(), nil
	}
	if err != nil {
		putChunk(bufp)
		return "", err
	}

	// Every block but the last is filled to its capacity, a multiple of 3,
	// so that the blocks encode one after the other without padding.
	blocks := [][]byte{append(make([]byte, 0, minBlock), buf[:n]...)}
	putChunk(bufp)
	read := int64(n)
	for {
		cur := blocks[len(blocks)-1]
		if len(cur) == cap(cur) {
			size := min(max(int(read/4), minBlock), maxBlock) / 3 * 3
			cur = make([]byte, 0, size)
			blocks = append(blocks, cur)
		}
		m, err := r.Read(cur[len(cur):clampRead(cap(cur), len(cur), limit-read)])
		blocks[len(blocks)-1] = cur[:len(cur)+m]
		read += int64(m)
		if err := checkLimit(read, limit); err != nil {
			return "", err
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(int(read)))
	for _, b := range blocks {
		encodeTo(&sb, b)
	}
	return sb.String(), nil
}

// clampRead returns the end of the next read into a buffer of capacity cap
// holding used bytes, so that no more than left+1 bytes are read when there
// is a limit: the one byte past it is how the limit is seen to be crossed.
func clampRead(capacity, used int, left int64) int {
	if left >= 0 && left < int64(capacity-used)-1 { // left+1 overflows at math.MaxInt64
		return used + int(left+1)
	}
	return capacity
}

// readFull reads r into buf until buf is full or r fails. Unlike
// [io.ReadFull] it reports io.EOF at the end of r however much it read, and
// passes on an io.ErrUnexpectedEOF from r, such as a truncated HTTP body, as
// the error it is.
func readFull(r io.Reader, buf []byte) (n int, err error) {
	for n < len(buf) && err == nil {
		var m int
		m, err = r.Read(buf[n:])
		n += m
	}
	return n, err
}

// The blocks of readAll hold from minBlock to maxBlock bytes of input; both
// are multiples of 3.
const (
	minBlock = 3 << 16 // 192 KiB
	maxBlock = 3 << 20 // 3 MiB
)
