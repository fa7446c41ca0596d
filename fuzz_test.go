package toolnexus_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// Fuzz targets for every parser of input from outside. Plain `go test` runs
// the seeds below and every case under testdata/fuzz; `go test -fuzz`
// explores.

// wireResults are the ToolResult shapes of WIRE.md, plus hostile variants.
var wireResults = []string{
	`{"output":"eu-west-1","isError":false}`,
	`{"output":"No such config key: nope","isError":true}`,
	`{"output":"2 results","isError":false,"metadata":{"count":2,"ids":[1,2],"title":"search: usage"}}`,
	`{"output":"fixture.png (image/png, 82 bytes)","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="}]}`,
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
	`{"output":"a","Output":"b","ISERROR":true,"is\u0045rror":false,"iſError":true,"parts":[{"TYPE":"image","type":"text","name":"../x"}]}`,
	`{"output":"a","output":null,"metadata":{"a":1},"metadata":{"b":2}}`,
}

// dataURLs are data URLs and look-alikes to seed the URL parsers.
var dataURLs = []string{
	"data:image/png;base64,iVBORw0KGgo=",
	"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==",
	"data:audio/wav;base64,UklGRgAAAABXQVZF",
	"DATA:image/png;base64,AAAA",
	"data:image/png;BASE64,AAAA",
	"data:text/plain;charset=utf-8;base64,aGk=",
	"data: image/png ;name=a.png;base64,AAAA",
	"data:image/png,AAAA",
	"data:image/png;base64AAAA",
	"data:;base64,AAAA",
	"data:image/png;base64,",
	"data:image/png;x;base64,AAAA",
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

// mediaType is the oracle for what a part keeps of m, a MIME type the
// package took: the media type mime.ParseMediaType finds in m, spelled as m
// spells it (the standard library gives it in lower case), and the part
// type the docs give its top-level type: image, audio, else file.
func mediaType(t *testing.T, m string) (string, toolnexus.PartType) {
	t.Helper()
	mt, _, err := mime.ParseMediaType(m)
	require.NoError(t, err, "the package took %q, which mime.ParseMediaType refuses", m)
	written := strings.TrimSpace(m)
	require.GreaterOrEqual(t, len(written), len(mt), "%q", m)
	written = written[:len(mt)]
	require.True(t, strings.EqualFold(mt, written), "%q does not begin with %q", m, mt)
	switch top, _, _ := strings.Cut(mt, "/"); top {
	case "image":
		return written, toolnexus.PartImage
	case "audio":
		return written, toolnexus.PartAudio
	}
	return written, toolnexus.PartFile
}

func FuzzParseDataURL(f *testing.F) {
	for _, s := range dataURLs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mimeType, data, err := toolnexus.ParseDataURL(s)
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
			require.True(t, errors.Is(err, toolnexus.ErrInvalidDataURL) || errors.Is(err, toolnexus.ErrInvalidMIMEType) ||
				errors.Is(err, toolnexus.ErrMissingMIMEType), "%v", err)
			require.Empty(t, mimeType)
			require.Empty(t, data)
			return
		}
		// Accepted: data:<type/subtype>[;params];base64,<data>, the scheme
		// and "base64" in any case; the media type keeps no parameter, the
		// data is all that follows the first comma.
		require.True(t, strings.EqualFold(s[:5], "data:"))
		meta, rest, ok := strings.Cut(s[5:], ",")
		require.True(t, ok)
		require.Equal(t, rest, data)
		require.NotEmpty(t, data)
		require.True(t, strings.HasSuffix(strings.ToLower(meta), ";base64"), "%q", meta)
		written, _ := mediaType(t, meta[:len(meta)-len(";base64")])
		require.Equal(t, written, mimeType)
		require.NotContains(t, mimeType, ";")
		require.NotContains(t, mimeType, ",")
		require.NoError(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: mimeType, URL: "https://example.com"}.Validate())
	})
}

func FuzzPartFromURL(f *testing.F) {
	for _, s := range dataURLs {
		for _, m := range []string{"", "image/png", "application/pdf", "IMAGE/PNG", "image/png; q=1"} {
			f.Add(s, m)
		}
	}
	f.Fuzz(func(t *testing.T, url, mimeType string) {
		p, err := toolnexus.PartFromURL(url, mimeType)
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
			require.Equal(t, toolnexus.ContentPart{}, p)
			return
		}
		// Whatever the constructor accepts, Validate accepts.
		require.NoError(t, p.Validate())
		_, typ := mediaType(t, p.MIMEType)
		require.Equal(t, typ, p.Type)
		require.Empty(t, p.Text)
		require.Empty(t, p.Name)
		if !strings.HasPrefix(strings.ToLower(url), "data:") {
			written, typ := mediaType(t, mimeType)
			require.Equal(t, toolnexus.ContentPart{Type: typ, MIMEType: written, URL: url}, p)
			return
		}
		require.Empty(t, p.URL, "a data URL is stored as data")
		_, data, _ := strings.Cut(url, ",")
		require.Equal(t, data, p.Data)
		if mimeType != "" {
			written, _ := mediaType(t, mimeType)
			require.True(t, strings.EqualFold(written, p.MIMEType), "%q holds %q", url, p.MIMEType)
		}
		// With a limit: accepted at the size, refused one below.
		q, err := toolnexus.PartReader{MaxBytes: p.Size(), MIMEType: mimeType}.URL(url)
		require.NoError(t, err)
		require.Equal(t, p, q)
		if p.Size() > 1 {
			_, err = toolnexus.PartReader{MaxBytes: p.Size() - 1, MIMEType: mimeType}.URL(url)
			var tooLarge *toolnexus.PartTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			require.Equal(t, toolnexus.PartTooLargeError{Limit: p.Size() - 1, Size: p.Size()}, *tooLarge)
		}
	})
}

// FuzzPartFromBytes checks the constructors that encode against
// encoding/base64, through bytes and through readers of every kind.
func FuzzPartFromBytes(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), "image/png")
	f.Add([]byte("%PDF-1.4 tiny"), "application/pdf")
	f.Add(bytes.Repeat([]byte{0xff, 0x00, 0x7f}, 700), "audio/wav; rate=8000")
	f.Add([]byte{}, "image/png")
	f.Add([]byte("x"), "png")
	f.Fuzz(func(t *testing.T, b []byte, mimeType string) {
		p, err := toolnexus.PartFromBytes(b, mimeType)
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
			return
		}
		written, typ := mediaType(t, mimeType)
		require.Equal(t, toolnexus.ContentPart{Type: typ, MIMEType: written, Data: base64.StdEncoding.EncodeToString(b)}, p)
		require.NoError(t, p.Validate())
		require.Equal(t, int64(len(b)), p.Size())
		pr := toolnexus.PartReader{MaxBytes: int64(len(b)), MIMEType: mimeType}
		for _, r := range []io.Reader{bytes.NewReader(b), iotest.HalfReader(bytes.NewReader(b)), iotest.OneByteReader(bytes.NewReader(b))} {
			q, err := pr.Reader(r)
			require.NoError(t, err)
			require.Equal(t, p, q)
		}
	})
}

func FuzzParseToolResult(f *testing.F) {
	for _, s := range wireResults {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		strict, strictErr := toolnexus.ParseToolResult(src, 0)
		r, err := toolnexus.DecodeExact(src)
		if err != nil {
			if json.Valid(src) {
				assertErr(t, err, toolnexus.ErrInvalidJSON, "")
			}
			require.Error(t, strictErr)
			return
		}
		err = r.Validate()
		if strictErr == nil {
			require.NoError(t, err)
			require.Equal(t, r, strict, "ParseToolResult is the exact reader, validated")
		} else if json.Valid(src) && bytes.TrimSpace(src)[0] == '{' && !pythonErrorFlag(src) { // DecodeExact reads null as a zero result
			require.Equal(t, err, strictErr)
		}
		req, pending := toolnexus.PendingOf(r)
		_, hasKey := r.Metadata[toolnexus.MetadataPending]
		require.False(t, pending && !hasKey)
		require.Equal(t, pending, r.IsPending())
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
		} else {
			for _, p := range r.Parts {
				require.NoError(t, p.Validate())
				if p.Type != toolnexus.PartText && p.Data != "" {
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
		for _, p := range r.Parts {
			require.Equal(t, p.Name, p.WithName(p.Name).Name, "a decoded name is a base name")
		}

		// Every output works on any decoded result and carries no data.
		red := r.Redacted()
		for _, p := range red.Parts {
			require.Empty(t, p.Data)
		}
		redJSON, err := json.Marshal(red)
		require.NoError(t, err)
		require.True(t, json.Valid(redJSON))
		_ = fmt.Sprintf("%v %#v %q", r, r, r)
		slog.New(slog.NewJSONHandler(io.Discard, nil)).Info("r", "r", r)

		// A decoded result encodes again, stable from there on.
		requireStableJSON(t, r)
	})
}

// requireStableJSON checks that r survives marshal, unmarshal and marshal
// byte for byte, and returns the value read back.
func requireStableJSON(t *testing.T, r toolnexus.ToolResult) toolnexus.ToolResult {
	t.Helper()
	first, err := json.Marshal(r)
	require.NoError(t, err)
	var back toolnexus.ToolResult
	require.NoError(t, json.Unmarshal(first, &back))
	second, err := json.Marshal(back)
	require.NoError(t, err)
	require.Equal(t, string(first), string(second))
	return back
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("fixture.png (image/png, 82 bytes)", false, []byte("\x89PNG\r\n\x1a\n"), "image/png", "", "", "")
	f.Add("report", false, []byte("%PDF-1.4 tiny"), "application/pdf", "report.pdf", "title", "search: usage")
	f.Add("Which environment?", true, []byte{}, "", "", toolnexus.MetadataPending, "req-1")
	f.Add("Deploy?", true, []byte{1, 2, 3}, "", "", toolnexus.MetadataPending, "req-2")
	f.Add("\u2028<&>\xff", true, []byte{0, 1, 2}, "audio/wav", "a\x00b", "k\xfe", "v\ud7ff")
	f.Fuzz(func(t *testing.T, output string, isError bool, payload []byte, mimeType, name, key, value string) {
		r := toolnexus.ToolResult{Output: output, IsError: isError}
		if p, err := toolnexus.PartFromBytes(payload, mimeType); err == nil {
			r.Parts = append(r.Parts, p.WithName(name))
		}
		if u, err := toolnexus.PartFromURL("https://example.com/"+name, mimeType); err == nil {
			r.Parts = append(r.Parts, u)
		}
		r.Parts = append(r.Parts, toolnexus.TextPart(value))
		if key != "" {
			r = r.WithMetadata(key, value).WithMetadata(key+".n", len(payload))
		}
		if key == toolnexus.MetadataPending {
			req := toolnexus.Request{ID: value, Kind: toolnexus.KindInput, Prompt: output, URL: "https://example.com/" + name}
			if len(payload) > 0 {
				// A Request marshals its keys in struct order, the Request read
				// back into a map in sorted order: data and expiresAt move, the
				// JSON stays equal, and it is byte-stable from there on.
				req.Data = map[string]any{"n": len(payload)}
				req = req.WithExpiry(time.Unix(int64(len(payload)), 0))
				first, err := json.Marshal(r.WithMetadata(toolnexus.MetadataPending, req))
				require.NoError(t, err)
				var back toolnexus.ToolResult
				require.NoError(t, json.Unmarshal(first, &back))
				second := requireStableJSON(t, back)
				again, err := json.Marshal(second)
				require.NoError(t, err)
				require.JSONEq(t, string(first), string(again))
				got, ok := toolnexus.PendingOf(second)
				require.True(t, ok)
				assert.Equal(t, req.ExpiresAt, got.ExpiresAt)
				assert.Equal(t, float64(len(payload)), got.Data["n"])
				return
			}
			r = r.WithMetadata(toolnexus.MetadataPending, req)
		}
		if !allValidUTF8(output, name, key, value) {
			// JSON carries valid UTF-8 only: encoding/json writes an invalid
			// byte as the escape \ufffd but the U+FFFD read back as itself,
			// so stability starts from the first value read back.
			first, err := json.Marshal(r)
			require.NoError(t, err)
			var back toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(first, &back))
			requireStableJSON(t, back)
			return
		}
		back := requireStableJSON(t, r)
		assert.Equal(t, r.Output, back.Output)
		assert.Equal(t, r.IsError, back.IsError)
		assert.Equal(t, r.Parts, back.Parts)
		if key != "" && key != toolnexus.MetadataPending {
			assert.Equal(t, value, back.Metadata[key])
			assert.Equal(t, float64(len(payload)), back.Metadata[key+".n"])
		}
		if key == toolnexus.MetadataPending {
			req, ok := toolnexus.PendingOf(back)
			require.True(t, ok)
			assert.Equal(t, r.Metadata[toolnexus.MetadataPending], req)
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

func FuzzFromMCPCallToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":true}`,
		`{"content":[{"type":"resource","resource":{"uri":"toolnexus:part/0/a%2","blob":"AA=="}}],"structuredContent":[1]}`,
		`{"content":[{"type":"resource_link","uri":"data:image/png;base64,AAAA"},{"type":"x"}]}`,
		`{"content":[{"type":"resource","resource":{"blob":"="}}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"x:a%00b%0Ac.pdf","mimeType":"text/plain; charset=utf-8","blob":"aGVsbG8="}}]}`,
		`{"content":[{"type":"text","text":"x","TYPE":"image","DATA":"AAAA"}],"isError":true,"ISERROR":false,"is\u0045rror":true}`,
		`{"content":[{"type":"resource_link","uri":"https://example.com/r","name":"../../etc/passwd","mimeType":"application/pdf"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"test://r","mimeType":"Text/Plain","text":"h\u00e9llo"}},{"type":"image","data":"iVBORw0KGgo=","mimeType":"Image/PNG"}],"structuredContent":{"a":1}}`,
		`{"resultType":"input_required","inputRequests":{"pnd-1":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}},"requestState":"s"}`,
		`{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string"}}}}}}}`,
		`{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}},"r":{"method":"roots/list"},"x":{"method":"x","params":null}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := toolnexus.FromMCPCallToolResult(data)
		if err != nil {
			assertErr(t, err, toolnexus.ErrInvalidMCP, "")
			return
		}
		if _, ok := r.Metadata[toolnexus.MetadataPending]; ok {
			// An input_required result: a suspension, which Validate
			// refuses when the peer sent no message to make its prompt.
			require.True(t, r.IsPending())
			require.Nil(t, r.Parts)
			return
		}
		require.NoError(t, r.Validate())
		for _, p := range r.Parts {
			require.Equal(t, p.Name, p.WithName(p.Name).Name, "a name from a peer is a base name")
		}
		// Whatever came in can go out again, and be read back with the
		// same media.
		_ = r.AnthropicToolResult("t")
		_ = r.OpenAIChatMessages("c", "n")
		_ = r.OpenAIResponsesOutput("c")
		_ = r.GeminiFunctionResponse("n", "c")
		_, _ = r.OpenAIAgentsToolResult("c", "t")
		out, err := json.Marshal(r.MCPCallToolResult())
		require.NoError(t, err)
		back, err := toolnexus.FromMCPCallToolResult(out)
		require.NoError(t, err)
		require.NoError(t, back.Validate())
		require.Equal(t, media(r.Parts), media(back.Parts))
		require.Equal(t, r.Metadata[toolnexus.MetadataResourceURIs], back.Metadata[toolnexus.MetadataResourceURIs], "resource URIs are restored")
		if sc, ok := r.Metadata[toolnexus.MetadataStructuredContent].(json.RawMessage); ok && sc[0] == '{' {
			require.Equal(t, sc, back.Metadata[toolnexus.MetadataStructuredContent], "structured content is restored")
		}
	})
}

// media returns the parts that are not text, without their names and with
// their MIME types in lower case, as MCP is sent them.
func media(parts []toolnexus.ContentPart) []toolnexus.ContentPart {
	var m []toolnexus.ContentPart
	for _, p := range parts {
		if p.Type != toolnexus.PartText {
			p.Name = ""
			p.MIMEType = strings.ToLower(p.MIMEType)
			m = append(m, p)
		}
	}
	return m
}

// FuzzPeerJSON checks the opening step the two readers of peer JSON share:
// with a limit of its size, input reads as it does without one, and one
// byte below, it is a JSON document too large, whatever it holds; input
// that is not JSON is said to be not JSON and where, never a JSON type.
func FuzzPeerJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"output":"x"}`, `{"content":[]}`, `nope`, `tru`, `tru `, `{"content":[`, ` null`, "\xff{}", ``, " \n", `{} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for name, parse := range map[string]func([]byte, int64) (toolnexus.ToolResult, error){
			"ParseToolResult":        toolnexus.ParseToolResult,
			"ParseMCPCallToolResult": toolnexus.ParseMCPCallToolResult,
		} {
			r, err := parse(data, 0)
			atSize, errAtSize := parse(data, int64(len(data)))
			require.Equal(t, r, atSize, name)
			require.Equal(t, err, errAtSize, name)
			if len(data) > 1 {
				_, err := parse(data, int64(len(data))-1)
				var tooLarge *toolnexus.PartTooLargeError
				require.ErrorAs(t, err, &tooLarge, name)
				require.Equal(t, toolnexus.PartTooLargeError{Limit: int64(len(data)) - 1, Size: int64(len(data)), Document: true}, *tooLarge, name)
			}
			if !json.Valid(data) {
				assertErr(t, err, sentinelOf(err), "")
				require.Regexp(t, `: the input is (empty, not JSON|not JSON: (it ends after \d+ bytes, inside a value|byte \d+ of \d+, ".+", cannot be there))$`, err.Error(), name)
			}
		}
	})
}

// fuzzForm is the schema of the form FuzzAnswerFromMCP answers: one property
// of every form MCP elicitation allows.
const fuzzForm = `{"type":"object","properties":{` +
	`"s":{"type":"string","minLength":1,"maxLength":8},"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},` +
	`"d":{"type":"string","format":"date"},"t":{"type":"string","format":"date-time","default":"2026-12-01T00:00:00Z"},` +
	`"n":{"type":"number","minimum":0,"maximum":1},"i":{"type":"integer","default":3},"b":{"type":"boolean"},` +
	`"c":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},"o":{"type":"string","oneOf":[{"const":"x","title":"X"}]},` +
	`"m":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b"]},"default":["a"]},` +
	`"k":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}},"required":["s"]}`

// FuzzAnswerFromMCP reads what a client answers, to each kind of request:
// an error is ErrInvalidMCP (ErrInvalidAnswer for content off the schema)
// and short; an answer echoes the request's id, survives JSON, and, for a
// form, holds content that the same check takes again unchanged.
func FuzzAnswerFromMCP(f *testing.F) {
	for _, s := range []string{
		`{"action":"accept","content":{"s":"hi","n":0.5,"b":true,"c":"a","m":["a","b"],"k":[]}}`,
		`{"action":"accept","content":{"s":"hi","e":"a@example.com","u":"https://example.com","d":"2026-01-31"}}`,
		`{"action":"accept","content":{"s":{"$ne":""}}}`,
		`{"action":"accept","content":{"s":42,"i":1.5,"m":["c"]}}`,
		`{"action":"decline"}`, `{"action":"cancel","content":[]}`, `{"action":"ACCEPT"}`, `12345`, `null`,
		`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`,
		`{"roots":[{"uri":"file:///a","name":"A"},{"uri":""}]}`,
	} {
		for kind := range 4 {
			f.Add(uint8(kind), []byte(s))
		}
	}
	reqs := []toolnexus.Request{
		{ID: "form", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"schema": json.RawMessage(fuzzForm)}},
		{ID: "login", Kind: toolnexus.KindAuthorization, Prompt: "p", URL: "https://example.com/login"},
		{ID: "sampling", Kind: toolnexus.KindSampling, Prompt: "p", Data: map[string]any{
			"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hi"}}}, "maxTokens": 5}},
		{ID: "roots", Kind: toolnexus.KindRoots, Prompt: "p"},
	}
	f.Fuzz(func(t *testing.T, kind uint8, response []byte) {
		req := reqs[int(kind)%len(reqs)]
		ans, err := req.AnswerFromMCP(response)
		if err != nil {
			assertErr(t, err, toolnexus.ErrInvalidMCP, "")
			return
		}
		require.Equal(t, req.ID, ans.ID)
		require.Equal(t, ans.OK, ans.Reason == "")
		b, err := json.Marshal(ans)
		require.NoError(t, err)
		var back toolnexus.Answer
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, ans, back, "an answer survives JSON")
		if req.ID == "form" && ans.OK {
			content, err := json.Marshal(ans.Data)
			require.NoError(t, err)
			again, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":` + string(content) + `}`))
			require.NoError(t, err, "checked content passes its check again")
			require.Equal(t, ans, again)
			require.Contains(t, ans.Data, "s", "a required property is there")
			require.Contains(t, ans.Data, "m", "defaults are applied")
		}
	})
}

// FuzzElicitSchema reads schemas as a caller or a peer writes them: a schema
// is taken or refused with ErrInvalidRequest, never a panic; one that is
// taken is sent as it was read, reads back as a request that asks the same,
// and checks its own defaults.
func FuzzElicitSchema(f *testing.F) {
	f.Add([]byte(fuzzForm))
	for _, s := range []string{
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":[]}},"required":["a","a"]}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]},"default":["x","x"],"maxItems":1}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1e308,"maximum":-1e308,"default":1e308}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"date-time","default":"2026-13-01T00:00:00Z"}},"$schema":1}`,
		`{"TYPE":"object","properties":{"a":{"type":"string","MINLENGTH":-1}}}`,
		`{"type":"object","properties":{"a":{"type":"string","default":"x","maxLength":0}}}`,
		`[[[[[[[[[[{"type":"object"}]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		// What a peer sends is read back, whatever it holds.
		_ = toolnexus.RequestFromMCPElicitParams("id", toolnexus.MCPElicitParams{Mode: "form", Message: "m", RequestedSchema: schema})
		if !json.Valid(schema) {
			return
		}
		req := toolnexus.Request{ID: "id", Kind: toolnexus.KindInput, Prompt: "m", Data: map[string]any{"schema": json.RawMessage(schema)}}
		p, err := req.MCPElicitParams()
		if err != nil {
			assertErr(t, err, toolnexus.ErrInvalidRequest, "")
			return
		}
		require.True(t, json.Valid(p.RequestedSchema))
		back := toolnexus.RequestFromMCPElicitParams(req.ID, p)
		if back.Kind == toolnexus.KindInput {
			again, err := back.MCPElicitParams()
			require.NoError(t, err)
			require.Equal(t, p, again, "read back, it asks the same")
		}
		// An empty form answer is taken, with the defaults, or refused for
		// a missing required property only.
		ans, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{}}`))
		if err != nil {
			assertErr(t, err, toolnexus.ErrInvalidAnswer, "")
			require.Contains(t, err.Error(), "required property")
			return
		}
		content, err := json.Marshal(ans.Data)
		require.NoError(t, err)
		again, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":` + string(content) + `}`))
		require.NoError(t, err, "defaults pass their own check")
		require.Equal(t, ans, again)
	})
}

// FuzzPartReaderFS reads a file of a fake fs.FS driven by the input: its
// content, the size its Stat claims, the limit, and whether it can seek as
// an *os.File can. The read never panics; it gives a part holding exactly
// the content or an error matching a sentinel, and it allocates in
// proportion to what there is and may be read, never to the claim.
func FuzzPartReaderFS(f *testing.F) {
	f.Add([]byte(pdfBytes), int64(13), int64(0), false)
	f.Add([]byte(pdfBytes), int64(13), int64(12), true)
	f.Add([]byte(pdfBytes), int64(1<<49), int64(0), false)
	f.Add([]byte(pdfBytes), int64(-5), int64(0), false)
	f.Add([]byte(pdfBytes), int64(1<<40), int64(1<<20), false)
	f.Add([]byte(pdfBytes), int64(1<<40), int64(0), true)
	f.Add([]byte(pdfBytes), int64(2), int64(0), false)
	f.Add([]byte(pdfBytes), int64(math.MaxInt64), int64(math.MaxInt64), false)
	f.Add([]byte{}, int64(82), int64(0), false)
	f.Add(bytes.Repeat([]byte{7}, 3*readChunk), int64(readChunk+1), int64(2*readChunk), false)
	f.Fuzz(func(t *testing.T, content []byte, claim, limit int64, seek bool) {
		fsys := &fakeFS{data: content, claim: claim, seek: seek}
		var p toolnexus.ContentPart
		var err error
		alloc := allocated(func() {
			require.NotPanics(t, func() { p, err = toolnexus.PartReader{MaxBytes: limit}.FS(fsys, "doc.pdf") })
		})
		bound := 3*uint64(len(content)) + 256*kib
		require.LessOrEqual(t, alloc, bound, "allocated %d bytes for %d bytes of content claiming %d, limit %d", alloc, len(content), claim, limit)
		require.True(t, fsys.file.closed)
		if limit > 0 && limit < math.MaxInt64 {
			require.LessOrEqual(t, fsys.file.read, limit+1, "bytes read")
		}
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
			require.Zero(t, p)
			return
		}
		require.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: base64.StdEncoding.EncodeToString(content), Name: "doc.pdf"}, p)
		if limit > 0 {
			require.LessOrEqual(t, int64(len(content)), limit)
		}
	})
}

// FuzzJSONReader checks the exact-key reader, which every decoder of the
// package reads through: it never panics on any input, and on valid JSON
// it skips and reads strings as encoding/json does, but for those that are
// not UTF-8, which it refuses.
func FuzzJSONReader(f *testing.F) {
	for _, s := range wireResults {
		f.Add([]byte(s))
	}
	for _, s := range []string{`"a\"b\\"`, `"\ud800"`, "\"\xff\"", ` null `, `-1.5e3`, `[1,[2,{"a":"]"}]]`, `"x`, `{"a":`, `"\`, `tru`, `[`, `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var value []byte
		var end int
		var skipErr error
		require.NotPanics(t, func() { value, end, skipErr = toolnexus.JSONSkip(data) })
		var s string
		var strErr error
		require.NotPanics(t, func() { s, strErr = toolnexus.JSONString(data) })
		if !json.Valid(data) {
			return
		}
		switch notUTF8(data) {
		case yes:
			require.EqualError(t, skipErr, "a string is not valid UTF-8")
			require.Error(t, strErr)
			return
		case maybe:
			return
		}
		require.NoError(t, skipErr)
		require.Equal(t, len(bytes.TrimRight(data, " \t\r\n")), end, "skip reads the whole value, and no white space after it")
		require.Equal(t, string(bytes.TrimSpace(data)), string(value))
		switch value := bytes.TrimSpace(data); {
		case value[0] == '"':
			var want string
			require.NoError(t, json.Unmarshal(data, &want))
			require.NoError(t, strErr)
			require.Equal(t, want, s)
		case string(value) == "null":
			require.NoError(t, strErr)
			require.Empty(t, s)
		default:
			require.Error(t, strErr)
		}
	})
}

// FuzzExactKeys checks that exact keys change nothing for JSON whose keys
// are all exact and unique: the exact reader of ParseToolResult gives what
// encoding/json gives for a plain struct, parts and metadata included (a
// part's name cut to its base name). plainResult is that plain struct.
func FuzzExactKeys(f *testing.F) {
	for _, s := range wireResults {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !keysExactAndUnique(data) {
			return
		}
		got, gotErr := toolnexus.DecodeExact(data)
		switch notUTF8(data) {
		case yes:
			assertErr(t, gotErr, toolnexus.ErrInvalidJSON, "")
			return
		case maybe:
			return
		}
		var mirror plainResult
		mirrorErr := json.Unmarshal(data, &mirror)
		require.Equal(t, mirrorErr == nil, gotErr == nil, "ToolResult: %v, plain struct: %v", gotErr, mirrorErr)
		if gotErr != nil {
			assertErr(t, gotErr, toolnexus.ErrInvalidJSON, "")
			return
		}
		want := toolnexus.ToolResult{Output: mirror.Output, IsError: mirror.IsError, Metadata: mirror.Metadata}
		if len(mirror.Parts) > 0 { // "parts":[] is no parts
			want.Parts = make([]toolnexus.ContentPart, len(mirror.Parts))
			for i, p := range mirror.Parts {
				want.Parts[i] = toolnexus.ContentPart{Type: toolnexus.PartType(p.Type), Text: p.Text, MIMEType: p.MIMEType, Data: p.Data, URL: p.URL}.WithName(p.Name)
			}
		}
		require.Equal(t, want, got)
	})
}

// keysExactAndUnique reports whether the keys of a result and of its parts
// are each either a field's exact name or no field's name in any case
// (encoding/json matches "Output", and "ſ" and "K" fold to "s" and "k"),
// and appear once. It reads valid JSON only.
func keysExactAndUnique(data []byte) bool {
	return objectKeys(data, []string{"output", "isError", "parts", "metadata"}, func(key string, v json.RawMessage) bool {
		var parts []json.RawMessage
		if key != "parts" || json.Unmarshal(v, &parts) != nil {
			return true
		}
		for _, p := range parts {
			if !objectKeys(p, []string{"type", "text", "mimeType", "data", "url", "name"}, nil) {
				return false
			}
		}
		return true
	})
}

// objectKeys reports whether the keys of the JSON object data are exact and
// unique for fields, and each value passes check; any other JSON value
// passes.
func objectKeys(data []byte, fields []string, check func(key string, v json.RawMessage) bool) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return err == nil
	}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		key := tok.(string)
		for _, f := range fields {
			if key != f && strings.EqualFold(key, f) {
				return false
			}
		}
		if seen[key] {
			return false
		}
		seen[key] = true
		var v json.RawMessage
		if d.Decode(&v) != nil || check != nil && !check(key, v) {
			return false
		}
	}
	return true
}

// The answers of notUTF8.
const (
	no = iota
	yes
	maybe
)

// notUTF8 tells whether data, valid JSON, holds a string that is not UTF-8
// (raw bytes that are not, or a lone surrogate escape, which encoding/json
// reads as U+FFFD), under any key, repeated or not: maybe when data also
// holds a U+FFFD of its own.
func notUTF8(data []byte) int {
	if !utf8.Valid(data) {
		return yes
	}
	if bytes.Contains(data, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(data), []byte(`\ufffd`)) {
		return maybe
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		var number *json.UnmarshalTypeError // out of range: read on
		switch s, _ := tok.(string); {
		case err == io.EOF:
			return no
		case err != nil && !errors.As(err, &number):
			return maybe
		case strings.ContainsRune(s, utf8.RuneError):
			return yes
		}
	}
}

// pythonErrorFlag reports whether data, valid JSON, is an object with the
// key "is_error" and not "isError", which ParseToolResult refuses.
func pythonErrorFlag(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, underscore := m["is_error"]
	_, camel := m["isError"]
	return underscore && !camel
}

// FuzzParseTurn reads arbitrary turns.
func FuzzParseTurn(f *testing.F) {
	f.Add([]byte(parkedJSON))
	f.Add([]byte(`{"calls":[{"id":"c","name":"t","arguments":{"a":[1,{}]},"answers":[{"id":"r","ok":true,"data":{}}],"result":{"output":""}}]}`))
	f.Add([]byte(`{"calls":[{"id":"c","ID":"d","name":"t"},null]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		tr, err := toolnexus.ParseTurn(src, 0)
		if err != nil {
			assertErr(t, err, sentinelOf(err), "")
			require.Equal(t, toolnexus.Turn{}, tr)
			return
		}
		// Whatever it accepts is a valid turn that survives JSON and reads
		// back the same.
		require.NoError(t, tr.Validate())
		b, err := json.Marshal(tr)
		require.NoError(t, err)
		again, err := toolnexus.ParseTurn(b, 0)
		require.NoError(t, err)
		require.Equal(t, string(b), mustJSON(t, again))
		require.Equal(t, len(tr.Waiting()) == 0, tr.Complete())
	})
}
