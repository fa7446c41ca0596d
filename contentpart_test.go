package toolnexus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
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

// requireErrorPrefix checks that err is not nil and reads like every error of
// the package.
func requireErrorPrefix(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "toolnexus: "), "error %q lacks the toolnexus: prefix", err)
}

// assertErr checks err against a table row: no error when wantErr is nil,
// else a toolnexus error matching wantErr and, when wantMsg is set, reading
// exactly wantMsg.
func assertErr(t *testing.T, err, wantErr error, wantMsg string) {
	t.Helper()
	if wantErr == nil {
		assert.NoError(t, err)
		return
	}
	requireErrorPrefix(t, err)
	assert.ErrorIs(t, err, wantErr)
	if wantMsg != "" {
		assert.EqualError(t, err, wantMsg)
	}
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
		{"a.pdf", "application/pdf"},
		{"a.mp3", "audio/mpeg"},
		{"a.wav", "audio/wav"},
		{"A.PNG", "image/png"},
		{"photo.JpEg", "image/jpeg"},
		{"REPORT.PDF", "application/pdf"},
		{"song.Mp3", "audio/mpeg"},
		{"archive.tar.png", "image/png"},
		{"dir.pdf/shot.gif", "image/gif"},
		{"/abs/path/clip.WAV", "audio/wav"},
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

func TestMIMETypeOfUnknown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wantMsg string
	}{
		{"notes.txt", `toolnexus: unknown file extension: ".txt" in "notes.txt"; pass its MIME type`},
		{"shot.png.txt", `toolnexus: unknown file extension: ".txt" in "shot.png.txt"; pass its MIME type`},
		{"image.svg", `toolnexus: unknown file extension: ".svg" in "image.svg"; pass its MIME type`},
		{"image.tiff", `toolnexus: unknown file extension: ".tiff" in "image.tiff"; pass its MIME type`},
		{"movie.mp4", `toolnexus: unknown file extension: ".mp4" in "movie.mp4"; pass its MIME type`},
		{"a.pngx", `toolnexus: unknown file extension: ".pngx" in "a.pngx"; pass its MIME type`},
		{"README", `toolnexus: unknown file extension: "README" has no extension; pass its MIME type`},
		{"trailing.", `toolnexus: unknown file extension: "trailing." has no extension; pass its MIME type`},
		{"dir.png/file", `toolnexus: unknown file extension: "dir.png/file" has no extension; pass its MIME type`},
		{"", `toolnexus: unknown file extension: "" has no extension; pass its MIME type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.MIMETypeOf(tt.name)
			require.ErrorIs(t, err, toolnexus.ErrUnknownExtension)
			assert.EqualError(t, err, tt.wantMsg)
			assert.Empty(t, got)
		})
	}
}

func TestTextPart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want toolnexus.ContentPart
	}{
		{"hello", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "hello"}},
		{"", toolnexus.ContentPart{Type: toolnexus.PartText}},
		{"multi\nline ünïcode", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "multi\nline ünïcode"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			p := toolnexus.TextPart(tt.text)
			assert.Equal(t, tt.want, p)
			assert.NoError(t, p.Validate())
		})
	}
}

func TestPartFromBytes(t *testing.T) {
	t.Parallel()
	png := fixturePNGBytes(t)
	tests := []struct {
		name     string
		in       []byte
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"png", png, "image/png", fixturePNGPart(t)},
		{"pdf", []byte(pdfBytes), "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"wav", []byte(wavBytes), "audio/wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{"jpeg", []byte{0xff, 0xd8, 0xff}, "image/jpeg", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", Data: "/9j/"}},
		{"other type is a file", []byte("a,b\n"), "text/csv", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/csv", Data: "YSxiCg=="}},
		{"octet stream", []byte{0}, "application/octet-stream", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", Data: "AA=="}},
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

func TestPartFromBytesBadMIMEType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mimeType string
		wantErr  error
	}{
		{"", toolnexus.ErrMissingMIMEType},
		{"image", toolnexus.ErrInvalidMIMEType},
		{"image/", toolnexus.ErrInvalidMIMEType},
		{"/png", toolnexus.ErrInvalidMIMEType},
		{"image/png; charset=x", toolnexus.ErrInvalidMIMEType},
		{"image/png/x", toolnexus.ErrInvalidMIMEType},
		{"image /png", toolnexus.ErrInvalidMIMEType},
		{"png", toolnexus.ErrInvalidMIMEType},
	}
	for _, tt := range tests {
		t.Run(tt.mimeType, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBytes([]byte("x"), tt.mimeType)
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Zero(t, p)
		})
	}
}

// TestPartFromBytesEncodesLikeStdlib checks the chunked encoder against
// encoding/base64 around its chunk boundaries.
func TestPartFromBytesEncodesLikeStdlib(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 5, 1535, 1536, 1537, 1538, 3072, 3073, 49151, 49152, 49153, 200_001} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBytes(b, "application/octet-stream")
			require.NoError(t, err)
			assert.Equal(t, base64.StdEncoding.EncodeToString(b), p.Data)
			assert.Equal(t, int64(n), p.Size())
		})
	}
}

func TestPartFromBase64(t *testing.T) {
	t.Parallel()
	golden := fixturePNGBase64(t)
	tests := []struct {
		name     string
		data     string
		mimeType string
		want     toolnexus.ContentPart
	}{
		{"png", golden, "image/png", fixturePNGPart(t)},
		{"pdf", pdfB64, "application/pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"wav", wavB64, "audio/wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
		{"one pad", "AAA=", "image/png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAA="}},
		{"two pads", "AA==", "image/png", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AA=="}},
		{"plus and slash", "+/+/", "audio/mpeg", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", Data: "+/+/"}},
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

// nonCanonicalBase64 is data that encoding/base64.StdEncoding decodes, or
// that is close to valid, but that a part must never hold.
var nonCanonicalBase64 = []struct {
	name string
	data string
}{
	{"missing padding", "AAA"},
	{"missing both pads", "AA"},
	{"single char", "A"},
	{"line feeds skipped by stdlib", "AAAA\nAAAA\n\n\n"},
	{"crlf skipped by stdlib", "AAAA\r\n\r\nAAAA"},
	{"leading line feeds", "\n\n\n\nAAAA"},
	{"space", "AAA AAAA"},
	{"tab", "AAAA\tAAA"},
	{"url alphabet", "-_-_"},
	{"non-zero padding bits, one pad", "AAB="},
	{"non-zero padding bits, two pads", "AB=="},
	{"padding in the middle", "AA==AAAA"},
	{"three pads", "A==="},
	{"only padding", "===="},
	{"too much padding", "AAAA===="},
	{"non-ascii", "AAA\xff"},
	{"nul byte", "AA\x00A"},
}

func TestPartFromBase64Invalid(t *testing.T) {
	t.Parallel()
	for _, tt := range nonCanonicalBase64 {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBase64(tt.data, "image/png")
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidBase64)
			assert.Zero(t, p)
		})
	}
}

// TestStdlibSkipsLineBreaks shows why the package checks base64 itself: the
// standard decoder accepts what a part must refuse.
func TestStdlibSkipsLineBreaks(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"AAAA\r\n\r\nAAAA", "\n\n\n\nAAAA", "AB=="} {
		_, err := base64.StdEncoding.DecodeString(data)
		require.NoError(t, err, "stdlib accepts %q", data)
		_, err = toolnexus.PartFromBase64(data, "image/png")
		assert.ErrorIs(t, err, toolnexus.ErrInvalidBase64, "toolnexus refuses %q", data)
	}
}

func TestPartFromBase64BadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     string
		mimeType string
		wantErr  error
	}{
		{"empty payload", "", "image/png", toolnexus.ErrInvalidPart},
		{"missing MIME type", "AAAA", "", toolnexus.ErrMissingMIMEType},
		{"bad MIME type", "AAAA", "image", toolnexus.ErrInvalidMIMEType},
		{"data URL is not base64", "data:image/png;base64,AAAA", "image/png", toolnexus.ErrInvalidBase64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBase64(tt.data, tt.mimeType)
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromBase64Limit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		limit   int64
		wantErr *toolnexus.PartTooLargeError
	}{
		{"under", "AAAAAAAA", 7, nil},
		{"at", "AAAAAAAA", 6, nil},
		{"over", "AAAAAAAA", 5, &toolnexus.PartTooLargeError{Limit: 5, Size: 6}},
		{"padded over", "AAAAAA==", 3, &toolnexus.PartTooLargeError{Limit: 3, Size: 4}},
		{"padded at", "AAAAAA==", 4, nil},
		{"zero limit", "AA==", 0, &toolnexus.PartTooLargeError{Limit: 0, Size: 1}},
		{"no limit", "AAAAAAAA", -1, nil},
		// The limit is checked from the length alone, before the data is
		// scanned.
		{"over and invalid", "!!!!!!!!", 1, &toolnexus.PartTooLargeError{Limit: 1, Size: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromBase64Limit(tt.data, "image/png", tt.limit)
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.data, p.Data)
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

func TestPartTooLargeError(t *testing.T) {
	t.Parallel()
	err := error(&toolnexus.PartTooLargeError{Limit: 10, Size: 11})
	assert.EqualError(t, err, "toolnexus: part too large: 11 bytes, over the limit of 10 bytes")
	assert.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
	assert.NotErrorIs(t, err, toolnexus.ErrInvalidPart)
	assert.ErrorIs(t, fmt.Errorf("wrapped: %w", err), toolnexus.ErrPartTooLarge)
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
		{"audio", "s3://bucket/clip.mp3", "audio/mpeg",
			toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/mpeg", URL: "s3://bucket/clip.mp3"}},
		{"type follows MIME type, not URL", "https://example.com/cat.png", "application/octet-stream",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", URL: "https://example.com/cat.png"}},
		{"query string", "https://example.com/img?id=1&size=2", "image/webp",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/webp", URL: "https://example.com/img?id=1&size=2"}},
		{"data URL without MIME type", "data:image/png;base64," + golden, "",
			fixturePNGPart(t)},
		{"data URL with the same MIME type", "data:image/png;base64," + golden, "image/png",
			fixturePNGPart(t)},
		{"data URL scheme in upper case", "DATA:image/png;base64,AAAA", "",
			toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}},
		{"data URL of a pdf", "data:application/pdf;base64," + pdfB64, "",
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}},
		{"data URL of audio", "data:audio/wav;base64," + wavB64, "audio/wav",
			toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}},
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

func TestPartFromURLBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		url      string
		mimeType string
		wantErr  error
	}{
		{"MIME type is never guessed", "https://example.com/cat.png", "", toolnexus.ErrMissingMIMEType},
		{"bad MIME type", "https://example.com/cat.png", "image", toolnexus.ErrInvalidMIMEType},
		{"empty URL", "", "image/png", toolnexus.ErrInvalidPart},
		{"relative path", "/tmp/cat.png", "image/png", toolnexus.ErrInvalidPart},
		{"bare file name", "cat.png", "image/png", toolnexus.ErrInvalidPart},
		{"space", "https://example.com/a cat.png", "image/png", toolnexus.ErrInvalidPart},
		{"line break", "https://example.com/\ncat.png", "image/png", toolnexus.ErrInvalidPart},
		{"scheme only", "https:", "image/png", toolnexus.ErrInvalidPart},
		{"scheme starts with a digit", "1http://example.com", "image/png", toolnexus.ErrInvalidPart},
		{"data URL with another MIME type", "data:image/png;base64,AAAA", "image/jpeg", toolnexus.ErrInvalidMIMEType},
		{"data URL not base64", "data:image/png,AAAA", "", toolnexus.ErrInvalidDataURL},
		{"data URL base64 in upper case", "data:image/png;BASE64,AAAA", "", toolnexus.ErrInvalidDataURL},
		{"data URL without comma", "data:image/png;base64", "", toolnexus.ErrInvalidDataURL},
		{"data URL without MIME type", "data:;base64,AAAA", "", toolnexus.ErrInvalidDataURL},
		{"data URL with parameters", "data:image/png;charset=utf-8;base64,AAAA", "", toolnexus.ErrInvalidDataURL},
		{"data URL without data", "data:image/png;base64,", "", toolnexus.ErrInvalidDataURL},
		{"data URL with a bad MIME type", "data:png;base64,AAAA", "", toolnexus.ErrInvalidMIMEType},
		{"data URL with bad base64", "data:image/png;base64,AAA", "", toolnexus.ErrInvalidBase64},
		{"data URL with a line break", "data:image/png;base64,AAAA\r\nAAAA", "", toolnexus.ErrInvalidBase64},
		{"data URL percent-encoded", "data:image/png;base64,AA%3D%3D", "", toolnexus.ErrInvalidBase64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromURL(tt.url, tt.mimeType)
			requireErrorPrefix(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Zero(t, p)
		})
	}
}

func TestPartFromURLLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		url     string
		limit   int64
		wantErr *toolnexus.PartTooLargeError
	}{
		{"data URL at the limit", "data:image/png;base64,AAAA", 3, nil},
		{"data URL over the limit", "data:image/png;base64,AAAAAAAA", 5, &toolnexus.PartTooLargeError{Limit: 5, Size: 6}},
		{"data URL over the limit with bad data", "data:image/png;base64,!!!!!!!!", 5, &toolnexus.PartTooLargeError{Limit: 5, Size: 6}},
		{"data URL without limit", "data:image/png;base64,AAAAAAAA", -1, nil},
		{"other URLs hold no payload", "https://example.com/cat.png", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := toolnexus.PartFromURLLimit(tt.url, "image/png", tt.limit)
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.NoError(t, p.Validate())
				return
			}
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, tt.wantErr, tooLarge)
			assert.Zero(t, p)
		})
	}
}

func TestContentPartWithName(t *testing.T) {
	t.Parallel()
	p, err := toolnexus.PartFromBytes([]byte(pdfBytes), "application/pdf")
	require.NoError(t, err)
	named := p.WithName("report.pdf")
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}, named)
	assert.Empty(t, p.Name, "the receiver is not changed")
	assert.Equal(t, "other.pdf", named.WithName("other.pdf").Name)
	assert.Empty(t, named.WithName("").Name)
	assert.NoError(t, named.Validate())
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
		{"pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, Data: pdfB64}, 13},
		{"wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, Data: wavB64}, 12},
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
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.part.Size())
		})
	}
}

func TestContentPartSizeMatchesDecodedLength(t *testing.T) {
	t.Parallel()
	for n := range 64 {
		b := bytes.Repeat([]byte{0xa5}, n)
		p := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(b)}
		assert.Equal(t, int64(n), p.Size(), "size of %d bytes", n)
	}
}

func TestContentPartSizeDoesNotAllocate(t *testing.T) {
	p := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: strings.Repeat("AAAA", 1<<16)}
	var got int64
	allocs := testing.AllocsPerRun(100, func() { got = p.Size() })
	assert.Zero(t, allocs)
	assert.Equal(t, int64(3<<16), got)
}

func TestContentPartValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		part    toolnexus.ContentPart
		wantErr error
	}{
		{"fixture", fixturePNGPart(t), nil},
		{"text", toolnexus.TextPart("hello"), nil},
		{"empty text", toolnexus.ContentPart{Type: toolnexus.PartText}, nil},
		{"image url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}, nil},
		{"named file", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}, nil},
		{"file of any MIME type", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "image/png", Data: "AAAA"}, nil},
		{"audio", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}, nil},

		{"zero part", toolnexus.ContentPart{}, toolnexus.ErrUnknownPartType},
		{"unknown type", toolnexus.ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}, toolnexus.ErrUnknownPartType},
		{"type is case-sensitive", toolnexus.ContentPart{Type: "Image", MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrUnknownPartType},
		{"text with data", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "x", Data: "AAAA"}, toolnexus.ErrInvalidPart},
		{"text with url", toolnexus.ContentPart{Type: toolnexus.PartText, Text: "x", URL: "https://example.com"}, toolnexus.ErrInvalidPart},
		{"image with text", toolnexus.ContentPart{Type: toolnexus.PartImage, Text: "x", MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrInvalidPart},
		{"missing MIME type", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "AAAA"}, toolnexus.ErrMissingMIMEType},
		{"MIME type without subtype", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image", Data: "AAAA"}, toolnexus.ErrInvalidMIMEType},
		{"MIME type with parameters", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav; rate=8000", Data: "AAAA"}, toolnexus.ErrInvalidMIMEType},
		{"image with a pdf MIME type", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "application/pdf", Data: "AAAA"}, toolnexus.ErrInvalidMIMEType},
		{"audio with an image MIME type", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "image/png", Data: "AAAA"}, toolnexus.ErrInvalidMIMEType},
		{"both data and url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA", URL: "https://example.com/cat.png"}, toolnexus.ErrInvalidPart},
		{"neither data nor url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}, toolnexus.ErrInvalidPart},
		{"data URL in url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "data:image/png;base64,AAAA"}, toolnexus.ErrInvalidPart},
		{"relative url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "cat.png"}, toolnexus.ErrInvalidPart},
		{"url with a space", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/a b.png"}, toolnexus.ErrInvalidPart},
	}
	for _, tt := range nonCanonicalBase64 {
		tests = append(tests, struct {
			name    string
			part    toolnexus.ContentPart
			wantErr error
		}{"data " + tt.name, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: tt.data}, toolnexus.ErrInvalidBase64})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.part.Validate()
			assertErr(t, err, tt.wantErr, "")
		})
	}
}

func TestContentPartString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"fixture", fixturePNGPart(t), "image (image/png, 82 bytes)"},
		{"pdf", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}, "file (application/pdf, 13 bytes)"},
		{"wav", toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}, "audio (audio/wav, 12 bytes)"},
		{"url", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}, "image (image/png, url)"},
		{"text", toolnexus.TextPart("hello"), "text (5 bytes)"},
		{"empty text", toolnexus.TextPart(""), "text (0 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.part.String())
			assert.Equal(t, tt.want, fmt.Sprint(tt.part))
			assert.Equal(t, tt.want, fmt.Sprintf("%v", &tt.part))
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

// formatVerbs are the fmt verbs a user may print a value with.
var formatVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%100v", "%-v"}

// slogOutputs returns what the text and JSON handlers of log/slog write for
// v logged under key.
func slogOutputs(key string, v any) map[string]string {
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("msg", key, v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("msg", slog.Any(key, v))
	return map[string]string{"text": text.String(), "json": js.String()}
}

func TestContentPartOutputHidesData(t *testing.T) {
	t.Parallel()
	golden := fixturePNGBase64(t)
	part := fixturePNGPart(t)
	named := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "image/png", Data: golden, Name: "fixture.png"}
	// A data URL wrongly put in URL must not print its payload either.
	misplaced := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "data:image/png;base64," + golden}
	values := map[string]any{
		"part":         part,
		"pointer":      &part,
		"named":        named,
		"slice":        []toolnexus.ContentPart{part, named},
		"map":          map[string]any{"p": part},
		"data in url":  misplaced,
		"struct field": struct{ Part toolnexus.ContentPart }{part},
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, verb := range formatVerbs {
				out := fmt.Sprintf(verb, v)
				assert.NotContains(t, out, golden[8:40], "%s printed data", verb)
				assert.NotContains(t, out, "iVBORw0K", "%s printed data", verb)
			}
			assert.NotContains(t, fmt.Sprint(v), "iVBORw0K")
			assert.NotContains(t, fmt.Sprintln(v), "iVBORw0K")
		})
	}
	for _, v := range []toolnexus.ContentPart{part, named, misplaced} {
		for handler, out := range slogOutputs("part", v) {
			assert.NotContains(t, out, "iVBORw0K", "%s handler logged data", handler)
		}
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

// logWithoutTime logs attr with message "m" through the text and JSON
// handlers and returns their output without the time and trailing newline.
func logWithoutTime(attr slog.Attr) (text, js string) {
	dropTime := func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	var tb, jb bytes.Buffer
	slog.New(slog.NewTextHandler(&tb, &slog.HandlerOptions{ReplaceAttr: dropTime})).LogAttrs(context.Background(), slog.LevelInfo, "m", attr)
	slog.New(slog.NewJSONHandler(&jb, &slog.HandlerOptions{ReplaceAttr: dropTime})).LogAttrs(context.Background(), slog.LevelInfo, "m", attr)
	return strings.TrimSuffix(tb.String(), "\n"), strings.TrimSuffix(jb.String(), "\n")
}

func TestContentPartIsComparable(t *testing.T) {
	t.Parallel()
	a := fixturePNGPart(t)
	b, err := toolnexus.PartFromBytes(fixturePNGBytes(t), "image/png")
	require.NoError(t, err)
	assert.True(t, a == b)
	assert.False(t, a == b.WithName("x"))
	seen := map[toolnexus.ContentPart]int{a: 1}
	assert.Equal(t, 1, seen[b])
}

func TestContentPartSHA256(t *testing.T) {
	t.Parallel()
	sum, err := fixturePNGPart(t).SHA256()
	require.NoError(t, err)
	assert.Equal(t, sha256.Sum256(fixturePNGBytes(t)), sum)

	sum, err = toolnexus.TextPart("hello").SHA256()
	require.NoError(t, err)
	assert.Equal(t, sha256.Sum256([]byte("hello")), sum)

	_, err = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}.SHA256()
	assert.ErrorIs(t, err, toolnexus.ErrInvalidPart)

	_, err = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA\n\n\n\n"}.SHA256()
	assert.ErrorIs(t, err, toolnexus.ErrInvalidBase64)
}
