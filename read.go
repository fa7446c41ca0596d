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
// than limit, holding no more than the limit plus one read buffer of input.
// A negative limit means no limit.
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

var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, readChunk)
	return &b
}}

// readFile encodes the file f, opened as name. A regular file of known size is
// encoded straight into one buffer of the exact encoded size; anything else is
// read like a stream.
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
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := *bufp

	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(int(size)))
	for left := size; left > 0; {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), left)])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return "", ErrFileChanged
		}
		if err != nil {
			return "", err
		}
		encodeTo(&sb, buf[:n])
		left -= int64(n)
	}
	switch n, err := io.ReadFull(r, buf[:1]); {
	case n > 0:
		return "", ErrFileChanged
	case err != io.EOF:
		return "", err
	}
	return sb.String(), nil
}

// readAll encodes r to its end, failing once it has read more than limit bytes
// (a negative limit is none). Input that fits in one read buffer is encoded
// into one allocation of the exact size; longer input is encoded into a list
// of growing blocks as it arrives and joined once at the end, so that no more
// than about twice the encoded size is ever allocated.
func readAll(r io.Reader, limit int64) (string, error) {
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := *bufp

	var blocks [][]byte
	var read int64
	for {
		want := int64(len(buf))
		if limit >= 0 {
			want = min(want, limit-read+1)
		}
		n, err := io.ReadFull(r, buf[:want])
		read += int64(n)
		if err := checkLimit(read, limit); err != nil {
			return "", err
		}
		end := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !end {
			return "", err
		}
		if end && blocks == nil {
			var sb strings.Builder
			sb.Grow(base64.StdEncoding.EncodedLen(n))
			encodeTo(&sb, buf[:n])
			return sb.String(), nil
		}
		blocks = appendEncoded(blocks, buf[:n])
		if end {
			break
		}
	}
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	var sb strings.Builder
	sb.Grow(total)
	for _, b := range blocks {
		sb.Write(b)
	}
	return sb.String(), nil
}

// Blocks of encoded output start at firstBlock bytes and double up to maxBlock.
const (
	firstBlock = 64 << 10
	maxBlock   = 4 << 20
)

// appendEncoded encodes src into the free space of the last block, adding
// blocks as they fill. Only the last src of a payload may have a length that
// is not a multiple of 3.
func appendEncoded(blocks [][]byte, src []byte) [][]byte {
	for len(src) > 0 {
		last := len(blocks) - 1
		if last < 0 || cap(blocks[last])-len(blocks[last]) < 4 {
			size := firstBlock
			if last >= 0 {
				size = min(2*cap(blocks[last]), maxBlock)
			}
			blocks = append(blocks, make([]byte, 0, size))
			last++
		}
		b := blocks[last]
		n := min(len(src), (cap(b)-len(b))/4*3)
		blocks[last] = base64.StdEncoding.AppendEncode(b, src[:n])
		src = src[n:]
	}
	return blocks
}
