package toolnexus

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// ErrPending reports a suspension given to a destination that takes only a
// finished result, such as [ToolResult.OpenAIAgentsToolResult].
var ErrPending = errors.New("toolnexus: result is a suspension")

// OpenAIChatMessage is an OpenAI Chat Completions message, as
// [ToolResult.OpenAIChatMessages] returns them: Role "tool" with ToolCallID,
// or Role "user". Content is a string or a []OpenAIChatContentPart.
type OpenAIChatMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Content    any    `json:"content"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIChatMessage) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIChatMessage) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIChatMessage.String] (%#v: [OpenAIChatMessage.GoString]).
func (v OpenAIChatMessage) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIChatMessage) LogValue() slog.Value { return logWire(v) }

// OpenAIChatContentPart is one part of an OpenAI Chat message's content: Type
// "text" with Text, "image_url" with ImageURL, "file" with File or
// "input_audio" with InputAudio.
type OpenAIChatContentPart struct {
	Type       string            `json:"type"`
	Text       string            `json:"text,omitempty"`
	ImageURL   *OpenAIImageURL   `json:"image_url,omitempty"`
	File       *OpenAIFile       `json:"file,omitempty"`
	InputAudio *OpenAIInputAudio `json:"input_audio,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIChatContentPart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIChatContentPart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIChatContentPart.String] (%#v: [OpenAIChatContentPart.GoString]).
func (v OpenAIChatContentPart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIChatContentPart) LogValue() slog.Value { return logWire(v) }

// OpenAIImageURL is the image of an OpenAI Chat image_url part: a URL, or a
// data URL holding the image.
type OpenAIImageURL struct {
	URL string `json:"url" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIImageURL) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIImageURL) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIImageURL.String] (%#v: [OpenAIImageURL.GoString]).
func (v OpenAIImageURL) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIImageURL) LogValue() slog.Value { return logWire(v) }

// OpenAIFile is the file of an OpenAI Chat file part: a data URL holding the
// file, and its name.
type OpenAIFile struct {
	FileData string `json:"file_data" toolnexus:"payload"`
	Filename string `json:"filename"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIFile) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIFile) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIFile.String] (%#v: [OpenAIFile.GoString]).
func (v OpenAIFile) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIFile) LogValue() slog.Value { return logWire(v) }

// OpenAIInputAudio is the audio of an OpenAI Chat input_audio part: the
// base64 data and its format, "wav" or "mp3", under the JSON key "format"
// (the field is AudioFormat, so that the type can have the Format method
// that prints it without its payload).
type OpenAIInputAudio struct {
	Data        string `json:"data" toolnexus:"payload"`
	AudioFormat string `json:"format"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIInputAudio) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIInputAudio) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIInputAudio.String] (%#v: [OpenAIInputAudio.GoString]).
func (v OpenAIInputAudio) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIInputAudio) LogValue() slog.Value { return logWire(v) }

// OpenAIFunctionCallOutput is an OpenAI Responses function_call_output input
// item, the value [ToolResult.OpenAIResponsesOutput] returns. Output is a
// string or a []OpenAIResponsesContent.
type OpenAIFunctionCallOutput struct {
	Type   string `json:"type"` // always "function_call_output"
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIFunctionCallOutput) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIFunctionCallOutput) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIFunctionCallOutput.String] (%#v: [OpenAIFunctionCallOutput.GoString]).
func (v OpenAIFunctionCallOutput) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIFunctionCallOutput) LogValue() slog.Value { return logWire(v) }

// OpenAIResponsesContent is one item of a function_call_output's output:
// Type "input_text" with Text, "input_image" with ImageURL (a URL or a data
// URL), or "input_file" with FileData (a data URL) and Filename, or with
// FileURL.
type OpenAIResponsesContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty" toolnexus:"payload"`
	FileData string `json:"file_data,omitempty" toolnexus:"payload"`
	FileURL  string `json:"file_url,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIResponsesContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIResponsesContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIResponsesContent.String] (%#v: [OpenAIResponsesContent.GoString]).
func (v OpenAIResponsesContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIResponsesContent) LogValue() slog.Value { return logWire(v) }

// Sizes the OpenAI API documents: an image input may be 20 MB (the images
// and vision guide), and the PDF inputs of a request 32 MB in all (the file
// inputs guide). Both count the bytes of the file, not of its base64.
const (
	openAIMaxImage = 20_000_000
	openAIMaxFile  = 32_000_000
)

// openAIFiles are the types of the extension table that the OpenAI file
// inputs guide lists for a Responses input_file ("Accepted file types"):
// PDF, and the text and code (.txt, .md, .json) and spreadsheet (.csv)
// files it extracts the text of. Chat Completions takes only PDF.
var openAIFiles = map[string]bool{
	"application/pdf":  true,
	"text/plain":       true,
	"text/markdown":    true,
	"text/csv":         true,
	"application/json": true,
}

// openAIImages are the image types OpenAI reads: PNG, JPEG, WebP and
// non-animated GIF.
var openAIImages = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// openAIAudioFormats maps the audio types OpenAI Chat reads to the format it
// wants named.
var openAIAudioFormats = map[string]string{
	"audio/wav":   "wav",
	"audio/x-wav": "wav",
	"audio/wave":  "wav",
	"audio/mpeg":  "mp3",
	"audio/mp3":   "mp3",
}

// OpenAIChatMessages returns r as the OpenAI Chat Completions messages that
// answer the tool call toolCallID of the tool toolName.
//
// The first is the role "tool" message. Its content is Output as a string,
// or, when the result has text parts or placeholders, an array of text
// parts: Output, then each text part or placeholder in order. A tool message
// cannot carry media, so when r has parts OpenAI takes, a role "user" message
// follows whose content starts with the text "Output of tool NAME (CALL_ID):"
// and holds them in order: a PNG, JPEG, GIF or WebP image of up to 20 MB as
// image_url (its http or https URL, or a data URL), a PDF of up to 32 MB as
// file (a data URL and the part's name, or "file.pdf"), WAV or MP3 audio as
// input_audio, and a plain text, Markdown, CSV or JSON file holding UTF-8
// as a text part with its content: Chat takes no other file, and the file
// inputs guide says to send the text of one that way. Chat takes no file or
// audio by URL; those, other parts and parts over the limits the API
// documents become placeholders.
//
// Chat has no error flag: a failed result is told by its Output. When one
// assistant message made several calls, send the tool messages of all of
// them before any of the user messages: OpenAI wants the tool messages
// straight after the assistant message.
func (r ToolResult) OpenAIChatMessages(toolCallID, toolName string) []OpenAIChatMessage {
	texts, media := layoutParts(r, openAIChatCarries, func(_ int, p ContentPart) OpenAIChatContentPart {
		return openAIChatPart(p)
	})
	tool := OpenAIChatMessage{Role: "tool", ToolCallID: toolCallID, Content: r.Output}
	if onlyOutput := len(texts) == 0 || len(texts) == 1 && r.Output != ""; !onlyOutput {
		parts := make([]OpenAIChatContentPart, len(texts))
		for i, t := range texts {
			parts[i] = OpenAIChatContentPart{Type: "text", Text: t}
		}
		tool.Content = parts
	}
	if len(media) == 0 {
		return []OpenAIChatMessage{tool}
	}
	head := OpenAIChatContentPart{Type: "text", Text: "Output of tool " + toolName + " (" + toolCallID + "):"}
	user := make([]OpenAIChatContentPart, 0, 1+len(media))
	user = append(append(user, head), media...)
	return []OpenAIChatMessage{tool, {Role: "user", Content: user}}
}

// Limits of the OpenAI API, as [UnsupportedPart] reports them.
var (
	openAIImageLimit = SizeLimit{Bytes: openAIMaxImage, What: "the 20 MB OpenAI takes in an image"}
	openAIFileLimit  = SizeLimit{Bytes: openAIMaxFile, What: "the 32 MB OpenAI takes in a request's files"}
)

// openAIChatCarries says why OpenAI Chat does not carry the valid part p.
// A file other than a PDF is sent as its text, so it must be UTF-8.
func openAIChatCarries(p ContentPart) carry {
	mt := mediaType(p.MIMEType)
	switch {
	case p.Type == PartImage && !openAIImages[mt], p.Type == PartFile && !openAIFiles[mt],
		p.Type == PartAudio && openAIAudioFormats[mt] == "":
		return refusedFor(UnsupportedMediaType)
	case p.URL != "" && p.Type != PartImage:
		return refusedFor(UnsupportedURL)
	case p.Type == PartFile && mt != "application/pdf":
		if _, ok := textOf(mt, p.Data); !ok {
			return refusedFor(UnsupportedEncoding)
		}
		return carry{}
	}
	return openAIFetchAndSize(p)
}

// openAIFetchAndSize says why either OpenAI API does not carry p, a part of
// a type and media type it takes: a URL it does not fetch, or a size over
// its limits.
func openAIFetchAndSize(p ContentPart) carry {
	switch {
	case p.URL != "" && !webURL(p.URL):
		return refusedFor(UnsupportedURLScheme)
	case p.URL != "":
		return carry{}
	case p.Type == PartImage && p.Size() > openAIMaxImage:
		return overLimit(openAIImageLimit)
	case p.Type == PartFile && p.Size() > openAIMaxFile:
		return overLimit(openAIFileLimit)
	}
	return carry{}
}

// openAIChatPart returns the user message part for p, a part
// openAIChatCarries carries.
func openAIChatPart(p ContentPart) OpenAIChatContentPart {
	mt := mediaType(p.MIMEType)
	switch {
	case p.Type == PartImage && p.URL != "":
		return OpenAIChatContentPart{Type: "image_url", ImageURL: &OpenAIImageURL{URL: p.URL}}
	case p.Type == PartImage:
		return OpenAIChatContentPart{Type: "image_url", ImageURL: &OpenAIImageURL{URL: dataURL(p)}}
	case p.Type == PartFile && mt == "application/pdf":
		return OpenAIChatContentPart{Type: "file", File: &OpenAIFile{FileData: dataURL(p), Filename: fileName(p)}}
	case p.Type == PartFile:
		text, _ := textOf(mt, p.Data)
		return OpenAIChatContentPart{Type: "text", Text: text}
	}
	return OpenAIChatContentPart{Type: "input_audio", InputAudio: &OpenAIInputAudio{Data: p.Data, AudioFormat: openAIAudioFormats[mt]}}
}

// OpenAIResponsesOutput returns r as an OpenAI Responses function_call_output
// item answering the call callID. A result without parts has Output as its
// output string. Otherwise output is an array with the text first, Output
// and then each text part or placeholder as input_text, then the media in
// the order of Parts: a PNG, JPEG, GIF or WebP image of up to 20 MB as
// input_image (its http or https URL, or a data URL), and a file of up to
// 32 MB as input_file (file_url for an http or https URL, else a data URL
// and the part's name, or "file" with the extension of its type, such as
// "file.pdf"). The files are those of the extension table that OpenAI's
// file inputs guide (platform docs, guides/file-inputs, "Accepted file
// types") lists: PDF, plain text, Markdown, JSON and CSV. Any other part,
// audio included, and parts over the limits the API documents become
// placeholders.
// Responses has no error flag: a failed result is told by its Output.
func (r ToolResult) OpenAIResponsesOutput(callID string) OpenAIFunctionCallOutput {
	o := OpenAIFunctionCallOutput{Type: "function_call_output", CallID: callID, Output: r.Output}
	if len(r.Parts) == 0 {
		return o
	}
	texts, media := layoutParts(r, openAIResponsesCarries, func(_ int, p ContentPart) OpenAIResponsesContent {
		return openAIResponsesItem(p)
	})
	if len(texts)+len(media) == 0 {
		return o
	}
	items := make([]OpenAIResponsesContent, 0, len(texts)+len(media))
	for _, t := range texts {
		items = append(items, OpenAIResponsesContent{Type: "input_text", Text: t})
	}
	o.Output = append(items, media...)
	return o
}

// openAIResponsesCarries says why OpenAI Responses does not carry the
// valid part p.
func openAIResponsesCarries(p ContentPart) carry {
	mt := mediaType(p.MIMEType)
	switch {
	case p.Type != PartImage && p.Type != PartFile:
		return refusedFor(UnsupportedType)
	case p.Type == PartImage && !openAIImages[mt], p.Type == PartFile && !openAIFiles[mt]:
		return refusedFor(UnsupportedMediaType)
	}
	return openAIFetchAndSize(p)
}

// openAIResponsesItem returns the output item for p, a part
// openAIResponsesCarries carries.
func openAIResponsesItem(p ContentPart) OpenAIResponsesContent {
	switch {
	case p.Type == PartImage && p.URL != "":
		return OpenAIResponsesContent{Type: "input_image", ImageURL: p.URL}
	case p.Type == PartImage:
		return OpenAIResponsesContent{Type: "input_image", ImageURL: dataURL(p)}
	case p.URL != "":
		return OpenAIResponsesContent{Type: "input_file", FileURL: p.URL}
	}
	return OpenAIResponsesContent{Type: "input_file", FileData: dataURL(p), Filename: fileName(p)}
}

// OpenAIAgentsToolResult is an OpenAI Agents session input event of type
// "agent.session.input.tool_result", the value
// [ToolResult.OpenAIAgentsToolResult] returns: the result of the function
// call CallID that the session's turn TurnID asked for. Success says
// whether the call succeeded; Output is what a successful call returned,
// a string or a []OpenAIAgentsContent, and Error the text of a failed one.
// It is an element of the events a session's events endpoint takes.
type OpenAIAgentsToolResult struct {
	Type    string `json:"type"` // always "agent.session.input.tool_result"
	CallID  string `json:"call_id"`
	TurnID  string `json:"turn_id"`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
	Output  any    `json:"output,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIAgentsToolResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIAgentsToolResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIAgentsToolResult.String] (%#v: [OpenAIAgentsToolResult.GoString]).
func (v OpenAIAgentsToolResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIAgentsToolResult) LogValue() slog.Value { return logWire(v) }

// OpenAIAgentsContent is one item of the output of an
// [OpenAIAgentsToolResult]: Type "input_text" with Text, or "input_image"
// with ImageURL, an http or https URL or a data URL holding the image.
type OpenAIAgentsContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v OpenAIAgentsContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIAgentsContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIAgentsContent.String] (%#v: [OpenAIAgentsContent.GoString]).
func (v OpenAIAgentsContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIAgentsContent) LogValue() slog.Value { return logWire(v) }

// OpenAIAgentsToolResult returns r as the tool_result event that answers
// the function call callID of the turn turnID of an OpenAI Agents session
// (the beta Agents API), the first OpenAI shape with a success flag.
//
// A successful result has Success set and its output: Output as a string
// when r has no parts, else an array with the text first, Output and then
// each text part or placeholder as input_text, then its images in the
// order of Parts as input_image (a PNG, JPEG, GIF or WebP image of up to
// 20 MB, by its http or https URL or as a data URL). The Agents API takes
// no file or audio in a tool's output: those, other images and images
// over that size become placeholders. A failed result has no output: its
// Error is Output, each text part and a placeholder for each other part,
// one per line, for the API takes only a message from a failed call.
//
// A suspension cannot be sent: the session takes the result of a call
// once, so a [Pending] result reports [ErrPending] until the call is run
// again and finishes.
func (r ToolResult) OpenAIAgentsToolResult(callID, turnID string) (OpenAIAgentsToolResult, error) {
	if req, ok := PendingOf(r); ok {
		return OpenAIAgentsToolResult{}, msg.Errorf(ErrPending, "call %s waits on request %s", msg.Quote(callID), msg.Quote(req.ID))
	}
	o := OpenAIAgentsToolResult{Type: "agent.session.input.tool_result", CallID: callID, TurnID: turnID, Success: !r.IsError}
	texts, media := layoutParts(r, carriesFor(DestinationOpenAIAgents, r), func(_ int, p ContentPart) OpenAIAgentsContent {
		if p.URL != "" {
			return OpenAIAgentsContent{Type: "input_image", ImageURL: p.URL}
		}
		return OpenAIAgentsContent{Type: "input_image", ImageURL: dataURL(p)}
	})
	switch {
	case r.IsError:
		o.Error = strings.Join(texts, "\n")
	case len(r.Parts) == 0 || len(texts)+len(media) == 0:
		o.Output = r.Output
	default:
		items := make([]OpenAIAgentsContent, 0, len(texts)+len(media))
		for _, t := range texts {
			items = append(items, OpenAIAgentsContent{Type: "input_text", Text: t})
		}
		o.Output = append(items, media...)
	}
	return o, nil
}

// openAIAgentsCarries says why the output of a successful OpenAI Agents
// tool result does not carry the valid part p: it takes images only.
func openAIAgentsCarries(p ContentPart) carry {
	switch {
	case p.Type != PartImage:
		return refusedFor(UnsupportedType)
	case !openAIImages[mediaType(p.MIMEType)]:
		return refusedFor(UnsupportedMediaType)
	}
	return openAIFetchAndSize(p)
}
