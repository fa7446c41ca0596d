package toolnexus_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus"
)

// anthropicWith is the tool_result block of Ok("out", p) whose second block
// is block, or, for a placeholder, a text block holding it.
func anthropicWith(block string) string {
	if strings.HasPrefix(block, "[") {
		block = `{"type":"text","text":"` + block + `"}`
	}
	return `{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[{"type":"text","text":"out"},` + block + `]}`
}

func TestAnthropicDelivery(t *testing.T) {
	t.Parallel()
	png := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}`
	want := map[string]string{
		"png":                 png,
		"png mixed case":      png,
		"png with parameters": png,
		"pdf mixed case":      `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="},"title":"report.pdf"}`,
		"pdf unnamed":         `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQgdGlueQ=="}}`,
		"wav mixed case":      `[unsupported audio part (audio/WAV, 12 bytes)]`,
		"mp3":                 `[unsupported audio part (audio/mpeg, 3 bytes)]`,
		"jpeg https":          `{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}`,
		"jpeg HTTPS":          `{"type":"image","source":{"type":"url","url":"HTTPS://example.com/cat.jpg"}}`,
		"jpeg http":           `{"type":"image","source":{"type":"url","url":"http://example.com/cat.jpg"}}`,
		"jpeg s3":             `[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]`,
		"jpeg gs":             `[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]`,
		"jpeg file":           `[unsupported image part (image/jpeg, url file:///tmp/cat.jpg)]`,
		"jpeg ftp":            `[unsupported image part (image/jpeg, url ftp://example.com/cat.jpg)]`,
		"pdf https":           `{"type":"document","source":{"type":"url","url":"https://example.com/report.pdf"}}`,
		"pdf s3":              `[unsupported file part (application/pdf, url s3://bucket/report.pdf)]`,
		"pdf gs":              `[unsupported file part (application/pdf, url gs://bucket/report.pdf)]`,
		"wav https":           `[unsupported audio part (audio/wav, url https://example.com/a.wav)]`,
		"txt":                 `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"},"title":"notes.txt"}`,
		"txt not UTF-8":       `[unsupported file part (text/plain, 1 bytes)]`,
		"md":                  `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"# Title"},"title":"README.md"}`,
		"csv":                 `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"a,b\n1,2"},"title":"data.csv"}`,
		"json":                `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"{\"a\":1}"},"title":"data.json"}`,
		"ogg":                 `[unsupported audio part (audio/ogg, 4 bytes)]`,
		"flac":                `[unsupported audio part (audio/flac, 4 bytes)]`,
		"m4a":                 `[unsupported audio part (audio/mp4, 4 bytes)]`,
		"heic":                `[unsupported image part (image/heic, 4 bytes)]`,
		"gif":                 `{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGODlh"}}`,
		"bmp":                 `[unsupported image part (image/bmp, 2 bytes)]`,
	}
	for name, block := range want {
		want[name] = anthropicWith(block)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.AnthropicToolResult("toolu_1") })
}

// TestAnthropicSizeLimits checks the limits the Messages API documents: 5 MB
// of base64 in an image, 32 MB in a request and so in a document.
func TestAnthropicSizeLimits(t *testing.T) {
	t.Parallel()
	big := bigBase64(32_000_004)
	cases := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"image at the limit", image("image/png", big[:5<<20]), "image"},
		{"image over the limit", image("image/png", big[:5<<20+4]),
			"[unsupported image part (image/png, 5242884 bytes of base64): larger than the 5 MiB (5242880 bytes) of base64 Anthropic takes in an image]"},
		{"document at the limit", file("application/pdf", big[:32_000_000], ""), "document"},
		{"document over the limit", file("application/pdf", big, ""),
			"[unsupported file part (application/pdf, 32000004 bytes of base64): larger than the 32 MB (32000000 bytes) Anthropic takes in a request]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			block := toolnexus.Ok("", tc.part).AnthropicToolResult("t").Content[0]
			if strings.HasPrefix(tc.want, "[") {
				assert.Equal(t, toolnexus.AnthropicContentBlock{Type: "text", Text: tc.want}, block)
				return
			}
			assert.Equal(t, tc.want, block.Type)
			assert.Equal(t, len(tc.part.Data), len(block.Source.Data))
		})
	}
}
