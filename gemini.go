package toolnexus

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// GeminiFunctionResponse is a Gemini functionResponse part, the value
// [ToolResult.GeminiFunctionResponse] returns. Response is {"output": text}
// or, for a failed call, {"error": text}; Parts holds the media.
type GeminiFunctionResponse struct {
	ID       string                       `json:"id,omitempty"`
	Name     string                       `json:"name"`
	Response map[string]any               `json:"response"`
	Parts    []GeminiFunctionResponsePart `json:"parts,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v GeminiFunctionResponse) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFunctionResponse) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFunctionResponse.String] (%#v: [GeminiFunctionResponse.GoString]).
func (v GeminiFunctionResponse) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFunctionResponse) LogValue() slog.Value { return logWire(v) }

// GeminiFunctionResponsePart is one media part of a Gemini functionResponse:
// InlineData for bytes or FileData for a URI.
type GeminiFunctionResponsePart struct {
	InlineData *GeminiBlob     `json:"inlineData,omitempty"`
	FileData   *GeminiFileData `json:"fileData,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v GeminiFunctionResponsePart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFunctionResponsePart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFunctionResponsePart.String] (%#v: [GeminiFunctionResponsePart.GoString]).
func (v GeminiFunctionResponsePart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFunctionResponsePart) LogValue() slog.Value { return logWire(v) }

// GeminiBlob is inline media in a Gemini part: a MIME type and base64 data.
type GeminiBlob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v GeminiBlob) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiBlob) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiBlob.String] (%#v: [GeminiBlob.GoString]).
func (v GeminiBlob) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiBlob) LogValue() slog.Value { return logWire(v) }

// GeminiFileData is media by URI in a Gemini part.
type GeminiFileData struct {
	MIMEType string `json:"mimeType"`
	FileURI  string `json:"fileUri"`
}

// String returns v's fields without payload, for %v.
func (v GeminiFileData) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFileData) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFileData.String] (%#v: [GeminiFileData.GoString]).
func (v GeminiFileData) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFileData) LogValue() slog.Value { return logWire(v) }

// Sizes the Gemini API documents ("File input methods", and Google's
// announcement of January 2026 that raised them): inline data may be 100 MB
// of base64, and a PDF 50 MB.
const (
	geminiMaxInline = 100_000_000
	geminiMaxPDF    = 50_000_000
)

// geminiTypes are the media types Gemini reads in a function response: the
// images, documents and audio of its image, document and audio
// understanding guides that the extension table knows.
var geminiTypes = map[string]PartType{
	"image/png":        PartImage,
	"image/jpeg":       PartImage,
	"image/webp":       PartImage,
	"image/heic":       PartImage,
	"image/heif":       PartImage,
	"application/pdf":  PartFile,
	"text/plain":       PartFile,
	"text/markdown":    PartFile,
	"text/csv":         PartFile,
	"application/json": PartFile,
	"audio/wav":        PartAudio,
	"audio/mp3":        PartAudio,
	"audio/mpeg":       PartAudio,
	"audio/ogg":        PartAudio,
	"audio/flac":       PartAudio,
}

// GeminiFunctionResponse returns r as a Gemini API functionResponse for the
// call id of the function name (an empty id is left out). Gemini parts carry
// no text, so the text goes into the response: Output, then each text part
// and each placeholder, one per line, as {"output": text}, or {"error":
// text} for a failed result.
//
// The media go in Parts, in order: a PNG, JPEG, WebP, HEIC or HEIF image, a
// PDF, plain text, Markdown, CSV or JSON file, and WAV, MP3, Ogg or FLAC
// audio holding data, as inlineData (up to 100 MB of base64, a PDF up to
// 50 MB). The Gemini API takes no media by URI in a function response: the
// genai SDKs document FunctionResponseFileData as "not supported in Gemini
// API" (js-genai's types.FunctionResponseFileData, kotlin-genai's
// FunctionResponsePart.fileData), so a part by URL, like any other part and
// parts over those limits, leaves its placeholder in the text. Use
// [ToolResult.VertexFunctionResponse] for Vertex AI, which takes them.
func (r ToolResult) GeminiFunctionResponse(name, id string) GeminiFunctionResponse {
	return r.geminiResponse(name, id, false)
}

// VertexFunctionResponse returns r as a functionResponse for Gemini on
// Vertex AI, as [ToolResult.GeminiFunctionResponse] does, except that a part
// by URL goes in Parts as fileData: Vertex AI takes a Cloud Storage URI
// (gs://bucket/object) or an HTTP URL (http or https) in fileData.fileUri
// (the Vertex AI inference reference, "fileData"). A URL of any other
// scheme leaves its placeholder in the text.
func (r ToolResult) VertexFunctionResponse(name, id string) GeminiFunctionResponse {
	return r.geminiResponse(name, id, true)
}

func (r ToolResult) geminiResponse(name, id string, vertex bool) GeminiFunctionResponse {
	carries := geminiCarries
	if vertex {
		carries = vertexCarries
	}
	texts, media := layoutParts(r, carries, func(_ int, p ContentPart) GeminiFunctionResponsePart {
		return geminiPart(p)
	})
	key := "output"
	if r.IsError {
		key = "error"
	}
	if len(media) == 0 {
		media = nil
	}
	return GeminiFunctionResponse{ID: id, Name: name, Response: map[string]any{key: strings.Join(texts, "\n")}, Parts: media}
}

// Limits of the Gemini API, as [UnsupportedPart] reports them.
var (
	geminiInlineLimit = SizeLimit{Bytes: geminiMaxInline, Base64: true, What: "the 100 MB (100000000 bytes) of base64 Gemini takes inline"}
	geminiPDFLimit    = SizeLimit{Bytes: geminiMaxPDF, What: "the 50 MB Gemini takes in a PDF"}
)

// geminiCarries says why the Gemini API does not carry the valid part p.
func geminiCarries(p ContentPart) carry { return geminiDecides(p, false) }

// vertexCarries says why Gemini on Vertex AI does not carry the valid part
// p.
func vertexCarries(p ContentPart) carry { return geminiDecides(p, true) }

// geminiDecides says why Gemini does not carry the valid part p; vertex
// says whether parts by URL are taken.
func geminiDecides(p ContentPart, vertex bool) carry {
	mt := mediaType(p.MIMEType)
	switch {
	case geminiTypes[mt] != p.Type:
		return refusedFor(UnsupportedMediaType)
	case p.URL != "" && !vertex:
		return refusedFor(UnsupportedURL)
	case p.URL != "" && !webURL(p.URL) && !hasPrefixFold(p.URL, "gs://"):
		return refusedFor(UnsupportedURLScheme)
	case p.URL != "":
		return carry{}
	case len(p.Data) > geminiMaxInline:
		return overLimit(geminiInlineLimit)
	case mt == "application/pdf" && p.Size() > geminiMaxPDF:
		return overLimit(geminiPDFLimit)
	}
	return carry{}
}

// geminiPart returns the functionResponse part for p, a part Gemini
// carries.
func geminiPart(p ContentPart) GeminiFunctionResponsePart {
	mt := mediaType(p.MIMEType)
	if p.URL != "" {
		return GeminiFunctionResponsePart{FileData: &GeminiFileData{MIMEType: mt, FileURI: p.URL}}
	}
	return GeminiFunctionResponsePart{InlineData: &GeminiBlob{MIMEType: mt, Data: p.Data}}
}
