package toolnexus

import "strings"

// GeminiFunctionResponse is a Gemini functionResponse part, the value
// [ToolResult.GeminiFunctionResponse] returns. Response is {"output": text}
// or, for a failed call, {"error": text}; Parts holds the media.
type GeminiFunctionResponse struct {
	ID       string                       `json:"id,omitempty"`
	Name     string                       `json:"name"`
	Response map[string]any               `json:"response"`
	Parts    []GeminiFunctionResponsePart `json:"parts,omitempty"`
}

// GeminiFunctionResponsePart is one media part of a Gemini functionResponse:
// InlineData for bytes or FileData for a URI.
type GeminiFunctionResponsePart struct {
	InlineData *GeminiBlob     `json:"inlineData,omitempty"`
	FileData   *GeminiFileData `json:"fileData,omitempty"`
}

// GeminiBlob is inline media in a Gemini part: a MIME type and base64 data.
type GeminiBlob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

// GeminiFileData is media by URI in a Gemini part.
type GeminiFileData struct {
	MIMEType string `json:"mimeType"`
	FileURI  string `json:"fileUri"`
}

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

// GeminiFunctionResponse returns r as a Gemini functionResponse for the call
// id of the function name (an empty id is left out). Gemini parts carry no
// text, so the text goes into the response: Output, then each text part and
// each placeholder, one per line, as {"output": text}, or {"error": text}
// for a failed result.
//
// The media go in Parts, in order: a PNG, JPEG, WebP, HEIC or HEIF image, a
// PDF, plain text, Markdown, CSV or JSON file, and WAV, MP3, Ogg or FLAC
// audio, as inlineData for data (up to 100 MB of base64, a PDF up to 50 MB)
// or fileData for a URI. The Gemini API fetches https URLs (public or
// signed) and gs:// objects registered with its Files API, and no other
// scheme ("File input methods"). Any other part, and parts over those
// limits, leave their placeholders in the text.
func (r ToolResult) GeminiFunctionResponse(name, id string) GeminiFunctionResponse {
	texts, media := layout(r, func(_ int, p ContentPart) (GeminiFunctionResponsePart, string) {
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

// geminiPart returns the functionResponse part for p, or the text that
// stands for it.
func geminiPart(p ContentPart) (GeminiFunctionResponsePart, string) {
	mt := mediaType(p.MIMEType)
	switch {
	case geminiTypes[mt] != p.Type:
		return GeminiFunctionResponsePart{}, placeholder(p)
	case p.URL != "":
		if !hasPrefixFold(p.URL, "https://") && !hasPrefixFold(p.URL, "gs://") {
			return GeminiFunctionResponsePart{}, placeholder(p)
		}
		return GeminiFunctionResponsePart{FileData: &GeminiFileData{MIMEType: mt, FileURI: p.URL}}, ""
	case len(p.Data) > geminiMaxInline:
		return GeminiFunctionResponsePart{}, tooLargeBase64(p, "the 100 MB (100000000 bytes) of base64 Gemini takes inline")
	case mt == "application/pdf" && p.Size() > geminiMaxPDF:
		return GeminiFunctionResponsePart{}, tooLarge(p, "the 50 MB Gemini takes in a PDF")
	}
	return GeminiFunctionResponsePart{InlineData: &GeminiBlob{MIMEType: mt, Data: p.Data}}, ""
}
