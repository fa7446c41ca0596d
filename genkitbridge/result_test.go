package genkitbridge_test

import (
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genkitbridge"
)

func TestResponse(t *testing.T) {
	t.Parallel()
	png := fixture(t)
	wav := toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: "UklGRg=="}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", URL: "https://example.com/r.pdf", Name: "r.pdf"}
	named := ai.NewMediaPart("application/pdf", "https://example.com/r.pdf")
	named.Metadata = map[string]any{"name": "r.pdf"}
	tests := []struct {
		name    string
		in      toolnexus.ToolResult
		output  map[string]any
		content []*ai.Part
	}{
		{"text only", toolnexus.Ok("done"), map[string]any{"output": "done"}, nil},
		{"failed", toolnexus.Error("no such env"), map[string]any{"error": "no such env"}, nil},
		{"suspension", toolnexus.Pending(toolnexus.Request{ID: "p", Prompt: "Log in", URL: "https://example.com/login"}),
			map[string]any{"error": "Log in\nhttps://example.com/login"}, nil},
		{"text parts join the output", toolnexus.Ok("report", toolnexus.TextPart("line 1"), png, toolnexus.TextPart("line 2")),
			map[string]any{"output": "report\nline 1\nline 2"}, []*ai.Part{ai.NewMediaPart("image/png", "data:image/png;base64,"+png.Data)}},
		{"media in order", toolnexus.Error("partial", wav, pdf),
			map[string]any{"error": "partial"}, []*ai.Part{ai.NewMediaPart("audio/wav", "data:audio/wav;base64,UklGRg=="), named}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := genkitbridge.Response(tc.in)
			require.NoError(t, err)
			assert.Equal(t, &ai.MultipartToolResponse{Output: tc.output, Content: tc.content}, got)
		})
	}
}

func TestResponseInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   toolnexus.ToolResult
		want error
	}{
		{"base64 with a line break", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "iVBO\nRw=="}), toolnexus.ErrInvalidBase64},
		{"data and URL", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: "AAAA", URL: "https://example.com/a.pdf"}), toolnexus.ErrInvalidPart},
		{"request without prompt", toolnexus.Pending(toolnexus.Request{ID: "p"}), toolnexus.ErrInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := genkitbridge.Response(tc.in)
			assert.ErrorIs(t, err, tc.want)
			assert.Nil(t, got)
		})
	}
}
