package einobridge

import (
	"github.com/cloudwego/eino/schema"
	"github.com/toolnexus-go/toolnexus"
)

// ErrorPrefix starts the text a model reads of a failed result: eino's
// tool output has no flag for a failure, so the text says it.
const ErrorPrefix = "Error: "

// Result returns r as eino's multimodal tool output, which a ToolsNode
// puts in the tool message's UserInputMultiContent. Its first part is the
// text of r.Output, after [ErrorPrefix] when r.IsError; each part of r
// follows in order: a text part as text, an image, audio or file part as
// eino's image, audio or file part holding the same base64 data or URL
// and MIME type. A file part's name goes in the output part's Extra
// under "name", since eino's file output has no name; eino carries that
// Extra to the message's input part. A
// suspension is its prompt's text, as any failed result.
//
// A result that [toolnexus.ToolResult.Validate] refuses, such as a part
// whose base64 is not canonical, is reported as that error.
func Result(r toolnexus.ToolResult) (*schema.ToolResult, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	text := r.Output
	if r.IsError {
		text = ErrorPrefix + text
	}
	parts := make([]schema.ToolOutputPart, 0, 1+len(r.Parts))
	parts = append(parts, schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: text})
	for _, p := range r.Parts {
		parts = append(parts, outputPart(p))
	}
	return &schema.ToolResult{Parts: parts}, nil
}

// outputPart returns the valid part p as eino's tool output part.
func outputPart(p toolnexus.ContentPart) schema.ToolOutputPart {
	if p.Type == toolnexus.PartText {
		return schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: p.Text}
	}
	common := schema.MessagePartCommon{MIMEType: p.MIMEType}
	if p.URL != "" {
		url := p.URL
		common.URL = &url
	} else {
		data := p.Data
		common.Base64Data = &data
	}
	switch p.Type {
	case toolnexus.PartImage:
		return schema.ToolOutputPart{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: common}}
	case toolnexus.PartAudio:
		return schema.ToolOutputPart{Type: schema.ToolPartTypeAudio, Audio: &schema.ToolOutputAudio{MessagePartCommon: common}}
	}
	part := schema.ToolOutputPart{Type: schema.ToolPartTypeFile, File: &schema.ToolOutputFile{MessagePartCommon: common}}
	if p.Name != "" {
		part.Extra = map[string]any{"name": p.Name}
	}
	return part
}
