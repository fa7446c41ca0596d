package genkitbridge

import (
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/toolnexus-go/toolnexus"
)

// Response returns r as a genkit multipart tool response. Its Output is
// {"output": text}, or {"error": text} when r.IsError, where text is
// r.Output followed by the text of each text part, one per line: genkit's
// Gemini plugin takes no text among a tool response's parts. Its Content
// holds each image, audio and file part of r, in order, as a media part of
// the same MIME type: a data URL of its base64 data, or its URL. A file
// part's name is in its media part's metadata under "name". A suspension
// is its prompt's text, as any failed result.
//
// A result that [toolnexus.ToolResult.Validate] refuses, such as a part
// whose base64 is not canonical, is reported as that error.
func Response(r toolnexus.ToolResult) (*ai.MultipartToolResponse, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	texts := []string{r.Output}
	var media []*ai.Part
	for _, p := range r.Parts {
		if p.Type == toolnexus.PartText {
			texts = append(texts, p.Text)
			continue
		}
		src := p.URL
		if src == "" {
			src = "data:" + p.MIMEType + ";base64," + p.Data
		}
		m := ai.NewMediaPart(p.MIMEType, src)
		if p.Name != "" {
			m.Metadata = map[string]any{"name": p.Name}
		}
		media = append(media, m)
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	return &ai.MultipartToolResponse{Output: map[string]any{key: strings.Join(texts, "\n")}, Content: media}, nil
}
