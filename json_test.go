package toolnexus_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

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
			`{"output":"x","parts":[{"type":"text","text":"a"}],"parts":[]}`: {Output: "x", Parts: []toolnexus.ContentPart{}},
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
		{"empty parts and metadata are written as absent", `{"output":"done","isError":true,"parts":[],"metadata":{}}`,
			toolnexus.ToolResult{Output: "done", IsError: true, Parts: []toolnexus.ContentPart{}, Metadata: map[string]any{}},
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
		{"invalid UTF-8 becomes U+FFFD", "{\"output\":\"a\xffb\"}", toolnexus.ToolResult{Output: "a\ufffdb"}, "{\"output\":\"a\ufffdb\",\"isError\":false}"},
		{"invalid UTF-8 in a metadata key becomes U+FFFD", "{\"output\":\"\",\"metadata\":{\"a\xffb\":1}}",
			toolnexus.ToolResult{Metadata: map[string]any{"a\ufffdb": 1.0}}, "{\"output\":\"\",\"isError\":false,\"metadata\":{\"a\ufffdb\":1}}"},
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
		{"part a string", nil, `{"parts":["iVBORw0KGgo="]}`, `toolnexus: invalid JSON: part 0: "part" is a string, not an object`},
		{"metadata an array", nil, `{"metadata":[]}`, `toolnexus: invalid JSON: "metadata" is an array, not an object`},
		{"metadata number out of range", nil, `{"metadata":{"a":1e400}}`, `toolnexus: invalid JSON: number out of range`},
		{"part data a boolean", nil, `{"parts":[{"data":true}]}`, `toolnexus: invalid JSON: part 0: "data" is a boolean, not a string`},
		{"request data a string", new(toolnexus.Request), `{"data":"x"}`, `toolnexus: invalid JSON: "data" is a string, not an object`},
		{"request kind an array", new(toolnexus.Request), `{"kind":["input"]}`, `toolnexus: invalid JSON: "kind" is an array, not a string`},
		{"answer ok a string", new(toolnexus.Answer), `{"ok":"yes"}`, `toolnexus: invalid JSON: "ok" is a string, not a boolean`},
		{"answer not an object", new(toolnexus.Answer), `true`, `toolnexus: invalid JSON: "answer" is a boolean, not an object`},
	}
	for _, tt := range tests {
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
	data := base64.StdEncoding.EncodeToString(make([]byte, 16<<20))

	t.Run("ParseToolResult of a 16 MiB part copies the payload once", func(t *testing.T) {
		src, err := json.Marshal(toolnexus.Ok("huge", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}))
		require.NoError(t, err)
		var r toolnexus.ToolResult
		alloc := allocated(func() { r, err = toolnexus.ParseToolResult(src, 0) })
		require.NoError(t, err)
		require.Len(t, r.Parts, 1)
		assert.Equal(t, int64(16<<20), r.Parts[0].Size())
		t.Logf("%d bytes allocated for %d bytes of JSON, %.3f per input byte", alloc, len(src), float64(alloc)/float64(len(src)))
		assert.LessOrEqual(t, alloc, uint64(len(data))+64*kib)
	})
	t.Run("FromMCPCallToolResult of a 16 MiB image", func(t *testing.T) {
		src := []byte(`{"content":[{"type":"text","text":"a screenshot"},{"type":"image","mimeType":"image/png","data":"` + data + `"}]}`)
		var r toolnexus.ToolResult
		var err error
		alloc := allocated(func() { r, err = toolnexus.FromMCPCallToolResult(src) })
		require.NoError(t, err)
		require.Len(t, r.Parts, 1)
		assert.Equal(t, int64(16<<20), r.Parts[0].Size())
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
