package toolnexus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fuzz targets for every parser of untrusted input. Plain `go test` runs the
// seeds below and every case under testdata/fuzz; `go test -fuzz` explores.

// fixtureBase64 is testdata/fixture.png as it travels in JSON (WIRE.md).
const fixtureBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="

// wireResults are the ToolResult shapes of WIRE.md, plus hostile variants.
var wireResults = []string{
	`{"output":"eu-west-1","isError":false}`,
	`{"output":"No such config key: nope","isError":true}`,
	`{"output":"2 results","isError":false,"metadata":{"count":2,"ids":[1,2],"title":"search: usage"}}`,
	`{"output":"fixture.png (image/png, 82 bytes)","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"` + fixtureBase64 + `"}]}`,
	`{"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}`,
	`{"output":"parts","isError":false,"parts":[{"type":"text","text":"hello"},{"type":"file","mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ==","name":"report.pdf"},{"type":"audio","mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"},{"type":"image","mimeType":"image/png","url":"https://example.com/cat.png"},{"type":"text"}]}`,
	`{"output":"Pick an environment\nhttps://example.com/pick","isError":true,"metadata":{"pending":{"id":"req-2","kind":"input","prompt":"Pick an environment","url":"https://example.com/pick","data":{"choices":["dev","prod"]},"expiresAt":"2026-12-01T00:00:00Z"}}}`,
	`{"output":"x"}`,
	`{"output":"x","isError":false,"parts":null,"metadata":null,"extra":[1,{"a":null}]}`,
	`{"output":"","isError":true,"metadata":{"pending":"req-1"}}`,
	`{"output":"","isError":true,"metadata":{"pending":{"id":1,"kind":"input","prompt":"p"}}}`,
	`{"output":"","isError":true,"metadata":{"pending":{"kind":"input","data":"x","expiresAt":"soon"}}}`,
	`{"output":"","isError":false,"parts":[{"type":"IMAGE","mimeType":"image/png","data":"AAAA"}]}`,
	`{"output":"","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AA\r\nAA==","url":"data:image/png;base64,AAAA"}]}`,
	`{"output":"\u2028\ud800","isError":false,"metadata":{"n":-0,"big":1e308,"s":"\u0000<>&"}}`,
}

// dataURLs are data URLs and look-alikes to seed the URL parsers.
var dataURLs = []string{
	"data:image/png;base64," + fixtureBase64,
	"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==",
	"data:audio/wav;base64,UklGRgAAAABXQVZF",
	"DATA:image/png;base64,AAAA",
	"data:image/png,AAAA",
	"data:image/png;base64AAAA",
	"data:image/png;name=a.png;base64,AAAA",
	"data:;base64,AAAA",
	"data:image/png;base64,",
	"data:image/png;BASE64,AAAA",
	"data:png;base64,AAAA",
	"data:image/png;base64,AA%3D",
	"data:image/png;base64,AAAA\n",
	"data:",
	"data",
	"",
	"https://example.com/cat.png",
	"javascript:alert(1)",
	"cat.png",
}

// base64Inputs seed the base64 checks.
var base64Inputs = []string{
	"", "AAAA", "AA==", "AAA=", "AB==", "AAB=", "A===", "====", "=", "AA==AAAA",
	"AAAA\r\nAAAA", "AAAA\nAAA", "AA AA==", "AA-_", "AA*A", "AA\x00A", "AAA\xff",
	fixtureBase64, "JVBERi0xLjQgdGlueQ==", "UklGRgAAAABXQVZF", "AAAAAA",
}

// sentinels are the errors a parser of untrusted input may return.
var sentinels = []error{
	ErrUnknownPartType, ErrUnknownExtension, ErrMissingMIMEType, ErrInvalidMIMEType,
	ErrInvalidPart, ErrInvalidBase64, ErrInvalidDataURL, ErrPartTooLarge,
	ErrInvalidRequest, ErrInvalidExpiry,
}

// requireSentinel fails unless err matches one of the sentinels and its
// message is prefixed and short.
func requireSentinel(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "toolnexus: "), "unprefixed error %q", msg)
	require.LessOrEqual(t, len(msg), 2*maxMessage, "long error message %q", msg)
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %q matches no sentinel", msg)
}

func FuzzParseDataURL(f *testing.F) {
	for _, s := range dataURLs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mimeType, data, err := parseDataURL(s)
		if err != nil {
			require.True(t, errors.Is(err, ErrInvalidDataURL) || errors.Is(err, ErrInvalidMIMEType), "%v", err)
			requireSentinel(t, err)
			require.Empty(t, mimeType)
			require.Empty(t, data)
			return
		}
		// Accepted: exactly data:<type/subtype>;base64,<non-empty data>,
		// the scheme in any case, nothing dropped or added.
		require.True(t, strings.EqualFold(s[:5], "data:"))
		require.Equal(t, s[5:], mimeType+";base64,"+data)
		require.NoError(t, checkMIMEType(mimeType))
		require.NotContains(t, mimeType, ";")
		require.NotContains(t, mimeType, ",")
		require.NotEmpty(t, data)
	})
}

func FuzzCheckBase64(f *testing.F) {
	for _, s := range base64Inputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := checkBase64(s)
		decoded, refErr := base64.StdEncoding.Strict().DecodeString(s)
		// The reference: Go's strict decoder, which also skips \r and \n.
		want := refErr == nil && !strings.ContainsAny(s, "\r\n")
		require.Equal(t, want, err == nil, "checkBase64(%q) = %v, strict decoder: %v", s, err, refErr)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidBase64)
			requireSentinel(t, err)
			return
		}
		require.Equal(t, int64(len(decoded)), decodedLen(s))
		require.Equal(t, s, base64.StdEncoding.EncodeToString(decoded), "accepted base64 is canonical")
	})
}

func FuzzPartFromURL(f *testing.F) {
	for _, s := range dataURLs {
		for _, m := range []string{"", "image/png", "application/pdf", "IMAGE/PNG", "image/png; q=1"} {
			f.Add(s, m)
		}
	}
	f.Fuzz(func(t *testing.T, url, mimeType string) {
		p, err := PartFromURL(url, mimeType)
		if err != nil {
			requireSentinel(t, err)
			require.Equal(t, ContentPart{}, p)
			return
		}
		// Whatever the constructor accepts, Validate accepts.
		require.NoError(t, p.Validate())
		require.Equal(t, typeOf(p.MIMEType), p.Type)
		require.Empty(t, p.Text)
		require.Empty(t, p.Name)
		if isDataURL(url) {
			require.Empty(t, p.URL, "a data URL is stored as data")
			require.NotEmpty(t, p.Data)
			require.True(t, strings.HasSuffix(url, ";base64,"+p.Data))
			if mimeType != "" {
				require.True(t, strings.EqualFold(mimeType, p.MIMEType), "%q holds %q", url, p.MIMEType)
			}
			// The limit variant agrees: at the size accepted, one below refused.
			q, err := PartFromURLLimit(url, mimeType, p.Size())
			require.NoError(t, err)
			require.Equal(t, p, q)
			_, err = PartFromURLLimit(url, mimeType, p.Size()-1)
			var tooLarge *PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			require.Equal(t, PartTooLargeError{Limit: p.Size() - 1, Size: p.Size()}, *tooLarge)
			return
		}
		require.Equal(t, ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, URL: url}, p)
	})
}

func FuzzDecodeToolResult(f *testing.F) {
	for _, s := range wireResults {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var r ToolResult
		if json.Unmarshal(src, &r) != nil {
			return
		}
		err := r.Validate()
		req, pending := PendingOf(r)
		_, hasKey := r.Metadata[MetadataPending]
		require.False(t, pending && !hasKey)
		require.Equal(t, pending, r.IsPending())
		if err != nil {
			requireSentinel(t, err)
		} else {
			for _, p := range r.Parts {
				require.NoError(t, p.Validate())
				if p.Type != PartText && p.Data != "" {
					_, err := p.SHA256()
					require.NoError(t, err)
					decoded, err := base64.StdEncoding.DecodeString(p.Data)
					require.NoError(t, err)
					require.Equal(t, int64(len(decoded)), p.Size())
				}
			}
			if hasKey {
				require.True(t, pending, "a valid result with a pending key is a suspension")
				require.NoError(t, req.Validate())
			}
		}

		// Every output works on any decoded result and carries no data.
		red := r.Redacted()
		for _, p := range red.Parts {
			require.Empty(t, p.Data)
		}
		redJSON, err := json.Marshal(red)
		require.NoError(t, err)
		require.True(t, json.Valid(redJSON))
		_ = r.String()
		_ = fmt.Sprintf("%v %#v %q", r, r, r)
		slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)).Info("r", "r", r)

		// A decoded result re-encodes stably.
		requireStableJSON(t, r)
	})
}

// requireStableJSON checks that r survives marshal→unmarshal→marshal
// byte for byte, and returns the value read back.
func requireStableJSON(t *testing.T, r ToolResult) ToolResult {
	t.Helper()
	first, err := json.Marshal(r)
	require.NoError(t, err)
	var back ToolResult
	require.NoError(t, json.Unmarshal(first, &back))
	second, err := json.Marshal(back)
	require.NoError(t, err)
	require.Equal(t, string(first), string(second))
	return back
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("fixture.png (image/png, 82 bytes)", false, []byte("\x89PNG\r\n\x1a\n"), "image/png", "", "", "")
	f.Add("report", false, []byte("%PDF-1.4 tiny"), "application/pdf", "report.pdf", "title", "search: usage")
	f.Add("Which environment?", true, []byte{}, "", "", MetadataPending, "req-1")
	f.Add("Deploy?", true, []byte{1, 2, 3}, "", "", MetadataPending, "req-2")
	f.Add("\u2028<&>\xff", true, []byte{0, 1, 2}, "audio/wav", "a\x00b", "k\xfe", "v\ud7ff")
	f.Fuzz(func(t *testing.T, output string, isError bool, payload []byte, mimeType, name, key, value string) {
		r := ToolResult{Output: output, IsError: isError}
		if p, err := PartFromBytes(payload, mimeType); err == nil {
			r.Parts = append(r.Parts, p.WithName(name))
		}
		if u, err := PartFromURL("https://example.com/"+name, mimeType); err == nil {
			r.Parts = append(r.Parts, u)
		}
		r.Parts = append(r.Parts, TextPart(value))
		if key != "" {
			r = r.WithMetadata(key, value).WithMetadata(key+".n", len(payload))
		}
		if key == MetadataPending {
			req := Request{ID: value, Kind: KindInput, Prompt: output, URL: "https://example.com/" + name}
			if len(payload) > 0 {
				// A Request marshals its keys in struct order, the Request read
				// back into a map in sorted order: data and expiresAt move, the
				// JSON stays equal, and it is byte-stable from there on.
				req.Data = map[string]any{"n": len(payload)}
				req = req.WithExpiry(time.Unix(int64(len(payload)), 0))
				first, err := json.Marshal(r.WithMetadata(MetadataPending, req))
				require.NoError(t, err)
				var back ToolResult
				require.NoError(t, json.Unmarshal(first, &back))
				second := requireStableJSON(t, back)
				again, err := json.Marshal(second)
				require.NoError(t, err)
				require.JSONEq(t, string(first), string(again))
				got, ok := PendingOf(second)
				require.True(t, ok)
				assert.Equal(t, req.ExpiresAt, got.ExpiresAt)
				assert.Equal(t, float64(len(payload)), got.Data["n"])
				return
			}
			r = r.WithMetadata(MetadataPending, req)
		}
		if !allValidUTF8(output, name, key, value) {
			// JSON carries valid UTF-8 only: encoding/json writes an invalid
			// byte as the escape \ufffd but the U+FFFD read back as itself,
			// so stability starts from the first value read back.
			first, err := json.Marshal(r)
			require.NoError(t, err)
			var back ToolResult
			require.NoError(t, json.Unmarshal(first, &back))
			requireStableJSON(t, back)
			return
		}
		back := requireStableJSON(t, r)
		assert.Equal(t, r.Output, back.Output)
		assert.Equal(t, r.IsError, back.IsError)
		assert.Equal(t, r.Parts, back.Parts)
		if key != "" && key != MetadataPending {
			assert.Equal(t, value, back.Metadata[key])
			assert.Equal(t, float64(len(payload)), back.Metadata[key+".n"])
		}
		if key == MetadataPending {
			req, ok := PendingOf(back)
			require.True(t, ok)
			assert.Equal(t, r.Metadata[MetadataPending], req)
		}
	})
}

// FuzzPartFromBytes checks the package's own base64 encoder against
// encoding/base64, through bytes and through readers of every chunking.
func FuzzPartFromBytes(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), "image/png")
	f.Add([]byte("%PDF-1.4 tiny"), "application/pdf")
	f.Add(bytes.Repeat([]byte{0xff, 0x00, 0x7f}, 700), "audio/wav")
	f.Add([]byte{}, "image/png")
	f.Add([]byte("x"), "png")
	f.Fuzz(func(t *testing.T, b []byte, mimeType string) {
		p, err := PartFromBytes(b, mimeType)
		if err != nil {
			requireSentinel(t, err)
			if len(b) == 0 && checkMIMEType(mimeType) == nil {
				require.ErrorIs(t, err, ErrInvalidPart)
			}
			return
		}
		want := base64.StdEncoding.EncodeToString(b)
		require.Equal(t, want, p.Data)
		require.NoError(t, p.Validate())
		require.Equal(t, int64(len(b)), p.Size())
		for _, r := range []*bytes.Reader{bytes.NewReader(b)} {
			q, err := PartFromReaderLimit(iotest.HalfReader(r), mimeType, int64(len(b)))
			require.NoError(t, err)
			require.Equal(t, p, q)
		}
	})
}

// allValidUTF8 reports whether each of ss is valid UTF-8 (their
// concatenation may be valid when they are not).
func allValidUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
