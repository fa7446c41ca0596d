package toolnexus

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// PartReader reads parts with a size limit and a MIME type that apply to
// every source it has a method for: a file, a file in an [fs.FS], a reader,
// bytes, base64 and a URL. The zero PartReader reads as [PartFromFile],
// [PartFromFS] and the other PartFrom functions do, without a limit.
//
// A part read from anything the caller does not control, such as a file a
// model chose or a payload from another process, should be read with a
// limit; a file the model may name is best read through a confined fs.FS,
// such as the one of an [os.Root]:
//
//	part, err := toolnexus.PartReader{MaxBytes: 10 << 20}.FS(root.FS(), name)
//
// A size a source reports, such as a file's [fs.FileInfo.Size], is a claim:
// a source over the limit by its claim is refused before it is read, but a
// claim makes a read allocate all it says only when the source proves it by
// reading its last byte (a file, a [bytes.Reader], an [io.SectionReader]).
// Otherwise, as for an fs.FS that reads a zip archive, whose sizes come from
// the archive, what is allocated grows with what was read. A regular
// file, as [PartReader.File] and the fs.FS of an [os.Root] or [os.DirFS]
// open, is read at the size its own stat reports, and the byte past it
// shows whether the file grew: it is read 48 KiB at a time, each piece
// encoded as it comes into the part's data, allocated once at its size, and
// one read more finds its end.
type PartReader struct {
	// MaxBytes is the most bytes a part may hold, decoded. Zero or less
	// means no limit. A read over it fails with a [*PartTooLargeError]
	// having read no more than MaxBytes+1 bytes.
	MaxBytes int64
	// MIMEType is the MIME type of what is read, parameters allowed
	// ("text/plain; charset=utf-8"); the part keeps the media type without
	// them, and its type follows it (image/*, audio/*, else file). It is
	// required to read a reader, bytes or base64; a file without one gets
	// the type the extension table gives its name (see [MIMETypeOf]).
	MIMEType string
}

// check refuses a size over the limit.
func (pr PartReader) check(size int64) error {
	if pr.MaxBytes > 0 && size > pr.MaxBytes {
		return &PartTooLargeError{Limit: pr.MaxBytes, Size: size}
	}
	return nil
}

// mimeType returns the media type of pr.MIMEType, which must be set.
func (pr PartReader) mimeType() (string, error) {
	return parseMIMEType(pr.MIMEType)
}

// mimeTypeOf returns the media type of pr.MIMEType, or the one the extension
// table gives name when pr has none.
func (pr PartReader) mimeTypeOf(name string) (string, error) {
	if pr.MIMEType != "" {
		return parseMIMEType(pr.MIMEType)
	}
	return MIMETypeOf(name)
}

// PartFromFile reads the file at path into a part whose type and MIME type
// come from the fixed extension table (see [MIMETypeOf]). A file part is named
// after the file's base name; image and audio parts carry no name. The part
// holds the encoded bytes, not the path.
//
// A file the caller does not control, such as one a model chose, should be
// read with a limit and a confined file system: see [PartReader].
func PartFromFile(path string) (ContentPart, error) {
	return PartReader{}.File(path)
}

// File reads the file at path as [PartFromFile] does, with pr's limit and
// MIME type. A file that grows or shrinks while it is read fails with
// [ErrFileChanged].
func (pr PartReader) File(path string) (ContentPart, error) {
	return pr.open(func(name string) (fs.File, error) { return os.Open(name) }, path)
}

// PartFromFS reads the file name from fsys, such as an [embed.FS], like
// [PartFromFile].
func PartFromFS(fsys fs.FS, name string) (ContentPart, error) {
	return PartReader{}.FS(fsys, name)
}

// FS reads the file name from fsys as [PartFromFS] does, with pr's limit and
// MIME type.
//
// A name that fs.FS does not take (see [fs.ValidPath]) reports
// [ErrInvalidPath], which also matches fs.ErrInvalid, with words a model
// can act on: an absolute path or one that leaves the file system is
// outside it, and a path with "." or ".." elements, a trailing slash or
// backslashes is told the name to send instead.
func (pr PartReader) FS(fsys fs.FS, name string) (ContentPart, error) {
	if fsys == nil {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "nil fs.FS")
	}
	if err := checkFSPath(name); err != nil {
		return ContentPart{}, err
	}
	return pr.open(fsys.Open, name)
}

// checkFSPath reports why name is not a name an fs.FS takes, and what to
// send instead, or nil when it is one.
func checkFSPath(name string) error {
	if fs.ValidPath(name) {
		return nil
	}
	slashed := strings.ReplaceAll(name, `\`, "/")
	clean := path.Clean(slashed)
	var why string
	switch {
	case strings.HasPrefix(slashed, "/") || len(slashed) >= 2 && slashed[1] == ':':
		why = "is outside the files this tool reads: send a path relative to them, such as " + msg.Quote(path.Base(clean))
	case clean == ".." || strings.HasPrefix(clean, "../"):
		why = "is outside the files this tool reads: send a path inside them, without \"..\""
	case !utf8.ValidString(name):
		why = "is not UTF-8"
	case clean == "." || clean == "":
		why = "names no file: send the path of a file"
	case slashed != name:
		why = "is not slash-separated: send " + msg.Quote(clean)
	default:
		why = "is not a clean path: send " + msg.Quote(clean)
	}
	return &fsPathError{msg: ErrInvalidPath.Error() + ": " + msg.Quote(name) + " " + why}
}

// fsPathError is the error of a name an fs.FS does not take: it matches
// [ErrInvalidPath] and fs.ErrInvalid.
type fsPathError struct{ msg string }

func (e *fsPathError) Error() string { return e.msg }

// Is reports whether target is ErrInvalidPath or fs.ErrInvalid.
func (e *fsPathError) Is(target error) bool {
	return target == ErrInvalidPath || target == fs.ErrInvalid
}

// open reads the file name, opened with open, into a part.
func (pr PartReader) open(open func(name string) (fs.File, error), name string) (ContentPart, error) {
	mimeType, err := pr.mimeTypeOf(name)
	if err != nil {
		return ContentPart{}, err
	}
	f, err := open(name)
	if err != nil {
		return ContentPart{}, readError(err)
	}
	defer f.Close()
	data, err := pr.readFile(f, name)
	if err != nil {
		return ContentPart{}, err
	}
	return newPart(mimeType, data, name), nil
}

// readFile encodes the file f, opened as name. An empty file is an error: a
// part cannot be empty.
func (pr PartReader) readFile(f fs.File, name string) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", readError(err)
	}
	if fi.IsDir() {
		return "", readError(&fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR})
	}
	if file, ok := f.(*os.File); ok && fi.Mode().IsRegular() && fi.Size() > 0 {
		return pr.readRegular(file, fi.Size(), name)
	}
	data, err := pr.read(f)
	if err != nil {
		return "", readFailed(err, msg.Quote(name))
	}
	if data == "" {
		return "", msg.Errorf(ErrInvalidPart, "%s is empty", msg.Quote(name))
	}
	return data, nil
}

// readRegular encodes r, the regular file name of size bytes, size > 0, by
// the kernel's own count: it reads exactly that, and the byte past it,
// which shows a file that grew.
func (pr PartReader) readRegular(r io.Reader, size int64, name string) (string, error) {
	if err := pr.check(size); err != nil {
		return "", err
	}
	data, err := readSize(r, size)
	if err != nil {
		return "", readFailed(err, msg.Quote(name))
	}
	return data, nil
}

// readFailed returns the error to report for err, the error of a read of
// the source what names: a limit passed as it is, a size that changed as
// [ErrFileChanged], and any other error as [ErrRead] with its cause.
func readFailed(err error, what string) error {
	// Only this package makes a *sizeChanged, never wrapped; errors.As
	// would cost an allocation.
	changed, _ := err.(*sizeChanged)
	var pe *fs.PathError
	switch {
	case changed != nil:
		return msg.Errorf(ErrFileChanged, "%s %v", what, changed)
	case errors.Is(err, ErrPartTooLarge):
		return err
	case errors.As(err, &pe): // it names its file
		return readError(err)
	}
	return readError(fmt.Errorf("%s: %w", what, err))
}

// PartFromBytes returns a part holding b, encoded as base64, with the given
// MIME type; the part type follows the MIME type (image/*, audio/*, else file).
// Name a file part with [ContentPart.WithName].
func PartFromBytes(b []byte, mimeType string) (ContentPart, error) {
	return PartReader{MIMEType: mimeType}.Bytes(b)
}

// Bytes returns a part holding b as [PartFromBytes] does, with pr's limit and
// MIME type, which must be set.
func (pr PartReader) Bytes(b []byte) (ContentPart, error) {
	mimeType, err := pr.mimeType()
	if err != nil {
		return ContentPart{}, err
	}
	if err := pr.check(int64(len(b))); err != nil {
		return ContentPart{}, err
	}
	if len(b) == 0 {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "empty %s payload", msg.Quote(mimeType))
	}
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(len(b)))
	b64.EncodeTo(&sb, b)
	return newPart(mimeType, sb.String(), ""), nil
}

// PartFromBase64 returns a part holding data, an already encoded payload,
// with the given MIME type. Data must be canonical standard base64: padded,
// without whitespace or line breaks.
func PartFromBase64(data, mimeType string) (ContentPart, error) {
	return PartReader{MIMEType: mimeType}.Base64(data)
}

// Base64 returns a part holding data as [PartFromBase64] does, with pr's
// limit and MIME type, which must be set. A payload that decodes to more
// than MaxBytes is refused from its length alone, before it is scanned.
func (pr PartReader) Base64(data string) (ContentPart, error) {
	mimeType, err := pr.mimeType()
	if err != nil {
		return ContentPart{}, err
	}
	if err := pr.check(decodedLen(data)); err != nil {
		return ContentPart{}, err
	}
	if data == "" {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "empty base64 payload")
	}
	if err := b64.Check(data); err != nil {
		return ContentPart{}, err
	}
	return newPart(mimeType, data, ""), nil
}

// PartFromURL returns a part for url with the given MIME type; the part type
// follows the MIME type (image/*, audio/*, else file).
//
// A data URL, data:<mime>;base64,<data> (parameters allowed, "base64" in any
// case, as RFC 2397 has it), becomes a part holding the media type and the
// data, never a URL; mimeType may then be "", and a different non-empty
// mimeType is an error. Any other URL needs mimeType: it is never guessed
// from the URL. Such a URL is only checked to be absolute, of any scheme
// (https, gs, s3, file…), and never fetched; each provider conversion sends
// only the schemes its API fetches, and a host that fetches or renders part
// URLs from untrusted tools applies its own policy, such as https only.
func PartFromURL(url, mimeType string) (ContentPart, error) {
	return PartReader{MIMEType: mimeType}.URL(url)
}

// URL returns a part for url as [PartFromURL] does, with pr's MIME type. A
// data URL whose payload decodes to more than MaxBytes is refused from its
// length alone, before it is scanned; the limit does not apply to other
// URLs, which hold no payload.
func (pr PartReader) URL(url string) (ContentPart, error) {
	if isDataURL(url) {
		m, data, err := parseDataURL(url)
		if err != nil {
			return ContentPart{}, err
		}
		if pr.MIMEType != "" {
			want, err := pr.mimeType()
			if err != nil {
				return ContentPart{}, err
			}
			if !strings.EqualFold(want, m) {
				return ContentPart{}, msg.Errorf(ErrInvalidMIMEType, "data URL holds %s, not %s", msg.Quote(m), msg.Quote(pr.MIMEType))
			}
		}
		return PartReader{MaxBytes: pr.MaxBytes, MIMEType: m}.Base64(data)
	}
	if url == "" {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "empty URL")
	}
	mimeType, err := pr.mimeType()
	if err != nil {
		return ContentPart{}, err
	}
	if err := checkURL(url); err != nil {
		return ContentPart{}, err
	}
	return ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, URL: url}, nil
}

// PartFromReader reads r to its end into a part with the given MIME type;
// the part type follows the MIME type (image/*, audio/*, else file). It does
// not close r. Name a file part with [ContentPart.WithName].
//
// A reader the caller does not control should be read with a limit: see
// [PartReader].
func PartFromReader(r io.Reader, mimeType string) (ContentPart, error) {
	return PartReader{MIMEType: mimeType}.Reader(r)
}

// Reader reads r as [PartFromReader] does, with pr's limit and MIME type,
// which must be set. A reader that knows its size (Len, or Seek with ReadAt,
// as a [bytes.Reader], a [strings.Reader], an [*os.File] or an
// [io.SectionReader] have) is read into one buffer of the exact size, and
// must give exactly what it reported or fail with [ErrFileChanged]. Any
// other reader is kept in blocks that grow with what was read, at most a
// 32nd larger than it, and encoded once at its end. With a limit, no more
// than MaxBytes+1 bytes of r are read or held.
func (pr PartReader) Reader(r io.Reader) (ContentPart, error) {
	mimeType, err := pr.mimeType()
	if err != nil {
		return ContentPart{}, err
	}
	if r == nil {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "nil reader")
	}
	data, err := pr.read(r)
	if err != nil {
		return ContentPart{}, readFailed(err, "the reader")
	}
	if data == "" {
		return ContentPart{}, msg.Errorf(ErrInvalidPart, "empty %s payload", msg.Quote(mimeType))
	}
	return newPart(mimeType, data, ""), nil
}

// readError reports a failed open, stat or read, with its cause.
func readError(err error) error {
	return fmt.Errorf("%w: %w", ErrRead, err)
}

// readChunk is how much input is read at a time: a multiple of 3, so that each
// chunk but the last encodes without padding.
const readChunk = 3 << 14 // 48 KiB

// firstBlock is the first block of a reader that claims no size, as large
// as the first read of [io.ReadAll].
const firstBlock = 512

// blockUnit is what the blocks of readBlocks grow by: a size the allocator
// hands out as it is, without rounding it up.
const blockUnit = 8 << 10

// readBuffers holds the buffers readSize reads through, so that a read
// allocates only the string it returns.
var readBuffers = sync.Pool{New: func() any { return new([readChunk]byte) }}

// maxEncodable is the largest input whose encoding fits in an int.
const maxEncodable = (math.MaxInt - 3) / 4 * 3

// read encodes r to its end. A size r proves is read into one string of the
// exact encoded size; anything else in blocks.
func (pr PartReader) read(r io.Reader) (string, error) {
	size, proven, err := sizeOf(r)
	if err != nil {
		return "", err
	}
	if size > 0 {
		if err := pr.check(size); err != nil {
			return "", err
		}
		if size > maxEncodable { // a claim no source can make true
			proven = false
		}
	}
	if proven {
		return readSize(r, size)
	}
	data, n, err := pr.readBlocks(r, size)
	if err == nil && size > 0 && n != size {
		return "", &sizeChanged{reported: size, gave: n}
	}
	return data, err
}

// sizeChanged reports a source that gave more or fewer bytes than it
// reported; gave is -1 for more.
type sizeChanged struct {
	reported, gave int64
}

func (e *sizeChanged) Error() string {
	if e.gave > e.reported {
		return fmt.Sprintf("reported %d bytes and gave more", e.reported)
	}
	return fmt.Sprintf("reported %d bytes and gave %d", e.reported, e.gave)
}

// sizeOf returns how many bytes r says it has left, or -1 when it does not
// say, and whether it proved it by reading the last of them. A reader that
// can seek and read at an offset is asked where its end is and read there;
// otherwise a Len method, or the Stat of a regular file, is a claim only.
func sizeOf(r io.Reader) (size int64, proven bool, err error) {
	size = -1
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err := st.Stat()
		if err != nil {
			return -1, false, err
		}
		if !fi.Mode().IsRegular() {
			// Pipes, devices and the like report no useful size.
			return -1, false, nil
		}
		size = fi.Size()
	} else if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	s, canSeek := r.(io.Seeker)
	ra, canReadAt := r.(io.ReaderAt)
	if !canSeek || !canReadAt {
		return size, false, nil
	}
	pos, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return size, false, nil // not seekable after all, such as a pipe
	}
	end, err := s.Seek(0, io.SeekEnd)
	if _, err2 := s.Seek(pos, io.SeekStart); err2 != nil {
		return -1, false, err2
	}
	if err != nil || end <= pos {
		return size, false, nil
	}
	var last [1]byte
	n, _ := ra.ReadAt(last[:], end-1)
	return end - pos, n == 1, nil
}

// readSize encodes exactly size bytes of r into a string allocated once at
// its exact encoded length. It reports ErrFileChanged if r ends early or has
// more.
func readSize(r io.Reader, size int64) (string, error) {
	if size > maxEncodable {
		return "", &PartTooLargeError{Limit: maxEncodable, Size: size}
	}
	chunk := readBuffers.Get().(*[readChunk]byte)
	defer readBuffers.Put(chunk)
	buf := chunk[:min(int64(readChunk), size)]
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(int(size)))
	for left := size; left > 0; {
		want := int(min(int64(len(buf)), left))
		n, err := readFull(r, buf[:want])
		switch {
		case n < want && err == io.EOF:
			return "", &sizeChanged{reported: size, gave: size - left + int64(n)}
		case err != nil && err != io.EOF:
			return "", err
		}
		b64.EncodeTo(&sb, buf[:n])
		left -= int64(n)
	}
	var more [1]byte
	switch n, err := readFull(r, more[:]); {
	case n > 0:
		return "", &sizeChanged{reported: size, gave: size + 1}
	case err != io.EOF:
		return "", err
	}
	return sb.String(), nil
}

// readBlocks encodes r to its end, and returns how many bytes it read. The
// input is kept in blocks: the first holds what r claims, up to readChunk
// bytes, or firstBlock when it claims nothing; each next one twice the one
// before up to blockUnit, then, from blockUnit bytes read on, a 32nd of what
// came before (in steps of blockUnit), so that little is allocated and left
// unused. They are encoded
// once, into a string of the exact size. With a limit, no more than
// MaxBytes+1 bytes are read, and never more than one past a claim.
func (pr PartReader) readBlocks(r io.Reader, claim int64) (string, int64, error) {
	room := int64(math.MaxInt64) // bytes that may still be read
	if pr.MaxBytes > 0 && pr.MaxBytes < math.MaxInt64 {
		room = pr.MaxBytes + 1
	}
	if claim > 0 && claim < math.MaxInt64 {
		room = min(room, claim+1) // one byte past a claim shows it false
	}
	next := int64(firstBlock) // small: most readers of unknown size are small
	if claim > 0 && claim < readChunk {
		next = claim + 1 // the claim, and the byte that would show it false
	}
	blocks := make([][]byte, 0, 16) // on the stack until a 17th block
	var read int64
	probe := make([]byte, 1) // the byte past a full block, which starts the next
	for carried := 0; ; carried = 1 {
		size := next
		if read >= blockUnit {
			size = max(size, (read/32+blockUnit-1)/blockUnit*blockUnit)
		}
		size = min(size, room+int64(carried))
		block := make([]byte, size)
		copy(block, probe[:carried])
		n, err := readFull(r, block[carried:])
		blocks = append(blocks, block[:carried+n])
		read += int64(n)
		room -= int64(n)
		if err == io.EOF || room == 0 {
			break
		}
		if err != nil {
			return "", read, err
		}
		// The block is full: one more byte says whether another is needed,
		// so that none is allocated for nothing at the end of r.
		n, err = readFull(r, probe)
		read += int64(n)
		room -= int64(n)
		if n == 0 {
			if err == io.EOF {
				break
			}
			return "", read, err
		}
		next = min(2*size, blockUnit)
	}
	if err := pr.check(read); err != nil {
		return "", read, err
	}
	if read > maxEncodable {
		return "", read, &PartTooLargeError{Limit: maxEncodable, Size: read}
	}
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(int(read)))
	var carry [3]byte // the bytes of one block that end a group of 3 in the next
	n := 0
	for _, b := range blocks {
		if n > 0 {
			k := copy(carry[n:], b)
			n += k
			b = b[k:]
			if n < 3 {
				continue
			}
			b64.EncodeTo(&sb, carry[:])
		}
		whole := len(b) / 3 * 3
		b64.EncodeTo(&sb, b[:whole])
		n = copy(carry[:], b[whole:])
	}
	b64.EncodeTo(&sb, carry[:n])
	return sb.String(), read, nil
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

// ParseMCPCallToolResult returns the ToolResult for data, the JSON of an MCP
// CallToolResult that came from another process, as
// [MCPCallToolResult.ToolResult] reads it. Input longer than maxBytes is
// refused with a [*PartTooLargeError] (its Document set) before any of it
// is decoded; zero or less means no limit. Keys are read exactly, as the
// MCP SDKs read them: "ISERROR" is not "isError", and a text block with
// "TYPE":"image" is not an image. Input that is not JSON, or that is not an
// object, or whose known keys hold values of the wrong type, reports
// [ErrInvalidMCP] saying where.
//
// The content blocks are converted as they are read, each as
// [MCPCallToolResult.ToolResult] converts it: a payload is copied once, into
// its part.
func ParseMCPCallToolResult(data []byte, maxBytes int64) (ToolResult, error) {
	return parseMCP(data, maxBytes)
}

// openPeerJSON is the first step of reading data, a JSON document from
// another process: it refuses data longer than maxBytes (zero or less means
// no limit), and data that is not an object, naming its type, or, when it
// is not JSON, where it stops being JSON, each reported as sentinel but the
// size; and it returns a reader at the object's start. The reader checks
// the rest as it reads it: an error it returns is reported with peerError.
func openPeerJSON(data []byte, maxBytes int64, sentinel error) (jsonReader, error) {
	if maxBytes > 0 && int64(len(data)) > maxBytes {
		return jsonReader{}, &PartTooLargeError{Limit: maxBytes, Size: int64(len(data)), Document: true}
	}
	d := jsonReader{data: data}
	if d.peek() != '{' {
		if !jsonscan.Valid(data) {
			return jsonReader{}, msg.Errorf(sentinel, "%s", jsonscan.NotJSON(data))
		}
		return jsonReader{}, msg.Errorf(sentinel, "want a JSON object, got %s", d.kind())
	}
	return d, nil
}

// peerError is the error to report, as sentinel, for err, an error reading
// data, JSON from another process: where data stops being JSON when it is
// not, whatever the reader made of it, as if the whole input had been
// checked before any of it was read; else err.
func peerError(data []byte, err, sentinel error) error {
	if !jsonscan.Valid(data) {
		return msg.Errorf(sentinel, "%s", jsonscan.NotJSON(data))
	}
	return msg.Errorf(sentinel, "%v", err)
}
