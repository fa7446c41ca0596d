package toolnexus

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// AnthropicToolResultBlock is an Anthropic Messages tool_result content
// block, the value [ToolResult.AnthropicToolResult] returns: its JSON is what
// the Messages API takes in a user message's content.
type AnthropicToolResultBlock struct {
	Type      string                  `json:"type"` // always "tool_result"
	ToolUseID string                  `json:"tool_use_id"`
	IsError   bool                    `json:"is_error"`
	Content   []AnthropicContentBlock `json:"content,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v AnthropicToolResultBlock) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicToolResultBlock) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicToolResultBlock.String] (%#v: [AnthropicToolResultBlock.GoString]).
func (v AnthropicToolResultBlock) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicToolResultBlock) LogValue() slog.Value { return logWire(v) }

// AnthropicContentBlock is one block of an Anthropic tool_result's content:
// a "text" block with Text, or an "image" or "document" block with a Source.
// A document carries the file part's name as its Title.
type AnthropicContentBlock struct {
	Type   string           `json:"type"`
	Text   string           `json:"text,omitempty"`
	Source *AnthropicSource `json:"source,omitempty"`
	Title  string           `json:"title,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v AnthropicContentBlock) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicContentBlock) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicContentBlock.String] (%#v: [AnthropicContentBlock.GoString]).
func (v AnthropicContentBlock) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicContentBlock) LogValue() slog.Value { return logWire(v) }

// AnthropicSource is where an Anthropic image or document block finds its
// content: Type "base64" with MediaType and base64 Data, "text" with
// MediaType "text/plain" and the text itself in Data, or "url" with URL.
type AnthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty" toolnexus:"payload"`
	URL       string `json:"url,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v AnthropicSource) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicSource) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicSource.String] (%#v: [AnthropicSource.GoString]).
func (v AnthropicSource) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicSource) LogValue() slog.Value { return logWire(v) }

// Sizes the Anthropic Messages API documents, both counted on the base64 it
// is sent. An image whose base64 is longer than 5 MiB is refused ("image
// exceeds 5 MB maximum: N bytes > 5242880 bytes": its MB is a MiB); a
// request, and so any document in it, may be at most 32 MB (the PDF support
// guide).
const (
	anthropicMaxImage   = 5 << 20
	anthropicMaxRequest = 32_000_000
)

// anthropicImages are the image types the Messages API reads; its
// media_type is a closed list of these lower-case values.
var anthropicImages = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// AnthropicToolResult returns r as an Anthropic Messages tool_result block
// answering the tool_use toolUseID, with IsError sent as is_error. Its
// content is the text first, as text blocks (Output, then each text part and
// placeholderText in order, empty texts left out), then the media in the order
// of Parts; metadata is never sent, so a suspension goes as its Output. A
// result with no text and no media has no content key.
//
// It carries a JPEG, PNG, GIF or WebP image as an image block, and a PDF, a
// plain text, Markdown, CSV or JSON file as a document block titled with the
// part's name: data as a base64 source (a text file as a "text/plain" text
// source, when it is UTF-8), an http or https URL as a url source. Any other
// part, audio included, an image whose base64 is over 5 MiB, or a document
// whose base64 is over 32 MB (the limits the API documents) becomes its
// placeholder, which gives the size of the base64.
func (r ToolResult) AnthropicToolResult(toolUseID string) AnthropicToolResultBlock {
	texts, media := layoutParts(r, anthropicCarries, func(_ int, p ContentPart) AnthropicContentBlock {
		return anthropicBlock(p)
	})
	content := make([]AnthropicContentBlock, 0, len(texts)+len(media))
	for _, t := range texts {
		content = append(content, AnthropicContentBlock{Type: "text", Text: t})
	}
	content = append(content, media...)
	if len(content) == 0 {
		content = nil
	}
	return AnthropicToolResultBlock{Type: "tool_result", ToolUseID: toolUseID, IsError: r.IsError, Content: content}
}

// Limits of the Anthropic Messages API, as [UnsupportedPart] reports them.
var (
	anthropicImageLimit   = SizeLimit{Bytes: anthropicMaxImage, Base64: true, What: "the 5 MiB (5242880 bytes) of base64 Anthropic takes in an image"}
	anthropicRequestLimit = SizeLimit{Bytes: anthropicMaxRequest, Base64: true, What: "the 32 MB (32000000 bytes) Anthropic takes in a request"}
)

// anthropicCarries says why Anthropic does not carry the valid part p.
func anthropicCarries(p ContentPart) carry {
	mt := mediaType(p.MIMEType)
	switch {
	case p.Type != PartImage && p.Type != PartFile:
		return refusedFor(UnsupportedType)
	case p.Type == PartImage && !anthropicImages[mt], p.Type == PartFile && mt != "application/pdf" && !isTextType(mt):
		return refusedFor(UnsupportedMediaType)
	case p.URL != "" && isTextType(mt):
		return refusedFor(UnsupportedURL)
	case p.URL != "" && !webURL(p.URL):
		return refusedFor(UnsupportedURLScheme)
	case p.URL != "":
		return carry{}
	case p.Type == PartImage && len(p.Data) > anthropicMaxImage:
		return overLimit(anthropicImageLimit)
	case len(p.Data) > anthropicMaxRequest:
		return overLimit(anthropicRequestLimit)
	case isTextType(mt):
		if _, ok := decodeText(p.Data); !ok {
			return refusedFor(UnsupportedEncoding)
		}
	}
	return carry{}
}

// anthropicBlock returns the image or document block for p, a part
// anthropicCarries carries.
func anthropicBlock(p ContentPart) AnthropicContentBlock {
	mt := mediaType(p.MIMEType)
	var src AnthropicSource
	switch {
	case p.URL != "":
		src = AnthropicSource{Type: "url", URL: p.URL}
	case isTextType(mt):
		text, _ := decodeText(p.Data)
		src = AnthropicSource{Type: "text", MediaType: "text/plain", Data: text}
	default:
		src = AnthropicSource{Type: "base64", MediaType: mt, Data: p.Data}
	}
	if p.Type == PartImage {
		return AnthropicContentBlock{Type: "image", Source: &src}
	}
	return AnthropicContentBlock{Type: "document", Source: &src, Title: p.Name}
}

// isTextType reports whether a media type is one of the text files of the
// extension table: plain text, Markdown, CSV or JSON.
func isTextType(mt string) bool {
	switch mt {
	case "text/plain", "text/markdown", "text/csv", "application/json":
		return true
	}
	return false
}

// decodeText decodes base64 data that must hold UTF-8 text.
func decodeText(data string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}
