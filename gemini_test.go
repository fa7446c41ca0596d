package toolnexus_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus"
)

// geminiWith is the functionResponse of Ok("out", p) with one part, or, for
// a placeholder, with the placeholder in its text.
func geminiWith(part string) string {
	if strings.HasPrefix(part, "[") {
		return `{"id":"call_1","name":"lookup","response":{"output":"out\n` + part + `"}}`
	}
	return `{"id":"call_1","name":"lookup","response":{"output":"out"},"parts":[` + part + `]}`
}

func inline(mimeType, data string) string {
	return `{"inlineData":{"mimeType":"` + mimeType + `","data":"` + data + `"}}`
}

func fileData(mimeType, uri string) string {
	return `{"fileData":{"mimeType":"` + mimeType + `","fileUri":"` + uri + `"}}`
}

// geminiRows is the delivery table both Gemini variants share: every row
// but those by an http, https or gs URL, which each variant adds.
func geminiRows() map[string]string {
	return map[string]string{
		"png":                 inline("image/png", pngB64),
		"png mixed case":      inline("image/png", pngB64),
		"png with parameters": inline("image/png", pngB64),
		"pdf mixed case":      inline("application/pdf", pdfB64),
		"pdf unnamed":         inline("application/pdf", pdfB64),
		"wav mixed case":      inline("audio/wav", wavB64),
		"mp3":                 inline("audio/mpeg", "SUQz"),
		"jpeg s3":             `[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]`,
		"jpeg file":           `[unsupported image part (image/jpeg, url file:///tmp/cat.jpg)]`,
		"jpeg ftp":            `[unsupported image part (image/jpeg, url ftp://example.com/cat.jpg)]`,
		"pdf s3":              `[unsupported file part (application/pdf, url s3://bucket/report.pdf)]`,
		"txt":                 inline("text/plain", "aGVsbG8="),
		"txt not UTF-8":       inline("text/plain", "/w=="),
		"md":                  inline("text/markdown", "IyBUaXRsZQ=="),
		"csv":                 inline("text/csv", "YSxiCjEsMg=="),
		"json":                inline("application/json", "eyJhIjoxfQ=="),
		"ogg":                 inline("audio/ogg", "T2dnUw=="),
		"flac":                inline("audio/flac", "ZkxhQw=="),
		"m4a":                 `[unsupported audio part (audio/mp4, 4 bytes)]`,
		"heic":                inline("image/heic", "ZnR5cA=="),
		"gif":                 `[unsupported image part (image/gif, 6 bytes)]`,
		"bmp":                 `[unsupported image part (image/bmp, 2 bytes)]`,
	}
}

// TestGeminiDelivery checks the Gemini API: no part by URL.
func TestGeminiDelivery(t *testing.T) {
	t.Parallel()
	want := geminiRows()
	for name, part := range map[string]string{
		"jpeg https": `[unsupported image part (image/jpeg, url https://example.com/cat.jpg)]`,
		"jpeg HTTPS": `[unsupported image part (image/jpeg, url HTTPS://example.com/cat.jpg)]`,
		"jpeg http":  `[unsupported image part (image/jpeg, url http://example.com/cat.jpg)]`,
		"jpeg gs":    `[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]`,
		"pdf https":  `[unsupported file part (application/pdf, url https://example.com/report.pdf)]`,
		"pdf gs":     `[unsupported file part (application/pdf, url gs://bucket/report.pdf)]`,
		"wav https":  `[unsupported audio part (audio/wav, url https://example.com/a.wav)]`,
	} {
		want[name] = part
	}
	for name, part := range want {
		want[name] = geminiWith(part)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.GeminiFunctionResponse("lookup", "call_1") })
}

// TestVertexDelivery checks the Vertex AI variant: what the Gemini API
// takes, and parts by a Cloud Storage or HTTP URL as fileData.
func TestVertexDelivery(t *testing.T) {
	t.Parallel()
	want := geminiRows()
	for name, part := range map[string]string{
		"jpeg https": fileData("image/jpeg", "https://example.com/cat.jpg"),
		"jpeg HTTPS": fileData("image/jpeg", "HTTPS://example.com/cat.jpg"),
		"jpeg http":  fileData("image/jpeg", "http://example.com/cat.jpg"),
		"jpeg gs":    fileData("image/jpeg", "gs://bucket/cat.jpg"),
		"pdf https":  fileData("application/pdf", "https://example.com/report.pdf"),
		"pdf gs":     fileData("application/pdf", "gs://bucket/report.pdf"),
		"wav https":  fileData("audio/wav", "https://example.com/a.wav"),
	} {
		want[name] = part
	}
	for name, part := range want {
		want[name] = geminiWith(part)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.VertexFunctionResponse("lookup", "call_1") })
}

// TestGeminiSizeLimits checks the limits the Gemini API documents: 100 MB
// of base64 inline, 50 MB in a PDF.
func TestGeminiSizeLimits(t *testing.T) {
	t.Parallel()
	big := bigBase64(100_000_004)
	cases := []struct {
		name    string
		part    toolnexus.ContentPart
		because string // the placeholder after the MIME type, in the unit of the limit
	}{
		{"image at the limit", image("image/png", big[:100_000_000]), ""},
		{"image over the limit", image("image/png", big), "100000004 bytes of base64): larger than the 100 MB (100000000 bytes) of base64 Gemini takes inline"},
		{"pdf at the limit", file("application/pdf", big[:66_666_664], ""), ""},
		{"pdf over the limit", file("application/pdf", big[:66_666_668], ""), "50000001 bytes): larger than the 50 MB Gemini takes in a PDF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fr := toolnexus.Ok("", tc.part).GeminiFunctionResponse("n", "")
			if tc.because == "" {
				assert.Len(t, fr.Parts, 1)
				assert.Equal(t, map[string]any{"output": ""}, fr.Response)
				return
			}
			assert.Empty(t, fr.Parts)
			want := fmt.Sprintf("[unsupported %s part (%s, %s]", tc.part.Type, tc.part.MIMEType, tc.because)
			assert.Equal(t, map[string]any{"output": want}, fr.Response)
		})
	}
}
