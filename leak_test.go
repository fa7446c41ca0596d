package toolnexus

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tool results go into logs, transcripts and other processes. Nothing the
// package prints, logs or puts in an error may carry a part's payload: each
// output of a 1 MiB part stays under 1 KiB and holds no piece of its data.

const maxLeakOutput = 1024

// secretPayload returns 1 MiB of random bytes and their base64: random, so
// that any 16 characters of the encoding are found nowhere else.
func secretPayload() ([]byte, string) {
	raw := make([]byte, mib)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	return raw, base64.StdEncoding.EncodeToString(raw)
}

// assertNoPayload fails if out is 1 KiB or more or holds any of a few
// windows of data of the given width, taken from its start, middle and end.
func assertNoPayload(t *testing.T, out, data string, width int) {
	t.Helper()
	assert.Less(t, len(out), maxLeakOutput, "output of %d bytes", len(out))
	for _, at := range []int{0, len(data) / 3, len(data) / 2, len(data) - width} {
		if w := data[at : at+width]; strings.Contains(out, w) {
			t.Errorf("output holds payload bytes %d..%d: %.200q", at, at+width, out)
			return
		}
	}
}

// fmtVerbs are the ways fmt may be asked to print a value.
var fmtVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v", "%-40s", "%#q"}

// logOutputs logs v through each slog handler in three ways, as an
// attribute, inside a group and through Logger.With, and returns the records
// each handler wrote.
func logOutputs(v any) map[string][]string {
	out := map[string][]string{}
	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"TextHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		"JSONHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		for _, log := range []func(*slog.Logger){
			func(l *slog.Logger) { l.Info("tool", "v", v) },
			func(l *slog.Logger) { l.Info("tool", slog.Group("g", slog.Any("v", v))) },
			func(l *slog.Logger) { l.With("v", v).Info("with") },
		} {
			var b bytes.Buffer
			log(slog.New(newHandler(&b)))
			out[name] = append(out[name], b.String())
		}
	}
	return out
}

func TestNothingLeaked(t *testing.T) {
	_, data := secretPayload()
	img := ContentPart{Type: PartImage, MIMEType: "image/png", Data: data}
	pdf := ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	req := Request{ID: "req-1", Kind: KindApproval, Prompt: "Send this?", Data: map[string]any{"attachment": img}}

	subjects := []struct {
		name  string
		v     any
		slogs bool // slog can redact it (not a bare slice or map)
	}{
		{"image part", img, true},
		{"file part", pdf, true},
		{"part pointer", &img, true},
		{"result with parts", Ok("two files", img, pdf), true},
		{"error result with part", Error("failed", img), true},
		{"result pointer", &ToolResult{Output: "pointer", Parts: []ContentPart{img}}, true},
		{"part in metadata", Ok("x").WithMetadata("attachment", img), true},
		{"part pointer in metadata", Ok("x").WithMetadata("attachment", &img), true},
		{"parts in metadata", Ok("x").WithMetadata("attachments", []ContentPart{img, pdf}), true},
		{"result in metadata", Ok("outer").WithMetadata("inner", Ok("inner", img)), true},
		{"part in a suspension's request", Pending(req), true},
		{"request holding a part", req, true},
		{"redacted result", Ok("x", img).WithMetadata("attachment", img).Redacted(), true},
		// fmt prints each element with ContentPart.Format; slog's JSONHandler
		// would json-encode these whole (see TestSlogJSONCannotRedactBareParts).
		{"slice of parts", []ContentPart{img, pdf}, false},
		{"slice of part pointers", []*ContentPart{&img, &pdf}, false},
		{"map of parts", map[string]ContentPart{"a": img}, false},
		{"slice of any", []any{img, Ok("x", pdf)}, false},
	}
	for _, s := range subjects {
		t.Run(s.name, func(t *testing.T) {
			for _, verb := range fmtVerbs {
				assertNoPayload(t, fmt.Sprintf(verb, s.v), data, 16)
			}
			assertNoPayload(t, fmt.Sprint(s.v), data, 16)
			assertNoPayload(t, fmt.Sprintln(s.v), data, 16)
			if st, ok := s.v.(fmt.Stringer); ok {
				assertNoPayload(t, st.String(), data, 16)
			}
			if gs, ok := s.v.(fmt.GoStringer); ok {
				assertNoPayload(t, gs.GoString(), data, 16)
			}
			if lv, ok := s.v.(slog.LogValuer); ok {
				assertNoPayload(t, lv.LogValue().Resolve().String(), data, 16)
			}
			// TextHandler formats values it cannot resolve with fmt's %+v,
			// which reaches each part's Format.
			handlers := logOutputs(s.v)
			for _, record := range handlers["TextHandler"] {
				assertNoPayload(t, record, data, 16)
			}
			if s.slogs {
				for _, record := range handlers["JSONHandler"] {
					assertNoPayload(t, record, data, 16)
				}
			}
		})
	}
}

// This is why the godoc says to log the result: slog json-encodes a bare
// slice or map of parts, and a part alone costs nothing to log safely.
func TestSlogJSONCannotRedactBareParts(t *testing.T) {
	_, data := secretPayload()
	img := ContentPart{Type: PartImage, MIMEType: "image/png", Data: data}
	for _, v := range []any{[]ContentPart{img}, map[string]ContentPart{"a": img}} {
		for _, record := range logOutputs(v)["JSONHandler"] {
			assert.Contains(t, record, data)
		}
	}
	for _, record := range logOutputs(Ok("x", img))["JSONHandler"] {
		assertNoPayload(t, record, data, 16)
	}
}

// The description a part logs is exact, so a reviewer can see what is there.
func TestLoggedFields(t *testing.T) {
	_, data := secretPayload()
	pdf := ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: dropTime})).
		Info("tool", "part", pdf, "result", Ok("report.pdf (application/pdf, 1048576 bytes)", pdf).WithMetadata("attachment", pdf))
	assert.Equal(t, `{"level":"INFO","msg":"tool",`+
		`"part":{"type":"file","mimeType":"application/pdf","size":1048576,"name":"report.pdf"},`+
		`"result":{"output":"report.pdf (application/pdf, 1048576 bytes)","isError":false,`+
		`"parts":{"0":{"type":"file","mimeType":"application/pdf","size":1048576,"name":"report.pdf"}},`+
		`"metadata":{"attachment":{"type":"file","mimeType":"application/pdf","size":1048576,"name":"report.pdf"}}}}`+"\n",
		b.String())
	assert.Equal(t, "file (application/pdf, 1048576 bytes)", fmt.Sprint(pdf))
	assert.Equal(t, `toolnexus.ContentPart{Type:"file", Text:"", MIMEType:"application/pdf", Data:"<1048576 bytes>", URL:"", Name:"report.pdf"}`,
		fmt.Sprintf("%#v", pdf))
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// A nil pointer in metadata is logged as such, not as a panic that loses
// the whole result.
func TestLogNilPointerInMetadata(t *testing.T) {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: dropTime})).
		Info("tool", "result", Ok("x").WithMetadata("part", (*ContentPart)(nil)).WithMetadata("req", (*Request)(nil)))
	assert.Equal(t, `{"level":"INFO","msg":"tool","result":{"output":"x","isError":false,`+
		`"metadata":{"part":"*toolnexus.ContentPart(nil)","req":"*toolnexus.Request(nil)"}}}`+"\n", b.String())
}

// Error messages name the offending value by a prefix of at most 40 bytes,
// so no error carries more than that of a payload.
func TestErrorsCarryNoPayload(t *testing.T) {
	_, data := secretPayload()
	bad := data[:len(data)-4] + "AA*A"
	dataURL := "data:image/png;base64," + data
	img := ContentPart{Type: PartImage, MIMEType: "image/png", Data: data}

	errs := map[string]error{}
	add := func(name string, err error) {
		require.Error(t, err, name)
		errs[name] = err
	}
	add("base64 over limit", second(PartFromBase64Limit(data, "image/png", kib)))
	add("data URL over limit", second(PartFromURLLimit(dataURL, "", kib)))
	add("reader over limit", second(PartFromReaderLimit(strings.NewReader(data), "image/png", kib)))
	add("data URL MIME mismatch", second(PartFromURL(dataURL, "image/jpeg")))
	add("data URL upper-case BASE64", second(PartFromURL("data:image/png;BASE64,"+data, "")))
	add("data URL with parameters", second(PartFromURL("data:image/png;x=y;base64,"+data, "")))
	add("data URL bad base64", second(PartFromURL("data:image/png;base64,"+bad, "")))
	add("base64 bad byte at end", second(PartFromBase64(bad, "image/png")))
	add("base64 bad length", second(PartFromBase64(data+"A", "image/png")))
	add("base64 bad padding bits", second(PartFromBase64(data[:len(data)-4]+"AB==", "image/png")))
	add("Validate bad base64", ContentPart{Type: PartImage, MIMEType: "image/png", Data: bad}.Validate())
	add("Validate data URL in url", ContentPart{Type: PartImage, MIMEType: "image/png", URL: dataURL}.Validate())
	add("Validate both", ContentPart{Type: PartImage, MIMEType: "image/png", Data: data, URL: "https://example.com/a.png"}.Validate())
	add("Validate wrong MIME", ContentPart{Type: PartAudio, MIMEType: "image/png", Data: data}.Validate())
	add("Validate text part with data", ContentPart{Type: PartText, Data: data}.Validate())
	add("Validate unknown type", ContentPart{Type: PartType(data), Data: data}.Validate())
	add("result Validate", Ok("x", img, ContentPart{Type: PartImage, MIMEType: "image/png", Data: bad}).Validate())
	add("SHA256 bad base64", third(ContentPart{Type: PartImage, MIMEType: "image/png", Data: bad}.SHA256()))
	add("request with payload in url", suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", URL: dataURL + " x"}).Validate())
	add("expiry holding payload", suspension(Request{ID: "r", Kind: KindInput, Prompt: "p", ExpiresAt: data}).Validate())

	for name, err := range errs {
		t.Run(name, func(t *testing.T) {
			// 64 > 40: a quoted prefix never holds a 64-byte window.
			assertNoPayload(t, err.Error(), data, 64)
			assertNoPayload(t, fmt.Sprintf("%+v", err), data, 64)
		})
	}
}

func second[T any](_ T, err error) error { return err }

func third[T any](_ T, err error) error { return err }

// Redacted keeps the shape of a result, with every payload replaced by its
// size and SHA-256, for stores that must not keep payloads.
func TestRedacted(t *testing.T) {
	raw, data := secretPayload()
	sum := sha256.Sum256(raw)
	img := ContentPart{Type: PartImage, MIMEType: "image/png", Data: data}
	pdf := ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	link := ContentPart{Type: PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	r := Ok("three", img, link, TextPart("hi")).
		WithMetadata("attachment", pdf).
		WithMetadata("pointer", &pdf).
		WithMetadata("list", []ContentPart{img}).
		WithMetadata("inner", Ok("inner", img)).
		WithMetadata("count", 2)
	before, err := json.Marshal(r)
	require.NoError(t, err)

	red := r.Redacted()
	out, err := json.Marshal(red)
	require.NoError(t, err)
	assert.True(t, json.Valid(out))
	assertNoPayload(t, string(out), data, 16)

	// Same shape: the parts in order, each without its data.
	assert.Equal(t, []ContentPart{{Type: PartImage, MIMEType: "image/png"}, link, TextPart("hi")}, red.Parts)
	assert.Equal(t, []string{
		"image (image/png, 1048576 bytes) sha256:" + hex.EncodeToString(sum[:]),
		"image (image/png, url)",
		"text (2 bytes)",
	}, red.Metadata[MetadataRedacted])
	assert.Equal(t, ContentPart{Type: PartFile, MIMEType: "application/pdf", Name: "report.pdf"}, red.Metadata["attachment"])
	assert.Equal(t, &ContentPart{Type: PartFile, MIMEType: "application/pdf", Name: "report.pdf"}, red.Metadata["pointer"])
	assert.Equal(t, []ContentPart{{Type: PartImage, MIMEType: "image/png"}}, red.Metadata["list"])
	assert.Equal(t, 2, red.Metadata["count"])
	assert.Equal(t, "three", red.Output)

	// The original is untouched: nothing was redacted in place.
	after, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	assert.Equal(t, data, pdf.Data)
	assert.NotContains(t, r.Metadata, MetadataRedacted)
}

// SHA256 hashes the decoded content, so a store can deduplicate a payload
// however it arrived and whatever it is named.
func TestSHA256Dedup(t *testing.T) {
	raw, data := secretPayload()
	want := sha256.Sum256(raw)
	fromBytes, err := PartFromBytes(raw, "application/pdf")
	require.NoError(t, err)
	fromBase64, err := PartFromBase64(data, "application/pdf")
	require.NoError(t, err)
	fromURL, err := PartFromURL("data:application/pdf;base64,"+data, "")
	require.NoError(t, err)
	fromReader, err := PartFromReaderLimit(bytes.NewReader(raw), "application/pdf", mib)
	require.NoError(t, err)
	for _, p := range []ContentPart{fromBytes, fromBase64, fromURL, fromReader, fromBytes.WithName("other.pdf")} {
		got, err := p.SHA256()
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}

	text, err := TextPart("hello").SHA256()
	require.NoError(t, err)
	assert.Equal(t, sha256.Sum256([]byte("hello")), text)

	other, err := ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: "AAAA"}.SHA256()
	require.NoError(t, err)
	assert.NotEqual(t, want, other)

	_, err = ContentPart{Type: PartImage, MIMEType: "image/png", URL: "https://example.com/a.png"}.SHA256()
	require.ErrorIs(t, err, ErrInvalidPart)
	_, err = ContentPart{Type: PartImage, MIMEType: "image/png", Data: "AA\nA"}.SHA256()
	require.ErrorIs(t, err, ErrInvalidBase64)
}
