package toolnexus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// pdfBytes and wavBytes are the payloads of the file and audio shapes in
// WIRE.md.
const (
	pdfBytes = "%PDF-1.4 tiny"
	pdfB64   = "JVBERi0xLjQgdGlueQ=="
	wavBytes = "RIFF\x00\x00\x00\x00WAVE"
	wavB64   = "UklGRgAAAABXQVZF"
)

// fixturePNGBytes returns the bytes of testdata/fixture.png.
func fixturePNGBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/fixture.png")
	require.NoError(t, err)
	require.Len(t, b, 82)
	return b
}

// fixturePNGBase64 returns the golden base64 of testdata/fixture.png.
func fixturePNGBase64(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/fixture.png.base64")
	require.NoError(t, err)
	return strings.TrimRight(string(b), "\r\n")
}

// fixturePNGPart returns the image part of testdata/fixture.png.
func fixturePNGPart(t testing.TB) toolnexus.ContentPart {
	t.Helper()
	return toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: fixturePNGBase64(t)}
}

// secretPayload is the base64 of 1 MiB of random bytes: any 16 characters
// of it are found nowhere else.
var secretPayload = sync.OnceValue(func() string {
	raw := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)
})

// assertNoPayload fails if out is 1 KiB or more or holds any of a few
// windows of data of the given width, from its start, middle and end.
func assertNoPayload(t testing.TB, out, data string, width int) {
	t.Helper()
	assert.Less(t, len(out), 1024, "output of %d bytes: %.200q", len(out), out)
	for _, at := range []int{0, len(data) / 3, len(data) / 2, len(data) - width} {
		if w := data[at : at+width]; strings.Contains(out, w) {
			t.Errorf("output holds payload bytes %d..%d: %.200q", at, at+width, out)
			return
		}
	}
}

// printVerbs are the ways fmt may be asked to print a value.
var printVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%#q", "%x", "%X", "%d", "%T %v", "%10.3v", "%-40s", "%100v"}

// logWithoutTime logs attrs with message "m" through the text and JSON
// handlers of log/slog and returns their lines without the time and the
// trailing newline.
func logWithoutTime(attrs ...slog.Attr) (text, js string) {
	opts := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	var tb, jb bytes.Buffer
	slog.New(slog.NewTextHandler(&tb, opts)).LogAttrs(context.Background(), slog.LevelInfo, "m", attrs...)
	slog.New(slog.NewJSONHandler(&jb, opts)).LogAttrs(context.Background(), slog.LevelInfo, "m", attrs...)
	return strings.TrimSuffix(tb.String(), "\n"), strings.TrimSuffix(jb.String(), "\n")
}

func TestFixtureGolden(t *testing.T) {
	t.Parallel()
	assert.Equal(t, base64.StdEncoding.EncodeToString(fixturePNGBytes(t)), fixturePNGBase64(t))
}

func TestPartTypeValues(t *testing.T) {
	t.Parallel()
	assert.Equal(t, toolnexus.PartType("text"), toolnexus.PartText)
	assert.Equal(t, toolnexus.PartType("image"), toolnexus.PartImage)
	assert.Equal(t, toolnexus.PartType("file"), toolnexus.PartFile)
	assert.Equal(t, toolnexus.PartType("audio"), toolnexus.PartAudio)
}

// TestContentPartZeroValue checks the value contract of the doc: a part is
// comparable, usable as a map key, and its zero value is not valid.
func TestContentPartZeroValue(t *testing.T) {
	t.Parallel()
	var zero toolnexus.ContentPart
	assertErr(t, zero.Validate(), toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: ""`)
	assert.Equal(t, int64(0), zero.Size())

	assert.True(t, reflect.TypeFor[toolnexus.ContentPart]().Comparable())
	a := fixturePNGPart(t)
	b, err := toolnexus.PartFromBytes(fixturePNGBytes(t), "image/png")
	require.NoError(t, err)
	assert.True(t, a == b)
	assert.False(t, a == b.WithName("x"))
	seen := map[toolnexus.ContentPart]int{a: 1}
	assert.Equal(t, 1, seen[b])
}

func TestContentPartJSON(t *testing.T) {
	t.Parallel()
	checkWire(t, []wireCase[toolnexus.ContentPart]{
		{name: "text", value: toolnexus.TextPart("hello"), wire: `{"type":"text","text":"hello"}`},
		{name: "empty text", value: toolnexus.TextPart(""), wire: `{"type":"text"}`},
		{name: "image", value: fixturePNGPart(t), wire: fixtureWire},
		{name: "file", value: toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"},
			wire: `{"type":"file","mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ==","name":"report.pdf"}`},
		{name: "audio", value: toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64},
			wire: `{"type":"audio","mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}`},
		{name: "image url", value: toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"},
			wire: `{"type":"image","mimeType":"image/png","url":"https://example.com/cat.png"}`},
		{name: "every key in order", value: toolnexus.ContentPart{Type: "x", Text: "t", MIMEType: "a/b", Data: "AAAA", URL: "https://e.x", Name: "n"},
			wire: `{"type":"x","text":"t","mimeType":"a/b","data":"AAAA","url":"https://e.x","name":"n"}`},
	})
}

func TestMIMETypeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want string
	}{
		{"a.png", "image/png"},
		{"a.jpg", "image/jpeg"},
		{"a.jpeg", "image/jpeg"},
		{"a.gif", "image/gif"},
		{"a.webp", "image/webp"},
		{"a.heic", "image/heic"},
		{"a.pdf", "application/pdf"},
		{"a.txt", "text/plain"},
		{"a.md", "text/markdown"},
		{"a.csv", "text/csv"},
		{"a.json", "application/json"},
		{"a.mp3", "audio/mpeg"},
		{"a.wav", "audio/wav"},
		{"a.ogg", "audio/ogg"},
		{"a.flac", "audio/flac"},
		{"a.m4a", "audio/mp4"},
		{"A.PNG", "image/png"},
		{"photo.JpEg", "image/jpeg"},
		{"REPORT.PDF", "application/pdf"},
		{"song.Mp3", "audio/mpeg"},
		{"archive.tar.png", "image/png"},
		{"dir.pdf/shot.gif", "image/gif"},
		{"v1.2/take.WAV", "audio/wav"},
		{"/abs/path/clip.WAV", "audio/wav"},
		{".jpeg", "image/jpeg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.MIMETypeOf(tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestMIMETypeOfUnknown checks that the table holds no active content and
// no type the machine's MIME database might guess.
func TestMIMETypeOfUnknown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wantMsg string
	}{
		{"image.svg", `toolnexus: unknown file extension: ".svg" in "image.svg": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"page.html", `toolnexus: unknown file extension: ".html" in "page.html": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"setup.exe", `toolnexus: unknown file extension: ".exe" in "setup.exe": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"cat.png.exe", `toolnexus: unknown file extension: ".exe" in "cat.png.exe": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"image.tiff", `toolnexus: unknown file extension: ".tiff" in "image.tiff": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"movie.mp4", `toolnexus: unknown file extension: ".mp4" in "movie.mp4": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"a.pngx", `toolnexus: unknown file extension: ".pngx" in "a.pngx": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"cat.png ", `toolnexus: unknown file extension: ".png " in "cat.png ": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"README", `toolnexus: unknown file extension: "README" has no extension: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"trailing.", `toolnexus: unknown file extension: "trailing." has no extension: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"dir.png/file", `toolnexus: unknown file extension: "dir.png/file" has no extension: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"", `toolnexus: unknown file extension: "" has no extension: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.MIMETypeOf(tt.name)
			assertErr(t, err, toolnexus.ErrUnknownExtension, tt.wantMsg)
			assert.Empty(t, got)
		})
	}
}

func TestTextPart(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"hello", "", "multi\nline ünïcode"} {
		p := toolnexus.TextPart(text)
		assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartText, Text: text}, p)
		assert.NoError(t, p.Validate())
	}
}

func TestPartFromBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       []byte
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"png", fixturePNGBytes(t), "image/png", fixturePNGPart(t)},
		{"pdf is an unnamed file", []byte(pdfBytes), "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"wav", []byte(wavBytes), "audio/wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{"jpeg", []byte{0xff, 0xd8, 0xff}, "image/jpeg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: "/9j/"}},
		{"other types are files", []byte("a,b\n"), "text/csv", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/csv", Data: "YSxiCg=="}},
		{"octet stream", []byte{0}, "application/octet-stream", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", Data: "AA=="}},
		// MIME types are case-insensitive: the part type follows the type
		// whatever its case, which is kept as given.
		{"type in upper case", []byte{1, 2, 3}, "Image/PNG", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "Image/PNG", Data: "AQID"}},
		// A Content-Type header value: the part keeps the media type.
		{"parameters are dropped", []byte("hi"), "text/plain; charset=utf-8", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGk="}},
		{"parameters after spaces", []byte("hi"), "image/png;  q=1;\tr=2", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "aGk="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBytes(tt.in, tt.mimeType)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
			assert.Equal(t, int64(len(tt.in)), p.Size())
		})
	}
}

// TestPartFromBytesErrors covers the MIME type checks that every
// constructor shares, and the empty payload no part may hold.
func TestPartFromBytesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       []byte
		mimeType string
		wantErr  error
		wantMsg  string
	}{
		{[]byte("x"), "", toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type"},
		{[]byte("x"), "image", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image" is not type/subtype`},
		{[]byte("x"), "image/", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image/" is not type/subtype`},
		{[]byte("x"), "/png", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "/png" is not type/subtype`},
		{[]byte("x"), "image/png/x", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image/png/x" is not type/subtype`},
		{[]byte("x"), "image /png", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image /png" is not type/subtype`},
		{[]byte("x"), "image/png; a", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image/png; a" has malformed parameters`},
		{[]byte("x"), "image/png;;", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image/png;;" has malformed parameters`},
		{[]byte("x"), " image/png ;q=1", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: " image/png ;q=1" is not type/subtype`},
		{[]byte("x"), "image/png ", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image/png " is not type/subtype`},
		{nil, "image/png", toolnexus.ErrInvalidPart, `toolnexus: invalid part: empty "image/png" payload`},
		{[]byte{}, "application/pdf", toolnexus.ErrInvalidPart, `toolnexus: invalid part: empty "application/pdf" payload`},
	}
	for _, tt := range tests {
		t.Run(tt.mimeType, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBytes(tt.in, tt.mimeType)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromBase64(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     string
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"png", fixturePNGBase64(t), "image/png", fixturePNGPart(t)},
		{"pdf", pdfB64, "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"wav", wavB64, "audio/wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{"plus and slash", "+/+/", "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: "+/+/"}},
		{"parameters are dropped", "aGk=", "text/plain; charset=utf-8", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGk="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBase64(tt.data, tt.mimeType)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
}

// TestPartFromBase64Errors covers what PartFromBase64 refuses besides
// non-canonical base64 (see TestCheckBase64).
func TestPartFromBase64Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     string
		mimeType string
		wantErr  error
		wantMsg  string
	}{
		{"empty payload", "", "image/png", toolnexus.ErrInvalidPart, "toolnexus: invalid part: empty base64 payload"},
		{"missing MIME type", "AAAA", "", toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type"},
		{"bad MIME type", "AAAA", "image", toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "image" is not type/subtype`},
		{"a data URL is not base64", "data:image/png;base64,AAAA", "image/png", toolnexus.ErrInvalidBase64,
			`toolnexus: invalid base64: byte ':' at offset 4 of "data:image/png;base64,AAAA"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBase64(tt.data, tt.mimeType)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromURL(t *testing.T) {
	t.Parallel()
	golden := fixturePNGBase64(t)
	tests := []struct {
		name     string
		url      string
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"https image", "https://example.com/cat.png", "image/png",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}},
		{"pdf is a file without a name", "https://example.com/r/report.pdf", "application/pdf",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", URL: "https://example.com/r/report.pdf"}},
		{"any scheme", "s3://bucket/clip.mp3", "audio/mpeg",
			toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", URL: "s3://bucket/clip.mp3"}},
		{"type follows the MIME type, not the URL", "https://example.com/cat.png", "application/octet-stream",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", URL: "https://example.com/cat.png"}},
		{"query string", "https://example.com/img?id=1&size=2", "image/webp",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/webp", URL: "https://example.com/img?id=1&size=2"}},
		{"MIME type with parameters", "https://example.com/notes", "text/plain; charset=utf-8",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", URL: "https://example.com/notes"}},
		{"data URL without MIME type", "data:image/png;base64," + golden, "", fixturePNGPart(t)},
		{"data URL with the same MIME type", "data:image/png;base64," + golden, "image/png", fixturePNGPart(t)},
		{"data scheme in upper case", "DATA:image/png;base64,AAAA", "",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}},
		{"BASE64 in upper case", "data:image/png;BASE64,AAAA", "",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}},
		{"Base64 in mixed case", "data:image/png;Base64,AAAA", "",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}},
		{"data URL with parameters keeps the bare type", "data:text/plain;charset=utf-8;base64,aGk=", "",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGk="}},
		{"data URL with a name parameter", "data:image/png;name=a.png;base64,AAAA", "",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}},
		{"data URL type in another case than given", "data:AUDIO/WAV;base64,AQID", "audio/wav",
			toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "AUDIO/WAV", Data: "AQID"}},
		{"data URL of a pdf", "data:application/pdf;base64," + pdfB64, "",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromURL(tt.url, tt.mimeType)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
}

func TestPartFromURLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		url      string
		mimeType string
		wantErr  error
		wantMsg  string
	}{
		{"empty", "", "image/png", toolnexus.ErrInvalidPart, "toolnexus: invalid part: empty URL"},
		{"missing MIME type", "https://example.com/cat.png", "", toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type"},
		{"relative", "cat.png", "image/png", toolnexus.ErrInvalidPart, `toolnexus: invalid part: url "cat.png" is not an absolute URL`},
		{"space", "https://example.com/a b.png", "image/png", toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: url "https://example.com/a b.png" is not an absolute URL`},
		{"NUL", "https://example.com/a\x00.png", "image/png", toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: url "https://example.com/a\x00.png" is not an absolute URL`},
		{"DEL", "https://example.com/\x7f", "image/png", toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: url "https://example.com/\x7f" is not an absolute URL`},
		{"scheme starting with a digit", "1http://example.com", "image/png", toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: url "1http://example.com" is not an absolute URL`},
		{"data URL without ;base64", "data:image/png,AAAA", "", toolnexus.ErrInvalidDataURL,
			`toolnexus: invalid data URL: "data:image/png,AAAA" is not ;base64`},
		{"data URL without comma", "data:image/png;base64AAAA", "", toolnexus.ErrInvalidDataURL,
			`toolnexus: invalid data URL: "data:image/png;base64AAAA" has no comma`},
		{"data URL without MIME type", "data:;base64,AAAA", "", toolnexus.ErrInvalidDataURL,
			`toolnexus: invalid data URL: "data:;base64,AAAA" has no MIME type`},
		{"data URL without data", "data:image/png;base64,", "", toolnexus.ErrInvalidDataURL,
			`toolnexus: invalid data URL: "data:image/png;base64," has no data`},
		{"data URL with a bad MIME type", "data:png;base64,AAAA", "", toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: "png" is not type/subtype`},
		{"data URL with a malformed parameter", "data:image/png;x;base64,AAAA", "", toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: "image/png;x" has malformed parameters`},
		{"data URL contradicting the MIME type", "data:image/png;base64,AAAA", "image/jpeg", toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: data URL holds "image/png", not "image/jpeg"`},
		{"data URL with bad base64", "data:image/png;base64,AA*A", "", toolnexus.ErrInvalidBase64,
			`toolnexus: invalid base64: byte '*' at offset 2 of "AA*A"`},
		{"data URL percent-encoded", "data:image/png;base64,AA%3D%3D", "", toolnexus.ErrInvalidBase64,
			`toolnexus: invalid base64: byte '%' at offset 2 of "AA%3D%3D"`},
		{"data URL with a line break", "data:image/png;base64,AAAA\r\nAAAA", "", toolnexus.ErrInvalidBase64,
			`toolnexus: invalid base64: byte '\r' at offset 4 of "AAAA\r\nAAAA"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromURL(tt.url, tt.mimeType)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Zero(t, p)
		})
	}
}

// TestPartReaderLimitFromLength checks the limit of the sources that hold
// their payload already: bytes, base64 and data URLs are refused from their
// length alone, before base64 is scanned. Other URLs hold no payload.
func TestPartReaderLimitFromLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit int64
		read  func(toolnexus.PartReader) (toolnexus.ContentPart, error)
		want  *toolnexus.PartTooLargeError
	}{
		{"bytes at", 3, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Bytes([]byte("abc")) }, nil},
		{"bytes over", 2, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Bytes([]byte("abc")) },
			&toolnexus.PartTooLargeError{Limit: 2, Size: 3}},
		{"base64 at", 6, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("AAAAAAAA") }, nil},
		{"base64 over", 5, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("AAAAAAAA") },
			&toolnexus.PartTooLargeError{Limit: 5, Size: 6}},
		{"padded base64 at", 4, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("AAAAAA==") }, nil},
		{"padded base64 over", 3, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("AAAAAA==") },
			&toolnexus.PartTooLargeError{Limit: 3, Size: 4}},
		{"invalid base64 over", 1, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("!!!!!!!!") },
			&toolnexus.PartTooLargeError{Limit: 1, Size: 6}},
		{"data URL at", 3, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) {
			return pr.URL("data:image/png;base64,AAAA")
		}, nil},
		{"data URL over", 5, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) {
			return pr.URL("data:image/png;base64,!!!!!!!!")
		}, &toolnexus.PartTooLargeError{Limit: 5, Size: 6}},
		{"https URL", 1, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) {
			return pr.URL("https://example.com/cat.png")
		}, nil},
		{"no limit", 0, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Base64("AAAAAAAA") }, nil},
		{"negative is no limit", -1, func(pr toolnexus.PartReader) (toolnexus.ContentPart, error) { return pr.Bytes([]byte("abc")) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.read(toolnexus.PartReader{MaxBytes: tt.limit, MIMEType: "image/png"})
			if tt.want == nil {
				require.NoError(t, err)
				assert.NoError(t, p.Validate())
				return
			}
			assertErr(t, err, toolnexus.ErrPartTooLarge, tt.want.Error())
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, tt.want, tooLarge)
			assert.Zero(t, p)
		})
	}
}

// TestPartReaderRefusesFromLengthAlone refuses 1 MiB of base64 that is
// not even valid: nothing is scanned (the error is the limit's, not the
// base64's, whose first byte is wrong), decoded or copied (a call, measured
// alone, allocates its error and no more). Not parallel: it measures the
// process's allocation.
func TestPartReaderRefusesFromLengthAlone(t *testing.T) {
	junk := strings.Repeat("!", 1<<20)
	dataURL := "data:image/png;base64," + junk
	pr := toolnexus.PartReader{MaxBytes: 64 << 10, MIMEType: "image/png"}
	for name, read := range map[string]func() (toolnexus.ContentPart, error){
		"base64":   func() (toolnexus.ContentPart, error) { return pr.Base64(junk) },
		"data URL": func() (toolnexus.ContentPart, error) { return pr.URL(dataURL) },
	} {
		var p toolnexus.ContentPart
		var err error
		allocs, bytes := callCost(20, func() { p, err = read() })
		assertErr(t, err, toolnexus.ErrPartTooLarge, "toolnexus: part too large: 786432 bytes, over the limit of 65536 bytes: send a smaller one, or a link to it")
		assert.Zero(t, p)
		t.Logf("%s: %d allocations, %d bytes", name, allocs, bytes)
		assert.LessOrEqual(t, allocs, uint64(2), "%s: allocations", name)
		assert.LessOrEqual(t, bytes, uint64(256), "%s: bytes allocated", name)
	}
	_, err := pr.Base64(junk[:64<<10])
	assertErr(t, err, toolnexus.ErrInvalidBase64, "") // within the limit, the same junk is scanned
}

// TestContentPartWithName checks that a name from outside is a base name:
// no directory, no control or format character, never "." or "..".
func TestContentPartWithName(t *testing.T) {
	t.Parallel()
	p := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}
	tests := []struct{ name, want string }{
		{"report.pdf", "report.pdf"},
		{"", ""},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\me\report.pdf`, "report.pdf"},
		{"dir/", ""},
		{"a\x00b\nc.pdf", "abc.pdf"},
		{"evil\u202efdp.exe", "evilfdp.exe"},
		{"zero\u200bwidth.pdf", "zerowidth.pdf"},
		{"\xffbad.pdf", "bad.pdf"},
		{".", ""},
		{"..", ""},
		{"a/..", ""},
		{".\x00.", ""},
		{"my report.pdf", "my report.pdf"},
		{"ünïcode.pdf", "ünïcode.pdf"},
	}
	for _, tt := range tests {
		named := p.WithName(tt.name)
		assert.Equal(t, tt.want, named.Name, "WithName(%q)", tt.name)
		assert.Equal(t, p.Data, named.Data)
	}
	assert.Empty(t, p.Name, "the receiver is not changed")
}

func TestContentPartSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part toolnexus.ContentPart
		want int64
	}{
		{"fixture", fixturePNGPart(t), 82},
		{"no padding", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "AAAA"}, 3},
		{"one pad", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "AAA="}, 2},
		{"two pads", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "AA=="}, 1},
		{"no data", toolnexus.ContentPart{Type: toolnexus.PartImage}, 0},
		{"url only", toolnexus.ContentPart{Type: toolnexus.PartImage, URL: "https://example.com/cat.png"}, 0},
		{"text counts bytes", toolnexus.TextPart("héllo"), 6},
		{"empty text", toolnexus.TextPart(""), 0},
		// Size reads the length and padding only: it never decodes.
		{"not decoded", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "!!!!"}, 3},
		{"lone padding is never negative", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "="}, 0},
		{"two pads alone are never negative", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "=="}, 0},
		{"4 MiB of base64", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: strings.Repeat("A", 4<<20)}, 3 << 20},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.part.Size(), tt.name)
	}
	for n := range 64 {
		data := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xa5}, n))
		assert.Equal(t, int64(n), toolnexus.ContentPart{Type: toolnexus.PartImage, Data: data}.Size(), "size of %d bytes", n)
	}
}

// Sinks keep what the cost tests compute alive, as a caller would.
var (
	costString string
	costValue  slog.Value
	costSize   int64
)

// assertCostDoesNotGrow checks that f costs as much for large as for small:
// the same allocations (but slack more, for the growth of a buffer that a
// longer number may need, or a pooled buffer the race detector dropped) and
// no more than 512 bytes more.
func assertCostDoesNotGrow[T any](t *testing.T, name string, small, large T, slack uint64, f func(T)) {
	t.Helper()
	allocsSmall, bytesSmall := callCost(50, func() { f(small) })
	allocsLarge, bytesLarge := callCost(50, func() { f(large) })
	t.Logf("%s: %d allocations, %d bytes at 1 KiB; %d allocations, %d bytes at 16 MiB", name, allocsSmall, bytesSmall, allocsLarge, bytesLarge)
	assert.LessOrEqual(t, allocsLarge, allocsSmall+slack, "%s: allocations at 1 KiB and 16 MiB", name)
	assert.LessOrEqual(t, bytesLarge, bytesSmall+512, "%s: bytes at 1 KiB and 16 MiB", name)
}

// TestContentPartDescriptionCost checks that describing a part, which a
// host does for every log line, costs the same at 1 KiB and at 16 MiB.
func TestContentPartDescriptionCost(t *testing.T) {
	small := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: strings.Repeat("A", 1<<10)}
	large := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: strings.Repeat("A", 16<<20)}
	assertCostDoesNotGrow(t, "Size", small, large, 0, func(p toolnexus.ContentPart) { costSize = p.Size() })
	assertCostDoesNotGrow(t, "String", small, large, 0, func(p toolnexus.ContentPart) { costString = p.String() })
	assertCostDoesNotGrow(t, "LogValue", small, large, 0, func(p toolnexus.ContentPart) { costValue = p.LogValue().Resolve() })
	assertCostDoesNotGrow(t, "GoString", small, large, 1, func(p toolnexus.ContentPart) { costString = p.GoString() })
}

// TestContentPartValidate covers every rule of Validate but the base64
// checks, which TestCheckBase64 covers.
func TestContentPartValidate(t *testing.T) {
	t.Parallel()
	img := func(p toolnexus.ContentPart) toolnexus.ContentPart {
		p.Type = toolnexus.PartImage
		if p.MIMEType == "" {
			p.MIMEType = "image/png"
		}
		return p
	}
	tests := []struct {
		name    string
		part    toolnexus.ContentPart
		wantErr error
		wantMsg string
	}{
		{"fixture", fixturePNGPart(t), nil, ""},
		{"text", toolnexus.TextPart("hello"), nil, ""},
		{"empty text", toolnexus.ContentPart{Type: toolnexus.PartText}, nil, ""},
		{"image url", img(toolnexus.ContentPart{URL: "https://example.com/cat.png"}), nil, ""},
		{"named file", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}, nil, ""},
		{"file of an image type", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "image/png", Data: "AAAA"}, nil, ""},
		{"audio", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}, nil, ""},
		{"MIME type with parameters", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav; rate=8000", Data: "AAAA"}, nil, ""},
		{"MIME type in upper case", img(toolnexus.ContentPart{MIMEType: "IMAGE/PNG", Data: "AAAA"}), nil, ""},

		{"empty type", toolnexus.ContentPart{MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: ""`},
		{"unknown type", toolnexus.ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}, toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "video"`},
		{"type in upper case", toolnexus.ContentPart{Type: "IMAGE", MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "IMAGE"`},
		{"type in title case", toolnexus.ContentPart{Type: "Image", MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "Image"`},
		{"type with a space", toolnexus.ContentPart{Type: " image", MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: " image"`},
		{"text with data", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "x", Data: "AAAA"}, toolnexus.ErrInvalidPart, "toolnexus: invalid part: text part carries data or url"},
		{"text with url", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "x", URL: "https://example.com"}, toolnexus.ErrInvalidPart, "toolnexus: invalid part: text part carries data or url"},
		{"image with text", img(toolnexus.ContentPart{Text: "x", Data: "AAAA"}), toolnexus.ErrInvalidPart, "toolnexus: invalid part: image part carries text"},
		{"missing MIME type", toolnexus.ContentPart{Type: toolnexus.PartAudio, Data: "AAAA"}, toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type"},
		{"MIME type without subtype", img(toolnexus.ContentPart{MIMEType: "image", Data: "AAAA"}), toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: "image" is not type/subtype`},
		{"image with a pdf MIME type", img(toolnexus.ContentPart{MIMEType: "application/pdf", Data: "AAAA"}), toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: "application/pdf" for an image part`},
		{"audio with an image MIME type", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrInvalidMIMEType,
			`toolnexus: invalid MIME type: "image/png" for an audio part`},
		{"both data and url", img(toolnexus.ContentPart{Data: "AAAA", URL: "https://example.com/cat.png"}), toolnexus.ErrInvalidPart,
			"toolnexus: invalid part: image part has both data and url"},
		{"neither data nor url", img(toolnexus.ContentPart{}), toolnexus.ErrInvalidPart, "toolnexus: invalid part: image part has neither data nor url"},
		{"data URL in url", img(toolnexus.ContentPart{URL: "data:image/png;base64,AAAA"}), toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: data URL "data:image/png;base64,AAAA" in url; use PartFromURL to store it as data`},
		{"relative url", img(toolnexus.ContentPart{URL: "cat.png"}), toolnexus.ErrInvalidPart, `toolnexus: invalid part: url "cat.png" is not an absolute URL`},
		{"url with a terminal escape", img(toolnexus.ContentPart{URL: "https://example.com/\x1b[2J"}), toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: url "https://example.com/\x1b[2J" is not an absolute URL`},
		{"data that is not canonical base64", img(toolnexus.ContentPart{Data: "AAAA\n"}), toolnexus.ErrInvalidBase64,
			`toolnexus: invalid base64: byte '\n' at offset 4 of "AAAA\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.part.Validate(), tt.wantErr, tt.wantMsg)
		})
	}
}

// TestContentPartSHA256 checks that the hash is of the decoded content, so
// that a store can deduplicate a payload however it arrived and whatever
// it is named.
func TestContentPartSHA256(t *testing.T) {
	t.Parallel()
	raw := fixturePNGBytes(t)
	want := sha256.Sum256(raw)
	fromBytes, err := toolnexus.PartFromBytes(raw, "image/png")
	require.NoError(t, err)
	fromURL, err := toolnexus.PartFromURL("data:image/png;base64,"+fixturePNGBase64(t), "")
	require.NoError(t, err)
	fromReader, err := toolnexus.PartFromReader(bytes.NewReader(raw), "application/octet-stream")
	require.NoError(t, err)
	for _, p := range []toolnexus.ContentPart{fixturePNGPart(t), fromBytes, fromURL, fromReader, fromReader.WithName("other.bin")} {
		got, err := p.SHA256()
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}

	text, err := toolnexus.TextPart("hello").SHA256()
	require.NoError(t, err)
	assert.Equal(t, sha256.Sum256([]byte("hello")), text)

	_, err = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}.SHA256()
	assertErr(t, err, toolnexus.ErrInvalidPart, "toolnexus: invalid part: image part has no data to hash")
	_, err = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA\n\n\n\n"}.SHA256()
	assertErr(t, err, toolnexus.ErrInvalidBase64, `toolnexus: invalid base64: byte '\n' at offset 4 of "AAAA\n\n\n\n"`)
}

func TestContentPartString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"fixture", fixturePNGPart(t), "image (image/png, 82 bytes)"},
		{"named file", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}, "file (application/pdf, 13 bytes)"},
		{"audio", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}, "audio (audio/wav, 12 bytes)"},
		{"url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}, "image (image/png, url)"},
		{"text", toolnexus.TextPart("hello"), "text (5 bytes)"},
		{"the zero part", toolnexus.ContentPart{}, "part (no MIME type, 0 bytes)"},
		{"no MIME type", toolnexus.ContentPart{Type: toolnexus.PartFile, Data: "AAAA"}, "file (no MIME type, 3 bytes)"},
		{"empty text", toolnexus.TextPart(""), "text (0 bytes)"},
		// Text from a peer cannot forge a log line: a type or MIME type
		// holding a space, a control or a format character is quoted.
		{"newline in type and MIME type", toolnexus.ContentPart{Type: "image\n", MIMEType: "image/png\r\nX: y", Data: "AAAA"},
			`"image\n" ("image/png\r\nX: y", 3 bytes)`},
		{"right-to-left override in MIME type", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/\u202efdp", Data: "AAAA"},
			`file ("application/\u202efdp", 3 bytes)`},
		{"space in type", toolnexus.ContentPart{Type: "image (image/png, 1 bytes) x", MIMEType: "image/png", Data: "AAAA"},
			`"image (image/png, 1 bytes) x" (image/png, 3 bytes)`},
		{"invalid UTF-8 in MIME type", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/\xff", Data: "AAAA"},
			`image ("image/\xff", 3 bytes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.part.String())
			for _, verb := range []string{"%v", "%s", "%+v"} {
				assert.Equal(t, tt.want, fmt.Sprintf(verb, tt.part), verb)
				assert.Equal(t, tt.want, fmt.Sprintf(verb, &tt.part), verb)
			}
			assert.Equal(t, fmt.Sprintf("%q", tt.want), fmt.Sprintf("%q", tt.part))
			assert.NotContains(t, fmt.Sprintf("%v %s %q %+v", tt.part, tt.part, tt.part, tt.part), "\n")
		})
	}
}

func TestContentPartGoString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"fixture", fixturePNGPart(t),
			`toolnexus.ContentPart{Type:"image", Text:"", MIMEType:"image/png", Data:"<82 bytes>", URL:"", Name:""}`},
		{"named file", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"},
			`toolnexus.ContentPart{Type:"file", Text:"", MIMEType:"application/pdf", Data:"<13 bytes>", URL:"", Name:"report.pdf"}`},
		{"url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"},
			`toolnexus.ContentPart{Type:"image", Text:"", MIMEType:"image/png", Data:"<0 bytes>", URL:"https://example.com/cat.png", Name:""}`},
		{"data URL put in url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "data:image/png;base64,AAAA"},
			`toolnexus.ContentPart{Type:"image", Text:"", MIMEType:"image/png", Data:"<0 bytes>", URL:"data:image/png;base64,…", Name:""}`},
		{"text", toolnexus.TextPart("hello"),
			`toolnexus.ContentPart{Type:"text", Text:"hello", MIMEType:"", Data:"<0 bytes>", URL:"", Name:""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.part.GoString())
			assert.Equal(t, tt.want, fmt.Sprintf("%#v", tt.part))
		})
	}
}

func TestContentPartLogValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		part     toolnexus.ContentPart
		wantText string
		wantJSON string
	}{
		{"fixture", fixturePNGPart(t),
			`level=INFO msg=m part.type=image part.mimeType=image/png part.size=82`,
			`{"level":"INFO","msg":"m","part":{"type":"image","mimeType":"image/png","size":82}}`},
		{"named file", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"},
			`level=INFO msg=m part.type=file part.mimeType=application/pdf part.size=13 part.name=report.pdf`,
			`{"level":"INFO","msg":"m","part":{"type":"file","mimeType":"application/pdf","size":13,"name":"report.pdf"}}`},
		{"url is not logged", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/secret-token"},
			`level=INFO msg=m part.type=image part.mimeType=image/png part.size=0`,
			`{"level":"INFO","msg":"m","part":{"type":"image","mimeType":"image/png","size":0}}`},
		{"text", toolnexus.TextPart("hello"),
			`level=INFO msg=m part.type=text part.size=5`,
			`{"level":"INFO","msg":"m","part":{"type":"text","size":5}}`},
		{"newline in type", toolnexus.ContentPart{Type: "image\n", MIMEType: "image/png", Data: "AAAA"},
			`level=INFO msg=m part.type="image\n" part.mimeType=image/png part.size=3`,
			`{"level":"INFO","msg":"m","part":{"type":"image\n","mimeType":"image/png","size":3}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, js := logWithoutTime(slog.Any("part", tt.part))
			assert.Equal(t, tt.wantText, text)
			assert.Equal(t, tt.wantJSON, js)
		})
	}
}

// TestContentPartPrintsNoPayload is the leak matrix of a part: no verb of
// fmt and no slog handler prints a window of its data, alone or in a
// slice, map or struct. slog's JSON handler encodes a bare slice or map
// whole, payload included, as the ContentPart doc warns: log the result
// instead (see TestToolResultPrintsNoPayload).
func TestContentPartPrintsNoPayload(t *testing.T) {
	t.Parallel()
	data := secretPayload()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	misplaced := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "data:image/png;base64," + data}
	values := []struct {
		name      string
		v         any
		jsonWhole bool // slog's JSONHandler encodes it with encoding/json
	}{
		{"image part", img, false},
		{"file part", pdf, false},
		{"part pointer", &img, false},
		{"data URL in url", misplaced, false},
		{"slice of parts", []toolnexus.ContentPart{img, pdf}, true},
		{"slice of part pointers", []*toolnexus.ContentPart{&img, &pdf}, true},
		{"map of parts", map[string]toolnexus.ContentPart{"a": img}, true},
		{"slice of any", []any{img, &pdf}, true},
		{"struct field", struct{ Part toolnexus.ContentPart }{img}, true},
	}
	for _, tt := range values {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, verb := range printVerbs {
				assertNoPayload(t, fmt.Sprintf(verb, tt.v), data, 16)
			}
			assertNoPayload(t, fmt.Sprint(tt.v), data, 16)
			assertNoPayload(t, fmt.Sprintln(tt.v), data, 16)
			text, js := logWithoutTime(slog.Any("v", tt.v), slog.Group("g", slog.Any("v", tt.v)))
			assertNoPayload(t, text, data, 16)
			if tt.jsonWhole {
				assert.Contains(t, js, data[:64])
			} else {
				assertNoPayload(t, js, data, 16)
			}
		})
	}
}

// spacedMIMETypes are MIME types with control or Unicode space around them,
// which no reader trims: RFC 2045 allows none of them.
var spacedMIMETypes = []string{"image/png\n", "image/png\r\n", "\fimage/png", "image/png\u0085", "\u00a0image/png", "image/png\u2028",
	"image/png\x00", "image/png; charset=utf-8\n", "text/plain; charset=\u00a0utf-8", "image/p\u00e9ng"}

// TestMIMETypeNoTrim checks that a MIME type with control or Unicode space
// around it, or a character outside ASCII, is refused by Validate, the
// constructors and the readers alike, never trimmed.
func TestMIMETypeNoTrim(t *testing.T) {
	t.Parallel()
	for _, m := range spacedMIMETypes {
		t.Run(m, func(t *testing.T) {
			t.Parallel()
			_, err := toolnexus.PartFromBytes([]byte("x"), m)
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
			_, err = toolnexus.PartReader{MIMEType: m}.Reader(strings.NewReader("x"))
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
			_, err = toolnexus.PartFromBase64("AAAA", m)
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
			_, err = toolnexus.PartFromURL("https://example.com/a", m)
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
			_, err = toolnexus.PartFromURL("data:"+m+";base64,AAAA", "")
			assert.Error(t, err)
			err = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: m, Data: "AAAA"}.Validate()
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
			in, err := json.Marshal(toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: m, Data: "AAAA"}))
			require.NoError(t, err)
			_, err = toolnexus.ParseToolResult(in, 0)
			assertErr(t, err, toolnexus.ErrInvalidMIMEType, "")
		})
	}
	assertErr(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png\n", Data: "AAAA"}.Validate(), toolnexus.ErrInvalidMIMEType,
		`toolnexus: invalid MIME type: "image/png\n" holds a control or non-ASCII character`)
	p, err := toolnexus.PartReader{MIMEType: "text/plain; charset=utf-8"}.Reader(strings.NewReader("hi"))
	require.NoError(t, err)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGk="}, p)
}

// TestPartsCheckBase64 checks that every door of a part's base64 makes the
// one check of a part's data (internal/b64 tests it, byte by byte):
// PartFromBase64 refuses what Validate and SHA256 refuse, with the same
// error, and keeps what they take as it is.
func TestPartsCheckBase64(t *testing.T) {
	t.Parallel()
	for data, wantMsg := range map[string]string{
		fixturePNGBase64(t): "",
		"AA==":              "",
		"AAAA\nAAA":         `byte '\n' at offset 4 of "AAAA\nAAA"`,
		"AAB=":              `"AAB=" has non-zero padding bits`,
		"AAA":               `length 3 of "AAA" is not a multiple of 4 (missing padding?)`,
	} {
		p, err := toolnexus.PartFromBase64(data, "image/png")
		if wantMsg == "" {
			require.NoError(t, err)
			assert.Equal(t, data, p.Data)
			continue
		}
		assertErr(t, err, toolnexus.ErrInvalidBase64, "toolnexus: invalid base64: "+wantMsg)
		assert.Zero(t, p)
		bad := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
		assert.Equal(t, err, bad.Validate())
		_, shaErr := bad.SHA256()
		assert.Equal(t, err, shaErr)
	}
}

// TestPartFromBytesMatchesStdlib checks the data of PartFromBytes against
// encoding/base64 around the chunk boundaries of the encoder (1536 bytes)
// and of the reads (48 KiB).
func TestPartFromBytesMatchesStdlib(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 200_001)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	for _, n := range []int{1, 2, 3, 4, 1535, 1536, 1537, 1538, 3072, 3073, 49151, 49152, 49153, 200_001} {
		p, err := toolnexus.PartFromBytes(src[:n], "application/octet-stream")
		require.NoError(t, err)
		require.Equal(t, base64.StdEncoding.EncodeToString(src[:n]), p.Data, "PartFromBytes, length %d", n)
		require.Equal(t, int64(n), p.Size(), fmt.Sprint("size of ", n))
	}
}
