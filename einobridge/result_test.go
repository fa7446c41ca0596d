package einobridge_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
)

// ptr returns a pointer to s.
func ptr(s string) *string { return &s }

func TestResult(t *testing.T) {
	t.Parallel()
	png := fixture(t)
	wav := toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: "UklGRg=="}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", URL: "https://example.com/r.pdf", Name: "r.pdf"}
	csv := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "text/csv", Data: "YSxi"}
	byURL := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/jpeg", URL: "https://example.com/a.jpg"}
	text := func(s string) schema.ToolOutputPart {
		return schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: s}
	}
	tests := []struct {
		name string
		in   toolnexus.ToolResult
		want []schema.ToolOutputPart
	}{
		{"text only", toolnexus.Ok("done"), []schema.ToolOutputPart{text("done")}},
		{"empty output", toolnexus.Ok(""), []schema.ToolOutputPart{text("")}},
		{"failed", toolnexus.Error("no such env"), []schema.ToolOutputPart{text("Error: no such env")}},
		{"suspension", toolnexus.Pending(toolnexus.Request{ID: "p", Prompt: "Log in", URL: "https://example.com/login"}),
			[]schema.ToolOutputPart{text("Error: Log in\nhttps://example.com/login")}},
		{"parts in order", toolnexus.Ok("report", toolnexus.TextPart("line"), png, wav, pdf, csv, byURL), []schema.ToolOutputPart{
			text("report"), text("line"),
			{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: ptr(png.Data), MIMEType: "image/png"}}},
			{Type: schema.ToolPartTypeAudio, Audio: &schema.ToolOutputAudio{MessagePartCommon: schema.MessagePartCommon{Base64Data: ptr("UklGRg=="), MIMEType: "audio/wav"}}},
			{Type: schema.ToolPartTypeFile, File: &schema.ToolOutputFile{MessagePartCommon: schema.MessagePartCommon{URL: ptr("https://example.com/r.pdf"), MIMEType: "application/pdf"}}, Extra: map[string]any{"name": "r.pdf"}},
			{Type: schema.ToolPartTypeFile, File: &schema.ToolOutputFile{MessagePartCommon: schema.MessagePartCommon{Base64Data: ptr("YSxi"), MIMEType: "text/csv"}}},
			{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{URL: ptr("https://example.com/a.jpg"), MIMEType: "image/jpeg"}}},
		}},
		{"failed with a part", toolnexus.Error("partial", png), []schema.ToolOutputPart{
			text("Error: partial"),
			{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: ptr(png.Data), MIMEType: "image/png"}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := einobridge.Result(tc.in)
			require.NoError(t, err)
			assert.Equal(t, &schema.ToolResult{Parts: tc.want}, got)
			// What the model is given: eino's own conversion takes every
			// part, a file's name in its input part's Extra.
			in, err := got.ToMessageInputParts()
			require.NoError(t, err)
			require.Len(t, in, len(tc.want))
			for i, p := range in {
				assert.Equal(t, tc.want[i].Extra, p.Extra)
			}
		})
	}
}

func TestResultInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   toolnexus.ToolResult
		want error
	}{
		{"base64 with a line break", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "iVBO\nRw=="}), toolnexus.ErrInvalidBase64},
		{"no MIME type", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, Data: "iVBORw=="}), toolnexus.ErrMissingMIMEType},
		{"unknown type", toolnexus.Ok("x", toolnexus.ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}), toolnexus.ErrUnknownPartType},
		{"request without prompt", toolnexus.Pending(toolnexus.Request{ID: "p"}), toolnexus.ErrInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := einobridge.Result(tc.in)
			assert.ErrorIs(t, err, tc.want)
			assert.Nil(t, got)
		})
	}
}
