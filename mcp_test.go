package toolnexus_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// withURIs returns r with the resource URIs given as index, URI pairs.
func withURIs(r toolnexus.ToolResult, pairs ...string) toolnexus.ToolResult {
	uris := map[string]string{}
	for i := 0; i < len(pairs); i += 2 {
		uris[pairs[i]] = pairs[i+1]
	}
	return r.WithMetadata(toolnexus.MetadataResourceURIs, uris)
}

// mcpWith is the CallToolResult of Ok("out", p) whose second block is block,
// or a text block holding a placeholder.
func mcpWith(block string) string {
	if strings.HasPrefix(block, "[") {
		block = `{"type":"text","text":"` + block + `"}`
	}
	return `{"content":[{"type":"text","text":"out"},` + block + `],"isError":false}`
}

func TestMCPDelivery(t *testing.T) {
	t.Parallel()
	link := func(mimeType, uri, name string) string {
		return `{"type":"resource_link","mimeType":"` + mimeType + `","uri":"` + uri + `","name":"` + name + `"}`
	}
	blob := func(name, mimeType, data string) string {
		return `{"type":"resource","resource":{"uri":"toolnexus:part/0/` + name + `","mimeType":"` + mimeType + `","blob":"` + data + `"}}`
	}
	text := func(name, mimeType, text string) string {
		return `{"type":"resource","resource":{"uri":"toolnexus:part/0/` + name + `","mimeType":"` + mimeType + `","text":` + text + `}}`
	}
	media := func(typ, mimeType, data string) string {
		return `{"type":"` + typ + `","data":"` + data + `","mimeType":"` + mimeType + `"}`
	}
	want := map[string]string{
		"png":                 media("image", "image/png", pngB64),
		"png mixed case":      media("image", "image/png", pngB64),
		"png with parameters": media("image", "image/png", pngB64),
		"pdf mixed case":      blob("report.pdf", "application/pdf", pdfB64),
		"pdf unnamed":         blob("", "application/pdf", pdfB64),
		"wav mixed case":      media("audio", "audio/wav", wavB64),
		"mp3":                 media("audio", "audio/mpeg", "SUQz"),
		"jpeg https":          link("image/jpeg", "https://example.com/cat.jpg", "cat.jpg"),
		"jpeg HTTPS":          link("image/jpeg", "HTTPS://example.com/cat.jpg", "cat.jpg"),
		"jpeg http":           link("image/jpeg", "http://example.com/cat.jpg", "cat.jpg"),
		"jpeg s3":             link("image/jpeg", "s3://bucket/cat.jpg", "cat.jpg"),
		"jpeg gs":             link("image/jpeg", "gs://bucket/cat.jpg", "cat.jpg"),
		"jpeg file":           link("image/jpeg", "file:///tmp/cat.jpg", "cat.jpg"),
		"jpeg ftp":            link("image/jpeg", "ftp://example.com/cat.jpg", "cat.jpg"),
		"pdf https":           link("application/pdf", "https://example.com/report.pdf", "report.pdf"),
		"pdf s3":              link("application/pdf", "s3://bucket/report.pdf", "report.pdf"),
		"pdf gs":              link("application/pdf", "gs://bucket/report.pdf", "report.pdf"),
		"wav https":           link("audio/wav", "https://example.com/a.wav", "a.wav"),
		"txt":                 text("notes.txt", "text/plain", `"hello"`),
		"txt not UTF-8":       blob("bad.txt", "text/plain", "/w=="),
		"md":                  text("README.md", "text/markdown", `"# Title"`),
		"csv":                 text("data.csv", "text/csv", `"a,b\n1,2"`),
		"json":                text("data.json", "application/json", `"{\"a\":1}"`),
		"ogg":                 media("audio", "audio/ogg", "T2dnUw=="),
		"flac":                media("audio", "audio/flac", "ZkxhQw=="),
		"m4a":                 media("audio", "audio/mp4", "ZnR5cA=="),
		"heic":                media("image", "image/heic", "ZnR5cA=="),
		"gif":                 media("image", "image/gif", "R0lGODlh"),
		"bmp":                 media("image", "image/bmp", "Qk0="),
	}
	for name, block := range want {
		want[name] = mcpWith(block)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.MCPCallToolResult() })
}

func TestFromMCPCallToolResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want toolnexus.ToolResult
	}{
		{"text", `{"content":[{"type":"text","text":"eu-west-1"}]}`, toolnexus.Ok("eu-west-1")},
		{"texts joined, isError kept", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true,"_meta":{"x":1}}`,
			toolnexus.Error("a\nb")},
		{"no content", `{}`, toolnexus.ToolResult{}},
		{"a repeated content key: the last wins", `{"content":[{"type":"text","text":"a"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"content":[{"type":"text","text":"b"}]}`,
			toolnexus.Ok("b")},
		{"empty texts and structured content", `{"content":[{"type":"text","text":""},{"type":"text"}],"structuredContent":{ "a": 1 }}`,
			toolnexus.Ok(`{"a":1}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"a":1}`))},
		{"many texts", `{"content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"text","text":"c"},{"type":"text","text":"d"}]}`,
			toolnexus.Ok("a\n\nc\nd")},
		{"null content", `{"content":null,"isError":null}`, toolnexus.ToolResult{}},
		{"image and audio", `{"content":[{"type":"text","text":"out"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"priority":1}},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"}]}`,
			toolnexus.Ok("out", imagePNG, audioWAV)},
		{"media types keep their case and lose their parameters", `{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"Image/PNG"},{"type":"resource","resource":{"uri":"file:///n.txt","mimeType":"text/plain; charset=utf-8","blob":"aGVsbG8="}}]}`,
			withURIs(toolnexus.Ok("", image("Image/PNG", pngB64), file("text/plain", "aGVsbG8=", "n.txt")), "1", "file:///n.txt").
				WithMetadata(toolnexus.MetadataResourceForms, map[string]string{"1": "blob"})},
		{"embedded blob named from its uri", `{"content":[{"type":"resource","resource":{"uri":"file:///tmp/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`,
			withURIs(toolnexus.Ok("", pdfNamed), "0", "file:///tmp/report.pdf")},
		{"embedded blob with our uri, which is not kept", `{"content":[{"type":"resource","resource":{"uri":"toolnexus:part/3/my%20report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}},{"type":"resource","resource":{"uri":"toolnexus:part/4/","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`,
			toolnexus.Ok("", pdfNamed.WithName("my report.pdf"), pdfUnnamed)},
		{"names from a peer are base names", `{"content":[{"type":"resource_link","uri":"https://example.com/r","name":"../../etc/passwd","mimeType":"application/pdf"},{"type":"resource_link","uri":"https://example.com/s","name":"a\u0000b\nc.pdf","mimeType":"application/pdf"},{"type":"resource","resource":{"uri":"x:a%00b%0Ac.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}},{"type":"resource","resource":{"uri":"x:dir/..","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`,
			withURIs(toolnexus.Ok("", part(toolnexus.PartFile, "application/pdf", "", "https://example.com/r", "passwd"),
				part(toolnexus.PartFile, "application/pdf", "", "https://example.com/s", "abc.pdf"),
				file("application/pdf", pdfB64, "abc.pdf"), pdfUnnamed), "2", "x:a%00b%0Ac.pdf", "3", "x:dir/..")},
		{"embedded image blob, no MIME type", `{"content":[{"type":"resource","resource":{"uri":"mem://a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}},{"type":"resource","resource":{"uri":"mem://store/x","blob":"AAAA"}}]}`,
			withURIs(toolnexus.Ok("", imagePNG, file("application/octet-stream", "AAAA", "x")), "0", "mem://a.png", "1", "mem://store/x")},
		{"embedded text", `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"hello"}}]}`,
			withURIs(toolnexus.Ok("out", file("text/plain", "aGVsbG8=", "a.txt")), "0", "file:///a.txt")},
		{"embedded text without a MIME type, or with an invalid one, or empty", `{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"héllo"}},` +
			`{"type":"resource","resource":{"uri":"mem://b","mimeType":"bad","text":"as text"}},{"type":"resource","resource":{"uri":"mem://c","mimeType":"text/plain","text":""}}]}`,
			withURIs(toolnexus.Ok("as text\n", file("text/plain", "aMOpbGxv", "")), "0", "mem://a")},
		{"uris that are not absolute are not kept", `{"content":[{"type":"resource","resource":{"uri":"notes.txt","mimeType":"text/plain","text":"a"}},` +
			`{"type":"resource","resource":{"uri":"mem://a b","mimeType":"text/plain","text":"b"}},{"type":"resource","resource":{"mimeType":"text/plain","text":"c"}}]}`,
			toolnexus.Ok("", file("text/plain", "YQ==", "notes.txt"), file("text/plain", "Yg==", ""), file("text/plain", "Yw==", ""))},
		{"conformance: tools-call-embedded-resource", `{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]}`,
			withURIs(toolnexus.Ok("", file("text/plain", "VGhpcyBpcyBhbiBlbWJlZGRlZCByZXNvdXJjZSBjb250ZW50Lg==", "")), "0", "test://embedded-resource")},
		{"conformance: tools-call-mixed-content", `{"content":[{"type":"text","text":"Multiple content types test:"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}]}`,
			withURIs(toolnexus.Ok("Multiple content types test:", imagePNG, file("application/json", "eyJ0ZXN0IjoiZGF0YSIsInZhbHVlIjoxMjN9", "")), "1", "test://mixed-content-resource")},
		{"resource links", `{"content":[{"type":"resource_link","uri":"https://example.com/cat.png","name":"cat.png","mimeType":"image/png"},{"type":"resource_link","uri":"https://example.com/r","name":"report.pdf","mimeType":"application/pdf"},{"type":"resource_link","uri":"s3://bucket/blob","name":"blob"}]}`,
			toolnexus.Ok("", imageURL, part(toolnexus.PartFile, "application/pdf", "", "https://example.com/r", "report.pdf"),
				part(toolnexus.PartFile, "application/octet-stream", "", "s3://bucket/blob", "blob"))},
		{"non-canonical base64 is re-encoded", `{"content":[{"type":"image","data":"iVBORw0K\nGgo","mimeType":"image/png"}]}`,
			toolnexus.Ok("", imagePNG)},
		{"escaped slashes in base64", `{"content":[{"type":"image","data":"AA\/\/","mimeType":"image/png"}]}`,
			toolnexus.Ok("", image("image/png", "AA//"))},
		{"structured content is kept apart", `{"content":[{"type":"text","text":"{\"b\": 2, \"a\": [1]}"},{"type":"text","text":"extra"}],"structuredContent":{ "a": [1], "b": 2 }}`,
			toolnexus.Ok("{\"b\": 2, \"a\": [1]}\nextra").WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"a":[1],"b":2}`))},
		{"structured content without text is the output", `{"content":[{"type":"text","text":""}],"structuredContent":{"n": 18446744073709551617}}`,
			toolnexus.Ok(`{"n":18446744073709551617}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"n":18446744073709551617}`))},
		{"null structured content", `{"content":[{"type":"text","text":"x"}],"structuredContent":null}`, toolnexus.Ok("x")},
		{"unknown and broken blocks become placeholders",
			`{"content":[{"type":"text","text":"out"},{"type":"widget","mimeType":"x/y","data":"AAAA"},{"type":"video"},{"type":7},` +
				`{"type":"image","data":"not base64!","mimeType":"image/png"},{"type":"image","data":"AAAA"},{"type":"image","mimeType":"image/png"},` +
				`{"type":"audio","data":"AAAA","mimeType":"image/png"},{"type":"resource"},{"type":"resource","resource":{"uri":"x","mimeType":"bad","blob":"AAAA"}},` +
				`{"type":"resource_link","uri":"relative/path","mimeType":"image/png"},{"type":"resource","resource":{"uri":"x","blob":"="}},{"type":"widget","data":7}]}`,
			toolnexus.Ok(strings.Join([]string{
				"out",
				"[unsupported widget part (x/y, 3 bytes)]",
				"[unsupported video part]",
				"[unsupported unknown part]",
				"[unsupported image part (image/png, 11 bytes, not base64)]",
				"[unsupported image part (3 bytes)]",
				"[unsupported image part (image/png, 0 bytes)]",
				"[unsupported audio part (image/png, 3 bytes)]",
				"[unsupported resource part (0 bytes)]",
				"[unsupported file part (bad, 3 bytes)]",
				"[unsupported image part (image/png, url)]",
				"[unsupported file part (application/octet-stream, 1 bytes, not base64)]",
				"[unsupported widget part]",
			}, "\n"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.FromMCPCallToolResult([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			require.NoError(t, got.Validate())
			// The struct the MCP SDKs decode converts the same way.
			var c toolnexus.MCPCallToolResult
			if json.Unmarshal([]byte(tc.in), &c) == nil {
				fromStruct, err := c.ToolResult()
				require.NoError(t, err)
				assert.Equal(t, tc.want, fromStruct)
			}
		})
	}
}

// TestFromMCPCallToolResultExactKeys checks that keys are read as the MCP
// SDKs read them: a key that differs in case, or that encoding/json would
// fold onto a known one, is an unknown key.
func TestFromMCPCallToolResultExactKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want toolnexus.ToolResult
	}{
		{"case variant after the key", `{"content":[{"type":"text","text":"x"}],"isError":true,"ISERROR":false}`, toolnexus.Error("x")},
		{"case variant before the key", `{"IsError":false,"content":[{"type":"text","text":"x"}],"isError":true}`, toolnexus.Error("x")},
		{"case variant alone", `{"content":[{"type":"text","text":"x"}],"ISERROR":true}`, toolnexus.Ok("x")},
		{"long s folds in encoding/json", `{"content":[{"type":"text","text":"x"}],"iſError":true}`, toolnexus.Ok("x")},
		{"block type in capitals", `{"content":[{"type":"text","text":"x","TYPE":"image","DATA":"iVBORw0KGgo=","MIMETYPE":"image/png"}]}`, toolnexus.Ok("x")},
		{"content in capitals", `{"Content":[{"type":"text","text":"x"}]}`, toolnexus.Ok("")},
		{"Kelvin sign in a resource key", `{"content":[{"type":"resource","resource":{"uri":"file:///a.txt","text":"hello","blob":"","\u212ainds":1}}]}`,
			withURIs(toolnexus.Ok("", file("text/plain", "aGVsbG8=", "a.txt")), "0", "file:///a.txt")},
		{"escaped key is the key", `{"content":[{"type":"text","text":"x"}],"is\u0045rror":true}`, toolnexus.Error("x")},
		{"the last of two keys wins", `{"content":[{"type":"text","text":"x"}],"isError":true,"isError":false}`, toolnexus.Ok("x")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.FromMCPCallToolResult([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFromMCPCallToolResultErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"empty", ``, `toolnexus: invalid MCP result: the input is empty, not JSON`},
		{"null", ` null`, `toolnexus: invalid MCP result: want a JSON object, got null`},
		{"array", `[{"type":"text","text":"x"}]`, `toolnexus: invalid MCP result: want a JSON object, got an array`},
		{"string holding base64", `"` + strings.Repeat("QUJD", 100) + `"`, `toolnexus: invalid MCP result: want a JSON object, got a string`},
		{"number", `12`, `toolnexus: invalid MCP result: want a JSON object, got a number`},
		{"content of an input_required result is read too", `{"resultType":"input_required","content":[{"type":"text","text":"\ud800"}],"inputRequests":{}}`,
			`toolnexus: invalid MCP result: content[0].text: a string is not valid UTF-8`},
		{"not JSON", `<html>`, `toolnexus: invalid MCP result: the input is not JSON: byte 1 of 6, "<", cannot be there`},
		{"a word", `nope`, `toolnexus: invalid MCP result: the input is not JSON: byte 2 of 4, "o", cannot be there`},
		{"a literal cut short", `fals`, `toolnexus: invalid MCP result: the input is not JSON: it ends after 4 bytes, inside a value`},
		{"truncated", `{"content":[`, `toolnexus: invalid MCP result: the input is not JSON: it ends after 12 bytes, inside a value`},
		{"syntax", `{"content":[}`, `toolnexus: invalid MCP result: the input is not JSON: byte 13 of 13, "}", cannot be there`},
		{"trailing data", `{"content":[]} {}`, `toolnexus: invalid MCP result: the input is not JSON: byte 16 of 17, "{", cannot be there`},
		{"content not an array", `{"content":{"type":"text"}}`, `toolnexus: invalid MCP result: "content" is an object, not an array`},
		{"isError not a bool", `{"content":[],"isError":"yes"}`, `toolnexus: invalid MCP result: "isError" is a string, not a boolean`},
		{"block not an object", `{"content":[{"type":"text","text":"a"},"b"]}`, `toolnexus: invalid MCP result: content[1] is a string, not an object`},
		{"null block", `{"content":[null]}`, `toolnexus: invalid MCP result: content[0] is null, not an object`},
		{"data not a string", `{"content":[{"type":"image","data":12,"mimeType":"image/png"}]}`, `toolnexus: invalid MCP result: content[0]: "data" is a number, not a string`},
		{"resource not an object", `{"content":[{"type":"resource","resource":"file:///a"}]}`, `toolnexus: invalid MCP result: content[0]: "resource" is a string, not an object`},
		{"text not UTF-8", `{"content":[{"type":"text","text":"ok"},{"type":"text","text":"a\ud800"}]}`, `toolnexus: invalid MCP result: content[1].text: a string is not valid UTF-8`},
		{"raw text not UTF-8", "{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}", `toolnexus: invalid MCP result: content[0].text: a string is not valid UTF-8`},
		{"mimeType CESU-8", "{\"content\":[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"\xed\xa0\x80\"}]}", `toolnexus: invalid MCP result: content[0].mimeType: a string is not valid UTF-8`},
		{"resource uri", `{"content":[{"type":"resource","resource":{"uri":"\udc00","blob":"AAAA"}}]}`, `toolnexus: invalid MCP result: content[0].resource.uri: a string is not valid UTF-8`},
		{"a key", `{"content":[{"type":"text","\ud800":1}]}`, `toolnexus: invalid MCP result: content[0]: a key is not valid UTF-8`},
		{"unknown member", `{"content":[],"_meta":{"a":["\ud800"]}}`, `toolnexus: invalid MCP result: _meta: a string is not valid UTF-8`},
		{"structuredContent", `{"content":[],"structuredContent":{"a":"\ud800"}}`, `toolnexus: invalid MCP result: structuredContent: a string is not valid UTF-8`},
		{"input request id", `{"resultType":"input_required","inputRequests":{"a\ud800":{"method":"elicitation/create"}}}`, `toolnexus: invalid MCP result: inputRequests: a key is not valid UTF-8`},
		{"elicitation message", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"form","message":"\ud800"}}}}`,
			`toolnexus: invalid MCP result: inputRequests.r.params.message: a string is not valid UTF-8`},
		{"input request of a long id not an object", `{"resultType":"input_required","inputRequests":{"` + strings.Repeat("i", 16<<10) + `":5}}`,
			`toolnexus: invalid MCP result: "inputRequests.iiiiiiiiiiiiiiiiiiiiiiiiii"… (16398 bytes) is a number, not an object`},
		{"url elicitation with a space", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com/a b"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "https://example.com/a b" is not an absolute URL`},
		{"url elicitation relative", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"/login"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "/login" is not an absolute URL`},
		{"url elicitation with a NUL", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com/\u0000"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "https://example.com/\x00" is not an absolute URL`},
		{"url elicitation without url", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "" is not an absolute URL`},
		{"url elicitation to a data URL", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"data:text/html;base64,PGgxPg=="}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "data:text/html;base64,PGgxPg==" is not an absolute URL`},
		{"url elicitation without mode, with a bad url", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"message":"m","url":"login page"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "login page" is not an absolute URL`},
		{"url elicitation long url", `{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"` + strings.Repeat("x", 16<<10) + `"}}}}`,
			`toolnexus: invalid MCP result: input request "r": url "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (16384 bytes) is not an absolute URL`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := toolnexus.FromMCPCallToolResult([]byte(tc.in))
			assertErr(t, err, toolnexus.ErrInvalidMCP, tc.want)
			// The typed route checks what it reads as well, but for UTF-8,
			// which encoding/json replaces before it is handed over.
			var c toolnexus.MCPCallToolResult
			if json.Unmarshal([]byte(tc.in), &c) == nil && strings.Contains(tc.want, "url") {
				_, err := c.ToolResult()
				assertErr(t, err, toolnexus.ErrInvalidMCP, tc.want)
			}
		})
	}
}

// TestMCPStructuredContentNull checks that "structuredContent":null is no
// structured content on every route: the output is the text.
func TestMCPStructuredContentNull(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"content":[{"type":"text","text":"hi"}],"structuredContent":null}`, `{"content":[{"type":"text","text":"hi"}],"structuredContent": null }`} {
		got, err := toolnexus.FromMCPCallToolResult([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, toolnexus.Ok("hi"), got)
		var c toolnexus.MCPCallToolResult
		require.NoError(t, json.Unmarshal([]byte(in), &c))
		got, err = c.ToolResult()
		require.NoError(t, err)
		assert.Equal(t, toolnexus.Ok("hi"), got)
	}
	got, err := toolnexus.MCPCallToolResult{Content: []toolnexus.MCPContent{{Type: "text", Text: "hi"}}, StructuredContent: json.RawMessage(" null")}.ToolResult()
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("hi"), got)
}

// TestMCPMIMETypeNoTrim checks that a block whose MIME type has control or
// Unicode space around it is no part: it is kept as its placeholder.
func TestMCPMIMETypeNoTrim(t *testing.T) {
	t.Parallel()
	for _, m := range spacedMIMETypes {
		b, err := json.Marshal(toolnexus.MCPCallToolResult{Content: []toolnexus.MCPContent{{Type: "image", Data: "AAAA", MIMEType: m}}})
		require.NoError(t, err)
		got, err := toolnexus.FromMCPCallToolResult(b)
		require.NoError(t, err)
		assert.Nil(t, got.Parts, "%q", m)
		assert.True(t, strings.HasPrefix(got.Output, "[unsupported image part ("), "%q: %s", m, got.Output)
	}
}

// TestFromMCPCallToolResultLimit checks that input over the limit is refused
// before any of it is decoded, as a document too large, by
// ParseMCPCallToolResult.
func TestFromMCPCallToolResultLimit(t *testing.T) {
	t.Parallel()
	in := []byte(`{"content":[{"type":"text","text":"0123456789"}]}`)
	for name, parse := range map[string]func(data []byte, maxBytes int64) (toolnexus.ToolResult, error){
		"ParseMCPCallToolResult": toolnexus.ParseMCPCallToolResult,
	} {
		got, err := parse(in, int64(len(in)))
		require.NoError(t, err, name)
		assert.Equal(t, toolnexus.Ok("0123456789"), got, name)
		got, err = parse(in, 0)
		require.NoError(t, err, name)
		assert.Equal(t, toolnexus.Ok("0123456789"), got, "%s: no limit", name)

		_, err = parse(in, int64(len(in))-1)
		var tooLarge *toolnexus.PartTooLargeError
		require.ErrorAs(t, err, &tooLarge, name)
		assert.Equal(t, toolnexus.PartTooLargeError{Limit: int64(len(in)) - 1, Size: int64(len(in)), Document: true}, *tooLarge, name)
		assertErr(t, err, toolnexus.ErrPartTooLarge, "toolnexus: JSON document too large: 49 bytes, over the limit of 48 bytes")

		// Not even its syntax is read.
		_, err = parse([]byte("not JSON at all"), 4)
		require.ErrorIs(t, err, toolnexus.ErrPartTooLarge, name)
	}
}

// TestFromMCPCallToolResultInputRequired reads a multi round-trip result
// that asks for input: a suspension, with the state kept for the retry.
func TestFromMCPCallToolResultInputRequired(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want toolnexus.Request
	}{
		{"approval", `{"resultType":"input_required","inputRequests":{"pnd-7c0":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "pnd-7c0", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}},
		{"login", `{"resultType":"input_required","inputRequests":{"pnd-1":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"pnd-1"}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}},
		{"question", `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"Which environment?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "q", Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"schema": map[string]any{
				"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []any{"answer"}}}}},
		{"the first of several, by id", `{"resultType":"input_required","inputRequests":{"b":{"method":"elicitation/create","params":{"mode":"form","message":"B?"}},"a":{"method":"elicitation/create","params":{"mode":"form","message":"A?"}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}},
		{"roots", `{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "r", Kind: toolnexus.KindRoots, Prompt: "[the MCP server asks for the client's roots]"}},
		{"sampling", `{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":50}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "s", Kind: toolnexus.KindSampling, Prompt: "[the MCP server asks for a message from the client's model]", Data: map[string]any{
				"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hi"}}}, "maxTokens": 50.0}}},
		{"another method", `{"resultType":"input_required","inputRequests":{"r":{"method":"tasks/get","params":{}}},"requestState":"sealed"}`,
			toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "[unsupported MCP input request tasks/get]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.FromMCPCallToolResult([]byte(tc.in))
			require.NoError(t, err)
			req, ok := toolnexus.PendingOf(got)
			require.True(t, ok)
			assert.Equal(t, tc.want, req)
			assert.True(t, got.IsError)
			assert.Equal(t, "sealed", got.Metadata[toolnexus.MetadataRequestState])
			require.NoError(t, got.Validate())

			// The suspension survives JSON, state included.
			b, err := json.Marshal(got)
			require.NoError(t, err)
			var again toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(b, &again))
			req2, ok := toolnexus.PendingOf(again)
			require.True(t, ok)
			assert.Equal(t, req.ID, req2.ID)
			assert.Equal(t, "sealed", again.Metadata[toolnexus.MetadataRequestState])
		})
	}
	got, err := toolnexus.FromMCPCallToolResult([]byte(`{"resultType":"input_required","inputRequests":{}}`))
	require.NoError(t, err)
	assert.False(t, got.IsPending(), "no request: the server is busy")
	assert.True(t, got.IsError)
}

// TestFromMCPCallToolResultInputRequests reads a result asking for several
// inputs at once, as the conformance suite's multiple-input tool sends it:
// one suspension with every request, sorted by id, each of its method, and
// each answerable with what the client sends back.
func TestFromMCPCallToolResultInputRequests(t *testing.T) {
	t.Parallel()
	const in = `{"resultType":"input_required","content":null,"inputRequests":{` +
		`"user_name":{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},` +
		`"greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}},` +
		`"client_roots":{"method":"roots/list","params":{}}},"requestState":"multiple_inputs"}`
	const want = `{"output":"[the MCP server asks for the client's roots]\n[the MCP server asks for a message from the client's model]\nWhat is your name?","isError":true,"metadata":{` +
		`"pending":{"id":"client_roots","kind":"roots","prompt":"[the MCP server asks for the client's roots]"},` +
		`"pendingMore":[{"id":"greeting","kind":"sampling","prompt":"[the MCP server asks for a message from the client's model]","data":{"maxTokens":50,"messages":[{"content":{"text":"Generate a greeting","type":"text"},"role":"user"}]}},` +
		`{"id":"user_name","kind":"input","prompt":"What is your name?","data":{"schema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}],` +
		`"requestState":"multiple_inputs"}}`
	got, err := toolnexus.FromMCPCallToolResult([]byte(in))
	require.NoError(t, err)
	require.NoError(t, got.Validate())
	assert.Equal(t, want, mustJSON(t, got))

	var typed toolnexus.MCPCallToolResult
	require.NoError(t, json.Unmarshal([]byte(in), &typed))
	fromTyped, err := typed.ToolResult()
	require.NoError(t, err)
	assert.Equal(t, got, fromTyped, "the typed value reads as its JSON does")

	reqs, ok := toolnexus.PendingAllOf(got)
	require.True(t, ok)
	responses := map[string]string{
		"client_roots": `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`,
		"greeting":     `{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model","stopReason":"endTurn"}`,
		"user_name":    `{"action":"accept","content":{"name":"Alice"}}`,
	}
	answers := make([]string, len(reqs))
	for i, req := range reqs {
		ans, err := req.AnswerFromMCP(json.RawMessage(responses[req.ID]))
		require.NoError(t, err, req.ID)
		answers[i] = mustJSON(t, ans)
	}
	assert.Equal(t, []string{
		`{"id":"client_roots","ok":true,"data":{"roots":[{"name":"Test Root","uri":"file:///test/root"}]}}`,
		`{"id":"greeting","ok":true,"data":{"content":{"text":"Hello there!","type":"text"},"model":"test-model","role":"assistant","stopReason":"endTurn"}}`,
		`{"id":"user_name","ok":true,"data":{"name":"Alice"}}`,
	}, answers)
	_, err = reqs[2].AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"name":42}}`))
	assert.ErrorIs(t, err, toolnexus.ErrInvalidAnswer)
}

// TestFromMCPCallToolResultInputRequestErrors checks input requests that are
// not ones: params of the wrong type.
func TestFromMCPCallToolResultInputRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		wantMsg string
	}{
		{"params a string", `{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":"x"}}}`,
			`toolnexus: invalid MCP result: "params" is a string, not an object`},
		{"elicitation message a number", `{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":1}}}}`,
			`toolnexus: invalid MCP result: "message" is a number, not a string`},
		{"input request an array", `{"resultType":"input_required","inputRequests":{"a":[]}}`,
			`toolnexus: invalid MCP result: "inputRequests.a" is an array, not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.FromMCPCallToolResult([]byte(tt.in))
			assertErr(t, err, toolnexus.ErrInvalidMCP, tt.wantMsg)
			assert.Zero(t, got)
		})
	}
}

// TestMCPRoundTrip sends a result to MCP and reads it back: every part
// comes back equal, its name included.
func TestMCPRoundTrip(t *testing.T) {
	t.Parallel()
	parts := []toolnexus.ContentPart{imagePNG, imageURL, pdfNamed, pdfUnnamed, pdfURL.WithName("r.pdf"), audioWAV,
		file("text/plain", "aGVsbG8=", "notes.txt"), file("text/plain", "/w==", "bad.txt"), file("application/json", "eyJhIjoxfQ==", "a.json")}
	r := toolnexus.Error("failed", append(parts, image("Image/PNG", pngB64))...)
	want := toolnexus.Error("failed", append(parts, imagePNG)...) // media types are sent in lower case
	data, err := json.Marshal(r.MCPCallToolResult())
	require.NoError(t, err)
	got, err := toolnexus.FromMCPCallToolResult(data)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	typed, err := r.MCPCallToolResult().ToolResult()
	require.NoError(t, err)
	assert.Equal(t, want, typed, "the typed value reads as its JSON does")
}

// TestMCPRestores reads MCP results with both readers and writes them back:
// embedded resources keep their uri and their text or blob, structured
// content stays apart from the text, and the JSON comes back as it was.
func TestMCPRestores(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in string }{
		{"conformance: tools-call-embedded-resource", `{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}],"isError":false}`},
		{"conformance: tools-call-mixed-content", `{"content":[{"type":"text","text":"Multiple content types test:"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}],"isError":false}`},
		{"blobs keep their uri and type", `{"content":[{"type":"resource","resource":{"uri":"demo://resource/static/blob/1","mimeType":"application/octet-stream","blob":"AAEC"}},` +
			`{"type":"resource","resource":{"uri":"file:///tmp/a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"file:///tmp/notes.txt","mimeType":"text/plain","blob":"/w=="}}],"isError":true}`},
		{"structured content", `{"content":[{"type":"text","text":"{\"temperature\":22.5,\"conditions\":\"Sunny\"}"}],"structuredContent":{"temperature":22.5,"conditions":"Sunny"},"isError":false}`},
		{"structured content without text", `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1},"isError":false}`},
		{"a text/plain blob stays a blob", `{"content":[{"type":"resource","resource":{"uri":"demo://resource/static/text/1","mimeType":"text/plain","blob":"aGVsbG8="}}],"isError":false}`},
		{"a JSON blob and one of ours stay blobs", `{"content":[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"application/json","blob":"eyJhIjoxfQ=="}},` +
			`{"type":"resource","resource":{"uri":"toolnexus:part/1/n.txt","mimeType":"text/plain","blob":"aGVsbG8="}}],"isError":false}`},
		{"a text of another type stays text", `{"content":[{"type":"resource","resource":{"uri":"file:///a.yaml","mimeType":"application/yaml","text":"a: 1"}},` +
			`{"type":"resource","resource":{"uri":"file:///a.csv","mimeType":"application/octet-stream","text":"x,y"}},` +
			`{"type":"resource","resource":{"uri":"file:///a.svg","mimeType":"image/svg+xml","text":"svg"}}],"isError":false}`},
		{"resource links", `{"content":[{"type":"text","text":"2 links"},{"type":"resource_link","mimeType":"text/plain","uri":"demo://resource/dynamic/text/2","name":"Text Resource 2"}],"isError":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := toolnexus.FromMCPCallToolResult([]byte(tc.in))
			require.NoError(t, err)
			require.NoError(t, r.Validate())
			assert.Equal(t, tc.in, mustJSON(t, r.MCPCallToolResult()))

			var c toolnexus.MCPCallToolResult
			require.NoError(t, json.Unmarshal([]byte(tc.in), &c))
			typed, err := c.ToolResult()
			require.NoError(t, err)
			assert.Equal(t, r, typed, "the typed value reads as its JSON does")

			// Through the ToolResult's own JSON, as a host stores it: the
			// structured content is a map then, written with its keys sorted.
			var stored toolnexus.ToolResult
			require.NoError(t, json.Unmarshal([]byte(mustJSON(t, r)), &stored))
			assert.JSONEq(t, tc.in, mustJSON(t, stored.MCPCallToolResult()))
		})
	}
}

// TestMCPCallToolResultMetadata checks the metadata the writer reads: URIs
// only for valid indexes and absolute URIs, structured content only when
// it is a JSON object.
func TestMCPCallToolResultMetadata(t *testing.T) {
	t.Parallel()
	txt := file("text/plain", "aGVsbG8=", "n.txt")
	res := func(uri string) string {
		return `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"` + uri + `","mimeType":"text/plain","text":"hello"}}],"isError":false}`
	}
	cases := []struct {
		name     string
		key      string
		value    any
		want     string
		parts    []toolnexus.ContentPart
		wantJSON string
	}{
		{"uri", toolnexus.MetadataResourceURIs, map[string]string{"0": "file:///n.txt"}, res("file:///n.txt"), nil, ""},
		{"uri decoded from JSON", toolnexus.MetadataResourceURIs, map[string]any{"0": "file:///n.txt"}, res("file:///n.txt"), nil, ""},
		{"uri of another part", toolnexus.MetadataResourceURIs, map[string]string{"1": "file:///n.txt"}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"index not canonical", toolnexus.MetadataResourceURIs, map[string]string{"00": "file:///n.txt", "-0": "file:///x"}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"uri not absolute", toolnexus.MetadataResourceURIs, map[string]string{"0": "n.txt"}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"uri with a space", toolnexus.MetadataResourceURIs, map[string]any{"0": "file:///a b"}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"uri not a string", toolnexus.MetadataResourceURIs, map[string]any{"0": 7}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"uris of another type", toolnexus.MetadataResourceURIs, []string{"file:///n.txt"}, res("toolnexus:part/0/n.txt"), nil, ""},
		{"structured content", toolnexus.MetadataStructuredContent, map[string]any{"b": 1, "a": []int{2}}, "", []toolnexus.ContentPart{},
			`{"content":[{"type":"text","text":"out"}],"structuredContent":{"a":[2],"b":1},"isError":false}`},
		{"structured content as raw JSON", toolnexus.MetadataStructuredContent, json.RawMessage(` {"a" : 1} `), "", []toolnexus.ContentPart{},
			`{"content":[{"type":"text","text":"out"}],"structuredContent":{"a":1},"isError":false}`},
		{"structured content not an object", toolnexus.MetadataStructuredContent, []int{1}, "", []toolnexus.ContentPart{},
			`{"content":[{"type":"text","text":"out"}],"isError":false}`},
		{"structured content not JSON", toolnexus.MetadataStructuredContent, json.RawMessage(`{"a":`), "", []toolnexus.ContentPart{},
			`{"content":[{"type":"text","text":"out"}],"isError":false}`},
		{"structured content that does not encode", toolnexus.MetadataStructuredContent, map[string]any{"f": func() {}}, "", []toolnexus.ContentPart{},
			`{"content":[{"type":"text","text":"out"}],"isError":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			parts, want := []toolnexus.ContentPart{txt}, tc.want
			if tc.parts != nil {
				parts, want = tc.parts, tc.wantJSON
			}
			r := toolnexus.Ok("out", parts...).WithMetadata(tc.key, tc.value)
			assert.Equal(t, want, mustJSON(t, r.MCPCallToolResult()))
		})
	}
}

// TestMCPCallToolResultToolResultErrors checks the typed route's one error:
// structured content that is not JSON.
func TestMCPCallToolResultToolResultErrors(t *testing.T) {
	t.Parallel()
	_, err := toolnexus.MCPCallToolResult{StructuredContent: json.RawMessage(`{"a":`)}.ToolResult()
	require.ErrorIs(t, err, toolnexus.ErrInvalidMCP)
	assert.True(t, errors.Is(err, toolnexus.ErrInvalidMCP))
}
