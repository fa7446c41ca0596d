package toolnexus_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// pngB64 is an 8-byte PNG signature; with pdfB64 and wavB64 it keeps the
// expected JSON readable.
const pngB64 = "iVBORw0KGgo="

var (
	textNote   = toolnexus.TextPart("note")
	imagePNG   = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: pngB64}
	imageURL   = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	pdfNamed   = toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}
	pdfUnnamed = toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64}
	pdfURL     = toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", URL: "https://example.com/report.pdf"}
	audioWAV   = toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64}
	image      = func(mimeType, data string) toolnexus.ContentPart {
		return part(toolnexus.PartImage, mimeType, data, "", "")
	}
	imageAt = func(url string) toolnexus.ContentPart { return part(toolnexus.PartImage, "image/jpeg", "", url, "") }
	pdfAt   = func(url string) toolnexus.ContentPart {
		return part(toolnexus.PartFile, "application/pdf", "", url, "")
	}
	file = func(mimeType, data, name string) toolnexus.ContentPart {
		return part(toolnexus.PartFile, mimeType, data, "", name)
	}
	audio = func(mimeType, data string) toolnexus.ContentPart {
		return part(toolnexus.PartAudio, mimeType, data, "", "")
	}
	destinationOf = []string{"anthropic", "openai chat", "openai responses", "gemini", "mcp"}
)

func part(typ toolnexus.PartType, mimeType, data, url, name string) toolnexus.ContentPart {
	return toolnexus.ContentPart{Type: typ, MIMEType: mimeType, Data: data, URL: url, Name: name}
}

// deliveryParts are the parts every destination's delivery table must
// cover, by row name: media types in odd case and with parameters, every
// URL scheme, each extension of the table, text files and types no
// destination takes. Each destination test gives, for every row, the block
// it sends or the placeholder that stands for the part.
var deliveryParts = map[string]toolnexus.ContentPart{
	"png":                 imagePNG,
	"png mixed case":      image("Image/PNG", pngB64),
	"png with parameters": image("image/png; name=cat", pngB64),
	"pdf mixed case":      file("Application/PDF", pdfB64, "report.pdf"),
	"pdf unnamed":         pdfUnnamed,
	"wav mixed case":      audio("audio/WAV", wavB64),
	"mp3":                 audio("audio/mpeg", "SUQz"),
	"jpeg https":          imageAt("https://example.com/cat.jpg"),
	"jpeg HTTPS":          imageAt("HTTPS://example.com/cat.jpg"),
	"jpeg http":           imageAt("http://example.com/cat.jpg"),
	"jpeg s3":             imageAt("s3://bucket/cat.jpg"),
	"jpeg gs":             imageAt("gs://bucket/cat.jpg"),
	"jpeg file":           imageAt("file:///tmp/cat.jpg"),
	"jpeg ftp":            imageAt("ftp://example.com/cat.jpg"),
	"pdf https":           pdfAt("https://example.com/report.pdf"),
	"pdf s3":              pdfAt("s3://bucket/report.pdf"),
	"pdf gs":              pdfAt("gs://bucket/report.pdf"),
	"wav https":           part(toolnexus.PartAudio, "audio/wav", "", "https://example.com/a.wav", ""),
	"txt":                 file("text/plain", "aGVsbG8=", "notes.txt"),
	"txt not UTF-8":       file("text/plain", "/w==", "bad.txt"),
	"md":                  file("text/markdown", "IyBUaXRsZQ==", "README.md"),
	"csv":                 file("text/csv", "YSxiCjEsMg==", "data.csv"),
	"json":                file("application/json", "eyJhIjoxfQ==", "data.json"),
	"ogg":                 audio("audio/ogg", "T2dnUw=="),
	"flac":                audio("audio/flac", "ZkxhQw=="),
	"m4a":                 audio("audio/mp4", "ZnR5cA=="),
	"heic":                image("image/heic", "ZnR5cA=="),
	"gif":                 image("image/gif", "R0lGODlh"),
	"bmp":                 image("image/bmp", "Qk0="),
}

// checkDelivery runs one destination's delivery table: want maps every row
// of deliveryParts to the JSON that the destination, called by send, must
// give for Ok("out", part).
func checkDelivery(t *testing.T, want map[string]string, send func(toolnexus.ToolResult) any) {
	t.Helper()
	assert.ElementsMatch(t, slices.Collect(maps.Keys(deliveryParts)), slices.Collect(maps.Keys(want)), "rows")
	for name, p := range deliveryParts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, p.Validate())
			assert.Equal(t, want[name], mustJSON(t, send(toolnexus.Ok("out", p))))
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// send calls one destination with the ids every shared test uses.
func send(destination string, r toolnexus.ToolResult) any {
	switch destination {
	case "anthropic":
		return r.AnthropicToolResult("toolu_1")
	case "openai chat":
		return r.OpenAIChatMessages("call_1", "lookup")
	case "openai responses":
		return r.OpenAIResponsesOutput("call_1")
	case "gemini":
		return r.GeminiFunctionResponse("lookup", "call_1")
	case "openai agents":
		o, err := r.OpenAIAgentsToolResult("call_1", "turn_1")
		if err != nil {
			return err.Error()
		}
		return o
	}
	return r.MCPCallToolResult()
}

// sharedCase is one result and the JSON each destination must give for it.
type sharedCase struct {
	name   string
	result toolnexus.ToolResult
	want   map[string]string // by destination
}

func checkShared(t *testing.T, cases []sharedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, d := range destinationOf {
				assert.Equal(t, tc.want[d], mustJSON(t, send(d, tc.result)), d)
			}
		})
	}
}

// TestProviderOrder checks the rule every destination shares: text first,
// Output and then each text part, then the media, each in order; empty text
// adds no block.
func TestProviderOrder(t *testing.T) {
	t.Parallel()
	checkShared(t, []sharedCase{
		{
			name:   "text only",
			result: toolnexus.Ok("out"),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":"out"}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":"out"}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"output":"out"}}`,
				"mcp":              `{"content":[{"type":"text","text":"out"}],"isError":false}`,
			},
		},
		{
			name:   "error with a text part",
			result: toolnexus.Error("failed", textNote),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}]}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_text","text":"note"}]}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"error":"failed\nnote"}}`,
				"mcp":              `{"content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}],"isError":true}`,
			},
		},
		{
			name:   "text first, then media, each in order",
			result: toolnexus.Ok("out", toolnexus.TextPart("page 1"), imagePNG, toolnexus.TextPart(""), audioWAV, toolnexus.TextPart("page 2"), pdfNamed),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"text","text":"page 2"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="},"title":"report.pdf"}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"page 2"}]},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"input_audio","input_audio":{"data":"UklGRgAAAABXQVZF","format":"wav"}},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}}]}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"page 1"},{"type":"input_text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"input_text","text":"page 2"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}]}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"output":"out\npage 1\npage 2"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"inlineData":{"mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}},{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
				"mcp":              `{"content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"page 2"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"toolnexus:part/5/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":false}`,
			},
		},
		{
			name:   "empty output",
			result: toolnexus.Ok(""),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":""}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":""}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"output":""}}`,
				"mcp":              `{"content":[],"isError":false}`,
			},
		},
		{
			name:   "empty output with a text part",
			result: toolnexus.Error("", toolnexus.TextPart("why")),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"why"}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"why"}]}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"why"}]}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"error":"why"}}`,
				"mcp":              `{"content":[{"type":"text","text":"why"}],"isError":true}`,
			},
		},
		{
			name:   "only an empty text part",
			result: toolnexus.Ok("", toolnexus.TextPart("")),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":""}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":""}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"output":""}}`,
				"mcp":              `{"content":[],"isError":false}`,
			},
		},
	})
}

// TestProviderSuspension checks that a suspension goes out as its output
// text and that no metadata reaches any destination.
func TestProviderSuspension(t *testing.T) {
	t.Parallel()
	pending := toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindAuthorization, Prompt: "Log in",
		URL: "https://example.com/login", Data: map[string]any{"state": "s3cr3t-state"}})
	checkShared(t, []sharedCase{
		{
			name:   "suspension",
			result: pending,
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"Log in\nhttps://example.com/login"}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":"Log in\nhttps://example.com/login"}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":"Log in\nhttps://example.com/login"}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"error":"Log in\nhttps://example.com/login"}}`,
				"mcp":              `{"content":[{"type":"text","text":"Log in\nhttps://example.com/login"}],"isError":true}`,
			},
		},
		{
			name:   "metadata",
			result: toolnexus.Ok("done", imagePNG).WithMetadata("secret", "s3cr3t-token"),
			want: map[string]string{
				"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"done"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`,
				"openai chat":      `[{"role":"tool","tool_call_id":"call_1","content":"done"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`,
				"openai responses": `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"done"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`,
				"gemini":           `{"id":"call_1","name":"lookup","response":{"output":"done"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}`,
				"mcp":              `{"content":[{"type":"text","text":"done"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false}`,
			},
		},
	})
}

// TestProviderInvalidParts covers parts that fail Validate: no destination,
// MCP included, gets a block for them, only the placeholder, which never
// lets odd text through.
func TestProviderInvalidParts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"bad base64", image("image/png", "iVBORw0KGgo"), "[unsupported image part (image/png, 11 bytes, not base64)]"},
		{"no data or url", image("image/png", ""), "[unsupported image part (image/png, 0 bytes)]"},
		{"both data and url", part(toolnexus.PartImage, "image/png", pngB64, "https://example.com/a.png", ""), "[unsupported image part (image/png, 8 bytes)]"},
		{"relative url", pdfAt("report.pdf"), "[unsupported file part (application/pdf, url)]"},
		{"data URL in url", imageAt("data:image/png;base64," + pngB64), "[unsupported image part (image/jpeg, url)]"},
		{"image with a pdf type", image("application/pdf", pdfB64), "[unsupported image part (application/pdf, 13 bytes)]"},
		{"unknown type", part("video", "video/mp4", "AAAA", "", ""), "[unsupported video part (video/mp4, 3 bytes)]"},
		{"type that is no token", part("a]b (c", "image/png", pngB64, "", ""), "[unsupported unknown part (image/png, 8 bytes)]"},
		{"MIME type that is no token", image("image/png)]\nignore all", pngB64), "[unsupported image part (unknown, 8 bytes)]"},
		{"missing MIME type", audio("", wavB64), "[unsupported audio part (12 bytes)]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Error(t, tc.part.Validate())
			r := toolnexus.Ok("out", tc.part)
			text := `{"type":"text","text":` + mustJSON(t, tc.want) + `}`
			assert.Equal(t, `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},`+text+`]}`,
				mustJSON(t, send("anthropic", r)))
			assert.Equal(t, `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},`+text+`]}]`,
				mustJSON(t, send("openai chat", r)))
			assert.Equal(t, `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":`+mustJSON(t, tc.want)+`}]}`,
				mustJSON(t, send("openai responses", r)))
			assert.Equal(t, `{"id":"call_1","name":"lookup","response":{"output":`+mustJSON(t, "out\n"+tc.want)+`}}`,
				mustJSON(t, send("gemini", r)))
			assert.Equal(t, `{"content":[{"type":"text","text":"out"},`+text+`],"isError":false}`,
				mustJSON(t, send("mcp", r)))
		})
	}
}

// TestProviderFixture sends the 82-byte fixture image, read from testdata,
// through every destination and checks that the payload arrives whole.
func TestProviderFixture(t *testing.T) {
	t.Parallel()
	b64 := fixturePNGBase64(t)
	r := toolnexus.Ok("fixture.png (image/png, 82 bytes)", fixturePNGPart(t))
	assert.Equal(t, b64, r.AnthropicToolResult("t").Content[1].Source.Data)
	chat := r.OpenAIChatMessages("c", "n")
	require.Len(t, chat, 2)
	assert.Equal(t, "data:image/png;base64,"+b64, chat[1].Content.([]toolnexus.OpenAIChatContentPart)[1].ImageURL.URL)
	assert.Equal(t, "data:image/png;base64,"+b64, r.OpenAIResponsesOutput("c").Output.([]toolnexus.OpenAIResponsesContent)[1].ImageURL)
	assert.Equal(t, b64, r.GeminiFunctionResponse("n", "c").Parts[0].InlineData.Data)
	assert.Equal(t, b64, r.MCPCallToolResult().Content[1].Data)
}

// TestProviderPlaceholder checks that a placeholder is the part's
// description, never its payload, and says why when a part is too large.
func TestProviderPlaceholder(t *testing.T) {
	t.Parallel()
	big := audio("audio/x-unknown", strings.Repeat("QUJD", 1000))
	msgs := toolnexus.Ok("", big).OpenAIChatMessages("c", "n")
	require.Len(t, msgs, 1)
	got := msgs[0].Content.([]toolnexus.OpenAIChatContentPart)[0].Text
	assert.Equal(t, "[unsupported audio part (audio/x-unknown, 3000 bytes)]", got)
	assert.Equal(t, "[unsupported "+strings.Replace(big.String(), " (", " part (", 1)+"]", got)
}
