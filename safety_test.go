package toolnexus

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
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
)

// Hostile input must come back as an error value: never a panic, never a
// silently repaired part. Each row names the sentinel it must match and the
// text the message must show to name the offending value.

// maxMessage bounds every error message: a message names the offending value
// by a short prefix, never by the whole of it.
const maxMessage = 256

// hostileCase is one bad input: run feeds it to the package and returns the
// part a constructor built (the zero part for Validate and decoding rows).
type hostileCase struct {
	name  string
	run   func() (ContentPart, error)
	want  error  // the sentinel errors.Is must find
	names string // what the message must contain to name the value
}

// errOnly adapts a call that returns only an error.
func errOnly(f func() error) func() (ContentPart, error) {
	return func() (ContentPart, error) { return ContentPart{}, f() }
}

// validate runs ContentPart.Validate on p.
func validate(p ContentPart) func() (ContentPart, error) {
	return errOnly(p.Validate)
}

// decodeValidate decodes a ToolResult from JSON, which must succeed (the JSON
// is well formed), and returns its Validate error.
func decodeValidate(src string) func() (ContentPart, error) {
	return errOnly(func() error {
		var r ToolResult
		if err := json.Unmarshal([]byte(src), &r); err != nil {
			return err
		}
		return r.Validate()
	})
}

// suspension returns a result whose pending request is req.
func suspension(req Request) ToolResult {
	return Ok("waiting").WithMetadata(MetadataPending, req)
}

// failingFS serves one file, bad.png, that opens but cannot be read, and
// refuses to open locked.png.
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

func (failingFile) Stat() (fs.FileInfo, error) { return failingInfo{}, nil }
func (failingFile) Read([]byte) (int, error)   { return 0, syscall.EIO }
func (failingFile) Close() error               { return nil }

type failingInfo struct{}

func (failingInfo) Name() string       { return "bad.png" }
func (failingInfo) Size() int64        { return 100 }
func (failingInfo) Mode() fs.FileMode  { return 0o644 }
func (failingInfo) ModTime() time.Time { return time.Time{} }
func (failingInfo) IsDir() bool        { return false }
func (failingInfo) Sys() any           { return nil }

func TestHostileInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.png")
	dirPNG := filepath.Join(dir, "album.png")
	require.NoError(t, os.Mkdir(dirPNG, 0o755))
	regular := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(regular, []byte("x"), 0o644))
	empty := filepath.Join(dir, "empty.png")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	bigPNG := filepath.Join(dir, "big.png")
	require.NoError(t, os.WriteFile(bigPNG, make([]byte, 2048), 0o644))

	png := []byte("\x89PNG\r\n\x1a\n")
	long := strings.Repeat("A", 1<<20)              // 1 MiB of valid base64
	longBad := long[:len(long)-4] + "AA*A"          // bad byte at the very end
	longType := PartType(strings.Repeat("x", 1024)) // a type name too long to quote whole

	cases := []hostileCase{
		// Part types: anything but the four lower-case constants is refused,
		// so a case variant cannot slip past a switch on PartType.
		{"type empty", validate(ContentPart{MIMEType: "image/png", Data: "AAAA"}), ErrUnknownPartType, `""`},
		{"type upper case", validate(ContentPart{Type: "IMAGE", MIMEType: "image/png", Data: "AAAA"}), ErrUnknownPartType, `"IMAGE"`},
		{"type title case", validate(ContentPart{Type: "Image", MIMEType: "image/png", Data: "AAAA"}), ErrUnknownPartType, `"Image"`},
		{"type with space", validate(ContentPart{Type: " image", MIMEType: "image/png", Data: "AAAA"}), ErrUnknownPartType, `" image"`},
		{"type unknown", validate(ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}), ErrUnknownPartType, `"video"`},
		{"type long is cut", validate(ContentPart{Type: longType, MIMEType: "image/png", Data: "AAAA"}), ErrUnknownPartType, `"` + strings.Repeat("x", 40) + `"… (1024 bytes)`},
		{"type case variant in JSON", decodeValidate(`{"output":"","isError":false,"parts":[{"type":"Text","text":"hi"}]}`), ErrUnknownPartType, `"Text"`},

		// MIME types: required on every non-text part, a bare type/subtype,
		// and consistent with the part type.
		{"mime missing from bytes", func() (ContentPart, error) { return PartFromBytes(png, "") }, ErrMissingMIMEType, "missing MIME type"},
		{"mime missing from base64", func() (ContentPart, error) { return PartFromBase64("AAAA", "") }, ErrMissingMIMEType, "missing MIME type"},
		{"mime missing from URL", func() (ContentPart, error) { return PartFromURL("https://example.com/cat.png", "") }, ErrMissingMIMEType, "missing MIME type"},
		{"mime missing from reader", func() (ContentPart, error) { return PartFromReader(strings.NewReader("x"), "") }, ErrMissingMIMEType, "missing MIME type"},
		{"mime missing in Validate", validate(ContentPart{Type: PartImage, Data: "AAAA"}), ErrMissingMIMEType, "missing MIME type"},
		{"mime without subtype", func() (ContentPart, error) { return PartFromBytes(png, "png") }, ErrInvalidMIMEType, `"png"`},
		{"mime with parameters", func() (ContentPart, error) { return PartFromBytes(png, "text/plain; charset=utf-8") }, ErrInvalidMIMEType, `"text/plain; charset=utf-8"`},
		{"mime empty subtype", func() (ContentPart, error) { return PartFromFileMIME(regular, "image/") }, ErrInvalidMIMEType, `"image/"`},
		{"mime contradicts type", validate(ContentPart{Type: PartImage, MIMEType: "audio/wav", Data: "AAAA"}), ErrInvalidMIMEType, `"audio/wav"`},

		// Data and URL: exactly one; text parts carry neither, others no text.
		{"data and url both", validate(ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AAAA", URL: "https://example.com/a.png"}), ErrInvalidPart, "both data and url"},
		{"data and url neither", validate(ContentPart{Type: PartImage, MIMEType: "image/png"}), ErrInvalidPart, "neither data nor url"},
		{"text part with data", validate(ContentPart{Type: PartText, Text: "hi", Data: "AAAA"}), ErrInvalidPart, "text part carries data or url"},
		{"image part with text", validate(ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AAAA", Text: "hi"}), ErrInvalidPart, "image part carries text"},
		{"data URL smuggled into url", validate(ContentPart{Type: PartImage, MIMEType: "image/png", URL: "data:image/png;base64,AAAA"}), ErrInvalidPart, `"data:image/png;base64,AAAA"`},
		{"relative url", validate(ContentPart{Type: PartImage, MIMEType: "image/png", URL: "cat.png"}), ErrInvalidPart, `"cat.png"`},
		{"url with space", func() (ContentPart, error) { return PartFromURL("https://example.com/a b.png", "image/png") }, ErrInvalidPart, `"https://example.com/a b.png"`},
		{"url with NUL", func() (ContentPart, error) { return PartFromURL("https://example.com/a\x00.png", "image/png") }, ErrInvalidPart, `"https://example.com/a\x00.png"`},
		{"url with terminal escape", validate(ContentPart{Type: PartImage, MIMEType: "image/png", URL: "https://example.com/\x1b[2J"}), ErrInvalidPart, `"https://example.com/\x1b[2J"`},
		{"url with DEL", func() (ContentPart, error) { return PartFromURL("https://example.com/\x7f", "image/png") }, ErrInvalidPart, `"https://example.com/\x7f"`},
		{"url empty", func() (ContentPart, error) { return PartFromURL("", "image/png") }, ErrInvalidPart, "empty URL"},

		// Base64: only the canonical padded standard form. Go's decoder
		// skips \r and \n, so a lenient check would let two parts with the
		// same bytes differ on the wire.
		{"base64 CRLF", func() (ContentPart, error) { return PartFromBase64("AAAA\r\nAA", "image/png") }, ErrInvalidBase64, `'\r' at offset 4`},
		{"base64 LF", func() (ContentPart, error) { return PartFromBase64("AAAA\nAAA", "image/png") }, ErrInvalidBase64, `'\n' at offset 4`},
		{"base64 space", func() (ContentPart, error) { return PartFromBase64("AAAA AAA", "image/png") }, ErrInvalidBase64, `' ' at offset 4`},
		{"base64 tab", func() (ContentPart, error) { return PartFromBase64("AA\tA", "image/png") }, ErrInvalidBase64, `'\t' at offset 2`},
		{"base64 missing padding", func() (ContentPart, error) { return PartFromBase64("AAAAAA", "image/png") }, ErrInvalidBase64, `length 6 of "AAAAAA"`},
		{"base64 URL-safe alphabet", func() (ContentPart, error) { return PartFromBase64("AA-_", "image/png") }, ErrInvalidBase64, `'-' at offset 2`},
		{"base64 invalid character", func() (ContentPart, error) { return PartFromBase64("AA*A", "image/png") }, ErrInvalidBase64, `'*' at offset 2`},
		{"base64 NUL byte", func() (ContentPart, error) { return PartFromBase64("AA\x00A", "image/png") }, ErrInvalidBase64, `'\x00' at offset 2`},
		{"base64 non-ASCII", func() (ContentPart, error) { return PartFromBase64("AAA\xff", "image/png") }, ErrInvalidBase64, `at offset 3 of "AAA\xff"`},
		{"base64 padding inside", func() (ContentPart, error) { return PartFromBase64("AA==AAAA", "image/png") }, ErrInvalidBase64, `padding at offset 2 of "AA==AAAA"`},
		{"base64 three padding", func() (ContentPart, error) { return PartFromBase64("A===", "image/png") }, ErrInvalidBase64, `padding at offset 1 of "A==="`},
		{"base64 trailing bits one pad", func() (ContentPart, error) { return PartFromBase64("AAB=", "image/png") }, ErrInvalidBase64, `"AAB=" has non-zero padding bits`},
		{"base64 trailing bits two pad", func() (ContentPart, error) { return PartFromBase64("AB==", "image/png") }, ErrInvalidBase64, `"AB==" has non-zero padding bits`},
		{"base64 empty", func() (ContentPart, error) { return PartFromBase64("", "image/png") }, ErrInvalidPart, "empty base64 payload"},
		{"base64 long is cut", func() (ContentPart, error) { return PartFromBase64(longBad, "image/png") }, ErrInvalidBase64, `'*' at offset 1048574 of "` + strings.Repeat("A", 40) + `"… (1048576 bytes)`},
		{"base64 invalid in JSON", decodeValidate(`{"output":"","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AA-_"}]}`), ErrInvalidBase64, `'-' at offset 2`},

		// Data URLs: only data:<mime>;base64,<data>; no percent-encoding,
		// parameters or case games that another parser may read differently.
		{"data URL without ;base64", func() (ContentPart, error) { return PartFromURL("data:image/png,AAAA", "") }, ErrInvalidDataURL, `"data:image/png,AAAA" is not ;base64`},
		{"data URL without comma", func() (ContentPart, error) { return PartFromURL("data:image/png;base64AAAA", "") }, ErrInvalidDataURL, `"data:image/png;base64AAAA" has no comma`},
		{"data URL with parameters", func() (ContentPart, error) {
			return PartFromURL("data:image/png;name=a.png;base64,AAAA", "")
		}, ErrInvalidDataURL, `"data:image/png;name=a.png;base64,AAAA" has parameters`},
		{"data URL empty MIME type", func() (ContentPart, error) { return PartFromURL("data:;base64,AAAA", "") }, ErrInvalidDataURL, `"data:;base64,AAAA" has no MIME type`},
		{"data URL empty payload", func() (ContentPart, error) { return PartFromURL("data:image/png;base64,", "") }, ErrInvalidDataURL, `"data:image/png;base64," has no data`},
		{"data URL invalid base64", func() (ContentPart, error) { return PartFromURL("data:image/png;base64,AA*A", "") }, ErrInvalidBase64, `'*' at offset 2 of "AA*A"`},
		{"data URL percent-encoded", func() (ContentPart, error) { return PartFromURL("data:image/png;base64,AA%3D%3D", "") }, ErrInvalidBase64, `'%' at offset 2 of "AA%3D%3D"`},
		{"data URL trailing newline", func() (ContentPart, error) { return PartFromURL("data:image/png;base64,AAA\n", "") }, ErrInvalidBase64, `'\n' at offset 3`},
		{"data URL upper-case BASE64", func() (ContentPart, error) { return PartFromURL("data:image/png;BASE64,AAAA", "") }, ErrInvalidDataURL, `"data:image/png;BASE64,AAAA" is not ;base64`},
		{"data URL MIME type not type/subtype", func() (ContentPart, error) { return PartFromURL("data:png;base64,AAAA", "") }, ErrInvalidMIMEType, `"png"`},
		{"data URL contradicts MIME type", func() (ContentPart, error) {
			return PartFromURL("data:image/png;base64,AAAA", "image/jpeg")
		}, ErrInvalidMIMEType, `data URL holds "image/png", not "image/jpeg"`},
		{"data URL long is cut", func() (ContentPart, error) { return PartFromURL("data:image/png;base64"+long, "") }, ErrInvalidDataURL, `"data:image/png;base64` + strings.Repeat("A", 19) + `"… (1048597 bytes) has no comma`},

		// File names: the MIME type comes from our fixed table only, from
		// the last extension of the last path element.
		{"name without extension", errOnly(func() error { _, err := MIMETypeOf("README"); return err }), ErrUnknownExtension, `"README" has no extension`},
		{"name with trailing dot", errOnly(func() error { _, err := MIMETypeOf("photo."); return err }), ErrUnknownExtension, `"photo." has no extension`},
		{"dotted directory", errOnly(func() error { _, err := MIMETypeOf("v1.2/README"); return err }), ErrUnknownExtension, `"v1.2/README" has no extension`},
		{"unlisted extension", errOnly(func() error { _, err := MIMETypeOf("setup.exe"); return err }), ErrUnknownExtension, `".exe" in "setup.exe"`},
		{"unlisted image extension", errOnly(func() error { _, err := MIMETypeOf("logo.svg"); return err }), ErrUnknownExtension, `".svg" in "logo.svg"`},
		{"listed extension not last", errOnly(func() error { _, err := MIMETypeOf("cat.png.exe"); return err }), ErrUnknownExtension, `".exe" in "cat.png.exe"`},
		{"extension with trailing space", errOnly(func() error { _, err := MIMETypeOf("cat.png "); return err }), ErrUnknownExtension, `".png " in "cat.png "`},
		{"file without extension", func() (ContentPart, error) { return PartFromFile(regular[:len(regular)-4]) }, ErrUnknownExtension, "has no extension"},

		// Paths: a path is read once; any failure is wrapped, never ignored.
		{"file missing", func() (ContentPart, error) { return PartFromFile(missing) }, fs.ErrNotExist, missing},
		{"file is a directory", func() (ContentPart, error) { return PartFromFile(dirPNG) }, syscall.EISDIR, dirPNG},
		{"path through a file", func() (ContentPart, error) { return PartFromFile(filepath.Join(regular, "x.png")) }, syscall.ENOTDIR, filepath.Join(regular, "x.png")},
		{"file unreadable at open", func() (ContentPart, error) { return PartFromFS(failingFS{}, "locked.png") }, fs.ErrPermission, "locked.png"},
		{"file unreadable at read", func() (ContentPart, error) { return PartFromFS(failingFS{}, "bad.png") }, syscall.EIO, "bad.png"},
		{"fs path escapes root", func() (ContentPart, error) { return PartFromFS(os.DirFS(dir), "../etc/passwd.png") }, fs.ErrInvalid, "../etc/passwd.png"},
		{"fs directory", func() (ContentPart, error) {
			return PartFromFS(fstest.MapFS{"d.png/x": {Data: []byte("x")}}, "d.png")
		}, syscall.EISDIR, "d.png"},

		// Empty payloads: a part cannot carry zero bytes (its JSON would
		// have neither data nor url), so no constructor returns one.
		{"bytes empty", func() (ContentPart, error) { return PartFromBytes(nil, "image/png") }, ErrInvalidPart, `empty "image/png" payload`},
		{"reader empty", func() (ContentPart, error) { return PartFromReader(strings.NewReader(""), "audio/wav") }, ErrInvalidPart, `empty "audio/wav" payload`},
		{"file empty", func() (ContentPart, error) { return PartFromFile(empty) }, ErrInvalidPart, quote(empty) + " is empty"},
		{"reader failing", func() (ContentPart, error) { return PartFromReader(iotest.ErrReader(io.ErrClosedPipe), "image/png") }, io.ErrClosedPipe, "read image/png"},

		// Limits on untrusted input.
		{"base64 over limit", func() (ContentPart, error) { return PartFromBase64Limit(long, "image/png", 1024) }, ErrPartTooLarge, "786432 bytes, over the limit of 1024 bytes"},
		{"data URL over limit", func() (ContentPart, error) {
			return PartFromURLLimit("data:image/png;base64,"+long, "", 1024)
		}, ErrPartTooLarge, "786432 bytes, over the limit of 1024 bytes"},
		{"reader over limit", func() (ContentPart, error) {
			return PartFromReaderLimit(strings.NewReader(long), "image/png", 1024)
		}, ErrPartTooLarge, "1025 bytes, over the limit of 1024 bytes"},
		{"file over limit", func() (ContentPart, error) { return PartFromFileLimit(bigPNG, 1024) }, ErrPartTooLarge, "2048 bytes, over the limit of 1024 bytes"},

		// Expiry: only RFC 3339 with a zone, or a late answer could be
		// taken as early (or the other way round) depending on the host.
		{"expiresAt date only", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "2026-12-01"}).Validate), ErrInvalidExpiry, `"2026-12-01" is not RFC 3339`},
		{"expiresAt without zone", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "2026-12-01T00:00:00"}).Validate), ErrInvalidExpiry, `"2026-12-01T00:00:00"`},
		{"expiresAt with space", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "2026-12-01 00:00:00Z"}).Validate), ErrInvalidExpiry, `"2026-12-01 00:00:00Z"`},
		{"expiresAt unix seconds", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "1796083200"}).Validate), ErrInvalidExpiry, `"1796083200"`},
		{"expiresAt words", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "tomorrow"}).Validate), ErrInvalidExpiry, `"tomorrow"`},
		{"expiresAt month 13", errOnly(suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: "2026-13-01T00:00:00Z"}).Validate), ErrInvalidExpiry, `"2026-13-01T00:00:00Z"`},
		{"expiresAt in JSON", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","kind":"input","prompt":"p","expiresAt":"next week"}}}`), ErrInvalidExpiry, `"next week"`},

		// "pending" metadata decoded from JSON: anything but a request object
		// is refused, so a tool cannot make a host act on a malformed one.
		{"pending string", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":"req-1"}}`), ErrInvalidRequest, `"pending" holds string`},
		{"pending number", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":1}}`), ErrInvalidRequest, `"pending" holds float64`},
		{"pending bool", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":true}}`), ErrInvalidRequest, `"pending" holds bool`},
		{"pending null", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":null}}`), ErrInvalidRequest, `"pending" holds <nil>`},
		{"pending array", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":[{"id":"r","kind":"input","prompt":"p"}]}}`), ErrInvalidRequest, `"pending" holds []interface {}`},
		{"pending object without kind", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","prompt":"p"}}}`), ErrInvalidRequest, "an object without kind"},
		{"pending empty kind", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","kind":"","prompt":"p"}}}`), ErrInvalidRequest, "kind is not a non-empty string"},
		{"pending kind not a string", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","kind":7,"prompt":"p"}}}`), ErrInvalidRequest, "kind is not a non-empty string"},
		{"pending without id", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"kind":"input","prompt":"p"}}}`), ErrInvalidRequest, `"input" request has no id`},
		{"pending without prompt", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input"}}}`), ErrInvalidRequest, `request "req-1" has no prompt`},
		{"pending id a number", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":1,"kind":"input","prompt":"p"}}}`), ErrInvalidRequest, "pending id is float64"},
		{"pending data not an object", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","kind":"input","prompt":"p","data":"x"}}}`), ErrInvalidRequest, "pending data is string"},
		{"pending relative url", decodeValidate(`{"output":"","isError":true,"metadata":{"pending":{"id":"r","kind":"authorization","prompt":"p","url":"/login"}}}`), ErrInvalidRequest, `url "/login"`},

		// Answers: an answer applies only to the request it echoes, and
		// only in time.
		{"answer id mismatch", errOnly(func() error {
			return Answer{ID: "req-2", OK: true}.Check(Request{ID: "req-1"}, time.Now())
		}), ErrAnswerMismatch, `answer id "req-2", request id "req-1"`},
		{"answer empty id", errOnly(func() error { return Answer{OK: true}.Check(Request{}, time.Now()) }), ErrAnswerMismatch, `answer id ""`},
		{"answer late", errOnly(func() error {
			return Answer{ID: "r", OK: true}.Check(Request{ID: "r", ExpiresAt: "2026-01-01T00:00:00Z"}, time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC))
		}), ErrExpired, `request "r" expired at 2026-01-01T00:00:00Z`},
		{"answer unreadable expiry", errOnly(func() error {
			return Answer{ID: "r", OK: true}.Check(Request{ID: "r", ExpiresAt: "soon"}, time.Now())
		}), ErrInvalidExpiry, `"soon"`},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var p ContentPart
			var err error
			require.NotPanics(t, func() { p, err = tc.run() })
			require.ErrorIs(t, err, tc.want)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "toolnexus: "), "message %q lacks the package prefix", msg)
			assert.Contains(t, msg, tc.names)
			assert.LessOrEqual(t, len(msg), maxMessage, "message too long: %q", msg)
			assert.Equal(t, ContentPart{}, p, "a failed constructor returns the zero part")
		})
	}
	assert.GreaterOrEqual(t, len(cases), 40)
}

// Variants that look hostile but are accepted, each with its exact result:
// accepting them is a decision, not an accident.
func TestHostileLookalikesAccepted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, mimeType string
	}{
		{"upper-case extension", "CAT.PNG", "image/png"},
		{"mixed-case extension", "scan.Pdf", "application/pdf"},
		{"upper-case extension in dotted directory", "v1.2/take.WAV", "audio/wav"},
		{"dotfile named like an extension", ".jpeg", "image/jpeg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := MIMETypeOf(tc.file)
			require.NoError(t, err)
			assert.Equal(t, tc.mimeType, got)
		})
	}

	t.Run("data scheme in upper case", func(t *testing.T) {
		t.Parallel()
		p, err := PartFromURL("DATA:image/png;base64,AAAA", "")
		require.NoError(t, err)
		assert.Equal(t, ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AAAA"}, p)
	})
	t.Run("data URL MIME type in another case", func(t *testing.T) {
		t.Parallel()
		p, err := PartFromURL("data:IMAGE/PNG;base64,AAAA", "image/png")
		require.NoError(t, err)
		assert.Equal(t, ContentPart{Type: PartImage, MIMEType: "IMAGE/PNG", Data: "AAAA"}, p)
		require.NoError(t, p.Validate())
	})
	t.Run("data URL with matching MIME type", func(t *testing.T) {
		t.Parallel()
		p, err := PartFromURL("data:application/pdf;base64,JVBERi0xLjQgdGlueQ==", "application/pdf")
		require.NoError(t, err)
		assert.Equal(t, ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: "JVBERi0xLjQgdGlueQ=="}, p)
	})
	t.Run("pending with extra keys", func(t *testing.T) {
		t.Parallel()
		var r ToolResult
		require.NoError(t, json.Unmarshal([]byte(`{"output":"Which?","isError":true,"metadata":{"pending":`+
			`{"id":"req-1","kind":"input","prompt":"Which?","__proto__":{"admin":true},"secret":"x"}}}`), &r))
		require.NoError(t, r.Validate())
		req, ok := PendingOf(r)
		require.True(t, ok)
		assert.Equal(t, Request{ID: "req-1", Kind: "input", Prompt: "Which?"}, req)
	})
}

// PendingOf tells a suspension from anything else under "pending" whatever
// arrives from JSON, and Validate then refuses the incomplete ones.
func TestPendingOfHostileMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		pending string
		found   bool
		req     Request
	}{
		{"string", `"req-1"`, false, Request{}},
		{"number", `42`, false, Request{}},
		{"array", `["input"]`, false, Request{}},
		{"object without kind", `{"id":"r","prompt":"p"}`, false, Request{}},
		{"kind not a string", `{"id":"r","kind":["input"],"prompt":"p"}`, false, Request{}},
		{"without id", `{"kind":"input","prompt":"p"}`, true, Request{Kind: "input", Prompt: "p"}},
		{"without prompt", `{"id":"r","kind":"input"}`, true, Request{ID: "r", Kind: "input"}},
		{"id of the wrong type", `{"id":7,"kind":"input","prompt":"p"}`, true, Request{Kind: "input", Prompt: "p"}},
		{"extra keys", `{"id":"r","kind":"input","prompt":"p","extra":1}`, true, Request{ID: "r", Kind: "input", Prompt: "p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var r ToolResult
			require.NoError(t, json.Unmarshal([]byte(`{"output":"","isError":true,"metadata":{"pending":`+tc.pending+`}}`), &r))
			req, ok := PendingOf(r)
			assert.Equal(t, tc.found, ok)
			assert.Equal(t, tc.req, req)
			assert.Equal(t, tc.found, r.IsPending())
		})
	}
}

func TestToolResultValidateWhole(t *testing.T) {
	t.Parallel()
	good := ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AAAA"}
	valid := Request{ID: "req-1", Kind: KindInput, Prompt: "Which environment?", ExpiresAt: "2026-12-01T00:00:00Z"}

	for _, tc := range []struct {
		name  string
		r     ToolResult
		want  error // nil: valid
		names string
	}{
		{"zero result", ToolResult{}, nil, ""},
		{"text only", Ok("done"), nil, ""},
		{"valid parts", Ok("two", good, TextPart("hi")), nil, ""},
		{"valid suspension", Pending(valid), nil, ""},
		{"auth suspension", AuthRequired("https://example.com/login", ""), nil, ""},
		{"pointer to request", Ok("w").WithMetadata(MetadataPending, &valid), nil, ""},
		{"bad part is numbered", Ok("three", good, TextPart("x"), ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AA-_"}), ErrInvalidBase64, "(part 2)"},
		{"first bad part wins", Error("two", ContentPart{Type: "IMAGE"}, ContentPart{}), ErrUnknownPartType, `"IMAGE" (part 0)`},
		{"suspension without id", suspension(Request{Kind: KindInput, Prompt: "p"}), ErrInvalidRequest, `"input" request has no id`},
		{"suspension without kind", suspension(Request{ID: "req-1", Prompt: "p"}), ErrInvalidRequest, `request "req-1" has no kind`},
		{"suspension without prompt", suspension(Request{ID: "req-1", Kind: KindApproval}), ErrInvalidRequest, `request "req-1" has no prompt`},
		{"suspension with relative url", suspension(Request{ID: "req-1", Kind: KindAuthorization, Prompt: "p", URL: "login"}), ErrInvalidRequest, `url "login"`},
		{"suspension with bad expiry", suspension(withExpiresAt(valid, "2026-12-01T00:00Z")), ErrInvalidExpiry, `"2026-12-01T00:00Z"`},
		{"nil request pointer", Ok("w").WithMetadata(MetadataPending, (*Request)(nil)), ErrInvalidRequest, `holds *toolnexus.Request`},
		{"request map of the wrong type", Ok("w").WithMetadata(MetadataPending, map[string]string{"kind": "input"}), ErrInvalidRequest, `holds map[string]string`},
		{"part and request both bad: parts first", withParts(suspension(Request{}), ContentPart{Type: PartFile, MIMEType: "application/pdf"}), ErrInvalidPart, "(part 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.r.Validate()
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.names)
		})
	}
}

func withExpiresAt(r Request, s string) Request { r.ExpiresAt = s; return r }

func withParts(r ToolResult, parts ...ContentPart) ToolResult { r.Parts = parts; return r }

// An answer is checked against the request it claims to answer: a forged or
// misrouted id, or a late reply, is refused.
func TestAnswerCheckRefusesForgedAndLate(t *testing.T) {
	t.Parallel()
	expiry := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	req := Request{ID: "req-2", Kind: KindInput, Prompt: "Pick"}.WithExpiry(expiry)
	require.Equal(t, "2026-12-01T00:00:00Z", req.ExpiresAt)

	for _, tc := range []struct {
		name string
		a    Answer
		req  Request
		now  time.Time
		want error // nil: accepted
	}{
		{"resolve in time", req.Resolve(map[string]any{"choice": "prod"}), req, expiry.Add(-time.Second), nil},
		{"decline in time", req.Decline(ReasonDeclined), req, expiry.Add(-time.Nanosecond), nil},
		{"no expiry never expires", Answer{ID: "r", OK: true}, Request{ID: "r"}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"other request's id", Answer{ID: "req-1", OK: true}, req, expiry.Add(-time.Hour), ErrAnswerMismatch},
		{"id differing in case", Answer{ID: "REQ-2", OK: true}, req, expiry.Add(-time.Hour), ErrAnswerMismatch},
		{"empty ids do not match", Answer{OK: true}, Request{Kind: KindInput}, expiry.Add(-time.Hour), ErrAnswerMismatch},
		{"empty answer id", Answer{OK: true}, req, expiry.Add(-time.Hour), ErrAnswerMismatch},
		{"exactly at expiry", req.Resolve(nil), req, expiry, ErrExpired},
		{"late", req.Resolve(nil), req, expiry.Add(time.Hour), ErrExpired},
		{"late decline too", req.Decline(ReasonCancelled), req, expiry.Add(time.Nanosecond), ErrExpired},
		{"expiry in another zone", req.Resolve(nil), withExpiresAt(req, "2026-12-01T01:00:00+02:00"), expiry.Add(-time.Minute), ErrExpired},
		{"unreadable expiry", req.Resolve(nil), withExpiresAt(req, "2026-12-01"), expiry.Add(-time.Hour), ErrInvalidExpiry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.a.Check(tc.req, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			for _, other := range []error{ErrAnswerMismatch, ErrExpired, ErrInvalidExpiry} {
				if other != tc.want {
					assert.NotErrorIs(t, err, other)
				}
			}
		})
	}
	assert.True(t, req.Expired(expiry))
	assert.False(t, req.Expired(expiry.Add(-time.Nanosecond)))
	assert.True(t, withExpiresAt(req, "garbage").Expired(time.Time{}), "an unreadable expiry counts as expired")
}

// A limit error carries the numbers a caller needs, and nothing else.
func TestPartTooLargeErrorFields(t *testing.T) {
	t.Parallel()
	_, err := PartFromBase64Limit("AAAAAAAA", "image/png", 5)
	var tooLarge *PartTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, PartTooLargeError{Limit: 5, Size: 6}, *tooLarge)
	assert.Equal(t, "toolnexus: part too large: 6 bytes, over the limit of 5 bytes", err.Error())
	assert.False(t, errors.Is(err, ErrInvalidBase64))

	// At the limit is not over it.
	p, err := PartFromBase64Limit("AAAAAAAA", "image/png", 6)
	require.NoError(t, err)
	assert.Equal(t, int64(6), p.Size())
	// A negative limit is no limit; zero is a limit.
	_, err = PartFromReaderLimit(strings.NewReader("x"), "image/png", -1)
	require.NoError(t, err)
	_, err = PartFromReaderLimit(strings.NewReader("x"), "image/png", 0)
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, PartTooLargeError{Limit: 0, Size: 1}, *tooLarge)
}
