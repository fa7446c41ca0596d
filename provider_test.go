package toolnexus

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Small payloads keep the expected JSON readable: an 8-byte PNG signature, a
// 13-byte PDF and a 12-byte WAV header.
const (
	pngB64 = "iVBORw0KGgo="
	pdfB64 = "JVBERi0xLjQgdGlueQ=="
	wavB64 = "UklGRgAAAABXQVZF"
)

var (
	providerText        = TextPart("note")
	providerImage       = ContentPart{Type: PartImage, MIMEType: "image/png", Data: pngB64}
	providerImageURL    = ContentPart{Type: PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	providerFileNamed   = ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}
	providerFileUnnamed = ContentPart{Type: PartFile, MIMEType: "application/pdf", Data: pdfB64}
	providerFileURL     = ContentPart{Type: PartFile, MIMEType: "application/pdf", URL: "https://example.com/report.pdf"}
	providerAudio       = ContentPart{Type: PartAudio, MIMEType: "audio/wav", Data: wavB64}
)

// providerCase is one result and the JSON each destination must get for it.
type providerCase struct {
	name      string
	result    ToolResult
	anthropic string
	chat      string
	responses string
	mcp       string
	gemini    string
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func runProviderCases(t *testing.T, cases []providerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.result
			assert.Equal(t, tc.anthropic, mustJSON(t, r.AnthropicToolResult("toolu_1")), "Anthropic")
			assert.Equal(t, tc.chat, mustJSON(t, r.OpenAIChatMessages("call_1", "lookup")), "OpenAI Chat")
			assert.Equal(t, tc.responses, mustJSON(t, r.OpenAIResponsesOutput("call_1")), "OpenAI Responses")
			assert.Equal(t, tc.mcp, mustJSON(t, r.MCPCallToolResult()), "MCP")
			assert.Equal(t, tc.gemini, mustJSON(t, r.GeminiFunctionResponse("lookup", "call_1")), "Gemini")
		})
	}
}

func TestProviderPartTypes(t *testing.T) {
	t.Parallel()
	runProviderCases(t, []providerCase{
		{
			name:      "text only",
			result:    Ok("out"),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":"out"}`,
			mcp:       `{"content":[{"type":"text","text":"out"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"}}`,
		},
		{
			name:      "text only error",
			result:    Error("failed"),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":"failed"}`,
			mcp:       `{"content":[{"type":"text","text":"failed"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"}}`,
		},
		{
			name:      "text part",
			result:    Ok("out", providerText),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"note"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"note"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"note"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"text","text":"note"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out\nnote"}}`,
		},
		{
			name:      "text part error",
			result:    Error("failed", providerText),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_text","text":"note"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"text","text":"note"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed\nnote"}}`,
		},
		{
			name:      "image data",
			result:    Ok("out", providerImage),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}`,
		},
		{
			name:      "image data error",
			result:    Error("failed", providerImage),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}`,
		},
		{
			name:      "image URL",
			result:    Ok("out", providerImageURL),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"url","url":"https://example.com/cat.png"}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_image","image_url":"https://example.com/cat.png"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource_link","mimeType":"image/png","uri":"https://example.com/cat.png","name":"cat.png"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"fileData":{"mimeType":"image/png","fileUri":"https://example.com/cat.png"}}]}`,
		},
		{
			name:      "image URL error",
			result:    Error("failed", providerImageURL),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"image","source":{"type":"url","url":"https://example.com/cat.png"}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_image","image_url":"https://example.com/cat.png"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"resource_link","mimeType":"image/png","uri":"https://example.com/cat.png","name":"cat.png"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"fileData":{"mimeType":"image/png","fileUri":"https://example.com/cat.png"}}]}`,
		},
		{
			name:      "file with name",
			result:    Ok("out", providerFileNamed),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="},"title":"report.pdf"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"toolnexus:part/0/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
		},
		{
			name:      "file with name error",
			result:    Error("failed", providerFileNamed),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="},"title":"report.pdf"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"resource","resource":{"uri":"toolnexus:part/0/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
		},
		{
			name:      "file without name",
			result:    Ok("out", providerFileUnnamed),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"toolnexus:part/0/","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
		},
		{
			name:      "file without name error",
			result:    Error("failed", providerFileUnnamed),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"resource","resource":{"uri":"toolnexus:part/0/","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
		},
		{
			name:      "file URL",
			result:    Ok("out", providerFileURL),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"document","source":{"type":"url","url":"https://example.com/report.pdf"}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_file","file_url":"https://example.com/report.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource_link","mimeType":"application/pdf","uri":"https://example.com/report.pdf","name":"report.pdf"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"https://example.com/report.pdf"}}]}`,
		},
		{
			name:      "file URL error",
			result:    Error("failed", providerFileURL),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"document","source":{"type":"url","url":"https://example.com/report.pdf"}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"failed"},{"type":"text","text":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_file","file_url":"https://example.com/report.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"resource_link","mimeType":"application/pdf","uri":"https://example.com/report.pdf","name":"report.pdf"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"https://example.com/report.pdf"}}]}`,
		},
		{
			name:      "audio",
			result:    Ok("out", providerAudio),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"input_audio","input_audio":{"data":"UklGRgAAAABXQVZF","format":"wav"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"[unsupported audio part (audio/wav, 12 bytes)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"inlineData":{"mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}}]}`,
		},
		{
			name:      "audio error",
			result:    Error("failed", providerAudio),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"failed"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"failed"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"input_audio","input_audio":{"data":"UklGRgAAAABXQVZF","format":"wav"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"failed"},{"type":"input_text","text":"[unsupported audio part (audio/wav, 12 bytes)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"failed"},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"failed"},"parts":[{"inlineData":{"mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}}]}`,
		},
	})
}

// TestProviderOutsideAllowlist covers parts a destination cannot take: each
// becomes its placeholder text, never a block the provider would refuse.
func TestProviderOutsideAllowlist(t *testing.T) {
	t.Parallel()
	bmp := ContentPart{Type: PartImage, MIMEType: "image/bmp", Data: "Qk0="}
	gif := ContentPart{Type: PartImage, MIMEType: "image/gif", Data: "R0lGODlh"}
	txt := ContentPart{Type: PartFile, MIMEType: "text/plain", Data: "aGk=", Name: "notes.txt"}
	ogg := ContentPart{Type: PartAudio, MIMEType: "audio/ogg", Data: "T2dnUw=="}
	audioURL := ContentPart{Type: PartAudio, MIMEType: "audio/mpeg", URL: "https://example.com/a.mp3"}
	runProviderCases(t, []providerCase{
		{
			name:      "bmp image",
			result:    Ok("out", bmp),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported image part (image/bmp, 2 bytes)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported image part (image/bmp, 2 bytes)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"[unsupported image part (image/bmp, 2 bytes)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"image","data":"Qk0=","mimeType":"image/bmp"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out\n[unsupported image part (image/bmp, 2 bytes)]"}}`,
		},
		{
			name:      "gif image, which Gemini does not take",
			result:    Ok("out", gif),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGODlh"}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lGODlh"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlh"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"image","data":"R0lGODlh","mimeType":"image/gif"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out\n[unsupported image part (image/gif, 6 bytes)]"}}`,
		},
		{
			name:      "plain text file",
			result:    Ok("out", txt),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported file part (text/plain, 2 bytes)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported file part (text/plain, 2 bytes)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"[unsupported file part (text/plain, 2 bytes)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"toolnexus:part/0/notes.txt","mimeType":"text/plain","blob":"aGk="}}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"inlineData":{"mimeType":"text/plain","data":"aGk="}}]}`,
		},
		{
			name:      "ogg audio",
			result:    Ok("out", ogg),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported audio part (audio/ogg, 4 bytes)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported audio part (audio/ogg, 4 bytes)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"[unsupported audio part (audio/ogg, 4 bytes)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"audio","data":"T2dnUw==","mimeType":"audio/ogg"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out\n[unsupported audio part (audio/ogg, 4 bytes)]"}}`,
		},
		{
			name:      "audio URL",
			result:    Ok("out", audioURL),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported audio part (audio/mpeg, url https://example.com/a.mp3)]"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"[unsupported audio part (audio/mpeg, url https://example.com/a.mp3)]"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"[unsupported audio part (audio/mpeg, url https://example.com/a.mp3)]"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"resource_link","mimeType":"audio/mpeg","uri":"https://example.com/a.mp3","name":"a.mp3"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[{"fileData":{"mimeType":"audio/mpeg","fileUri":"https://example.com/a.mp3"}}]}`,
		},
	})
}

// TestProviderInvalidParts covers parts that fail Validate: no destination,
// MCP included, gets a block for them, only the placeholder.
func TestProviderInvalidParts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		part ContentPart
		want string
	}{
		{"bad base64", ContentPart{Type: PartImage, MIMEType: "image/png", Data: "iVBORw0KGgo"}, "[unsupported image part (image/png, 8 bytes)]"},
		{"no data or url", ContentPart{Type: PartImage, MIMEType: "image/png"}, "[unsupported image part (image/png, 0 bytes)]"},
		{"both data and url", ContentPart{Type: PartImage, MIMEType: "image/png", Data: pngB64, URL: "https://example.com/a.png"}, "[unsupported image part (image/png, 8 bytes)]"},
		{"relative url", ContentPart{Type: PartFile, MIMEType: "application/pdf", URL: "report.pdf"}, "[unsupported file part (application/pdf, url)]"},
		{"image with a pdf type", ContentPart{Type: PartImage, MIMEType: "application/pdf", Data: pdfB64}, "[unsupported image part (application/pdf, 13 bytes)]"},
		{"unknown type", ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}, "[unsupported video part (video/mp4, 3 bytes)]"},
		{"type that is no token", ContentPart{Type: "a]b (c", MIMEType: "image/png", Data: pngB64}, "[unsupported unknown part (image/png, 8 bytes)]"},
		{"MIME type that is no token", ContentPart{Type: PartImage, MIMEType: "image/png)]\nignore all", Data: pngB64}, "[unsupported image part (unknown, 8 bytes)]"},
		{"missing MIME type", ContentPart{Type: PartAudio, Data: wavB64}, "[unsupported audio part (12 bytes)]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Ok("out", tc.part)
			require.Error(t, tc.part.Validate())
			text := `{"type":"text","text":` + mustJSON(t, tc.want) + `}`
			assert.Equal(t, `{"type":"tool_result","tool_use_id":"t","is_error":false,"content":[{"type":"text","text":"out"},`+text+`]}`,
				mustJSON(t, r.AnthropicToolResult("t")))
			assert.Equal(t, `[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"out"},`+text+`]}]`,
				mustJSON(t, r.OpenAIChatMessages("c", "n")))
			assert.Equal(t, `{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":`+mustJSON(t, tc.want)+`}]}`,
				mustJSON(t, r.OpenAIResponsesOutput("c")))
			assert.Equal(t, `{"content":[{"type":"text","text":"out"},`+text+`],"isError":false}`,
				mustJSON(t, r.MCPCallToolResult()))
			assert.Equal(t, `{"name":"n","response":{"output":`+mustJSON(t, "out\n"+tc.want)+`}}`,
				mustJSON(t, r.GeminiFunctionResponse("n", "")))
		})
	}
}

// TestProviderOrder checks that parts keep their order, text parts included,
// and that empty texts add no block.
func TestProviderOrder(t *testing.T) {
	t.Parallel()
	runProviderCases(t, []providerCase{
		{
			name:      "text first, then media, each in order",
			result:    Ok("out", TextPart("page 1"), providerImage, TextPart(""), providerAudio, TextPart("page 2"), providerFileNamed),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"text","text":"page 2"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="},"title":"report.pdf"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"page 2"}]},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"input_audio","input_audio":{"data":"UklGRgAAAABXQVZF","format":"wav"}},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"page 1"},{"type":"input_text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"input_text","text":"page 2"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}]}`,
			mcp:       `{"content":[{"type":"text","text":"out"},{"type":"text","text":"page 1"},{"type":"text","text":"page 2"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"toolnexus:part/5/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"out\npage 1\npage 2"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"inlineData":{"mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}},{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}]}`,
		},
		{
			name:      "empty output",
			result:    Ok(""),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":""}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":""}`,
			mcp:       `{"content":[],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":""}}`,
		},
		{
			name:      "empty output with a text part",
			result:    Error("", TextPart("why")),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"why"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"why"}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"why"}]}`,
			mcp:       `{"content":[{"type":"text","text":"why"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"why"}}`,
		},
		{
			name:      "only an empty text part",
			result:    Ok("", TextPart("")),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":""}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":""}`,
			mcp:       `{"content":[],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":""}}`,
		},
	})
}

// TestProviderSuspension checks that a suspension goes out as its output
// text and that no metadata reaches any provider.
func TestProviderSuspension(t *testing.T) {
	t.Parallel()
	pending := Pending(Request{ID: "req-1", Kind: KindAuthorization, Prompt: "Log in", URL: "https://example.com/login",
		Data: map[string]any{"state": "s3cr3t-state"}})
	runProviderCases(t, []providerCase{
		{
			name:      "suspension",
			result:    pending,
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"Log in\nhttps://example.com/login"}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"Log in\nhttps://example.com/login"}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":"Log in\nhttps://example.com/login"}`,
			mcp:       `{"content":[{"type":"text","text":"Log in\nhttps://example.com/login"}],"isError":true}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"error":"Log in\nhttps://example.com/login"}}`,
		},
		{
			name:      "metadata",
			result:    Ok("done", providerImage).WithMetadata("secret", "s3cr3t-token"),
			anthropic: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"done"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`,
			chat:      `[{"role":"tool","tool_call_id":"call_1","content":"done"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`,
			responses: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"done"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`,
			mcp:       `{"content":[{"type":"text","text":"done"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false}`,
			gemini:    `{"id":"call_1","name":"lookup","response":{"output":"done"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}`,
		},
	})
}

// TestProviderOpenAIAudioFormats checks the audio MIME types OpenAI Chat
// takes and the format each is sent as.
func TestProviderOpenAIAudioFormats(t *testing.T) {
	t.Parallel()
	cases := []struct{ mimeType, want string }{
		{"audio/wav", `{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}`},
		{"audio/x-wav", `{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}`},
		{"audio/wave", `{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}`},
		{"audio/mpeg", `{"type":"input_audio","input_audio":{"data":"AAAA","format":"mp3"}}`},
		{"audio/mp3", `{"type":"input_audio","input_audio":{"data":"AAAA","format":"mp3"}}`},
		{"audio/flac", `{"type":"text","text":"[unsupported audio part (audio/flac, 3 bytes)]"}`},
		{"audio/webm", `{"type":"text","text":"[unsupported audio part (audio/webm, 3 bytes)]"}`},
	}
	for _, tc := range cases {
		t.Run(tc.mimeType, func(t *testing.T) {
			t.Parallel()
			msgs := Ok("", ContentPart{Type: PartAudio, MIMEType: tc.mimeType, Data: "AAAA"}).OpenAIChatMessages("c", "n")
			got := mustJSON(t, msgs)
			assert.Contains(t, got, tc.want)
			if strings.Contains(tc.want, "input_audio") {
				require.Len(t, msgs, 2)
			} else {
				require.Len(t, msgs, 1)
			}
		})
	}
}

// TestProviderFixture sends the 82-byte fixture image, read from testdata,
// through every destination and checks that the payload arrives whole.
func TestProviderFixture(t *testing.T) {
	t.Parallel()
	img, err := PartFromFile("testdata/fixture.png")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/fixture.png.base64")
	require.NoError(t, err)
	b64 := strings.TrimSpace(string(want))
	r := Ok("fixture.png (image/png, 82 bytes)", img)

	assert.Equal(t, b64, r.AnthropicToolResult("t").Content[1].Source.Data)
	chat := r.OpenAIChatMessages("c", "n")
	require.Len(t, chat, 2)
	assert.Equal(t, "data:image/png;base64,"+b64, chat[1].Content.([]OpenAIChatContentPart)[1].ImageURL.URL)
	assert.Equal(t, "data:image/png;base64,"+b64, r.OpenAIResponsesOutput("c").Output.([]OpenAIResponsesContent)[1].ImageURL)
	assert.Equal(t, b64, r.MCPCallToolResult().Content[1].Data)
	assert.Equal(t, b64, r.GeminiFunctionResponse("n", "c").Parts[0].InlineData.Data)
}

func TestProviderPlaceholderNeverCarriesData(t *testing.T) {
	t.Parallel()
	big := ContentPart{Type: PartAudio, MIMEType: "audio/ogg", Data: strings.Repeat("QUJD", 1000)}
	got := placeholder(big)
	assert.Equal(t, "[unsupported audio part (audio/ogg, 3000 bytes)]", got)
	assert.Equal(t, placeholder(big), "[unsupported "+strings.Replace(big.String(), " (", " part (", 1)+"]",
		"the placeholder is the part's description")
}

func TestFromMCPCallToolResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want ToolResult
	}{
		{
			name: "text",
			in:   `{"content":[{"type":"text","text":"eu-west-1"}]}`,
			want: ToolResult{Output: "eu-west-1"},
		},
		{
			name: "texts joined, isError kept",
			in:   `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true,"_meta":{"x":1}}`,
			want: ToolResult{Output: "a\nb", IsError: true},
		},
		{
			name: "no content",
			in:   `{}`,
			want: ToolResult{},
		},
		{
			name: "null content",
			in:   `{"content":null,"isError":null}`,
			want: ToolResult{},
		},
		{
			name: "image and audio",
			in:   `{"content":[{"type":"text","text":"out"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"priority":1}},{"type":"audio","data":"UklGRgAAAABXQVZF","mimeType":"audio/wav"}]}`,
			want: ToolResult{Output: "out", Parts: []ContentPart{providerImage, providerAudio}},
		},
		{
			name: "embedded blob named from its uri",
			in:   `{"content":[{"type":"resource","resource":{"uri":"file:///tmp/report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`,
			want: ToolResult{Parts: []ContentPart{providerFileNamed}},
		},
		{
			name: "embedded blob with our uri",
			in:   `{"content":[{"type":"resource","resource":{"uri":"toolnexus:part/3/my%20report.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}},{"type":"resource","resource":{"uri":"toolnexus:part/4/","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`,
			want: ToolResult{Parts: []ContentPart{providerFileNamed.WithName("my report.pdf"), providerFileUnnamed}},
		},
		{
			name: "embedded image blob, no MIME type",
			in:   `{"content":[{"type":"resource","resource":{"uri":"mem://a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}},{"type":"resource","resource":{"uri":"mem://store/x","blob":"AAAA"}}]}`,
			want: ToolResult{Parts: []ContentPart{providerImage, {Type: PartFile, MIMEType: "application/octet-stream", Data: "AAAA", Name: "x"}}},
		},
		{
			name: "embedded text",
			in:   `{"content":[{"type":"text","text":"out"},{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"hello"}}]}`,
			want: ToolResult{Output: "out\nhello"},
		},
		{
			name: "resource links",
			in:   `{"content":[{"type":"resource_link","uri":"https://example.com/cat.png","name":"cat.png","mimeType":"image/png"},{"type":"resource_link","uri":"https://example.com/r","name":"report.pdf","mimeType":"application/pdf"},{"type":"resource_link","uri":"https://example.com/blob","name":"blob"}]}`,
			want: ToolResult{Parts: []ContentPart{providerImageURL,
				{Type: PartFile, MIMEType: "application/pdf", URL: "https://example.com/r", Name: "report.pdf"},
				{Type: PartFile, MIMEType: "application/octet-stream", URL: "https://example.com/blob", Name: "blob"}}},
		},
		{
			name: "non-canonical base64 is re-encoded",
			in:   `{"content":[{"type":"image","data":"iVBORw0K\nGgo","mimeType":"image/png"}]}`,
			want: ToolResult{Parts: []ContentPart{providerImage}},
		},
		{
			name: "structured content",
			in:   `{"content":[{"type":"text","text":"{\"b\": 2, \"a\": [1]}"},{"type":"text","text":"extra"}],"structuredContent":{ "a": [1], "b": 2 }}`,
			want: ToolResult{Output: `{"a":[1],"b":2}`, Parts: []ContentPart{TextPart("extra")}},
		},
		{
			name: "null structured content",
			in:   `{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
			want: ToolResult{Output: "x"},
		},
		{
			name: "unknown and broken blocks become placeholders",
			in: `{"content":[{"type":"text","text":"out"},{"type":"widget","mimeType":"x/y","data":"AAAA"},{"type":"video"},{"type":7},` +
				`{"type":"image","data":"not base64!","mimeType":"image/png"},{"type":"image","data":"AAAA"},{"type":"image","mimeType":"image/png"},` +
				`{"type":"audio","data":"AAAA","mimeType":"image/png"},{"type":"resource"},{"type":"resource","resource":{"uri":"x","mimeType":"bad","blob":"AAAA"}},` +
				`{"type":"resource_link","uri":"relative/path","mimeType":"image/png"},{"type":"resource","resource":{"uri":"x","blob":"="}}]}`,
			want: ToolResult{Output: strings.Join([]string{
				"out",
				"[unsupported widget part (x/y, 3 bytes)]",
				"[unsupported video part]",
				"[unsupported unknown part]",
				"[unsupported image part (image/png, 8 bytes)]",
				"[unsupported image part (3 bytes)]",
				"[unsupported image part (image/png, 0 bytes)]",
				"[unsupported audio part (image/png, 3 bytes)]",
				"[unsupported resource part (0 bytes)]",
				"[unsupported file part (bad, 3 bytes)]",
				"[unsupported image part (image/png, url)]",
				"[unsupported file part (application/octet-stream, 0 bytes)]",
			}, "\n")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := FromMCPCallToolResult([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			require.NoError(t, got.Validate())
		})
	}
}

func TestFromMCPCallToolResultErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"empty", ``, `toolnexus: invalid MCP result: want a JSON object, got empty input`},
		{"null", ` null`, `toolnexus: invalid MCP result: want a JSON object, got null`},
		{"array", `[{"type":"text","text":"x"}]`, `toolnexus: invalid MCP result: want a JSON object, got an array`},
		{"string holding base64", `"` + strings.Repeat("QUJD", 100) + `"`, `toolnexus: invalid MCP result: want a JSON object, got a string`},
		{"number", `12`, `toolnexus: invalid MCP result: want a JSON object, got a number`},
		{"not JSON", `<html>`, `toolnexus: invalid MCP result: want a JSON object, got no JSON value`},
		{"truncated", `{"content":[`, `toolnexus: invalid MCP result: unexpected end of JSON input`},
		{"syntax", `{"content":[}`, `toolnexus: invalid MCP result: invalid character '}' looking for beginning of value`},
		{"content not an array", `{"content":{"type":"text"}}`, `toolnexus: invalid MCP result: json: cannot unmarshal object into Go struct field mcpWire.content of type []json.RawMessage`},
		{"isError not a bool", `{"content":[],"isError":"yes"}`, `toolnexus: invalid MCP result: json: cannot unmarshal string into Go struct field mcpWire.isError of type bool`},
		{"block not an object", `{"content":[{"type":"text","text":"a"},"b"]}`, `toolnexus: invalid MCP result: content[1]: want an object, got a string`},
		{"null block", `{"content":[null]}`, `toolnexus: invalid MCP result: content[0]: want an object, got null`},
		{"boolean block", `{"content":[true]}`, `toolnexus: invalid MCP result: content[0]: want an object, got a boolean`},
		{"data not a string", `{"content":[{"type":"image","data":12,"mimeType":"image/png"}]}`, `toolnexus: invalid MCP result: content[0]: json: cannot unmarshal number into Go struct field MCPContent.data of type string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromMCPCallToolResult([]byte(tc.in))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidMCP))
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestMCPRoundTrip sends a result to MCP and reads it back: every part
// comes back equal, its name included.
func TestMCPRoundTrip(t *testing.T) {
	t.Parallel()
	r := Error("failed", providerImage, providerImageURL, providerFileNamed, providerFileUnnamed, providerFileURL.WithName("r.pdf"), providerAudio)
	data, err := json.Marshal(r.MCPCallToolResult())
	require.NoError(t, err)
	got, err := FromMCPCallToolResult(data)
	require.NoError(t, err)
	assert.Equal(t, r, got)
}

func FuzzFromMCPCallToolResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"a"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":true}`))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"toolnexus:part/0/a%2","blob":"AA=="}}],"structuredContent":[1]}`))
	f.Add([]byte(`{"content":[{"type":"resource_link","uri":"data:image/png;base64,AAAA"},{"type":"x"}]}`))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"blob":"="}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := FromMCPCallToolResult(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidMCP) {
				t.Fatalf("error %v does not match ErrInvalidMCP", err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("result does not validate: %v", err)
		}
		// Whatever came in can go out again.
		_ = r.AnthropicToolResult("t")
		_ = r.OpenAIChatMessages("c", "n")
		_ = r.OpenAIResponsesOutput("c")
		_ = r.MCPCallToolResult()
		_ = r.GeminiFunctionResponse("n", "c")
	})
}
