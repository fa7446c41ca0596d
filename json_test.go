package toolnexus_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// plainResult and plainPart have the tags of ToolResult and ContentPart and
// no methods: what encoding/json makes of a result's JSON, which matches
// keys without regard to case.
type plainResult struct {
	Output   string         `json:"output"`
	IsError  bool           `json:"isError"`
	Parts    []plainPart    `json:"parts,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type plainPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
	URL      string `json:"url,omitempty"`
	Name     string `json:"name,omitempty"`
}

// toolText returns n bytes of what tools print: lines of a test run, with
// tabs, quotes, a Windows path's backslashes and text that is not ASCII,
// the same for every run.
func toolText(n int) string {
	var sb strings.Builder
	words := []string{"ok", "FAIL", "café", "naïve", "✓ passed", "状態", "😀"}
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "%5d\t%s: \"TestRead/case_%d\" in C:\\work\\pkg\\file_%d.go (%d.%03ds) — %s\n",
			i, words[i%len(words)], i, i%97, i%7, i%1000, words[(i*3)%len(words)])
	}
	s := sb.String()[:n]
	return strings.ToValidUTF8(s[:len(s)-4], "") + "done" // whole runes
}

// decode reads in into a fresh T as a peer's JSON is read: a result or a
// part with the exact-key reader of ParseToolResult (without its
// validation, so that odd parts show), a Request or an Answer with
// json.Unmarshal, which calls their exact UnmarshalJSON.
func decode[T any](t *testing.T, in string) T {
	t.Helper()
	var v T
	var err error
	switch p := any(&v).(type) {
	case *toolnexus.ToolResult:
		*p, err = toolnexus.DecodeExact([]byte(in))
	case *toolnexus.ContentPart:
		*p, err = toolnexus.DecodeExactPart([]byte(in))
	default:
		err = json.Unmarshal([]byte(in), &v)
	}
	require.NoError(t, err, "%s", in)
	return v
}

// TestUnmarshalExactKeys checks that every type reads its keys exactly, as
// every other toolnexus port and the MCP SDKs do, where encoding/json alone
// folds case and maps "ſ" to "s" and "K" (the Kelvin sign) to "k": a case
// variant of a key is an unknown key, an escaped key is the key, and the
// last of two equal keys wins.
func TestUnmarshalExactKeys(t *testing.T) {
	t.Parallel()
	t.Run("ToolResult", func(t *testing.T) {
		t.Parallel()
		for in, want := range map[string]toolnexus.ToolResult{
			`{"output":"x","isError":true,"ISERROR":false}`:                  {Output: "x", IsError: true},
			`{"IsError":false,"output":"x","isError":true}`:                  {Output: "x", IsError: true},
			`{"output":"x","ISERROR":true}`:                                  {Output: "x"},
			`{"Output":"x","OUTPUT":"y"}`:                                    {},
			`{"output":"x","iſError":true}`:                                  {Output: "x"},
			`{"output":"x","is\u0045rror":true}`:                             {Output: "x", IsError: true},
			`{"\u006futput":"x"}`:                                            {Output: "x"},
			`{"output":"x","isError":true,"isError":false}`:                  {Output: "x"},
			`{"output":"x","output":"y"}`:                                    {Output: "y"},
			`{"output":"x","output":null}`:                                   {},
			`{"output":"x","Parts":[{"type":"text","text":"t"}]}`:            {Output: "x"},
			`{"output":"x","METADATA":{"k":1}}`:                              {Output: "x"},
			`{"output":"x","metadata":{"k":1},"metadata":{"j":2}}`:           {Output: "x", Metadata: map[string]any{"j": 2.0}},
			`{"output":"x","metadata":{"K":1,"k":2,"\u212a":3}}`:             {Output: "x", Metadata: map[string]any{"K": 1.0, "k": 2.0, "\u212a": 3.0}},
			`{"output":"x","metadata":{"a":{"b":1},"a":{"c":[2]}}}`:          {Output: "x", Metadata: map[string]any{"a": map[string]any{"c": []any{2.0}}}},
			`{"output":"x","metadata":{"\ud83d\ude00":"\\ud800\u00e9"}}`:     {Output: "x", Metadata: map[string]any{"😀": `\ud800é`}},
			`{"output":"x","parts":[{"type":"text","text":"a"}],"parts":[]}`: {Output: "x"},
		} {
			assert.Equal(t, want, decode[toolnexus.ToolResult](t, in), "%s", in)
		}
	})
	t.Run("ContentPart", func(t *testing.T) {
		t.Parallel()
		for in, want := range map[string]toolnexus.ContentPart{
			`{"type":"text","text":"x","TYPE":"image","DATA":"AAAA","MIMETYPE":"image/png"}`:       {Type: toolnexus.PartText, Text: "x"},
			`{"Type":"image","mimetype":"image/png","Data":"AAAA","URL":"https://e.x","Name":"n"}`: {},
			`{"type":"image","mime\u0054ype":"image/png","data":"AAAA"}`:                           {Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"},
			`{"type":"image","type":"audio"}`:                                                      {Type: toolnexus.PartAudio},
			`{"type":"file","name":"a.pdf","name":null}`:                                           {Type: toolnexus.PartFile},
		} {
			assert.Equal(t, want, decode[toolnexus.ContentPart](t, in), "%s", in)
		}
	})
	t.Run("Request", func(t *testing.T) {
		t.Parallel()
		for in, want := range map[string]toolnexus.Request{
			`{"ID":"r","Kind":"input","PROMPT":"p","Url":"https://e.x","Data":{},"ExpiresAt":"2026-12-01T00:00:00Z"}`: {},
			`{"id":"r","\u212aind":"input","prompt":"p"}`:                                                             {ID: "r", Prompt: "p"},
			`{"id":"r","kind":"input","kind":"approval","prompt":"p"}`:                                                {ID: "r", Kind: "approval", Prompt: "p"},
			`{"id":"r","kin\u0064":"input","prompt":"p","expiresAt":null}`:                                            {ID: "r", Kind: "input", Prompt: "p"},
			`{"id":"r","kind":"input","prompt":"p","expiresAt":"x","expiresAt":"y"}`:                                  {ID: "r", Kind: "input", Prompt: "p", ExpiresAt: "y"},
			`{"id":"r","kind":"input","prompt":"p","data":{"n":1},"data":null,"extra":[]}`:                            {ID: "r", Kind: "input", Prompt: "p"},
		} {
			assert.Equal(t, want, decode[toolnexus.Request](t, in), "%s", in)
		}
	})
	t.Run("Answer", func(t *testing.T) {
		t.Parallel()
		for in, want := range map[string]toolnexus.Answer{
			`{"id":"x","OK":true}`:                        {ID: "x"},
			`{"id":"x","o\u212a":true}`:                   {ID: "x"},
			`{"id":"x","Ok":true,"ok":false,"oK":true}`:   {ID: "x"},
			`{"id":"x","ok":true,"ok":false}`:             {ID: "x"},
			`{"id":"x","\u006fk":true}`:                   {ID: "x", OK: true},
			`{"id":"x","ok":true,"DATA":{"a":1}}`:         {ID: "x", OK: true},
			`{"id":"x","Reason":"declined","ID":"other"}`: {ID: "x"},
		} {
			assert.Equal(t, want, decode[toolnexus.Answer](t, in), "%s", in)
		}
	})
}

// TestUnmarshalLenient checks what decoding accepts, as the other ports do:
// missing keys and null leave their field zero, unknown keys are ignored,
// and decoding replaces the whole value.
func TestUnmarshalLenient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		want     toolnexus.ToolResult
		wantWire string
	}{
		{"missing isError is false", `{"output":"done"}`, toolnexus.ToolResult{Output: "done"}, `{"output":"done","isError":false}`},
		{"missing output is empty", `{"isError":true}`, toolnexus.ToolResult{IsError: true}, `{"output":"","isError":true}`},
		{"null fields are zero", `{"output":null,"isError":null,"parts":null,"metadata":null}`, toolnexus.ToolResult{}, `{"output":"","isError":false}`},
		{"empty parts are none, empty metadata written as absent", `{"output":"done","isError":true,"parts":[],"metadata":{}}`,
			toolnexus.ToolResult{Output: "done", IsError: true, Metadata: map[string]any{}},
			`{"output":"done","isError":true}`},
		{"unknown keys are ignored", `{"output":"done","isError":true,"status":"x","extra":{"a":[1,"]}",{"b":null}]},"version":2}`,
			toolnexus.ToolResult{Output: "done", IsError: true}, `{"output":"done","isError":true}`},
		{"keys in another order", `{"metadata":{"k":"v"},"parts":[{"name":"r.pdf","data":"AAAA","mimeType":"application/pdf","type":"file"}],"isError":true,"output":"x"}`,
			toolnexus.ToolResult{Output: "x", IsError: true,
				Parts:    []toolnexus.ContentPart{{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: "AAAA", Name: "r.pdf"}},
				Metadata: map[string]any{"k": "v"}},
			`{"output":"x","isError":true,"parts":[{"type":"file","mimeType":"application/pdf","data":"AAAA","name":"r.pdf"}],"metadata":{"k":"v"}}`},
		{"part without text", `{"output":"x","parts":[{"type":"text"}]}`,
			toolnexus.ToolResult{Output: "x", Parts: []toolnexus.ContentPart{{Type: toolnexus.PartText}}},
			`{"output":"x","isError":false,"parts":[{"type":"text"}]}`},
		{"null part", `{"output":"x","parts":[null]}`,
			toolnexus.ToolResult{Output: "x", Parts: []toolnexus.ContentPart{{}}},
			`{"output":"x","isError":false,"parts":[{"type":""}]}`},
		{"unknown part keys are ignored", `{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":"AAAA","annotations":{"audience":["user"]}}]}`,
			toolnexus.ToolResult{Output: "x", Parts: []toolnexus.ContentPart{{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}}},
			`{"output":"x","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AAAA"}]}`},
		{"escapes and white space", " {\n\t\"output\" : \"a\\u00e9\\n\\ud83d\\ude00\" , \"isError\" : true } ",
			toolnexus.ToolResult{Output: "aé\n😀", IsError: true}, `{"output":"aé\n😀","isError":true}`},
		{"a surrogate pair", `{"output":"\ud83d\ude00\uD83D\uDE00"}`, toolnexus.ToolResult{Output: "😀😀"}, `{"output":"😀😀","isError":false}`},
		{"U+FFFD of its own", "{\"output\":\"\\ufffd\uFFFD\"}", toolnexus.ToolResult{Output: "\ufffd\ufffd"}, "{\"output\":\"\ufffd\ufffd\",\"isError\":false}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := decode[toolnexus.ToolResult](t, tt.in)
			assert.Equal(t, tt.want, got)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, tt.wantWire, string(b))
		})
	}
	t.Run("decoding replaces the whole value", func(t *testing.T) {
		t.Parallel()
		a := toolnexus.Answer{ID: "old", OK: true, Data: map[string]any{"k": 1}}
		require.NoError(t, json.Unmarshal([]byte(`{"id":"new"}`), &a))
		assert.Equal(t, toolnexus.Answer{ID: "new"}, a)
	})
	t.Run("null leaves the value as it is", func(t *testing.T) {
		t.Parallel()
		a := toolnexus.Answer{ID: "kept"}
		require.NoError(t, json.Unmarshal([]byte(` null `), &a))
		assert.Equal(t, toolnexus.Answer{ID: "kept"}, a)
	})
	t.Run("inside another value", func(t *testing.T) {
		t.Parallel()
		var stored struct {
			Answer  *toolnexus.Answer `json:"answer"`
			Request toolnexus.Request `json:"request"`
		}
		require.NoError(t, json.Unmarshal([]byte(`{"answer":{"id":"r","OK":true},"request":{"id":"r","KIND":"input"}}`), &stored))
		assert.Equal(t, &toolnexus.Answer{ID: "r"}, stored.Answer)
		assert.Equal(t, toolnexus.Request{ID: "r"}, stored.Request)
	})
}

// TestUnmarshalNames checks that a part's name, which comes from outside,
// is decoded by ParseToolResult as a base name.
func TestUnmarshalNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"report.pdf":         "report.pdf",
		"../../etc/passwd":   "passwd",
		`C:\\tmp\\a.pdf`:     "a.pdf",
		"a\\u0000b\\nc.pdf":  "abc.pdf",
		"evil\\u202efdp.exe": "evilfdp.exe",
		"..":                 "",
		".":                  "",
		"dir/..":             "",
		"\\u002e\\u002e":     "",
	} {
		r, err := toolnexus.ParseToolResult([]byte(`{"output":"","parts":[{"type":"file","mimeType":"application/pdf","data":"AAAA","name":"`+name+`"}]}`), 0)
		require.NoError(t, err)
		assert.Equal(t, want, r.Parts[0].Name, "%s", name)
	}
}

// TestUnmarshalErrors checks that a value of the wrong type is an
// ErrInvalidJSON that names the key and the JSON type found, never the
// value.
func TestUnmarshalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		into    any // nil for ParseToolResult
		in      string
		wantMsg string
	}{
		{"result not an object", nil, `[]`, `toolnexus: invalid JSON: want a JSON object, got an array`},
		{"result not JSON", nil, `{"output":"x"`, `toolnexus: invalid JSON: the input is not JSON: it ends after 13 bytes, inside a value`},
		{"result followed by more", nil, `{"output":"x"} {}`, `toolnexus: invalid JSON: the input is not JSON: byte 16 of 17, "{", cannot be there`},
		// Input that is not JSON is not named after a type its first byte
		// might begin.
		{"a word", nil, `nope`, `toolnexus: invalid JSON: the input is not JSON: byte 2 of 4, "o", cannot be there`},
		{"a literal cut short", nil, `tru`, `toolnexus: invalid JSON: the input is not JSON: it ends after 3 bytes, inside a value`},
		{"a literal and a space", nil, `tru `, `toolnexus: invalid JSON: the input is not JSON: byte 4 of 4, " ", cannot be there`},
		{"a byte that is not UTF-8", nil, "\xff{}", `toolnexus: invalid JSON: the input is not JSON: byte 1 of 3, "\xff", cannot be there`},
		{"empty", nil, ``, `toolnexus: invalid JSON: the input is empty, not JSON`},
		{"white space", nil, " \n\t", `toolnexus: invalid JSON: the input is empty, not JSON`},
		{"null", nil, `null`, `toolnexus: invalid JSON: want a JSON object, got null`},
		{"true", nil, ` true`, `toolnexus: invalid JSON: want a JSON object, got a boolean`},
		{"output a number", nil, `{"output":1}`, `toolnexus: invalid JSON: "output" is a number, not a string`},
		{"isError a string", nil, `{"isError":"yes"}`, `toolnexus: invalid JSON: "isError" is a string, not a boolean`},
		{"parts an object", nil, `{"parts":{}}`, `toolnexus: invalid JSON: "parts" is an object, not an array`},
		{"part type a number", nil, `{"parts":[{"type":"text"},{"type":1}]}`, `toolnexus: invalid JSON: part 1: "type" is a number, not a string`},
		{"part a string", nil, `{"parts":["iVBORw0KGgo="]}`, `toolnexus: invalid JSON: part 0 is a string, not an object`},
		{"metadata an array", nil, `{"metadata":[]}`, `toolnexus: invalid JSON: "metadata" is an array, not an object`},
		{"metadata number out of range", nil, `{"metadata":{"a":1e400}}`, `toolnexus: invalid JSON: metadata.a: a number is out of range`},
		{"part data a boolean", nil, `{"parts":[{"data":true}]}`, `toolnexus: invalid JSON: part 0: "data" is a boolean, not a string`},
		{"request data a string", new(toolnexus.Request), `{"data":"x"}`, `toolnexus: invalid JSON: "data" is a string, not an object`},
		{"request kind an array", new(toolnexus.Request), `{"kind":["input"]}`, `toolnexus: invalid JSON: "kind" is an array, not a string`},
		{"answer ok a string", new(toolnexus.Answer), `{"ok":"yes"}`, `toolnexus: invalid JSON: "ok" is a string, not a boolean`},
		{"answer not an object", new(toolnexus.Answer), `true`, `toolnexus: invalid JSON: "answer" is a boolean, not an object`},
	}
	for _, tt := range append(tests, utf8Errors...) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.into == nil {
				_, err := toolnexus.ParseToolResult([]byte(tt.in), 0)
				assertErr(t, err, toolnexus.ErrInvalidJSON, tt.wantMsg)
				return
			}
			assertErr(t, json.Unmarshal([]byte(tt.in), tt.into), toolnexus.ErrInvalidJSON, tt.wantMsg)
		})
	}
	// encoding/json checks the syntax before it calls UnmarshalJSON; called
	// directly, UnmarshalJSON checks it too.
	var a toolnexus.Answer
	assertErr(t, a.UnmarshalJSON([]byte(`{"id":"x"`)), toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the input is not JSON: it ends after 9 bytes, inside a value")
	assertErr(t, a.UnmarshalJSON([]byte(`{"id":"x"} {}`)), toolnexus.ErrInvalidJSON, `toolnexus: invalid JSON: the input is not JSON: byte 12 of 13, "{", cannot be there`)
	var r toolnexus.Request
	assertErr(t, r.UnmarshalJSON([]byte(`nope`)), toolnexus.ErrInvalidJSON, `toolnexus: invalid JSON: the input is not JSON: byte 2 of 4, "o", cannot be there`)
	assertErr(t, r.UnmarshalJSON([]byte(`tru`)), toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the input is not JSON: it ends after 3 bytes, inside a value")
	assertErr(t, r.UnmarshalJSON([]byte(`null {}`)), toolnexus.ErrInvalidJSON, `toolnexus: invalid JSON: the input is not JSON: byte 6 of 7, "{", cannot be there`)
	assert.Zero(t, r)
	require.NoError(t, r.UnmarshalJSON([]byte(` null `)))
}

// TestParseToolResult checks the strict decoder for JSON from a peer next to
// json.Unmarshal, which folds case as encoding/json does: exact keys, a
// limit checked before decoding, and a result that must validate.
func TestParseToolResult(t *testing.T) {
	t.Parallel()
	crafted := []byte(`{"output":"x","isError":true,"ISERROR":false}`)
	var folded toolnexus.ToolResult
	require.NoError(t, json.Unmarshal(crafted, &folded))
	assert.Equal(t, toolnexus.Ok("x"), folded, "encoding/json takes ISERROR for isError")
	strict, err := toolnexus.ParseToolResult(crafted, 0)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Error("x"), strict)

	in := []byte(`{"output":"0123456789"}`)
	got, err := toolnexus.ParseToolResult(in, int64(len(in)))
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("0123456789"), got)
	_, err = toolnexus.ParseToolResult(in, int64(len(in))-1)
	var tooLarge *toolnexus.PartTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, toolnexus.PartTooLargeError{Limit: int64(len(in)) - 1, Size: int64(len(in)), Document: true}, *tooLarge)
	assertErr(t, err, toolnexus.ErrPartTooLarge, "toolnexus: JSON document too large: 23 bytes, over the limit of 22 bytes")
	_, err = toolnexus.ParseToolResult([]byte("not JSON at all"), 4)
	require.ErrorIs(t, err, toolnexus.ErrPartTooLarge, "refused before its syntax is read")

	_, err = toolnexus.ParseToolResult([]byte(`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":"AA\nAA=="}]}`), 0)
	assertErr(t, err, toolnexus.ErrInvalidBase64, `toolnexus: invalid base64: byte '\n' at offset 2 of "AA\nAA==" (part 0)`)
	_, err = toolnexus.ParseToolResult([]byte(`{"output":"x","metadata":{"pending":{"kind":"input","prompt":"p"}}}`), 0)
	assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "input" request has no id`)
}

// TestDecodeIgnoresWhiteSpace checks that JSON from a peer that indents it
// decodes as the same JSON without white space, through every decoder that
// reads with exact keys.
func TestDecodeIgnoresWhiteSpace(t *testing.T) {
	t.Parallel()
	decoders := map[string]func([]byte) (any, error){
		"ToolResult": func(b []byte) (any, error) { return toolnexus.ParseToolResult(b, 0) },
		"Request":    func(b []byte) (any, error) { var r toolnexus.Request; err := json.Unmarshal(b, &r); return r, err },
		"Answer":     func(b []byte) (any, error) { var a toolnexus.Answer; err := json.Unmarshal(b, &a); return a, err },
		"MCP":        func(b []byte) (any, error) { return toolnexus.FromMCPCallToolResult(b) },
	}
	tests := []struct{ decoder, in string }{
		{"ToolResult", `{"output":"Pick","isError":true,"parts":[{"type":"text","text":"t"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo=","name":null}],` +
			`"metadata":{"pending":{"id":"req-2","kind":"input","prompt":"Pick","data":{"choices":["dev","prod"],"n":1.5,"ok":true,"none":null}},"extra":[]}}`},
		{"Request", `{"id":"req-2","kind":"input","prompt":"Pick","url":"https://example.com/pick","data":{"choices":["dev","prod"]},"expiresAt":"2026-12-01T00:00:00Z"}`},
		{"Answer", `{"id":"req-2","ok":true,"data":{"choice":"prod"},"reason":null}`},
		{"MCP", `{"content":[{"type":"text","text":"eu-west-1"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":null}],"structuredContent":null,"isError":true}`},
		{"MCP", `{"content":[{"type":"text","text":"{\"a\":1}"},{"type":"resource","resource":{"uri":"file:///r.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"structuredContent":{"a":1}}`},
		{"MCP", `{"content":[{"type":"text","text":"x"}],"structuredContent":null }`},
		{"MCP", `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string"}}}}}},"requestState":"s"}`},
	}
	for _, tt := range tests {
		var compact, indented bytes.Buffer
		require.NoError(t, json.Compact(&compact, []byte(tt.in)))
		require.NoError(t, json.Indent(&indented, []byte(tt.in), " ", "\t"))
		want, err := decoders[tt.decoder](compact.Bytes())
		require.NoError(t, err)
		for _, in := range []string{tt.in, indented.String()} {
			got, err := decoders[tt.decoder]([]byte(in))
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s:\n%s", tt.decoder, in)
		}
	}
}

// TestDecodeBytesPerInputByte measures what the decoders that read through
// the exact-key reader allocate. Not parallel: it measures the process's
// allocation.
func TestDecodeBytesPerInputByte(t *testing.T) {
	data := base64.StdEncoding.EncodeToString(make([]byte, 4<<20))

	t.Run("ParseToolResult of a 4 MiB part copies the payload once", func(t *testing.T) {
		src, err := json.Marshal(toolnexus.Ok("huge", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}))
		require.NoError(t, err)
		var r toolnexus.ToolResult
		alloc := allocated(func() { r, err = toolnexus.ParseToolResult(src, 0) })
		require.NoError(t, err)
		require.Len(t, r.Parts, 1)
		assert.Equal(t, int64(4<<20), r.Parts[0].Size())
		t.Logf("%d bytes allocated for %d bytes of JSON, %.3f per input byte", alloc, len(src), float64(alloc)/float64(len(src)))
		assert.LessOrEqual(t, alloc, uint64(len(data))+64*kib)
	})
	t.Run("FromMCPCallToolResult of a 4 MiB image", func(t *testing.T) {
		src := []byte(`{"content":[{"type":"text","text":"a screenshot"},{"type":"image","mimeType":"image/png","data":"` + data + `"}]}`)
		var r toolnexus.ToolResult
		var err error
		alloc := allocated(func() { r, err = toolnexus.FromMCPCallToolResult(src) })
		require.NoError(t, err)
		require.Len(t, r.Parts, 1)
		assert.Equal(t, int64(4<<20), r.Parts[0].Size())
		perByte := float64(alloc) / float64(len(src))
		t.Logf("%d bytes allocated for %d bytes of JSON, %.3f per input byte", alloc, len(src), perByte)
		assert.LessOrEqual(t, perByte, 1.5)
	})
	tiny := func(n int) []byte {
		return []byte(`{"content":[` + strings.Repeat(`{"type":"text","text":"x"},`, n-1) + `{"type":"text","text":"x"}]}`)
	}
	t.Run("FromMCPCallToolResult of 200 000 tiny blocks", func(t *testing.T) {
		src := tiny(200_000)
		var r toolnexus.ToolResult
		var err error
		alloc := allocated(func() { r, err = toolnexus.FromMCPCallToolResult(src) })
		require.NoError(t, err)
		require.Len(t, r.Output, 2*200_000-1)
		perByte := float64(alloc) / float64(len(src))
		t.Logf("%d bytes allocated for %d bytes of JSON, %.3f per input byte", alloc, len(src), perByte)
		assert.LessOrEqual(t, perByte, 2.0)
	})
	t.Run("allocations per block do not grow with the blocks", func(t *testing.T) {
		perBlock := map[int]float64{}
		for _, n := range []int{1000, 10_000} {
			src := tiny(n)
			allocs, _ := callCost(5, func() {
				if _, err := toolnexus.FromMCPCallToolResult(src); err != nil {
					panic(err)
				}
			})
			perBlock[n] = float64(allocs) / float64(n)
			t.Logf("%d blocks: %.4f allocations per block", n, perBlock[n])
		}
		assert.LessOrEqual(t, perBlock[10_000], perBlock[1000])
	})
}

// utf8Errors are strings and keys that are not UTF-8, each where a reader
// reads it: raw bytes that are not (\xff), a lone surrogate escape, high or
// low, a high surrogate followed by no low one, and a surrogate encoded as
// UTF-8 (CESU-8). Each is refused with the place it is at, never the value.
var utf8Errors = []struct {
	name    string
	into    any
	in      string
	wantMsg string
}{
	{"output with a raw \\xff", nil, "{\"output\":\"a\xffb\"}", `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"output with a lone high surrogate", nil, `{"output":"a\ud800b"}`, `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"output with a lone low surrogate", nil, `{"output":"\udc00"}`, `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"output with two high surrogates", nil, `{"output":"\ud800\ud800"}`, `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"output with a high surrogate before an escape", nil, `{"output":"\ud800\n"}`, `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"output with CESU-8", nil, "{\"output\":\"\xed\xa0\x80\"}", `toolnexus: invalid JSON: output: a string is not valid UTF-8`},
	{"part data", nil, `{"output":"x","parts":[{"type":"text"},{"type":"image","data":"\ud800"}]}`, `toolnexus: invalid JSON: parts[1].data: a string is not valid UTF-8`},
	{"metadata key", nil, "{\"metadata\":{\"a\":{\"b\xff\":1}}}", `toolnexus: invalid JSON: metadata.a: a key is not valid UTF-8`},
	{"metadata value deep", nil, `{"metadata":{"a b":[0,{"c":"\udfff"}]}}`, `toolnexus: invalid JSON: metadata["a b"][1].c: a string is not valid UTF-8`},
	{"metadata value 10 000 deep", nil, `{"metadata":` + strings.Repeat(`{"a":`, 9990) + `"\ud800"` + strings.Repeat(`}`, 9991),
		"toolnexus: invalid JSON: metadata" + strings.Repeat(".a", 59) + "…: a string is not valid UTF-8"},
	{"metadata value under long keys", nil, `{"metadata":{"` + strings.Repeat("k", 100) + `":{"` + strings.Repeat("l", 100) + `":{"` + strings.Repeat("m", 100) + `":"\ud800"}}}}`,
		`toolnexus: invalid JSON: metadata["kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"… (100 bytes)]["llllllllllllllllllllllllllllllllllllllll"… (100 bytes)]…: a string is not valid UTF-8`},
	{"unknown key's value", nil, `{"output":"x","extra":["\ud800"]}`, `toolnexus: invalid JSON: extra: a string is not valid UTF-8`},
	{"top-level key", nil, `{"\ud800":1}`, `toolnexus: invalid JSON: a key is not valid UTF-8`},
	{"request id", new(toolnexus.Request), `{"id":"\ud800","kind":"input"}`, `toolnexus: invalid JSON: id: a string is not valid UTF-8`},
	{"request data", new(toolnexus.Request), `{"id":"r","data":{"k":"\udc00"}}`, `toolnexus: invalid JSON: data.k: a string is not valid UTF-8`},
	{"answer id", new(toolnexus.Answer), `{"id":"a\udbff","ok":true}`, `toolnexus: invalid JSON: id: a string is not valid UTF-8`},
	{"answer reason", new(toolnexus.Answer), "{\"id\":\"a\",\"reason\":\"\xc0\xaf\"}", `toolnexus: invalid JSON: reason: a string is not valid UTF-8`},
}

// portWant is what reading one vector of testdata/ports.jsonl gives: a
// result (with ParseToolResult; a part or a list of parts is read as the
// parts of a result with output "x"), a request or an answer (with
// json.Unmarshal, which calls their exact UnmarshalJSON), or an error. A
// vector that records an error another port raised holds no JSON: in holds
// what Go reads for the same case instead, and dataURL a data URL
// PartFromURL reads.
type portWant struct {
	result  *toolnexus.ToolResult
	request *toolnexus.Request
	answer  *toolnexus.Answer
	err     error
	msg     string
	in      string
	dataURL string
}

// portWants holds the decision for every vector, by case name, or by case
// name and port where the ports differ.
func portWants(png string) map[string]portWant {
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: png}
	named := img.WithName("fixture.png")
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}
	report := pdf.WithName("report.pdf")
	res := func(r toolnexus.ToolResult) portWant { return portWant{result: &r} }
	parts := func(p ...toolnexus.ContentPart) portWant { return res(toolnexus.Ok("x", p...)) }
	pending := func(output string, m map[string]any) portWant {
		return res(toolnexus.Error(output).WithMetadata(toolnexus.MetadataPending, m))
	}
	// Python writes a Request's absent members as null.
	nulls := func(m map[string]any) map[string]any {
		m = maps.Clone(m)
		for _, k := range []string{"url", "data", "expiresAt"} {
			if _, ok := m[k]; !ok {
				m[k] = nil
			}
		}
		return m
	}
	which := map[string]any{"id": "req-1", "kind": "input", "prompt": "Which environment?"}
	auth := func(id string) map[string]any {
		return map[string]any{"id": id, "kind": "authorization", "prompt": "Authorization required to continue", "url": "https://example.com/login"}
	}
	pick := map[string]any{"id": "req-2", "kind": "input", "prompt": "Pick an environment", "url": "https://example.com/pick",
		"data": map[string]any{"choices": []any{"dev", "prod"}}, "expiresAt": "2026-12-01T00:00:00Z"}
	approve := func(id string) map[string]any {
		return map[string]any{"id": id, "kind": "approval", "prompt": "Approve deploy?"}
	}
	req := func(r toolnexus.Request) portWant { return portWant{request: &r} }
	ans := func(a toolnexus.Answer) portWant { return portWant{answer: &a} }
	fail := func(err error, msg string) portWant { return portWant{err: err, msg: msg} }
	asdict := fail(toolnexus.ErrInvalidJSON, `toolnexus: invalid JSON: the result has "is_error" (as Python's dataclasses.asdict writes it), not "isError": whether it failed is unknown`)
	numbers := map[string]any{"int": 2.0, "long": 1099511627776.0, "double_whole": 1.0, "double_frac": 0.1, "double_big": 1e21, "double_small": 1e-7,
		"neg_zero": 0.0, "bool": true, "nul": nil, "empty_map": map[string]any{}, "empty_list": []any{}}
	pythonNumbers := maps.Clone(numbers)
	pythonNumbers["neg_zero"] = math.Copysign(0, -1)
	withMeta := func(r toolnexus.ToolResult, kv ...any) toolnexus.ToolResult {
		for i := 0; i < len(kv); i += 2 {
			r = r.WithMetadata(kv[i].(string), kv[i+1])
		}
		return r
	}
	escaped := "line1\nline2\t<b>&amp;</b> \"q\" \\ / é ✓ 😀 \u2028 \u0001 \u001f \b \f \r"
	return map[string]portWant{
		"a.canonical":                              res(toolnexus.Ok("eu-west-1")),
		"a.struct/elixir":                          {}, // the port has no JSON for a result
		"b.canonical":                              res(toolnexus.Error("No such config key: nope")),
		"c.canonical":                              res(withMeta(toolnexus.Ok("2 results"), "title", "search: usage", "count", 2.0, "ids", []any{1.0, 2.0})),
		"d.canonical/js":                           res(toolnexus.Ok("fixture.png (image/png, 82 bytes)", img)),
		"d.canonical/python":                       res(toolnexus.Ok("fixture.png (image/png, 82 bytes)", named)),
		"e.canonical":                              pending("Which environment?", which),
		"e.canonical/python":                       pending("Which environment?", nulls(which)),
		"e.id_last_in_literal":                     pending("Which environment?", which),
		"f.authRequired_live.canonical/js":         pending(toolnexus.DefaultAuthPrompt+"\nhttps://example.com/login", auth("pnd-mx49tgy3-1")),
		"f.authRequired_live.canonical/python":     pending(toolnexus.DefaultAuthPrompt+"\nhttps://example.com/login", nulls(auth("pnd-1a230211d08-1"))),
		"f.canonical/js":                           pending(toolnexus.DefaultAuthPrompt+"\nhttps://example.com/login", auth("pnd-fixed-1")),
		"f.canonical/python":                       pending(toolnexus.DefaultAuthPrompt+"\nhttps://example.com/login", nulls(auth("pnd-fixed-1"))),
		"g.canonical":                              pending("Pick an environment\nhttps://example.com/pick", pick),
		"i.canonical":                              res(toolnexus.Ok("")),
		"i2.empty_parts.canonical":                 res(toolnexus.Ok("x")),
		"j.error_with_metadata.canonical":          res(withMeta(toolnexus.Error("boom"), "server", "cfg")),
		"k.parts_and_metadata.canonical/js":        res(withMeta(toolnexus.Ok("screenshot, 8x8 png", img), "title", "shot")),
		"k.parts_and_metadata.canonical/python":    res(withMeta(toolnexus.Ok("screenshot, 8x8 png", named), "title", "shot")),
		"l.text_part_in_result.canonical/js":       res(toolnexus.Ok("see notes", toolnexus.TextPart("note one"), img)),
		"l.text_part_in_result.canonical/python":   res(toolnexus.Ok("see notes", toolnexus.TextPart("note one"), named)),
		"e2.pending_generated_id.canonical/js":     pending("Approve deploy?", approve("pnd-mx49tgy3-2")),
		"e2.pending_generated_id.canonical/python": pending("Approve deploy?", nulls(approve("pnd-1a230211d08-2"))),
		"e2.pending_generated_id.canonical/elixir": pending("Approve deploy?", approve("pnd-mx49w91v-1")),
		"e3.pending_empty_id.canonical/js":         fail(toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "approval" request has no id`),
		"e3.pending_empty_id.canonical/python":     pending("Approve deploy?", nulls(approve("pnd-1a230211d08-3"))),
		"e4.pending_no_kind":                       fail(toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds an object without kind, not a request`),
		"x.escaping.canonical":                     res(toolnexus.Ok(escaped)),
		"x.numbers_and_nulls.canonical/js":         res(toolnexus.ToolResult{Output: "n", Metadata: numbers}),
		"x.numbers_and_nulls.canonical/python":     res(toolnexus.ToolResult{Output: "n", Metadata: pythonNumbers}),
		"x.numbers.canonical/elixir":               res(withMeta(toolnexus.Ok("n"), "double_big", 1e21, "double_small", 1e-7, "double_whole", 1.0, "int", 2.0, "nul", nil)),
		"x.undefined_values":                       res(withMeta(toolnexus.Ok("u"), "b", nil)),
		"x.parts_as_dataclasses.canonical":         res(toolnexus.Ok("raw", named)),
		"mcp.image_result":                         res(withMeta(toolnexus.Ok("image (image/png, 82 bytes)", img), "server", "fs")),
		"mcp.resource_blob_result": res(withMeta(toolnexus.Ok("here", report,
			toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", URL: "https://example.com/r.pdf", Name: "r.pdf"}), "server", "fs")),
		"mcp.error_result": fail(toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "application/octet-stream" for an image part (part 0)`),
		"mcp.elicitation_request_form": req(toolnexus.Request{ID: "elc-mx49tgy4-1", Kind: "input", Prompt: "Your name?",
			Data: map[string]any{"schema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}),
		"mcp.elicitation_request_url": req(toolnexus.Request{ID: "elc-mx49tgy4-2", Kind: "authorization", Prompt: "Log in", URL: "https://example.com/login"}),
		"e.request":                   req(toolnexus.Request{ID: "req-1", Kind: "input", Prompt: "Which environment?"}),
		"request.pendingOf.e":         req(toolnexus.Request{ID: "req-1", Kind: "input", Prompt: "Which environment?"}),
		"g.request_full": req(toolnexus.Request{ID: "req-2", Kind: "input", Prompt: "Pick an environment", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}),
		"request.null_id":       req(toolnexus.Request{Kind: "input", Prompt: "p"}),
		"request.nil_id":        req(toolnexus.Request{Kind: "input", Prompt: "p"}),
		"request.undefined_id":  req(toolnexus.Request{Kind: "input", Prompt: "p"}),
		"request.empty_strings": req(toolnexus.Request{ID: "r", Kind: "input", Prompt: "p", Data: map[string]any{}}),
		"answer.ok":             ans(toolnexus.Answer{ID: "req-1", OK: true, Data: map[string]any{"env": "prod"}}),
		"answer.declined":       ans(toolnexus.Answer{ID: "req-1", Reason: "declined"}),

		"h.text":                        parts(toolnexus.TextPart("hello")),
		"h.text_empty":                  parts(toolnexus.TextPart("")),
		"h.image_bytes":                 parts(img),
		"h.image_bytesio":               parts(img),
		"h.image_ofFile/js":             parts(img),
		"h.image_ofFile/python":         parts(named),
		"h.image_ofStream_named/js":     parts(img),
		"h.image_ofStream_named/python": parts(img.WithName("shot.PNG")),
		"h.file_named":                  parts(report),
		"h.file_no_name":                parts(pdf),
		"h.file_empty_name":             parts(pdf),
		"h.file_ofFile_pdf":             parts(report),
		"h.file_ofStream_named":         parts(report),
		"h.audio":                       parts(toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}),
		"h.url_image":                   parts(toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}),
		"h.data_url_image":              parts(img),
		"h.ofBase64":                    parts(img),
		"h.ofFile_explicit_mime":        parts(toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: pdfB64, Name: "report.pdf"}),
		"h.image_bytes_pdf_mime":        parts(pdf),
		"h.mime_uppercase":              parts(toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "IMAGE/PNG", Data: png}),
		"h.list/js":                     parts(toolnexus.TextPart("a"), img),
		"h.list/python":                 parts(toolnexus.TextPart("a"), named),
		"h.inbound_image_url_remote":    parts(toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/*", URL: "https://example.com/x"}),
		"h.data_url_no_mime":            parts(toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/octet-stream", Data: "AAAA"}),
		"h.data_url_not_base64/js":      parts(toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/plain", Data: "aGVsbG8gd29ybGQ="}),
		"h.data_url_params/python":      parts(toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}),
		"h.image_with_pdf_mime":         fail(toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "application/pdf" for an image part (part 0)`),
		"h.validate_empty_data/js":      fail(toolnexus.ErrInvalidPart, `toolnexus: invalid part: image part has neither data nor url (part 0)`),
		"h.validate_no_mime/js":         fail(toolnexus.ErrMissingMIMEType, `toolnexus: missing MIME type (part 0)`),
		"h.validate_unknown_type/js":    fail(toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "video" (part 0)`),
		"h.to_dict_no_validate":         fail(toolnexus.ErrMissingMIMEType, `toolnexus: missing MIME type (part 0)`),
		// Records of what another port refused: what Go does instead.
		"h.data_url_uppercase_base64": {dataURL: "data:image/png;BASE64," + png, result: &toolnexus.ToolResult{Parts: []toolnexus.ContentPart{img}}},
		"h.data_url_params/js": {dataURL: "data:image/png;name=a.png;base64,AAAA",
			result: &toolnexus.ToolResult{Parts: []toolnexus.ContentPart{{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}}}},
		"h.data_url_not_base64/python": {dataURL: "data:text/plain,hello%20world", err: toolnexus.ErrInvalidDataURL,
			msg: `toolnexus: invalid data URL: "data:text/plain,hello%20world" is not ;base64`},
		"h.validate_both": {in: `{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":"AAAA","url":"https://example.com/a.png"}]}`,
			err: toolnexus.ErrInvalidPart, msg: `toolnexus: invalid part: image part has both data and url (part 0)`},
		"h.validate_neither": {in: `{"output":"x","parts":[{"type":"image","mimeType":"image/png"}]}`,
			err: toolnexus.ErrInvalidPart, msg: `toolnexus: invalid part: image part has neither data nor url (part 0)`},
		"h.validate_empty_data/python": {in: `{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":""}]}`,
			err: toolnexus.ErrInvalidPart, msg: `toolnexus: invalid part: image part has neither data nor url (part 0)`},
		"h.validate_no_mime/python": {in: `{"output":"x","parts":[{"type":"image","data":"AAAA"}]}`,
			err: toolnexus.ErrMissingMIMEType, msg: `toolnexus: missing MIME type (part 0)`},
		"h.validate_unknown_type/python": {in: `{"output":"x","parts":[{"type":"video","mimeType":"video/mp4","data":"AAAA"}]}`,
			err: toolnexus.ErrUnknownPartType, msg: `toolnexus: unknown part type: "video" (part 0)`},

		"a.asdict": asdict, "b.asdict": asdict, "c.asdict": asdict, "d.asdict": asdict, "e.asdict": asdict, "f.authRequired_live.asdict": asdict,
		"g.asdict": asdict, "i.asdict": asdict, "i2.empty_parts.asdict": asdict, "j.error_with_metadata.asdict": asdict,
		"k.parts_and_metadata.asdict": asdict, "l.text_part_in_result.asdict": asdict, "e2.pending_generated_id.asdict": asdict,
		"e3.pending_empty_id.asdict": asdict, "x.escaping.asdict": asdict, "x.numbers_and_nulls.asdict": asdict, "x.parts_as_dataclasses.asdict": asdict,
	}
}

// TestPorts reads what the JS, Python and Elixir ports of toolnexus write
// (testdata/ports.jsonl) as a Go user who stored a result in one of them
// would: every vector has its decision, and reads to the exact Go value or
// the exact error. A null member is an absent one on every route
// (ParseToolResult, Validate and PendingOf of what json.Unmarshal gives,
// Request and Answer); keys are exact, so Python's "is_error" is never read
// as "isError".
func TestPorts(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/ports.jsonl")
	require.NoError(t, err)
	wants := portWants(fixturePNGBase64(t))
	used := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v struct{ Case, Port, JSON string }
		require.NoError(t, json.Unmarshal([]byte(line), &v))
		key := v.Case + "/" + v.Port
		want, ok := wants[key]
		if !ok {
			key = v.Case
			want, ok = wants[key]
		}
		require.True(t, ok, "no decision for %s/%s", v.Case, v.Port)
		used[key] = true
		t.Run(v.Case+"/"+v.Port, func(t *testing.T) {
			t.Parallel()
			in := v.JSON
			switch {
			case strings.HasPrefix(in, `{"error"`): // another port refused the case
				if want.in == "" && want.dataURL == "" {
					assert.Zero(t, want, "a record holds no JSON to read")
					return
				}
				in = want.in
			case strings.HasPrefix(v.Case, "h.") && in[0] == '[':
				in = `{"output":"x","parts":` + in + `}`
			case strings.HasPrefix(v.Case, "h."):
				in = `{"output":"x","parts":[` + in + `]}`
			}
			switch {
			case want.dataURL != "":
				p, err := toolnexus.PartFromURL(want.dataURL, "")
				assertErr(t, err, want.err, want.msg)
				if want.err == nil {
					assert.Equal(t, want.result.Parts[0], p)
				}
			case want.request != nil:
				var got toolnexus.Request
				require.NoError(t, json.Unmarshal([]byte(in), &got))
				assert.Equal(t, *want.request, got)
			case want.answer != nil:
				var got toolnexus.Answer
				require.NoError(t, json.Unmarshal([]byte(in), &got))
				assert.Equal(t, *want.answer, got)
			default:
				got, err := toolnexus.ParseToolResult([]byte(in), 0)
				assertErr(t, err, want.err, want.msg)
				if want.err != nil {
					return
				}
				assert.Equal(t, *want.result, got)
				if f, ok := want.result.Metadata["neg_zero"].(float64); ok {
					assert.Equal(t, math.Signbit(f), math.Signbit(got.Metadata["neg_zero"].(float64)))
				}
				// The same through json.Unmarshal: it validates, and PendingOf
				// finds the same request.
				var u toolnexus.ToolResult
				require.NoError(t, json.Unmarshal([]byte(in), &u))
				require.NoError(t, u.Validate())
				wantReq, wantOK := toolnexus.PendingOf(*want.result)
				gotReq, gotOK := toolnexus.PendingOf(u)
				assert.Equal(t, wantOK, gotOK)
				assert.Equal(t, wantReq, gotReq)
			}
		})
	}
	for key := range wants {
		assert.True(t, used[key], "decision %s has no vector", key)
	}
}

// FuzzJSONString checks the decoding of strings against encoding/json: a
// string that is JSON and UTF-8 reads as json.Unmarshal reads it, one that
// is not UTF-8 is refused, and a part's data reads the same, found
// canonical base64 only when checkBase64 takes it. (FuzzJSONReader checks
// that what is not JSON is refused.)
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`a\"b\\`, `\ud800`, "\xff", `\ud83d\ude00 é ✓`, `line\nnext\ttab \u003c\u0026`, `\ud800\n`,
		`iVBORw0KGgo=`, `AA==`, `AAB=`, `AA\u003d\u003d`, `QUJD` + strings.Repeat("QUJD", 30) + `=`, "caf\xc3\xa9", "\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, in := range [][]byte{append(append([]byte(`"`), raw...), '"'), []byte(mustJSON(t, string(raw)))} {
			s, err := toolnexus.JSONString(in)
			data, canonical, dataErr := toolnexus.JSONBase64(in)
			require.Equal(t, err, dataErr)
			if !json.Valid(in) { // a quote in raw may end the string early
				continue
			}
			var want string
			require.NoError(t, json.Unmarshal(in, &want))
			switch notUTF8(in) {
			case yes:
				require.EqualError(t, err, "a string is not valid UTF-8")
				continue
			case maybe:
				if err != nil {
					continue
				}
			}
			require.NoError(t, err)
			require.Equal(t, want, s)
			require.Equal(t, want, data)
			if canonical {
				require.NoError(t, b64.Check(data))
			} else if !strings.Contains(string(in), `\`) {
				require.Error(t, b64.Check(data), "%q is canonical", data)
			}
		}
	})
}

// TestDecodeLongStrings reads strings with escapes longer than the buffer
// short ones are decoded in, before and after other long values, as
// json.Unmarshal reads them.
func TestDecodeLongStrings(t *testing.T) {
	t.Parallel()
	for _, n := range []int{60 << 10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 300 << 10, 3 << 20} {
		text := toolText(n)
		for _, r := range []toolnexus.ToolResult{
			toolnexus.Ok(text),
			toolnexus.Ok(text, toolnexus.TextPart(toolText(2*n))),
			toolnexus.Ok("x", toolnexus.TextPart("a\n"), toolnexus.TextPart(text)),
		} {
			data := []byte(mustJSON(t, r))
			got, err := toolnexus.ParseToolResult(data, 0)
			require.NoError(t, err)
			var want toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(data, &want))
			require.Equal(t, want, got, "%d bytes", n)
			mcp := []byte(mustJSON(t, r.MCPCallToolResult()))
			fromMCP, err := toolnexus.FromMCPCallToolResult(mcp)
			require.NoError(t, err)
			require.Equal(t, want.Output, fromMCP.Output[:len(want.Output)])
		}
	}
}

// TestDecodeLongData reads parts' data longer than what is checked before
// it is copied, canonical or not, last in the input or before more of it,
// as json.Unmarshal reads it.
func TestDecodeLongData(t *testing.T) {
	t.Parallel()
	for _, n := range []int{48<<10 - 1, 48 << 10, 48<<10 + 1, 1 << 20} {
		data := base64.StdEncoding.EncodeToString(payload(n))
		for _, d := range []string{data, data[:len(data)-4] + `\u0041AAA`, data[:len(data)*3/4] + "\n" + data[len(data)*3/4:], data[:len(data)-1]} {
			for _, in := range []string{
				`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":` + mustJSON(t, d) + `}]}`,
				`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":` + mustJSON(t, d) + `}],"metadata":{"d":` + mustJSON(t, data+data) + `}}`,
			} {
				got, err := toolnexus.DecodeExact([]byte(in))
				require.NoError(t, err)
				var want toolnexus.ToolResult
				require.NoError(t, json.Unmarshal([]byte(in), &want))
				require.Equal(t, want, got, "%d bytes", n)
				_, err = toolnexus.ParseToolResult([]byte(in), 0)
				require.Equal(t, b64.Check(want.Parts[0].Data) == nil, err == nil, "%d bytes: %v", n, err)
			}
		}
	}
}

// TestPeerReadersRefuseNUL checks that a NUL byte, which the reader's look
// ahead also returns at the end of its input, is no white space to any
// reader of peer JSON: after a value, before it or inside a container it is
// input that is not JSON.
func TestPeerReadersRefuseNUL(t *testing.T) {
	type reader struct {
		read     func([]byte) error
		sentinel error
	}
	readers := map[string]reader{
		"ParseToolResult": {func(b []byte) error { _, err := toolnexus.ParseToolResult(b, 0); return err }, toolnexus.ErrInvalidJSON},
		"ParseMCPCallToolResult": {func(b []byte) error {
			_, err := toolnexus.ParseMCPCallToolResult(b, 0)
			return err
		}, toolnexus.ErrInvalidMCP},
		"FromMCPCallToolResult": {func(b []byte) error { _, err := toolnexus.FromMCPCallToolResult(b); return err }, toolnexus.ErrInvalidMCP},
		"ParseTurn":             {func(b []byte) error { _, err := toolnexus.ParseTurn(b, 0); return err }, toolnexus.ErrInvalidJSON},
		"Request.UnmarshalJSON": {func(b []byte) error { var r toolnexus.Request; return r.UnmarshalJSON(b) }, toolnexus.ErrInvalidJSON},
		"Answer.UnmarshalJSON":  {func(b []byte) error { var a toolnexus.Answer; return a.UnmarshalJSON(b) }, toolnexus.ErrInvalidJSON},
	}
	for name, r := range readers {
		for _, in := range []string{"{}\x00", "\x00{}", "{\x00}", "null\x00", "{} \x00"} {
			err := r.read([]byte(in))
			require.Error(t, err, "%s(%q)", name, in)
			assert.ErrorIs(t, err, r.sentinel, "%s(%q)", name, in)
			assert.Contains(t, err.Error(), `"\x00", cannot be there`, "%s(%q)", name, in)
		}
	}
}

// TestDecodeEscapedRuns reads escaped strings built to cross every boundary
// of the decoder, as json.Unmarshal reads them: runs of plain bytes of every
// length from 0 to 40 between escapes (it copies sixteen at a time), runs
// with runes of two to four bytes that fall across those sixteen, strings
// around the size of its pooled buffer and far past it, and each written
// the way encoding/json writes it and with every rune past ASCII as a \u
// escape, as Python's json.dumps does. A byte that is not UTF-8, or a
// control byte, anywhere in a run is refused.
func TestDecodeEscapedRuns(t *testing.T) {
	t.Parallel()
	units := []string{"a", "é", "✓", "😀", `"`, `\`, "\n", "\t", "/", "<"}
	rng := rand.New(rand.NewPCG(7, 9))
	build := func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			run := rng.IntN(41)
			for range run {
				sb.WriteString(units[rng.IntN(4)])
			}
			sb.WriteString(units[4+rng.IntN(len(units)-4)])
		}
		return sb.String()
	}
	var texts []string
	for _, n := range []int{1, 15, 16, 17, 100, 64<<10 - 20, 64 << 10, 64<<10 + 20, 300 << 10, 2 << 20} {
		texts = append(texts, build(n))
	}
	for i, text := range texts {
		enc := []byte(mustJSON(t, text))
		for _, in := range [][]byte{enc, asciiEscaped(enc)} {
			var want string
			require.NoError(t, json.Unmarshal(in, &want))
			require.Equal(t, text, want)
			got, err := toolnexus.JSONString(in)
			require.NoError(t, err, "text %d", i)
			require.Equal(t, want, got, "text %d", i)
			if len(in) > 1<<10 {
				continue // the bad bytes below, on short texts only: each is a read
			}
			for at := 2; at < len(in)-1; at++ {
				for _, bad := range []byte{0xff, 0x01} {
					if in[at-1] == '\\' || in[at] == '\\' || in[at] >= 0x80 {
						continue // keep the escapes, and whole runes, as they are
					}
					mut := append([]byte(`{"output":`), in...)
					mut[len(`{"output":`)+at] = bad
					_, err := toolnexus.ParseToolResult(append(mut, '}'), 0)
					require.ErrorIs(t, err, toolnexus.ErrInvalidJSON, "%q", mut)
				}
			}
		}
	}
}

// asciiEscaped rewrites the JSON data with every rune past ASCII as a \u
// escape, a surrogate pair past U+FFFF, as Python's json.dumps writes JSON.
func asciiEscaped(data []byte) []byte {
	var out []byte
	for _, r := range string(data) {
		switch {
		case r < utf8.RuneSelf:
			out = append(out, byte(r))
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	}
	return out
}
