package toolnexus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// This file turns a ToolResult into the value each LLM provider takes for a
// tool's answer, and an MCP CallToolResult back into a ToolResult. The rules
// shared by every destination:
//
//   - The first text is always Output; an empty text is never written as a
//     block of its own (providers refuse empty text blocks).
//   - Metadata never reaches a provider, so a suspension is sent as its
//     Output text.
//   - Each destination has an allowlist of the part types, MIME types and
//     sources (data or URL) it accepts, checked before a block is written. A
//     part outside it, or one that fails [ContentPart.Validate], becomes its
//     placeholder text (see placeholder), never a silent drop and never a
//     block the provider would reject.

// AnthropicToolResultBlock is an Anthropic Messages tool_result content
// block, the value [ToolResult.AnthropicToolResult] returns: its JSON is what
// the Messages API takes in a user message's content.
type AnthropicToolResultBlock struct {
	Type      string                  `json:"type"` // always "tool_result"
	ToolUseID string                  `json:"tool_use_id"`
	IsError   bool                    `json:"is_error"`
	Content   []AnthropicContentBlock `json:"content,omitempty"`
}

// AnthropicContentBlock is one block of an Anthropic tool_result's content:
// a "text" block with Text, or an "image" or "document" block with a Source.
// A document carries the file part's name as its Title.
type AnthropicContentBlock struct {
	Type   string           `json:"type"`
	Text   string           `json:"text,omitempty"`
	Source *AnthropicSource `json:"source,omitempty"`
	Title  string           `json:"title,omitempty"`
}

// AnthropicSource is where an Anthropic image or document block finds its
// bytes: Type "base64" with MediaType and Data, or Type "url" with URL.
type AnthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// OpenAIChatMessage is an OpenAI Chat Completions message, as
// [ToolResult.OpenAIChatMessages] returns them: Role "tool" with ToolCallID,
// or Role "user". Content is a string or a []OpenAIChatContentPart.
type OpenAIChatMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Content    any    `json:"content"`
}

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

// OpenAIImageURL is the image of an OpenAI Chat image_url part: a URL, or a
// data URL holding the image.
type OpenAIImageURL struct {
	URL string `json:"url"`
}

// OpenAIFile is the file of an OpenAI Chat file part: a data URL holding the
// file, and its name.
type OpenAIFile struct {
	FileData string `json:"file_data"`
	Filename string `json:"filename"`
}

// OpenAIInputAudio is the audio of an OpenAI Chat input_audio part: the
// base64 data and its format, "wav" or "mp3".
type OpenAIInputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// OpenAIFunctionCallOutput is an OpenAI Responses function_call_output input
// item, the value [ToolResult.OpenAIResponsesOutput] returns. Output is a
// string or a []OpenAIResponsesContent.
type OpenAIFunctionCallOutput struct {
	Type   string `json:"type"` // always "function_call_output"
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// OpenAIResponsesContent is one item of a function_call_output's output:
// Type "input_text" with Text, "input_image" with ImageURL (a URL or a data
// URL), or "input_file" with FileData (a data URL) and Filename, or with
// FileURL.
type OpenAIResponsesContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	FileData string `json:"file_data,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// MCPCallToolResult is an MCP CallToolResult, the value
// [ToolResult.MCPCallToolResult] returns.
type MCPCallToolResult struct {
	Content []MCPContent `json:"content"`
	IsError bool         `json:"isError"`
}

// MCPContent is one MCP content block: Type "text" with Text; "image" or
// "audio" with Data (base64) and MIMEType; "resource", an embedded resource,
// with Resource; or "resource_link" with URI, Name and MIMEType.
type MCPContent struct {
	Type     string       `json:"type"`
	Text     string       `json:"text,omitempty"`
	Data     string       `json:"data,omitempty"`
	MIMEType string       `json:"mimeType,omitempty"`
	URI      string       `json:"uri,omitempty"`
	Name     string       `json:"name,omitempty"`
	Resource *MCPResource `json:"resource,omitempty"`
}

// MCPResource is the content of an MCP embedded resource: its URI, MIME type
// and either Text or Blob (base64).
type MCPResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

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
// InlineData for bytes or FileData for a URL.
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

// accept says which parts of one type a destination takes: the MIME types
// (nil means any) and whether by data, by URL or both.
type accept struct {
	mimeTypes map[string]bool
	data, url bool
}

// allowlist is what one destination takes, by part type. Text parts are
// always taken and are not listed.
type allowlist map[PartType]accept

// carries reports whether the destination takes p as a block: p is valid, and
// its type, MIME type and source are on the list.
func (a allowlist) carries(p ContentPart) bool {
	rule, ok := a[p.Type]
	if !ok || p.Validate() != nil {
		return false
	}
	if rule.mimeTypes != nil && !rule.mimeTypes[p.MIMEType] {
		return false
	}
	if p.Data != "" {
		return rule.data
	}
	return rule.url
}

func set(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// keys returns the set of the keys of m.
func keys(m map[string]string) map[string]bool {
	k := make(map[string]bool, len(m))
	for v := range m {
		k[v] = true
	}
	return k
}

var (
	// webImages are the image types Anthropic and OpenAI read.
	webImages = set("image/jpeg", "image/png", "image/gif", "image/webp")
	pdfOnly   = set("application/pdf")
	// openAIAudioFormats maps the audio types OpenAI Chat reads to the
	// format it wants named.
	openAIAudioFormats = map[string]string{
		"audio/wav":   "wav",
		"audio/x-wav": "wav",
		"audio/wave":  "wav",
		"audio/mpeg":  "mp3",
		"audio/mp3":   "mp3",
	}
)

var (
	anthropicAllowlist = allowlist{
		PartImage: {mimeTypes: webImages, data: true, url: true},
		PartFile:  {mimeTypes: pdfOnly, data: true, url: true},
	}
	openAIChatAllowlist = allowlist{
		PartImage: {mimeTypes: webImages, data: true, url: true},
		PartFile:  {mimeTypes: pdfOnly, data: true},
		PartAudio: {mimeTypes: keys(openAIAudioFormats), data: true},
	}
	openAIResponsesAllowlist = allowlist{
		PartImage: {mimeTypes: webImages, data: true, url: true},
		PartFile:  {mimeTypes: pdfOnly, data: true, url: true},
	}
	mcpAllowlist = allowlist{
		PartImage: {data: true, url: true},
		PartFile:  {data: true, url: true},
		PartAudio: {data: true, url: true},
	}
	geminiAllowlist = allowlist{
		PartImage: {mimeTypes: set("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"), data: true, url: true},
		PartFile:  {mimeTypes: set("application/pdf", "text/plain"), data: true, url: true},
		PartAudio: {mimeTypes: set("audio/wav", "audio/mp3", "audio/mpeg"), data: true, url: true},
	}
)

// placeholder is the text that stands for a part a destination cannot carry:
// "[unsupported image part (image/png, 82 bytes)]", or for a part that only
// has a URL, "[unsupported file part (application/pdf, url https://…)]". It
// never holds the payload. A type or MIME type that is not a short token
// shows as "unknown", so that odd input cannot inject text.
func placeholder(p ContentPart) string {
	b := make([]byte, 0, 64)
	b = append(b, "[unsupported "...)
	b = append(b, label(string(p.Type))...)
	b = append(b, " part ("...)
	if p.MIMEType != "" {
		b = append(b, label(p.MIMEType)...)
		b = append(b, ", "...)
	}
	switch {
	case p.Data == "" && p.URL != "" && checkURL(p.URL) == nil:
		b = append(b, "url "...)
		b = append(b, p.URL...)
	case p.Data == "" && p.URL != "":
		b = append(b, "url"...)
	default:
		b = strconv.AppendInt(b, max(decodedLen(p.Data), 0), 10)
		b = append(b, " bytes"...)
	}
	return string(append(b, ")]"...))
}

// maxLabel is the longest type or MIME type a placeholder shows.
const maxLabel = 64

// label returns s when it is a short run of the characters of a MIME type,
// else "unknown".
func label(s string) string {
	if s == "" || len(s) > maxLabel {
		return "unknown"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$&^_.+-/", c) >= 0
		if !ok {
			return "unknown"
		}
	}
	return s
}

// dataURL returns data:<mime>;base64,<data> for a part holding data.
func dataURL(p ContentPart) string {
	return "data:" + p.MIMEType + ";base64," + p.Data
}

// urlOrDataURL returns the part's URL, or a data URL for a part holding data.
func urlOrDataURL(p ContentPart) string {
	if p.Data != "" {
		return dataURL(p)
	}
	return p.URL
}

// fileName returns the part's name, or "file" with the extension the fixed
// extension table gives its MIME type ("file.pdf"), or "file".
func fileName(p ContentPart) string {
	if p.Name != "" {
		return p.Name
	}
	ext := ""
	for e, m := range extensions {
		if m == p.MIMEType && (ext == "" || len(e) < len(ext) || len(e) == len(ext) && e < ext) {
			ext = e
		}
	}
	return "file" + ext
}

// AnthropicToolResult returns r as an Anthropic Messages tool_result block
// answering the tool_use toolUseID. Its content is the text first, Output as
// a text block and then each text part, then the media, each in the order of
// Parts: a PNG, JPEG, GIF or WebP image as an image block and a PDF file as a
// document block titled with the part's name, each with a base64 or url
// source. Any other part, audio included, becomes its placeholder text block
// among the text. An empty
// Output or text part adds no block; a result with no block at all has no
// content key. IsError is sent as is_error.
func (r ToolResult) AnthropicToolResult(toolUseID string) AnthropicToolResultBlock {
	var texts, media []AnthropicContentBlock
	addText := func(s string) {
		if s != "" {
			texts = append(texts, AnthropicContentBlock{Type: "text", Text: s})
		}
	}
	addText(r.Output)
	for _, p := range r.Parts {
		switch {
		case p.Type == PartText:
			addText(p.Text)
		case anthropicAllowlist.carries(p):
			src := &AnthropicSource{Type: "url", URL: p.URL}
			if p.Data != "" {
				src = &AnthropicSource{Type: "base64", MediaType: p.MIMEType, Data: p.Data}
			}
			if p.Type == PartImage {
				media = append(media, AnthropicContentBlock{Type: "image", Source: src})
			} else {
				media = append(media, AnthropicContentBlock{Type: "document", Source: src, Title: p.Name})
			}
		default:
			addText(placeholder(p))
		}
	}
	return AnthropicToolResultBlock{Type: "tool_result", ToolUseID: toolUseID, IsError: r.IsError, Content: append(texts, media...)}
}

// OpenAIChatMessages returns r as the OpenAI Chat Completions messages that
// answer the tool call toolCallID of the tool toolName.
//
// The first is the role "tool" message. Its content is Output as a string,
// or, when the result has text parts or parts OpenAI cannot take, an array
// of text parts: Output, then each text part or placeholder in order. A tool
// message cannot carry media, so when r has parts OpenAI takes, a role
// "user" message follows whose content starts with the text
// "Output of tool NAME (CALL_ID):" and holds them in order: a PNG, JPEG, GIF
// or WebP image as image_url (its URL, or a data URL), a PDF file as file (a
// data URL and the part's name, or "file.pdf"), and WAV or MP3 audio as
// input_audio. A file or audio part by URL cannot be sent and leaves its
// placeholder in the tool message, as does any other part.
//
// Chat has no error flag: a failed result is told by its Output. When one
// assistant message made several calls, send the tool messages of all of
// them before any of the user messages: OpenAI wants the tool messages
// straight after the assistant message.
func (r ToolResult) OpenAIChatMessages(toolCallID, toolName string) []OpenAIChatMessage {
	var texts, media []OpenAIChatContentPart
	addText := func(s string) {
		if s != "" {
			texts = append(texts, OpenAIChatContentPart{Type: "text", Text: s})
		}
	}
	for _, p := range r.Parts {
		switch {
		case p.Type == PartText:
			addText(p.Text)
		case !openAIChatAllowlist.carries(p):
			addText(placeholder(p))
		case p.Type == PartImage:
			media = append(media, OpenAIChatContentPart{Type: "image_url", ImageURL: &OpenAIImageURL{URL: urlOrDataURL(p)}})
		case p.Type == PartFile:
			media = append(media, OpenAIChatContentPart{Type: "file", File: &OpenAIFile{FileData: dataURL(p), Filename: fileName(p)}})
		default:
			media = append(media, OpenAIChatContentPart{Type: "input_audio", InputAudio: &OpenAIInputAudio{Data: p.Data, Format: openAIAudioFormats[p.MIMEType]}})
		}
	}
	tool := OpenAIChatMessage{Role: "tool", ToolCallID: toolCallID, Content: r.Output}
	if len(texts) > 0 {
		if r.Output != "" {
			texts = slices.Insert(texts, 0, OpenAIChatContentPart{Type: "text", Text: r.Output})
		}
		tool.Content = texts
	}
	msgs := []OpenAIChatMessage{tool}
	if len(media) > 0 {
		head := OpenAIChatContentPart{Type: "text", Text: "Output of tool " + toolName + " (" + toolCallID + "):"}
		msgs = append(msgs, OpenAIChatMessage{Role: "user", Content: slices.Insert(media, 0, head)})
	}
	return msgs
}

// OpenAIResponsesOutput returns r as an OpenAI Responses function_call_output
// item answering the call callID. A result without parts has Output as its
// output string. Otherwise output is an array with the text first, Output
// and then each text part as input_text, then the media, each in the order
// of Parts: a PNG, JPEG, GIF or WebP image as input_image (its URL, or a data
// URL) and a PDF file as input_file (file_url for a URL, else a data URL and
// the part's name, or "file.pdf"). Any other part, audio included, becomes
// its placeholder input_text among the text.
// Responses has no error flag: a failed result is told by its Output.
func (r ToolResult) OpenAIResponsesOutput(callID string) OpenAIFunctionCallOutput {
	o := OpenAIFunctionCallOutput{Type: "function_call_output", CallID: callID, Output: r.Output}
	if len(r.Parts) == 0 {
		return o
	}
	var items, media []OpenAIResponsesContent
	addText := func(s string) {
		if s != "" {
			items = append(items, OpenAIResponsesContent{Type: "input_text", Text: s})
		}
	}
	addText(r.Output)
	for _, p := range r.Parts {
		switch {
		case p.Type == PartText:
			addText(p.Text)
		case !openAIResponsesAllowlist.carries(p):
			addText(placeholder(p))
		case p.Type == PartImage:
			media = append(media, OpenAIResponsesContent{Type: "input_image", ImageURL: urlOrDataURL(p)})
		case p.URL != "":
			media = append(media, OpenAIResponsesContent{Type: "input_file", FileURL: p.URL})
		default:
			media = append(media, OpenAIResponsesContent{Type: "input_file", FileData: dataURL(p), Filename: fileName(p)})
		}
	}
	items = append(items, media...)
	if len(items) > 0 {
		o.Output = items
	}
	return o
}

// MCPCallToolResult returns r as an MCP CallToolResult with the text first,
// Output and then each text part as text blocks, then the media, each in the
// order of Parts: an image or audio part holding data as image or audio
// content, a file part holding data as an embedded resource with a blob, and
// a part by URL, of any type, as a resource_link named after the part, or
// else the last segment of its URL.
// An embedded resource has no URL of its own, so its uri is
// "toolnexus:part/N/NAME", N the index of the part in Parts and NAME its
// name, path-escaped (empty for a part without a name);
// [FromMCPCallToolResult] reads the name back from it. An empty Output or
// text part adds no block. IsError is sent as isError.
func (r ToolResult) MCPCallToolResult() MCPCallToolResult {
	c := make([]MCPContent, 0, len(r.Parts)+1)
	var media []MCPContent
	addText := func(s string) {
		if s != "" {
			c = append(c, MCPContent{Type: "text", Text: s})
		}
	}
	addText(r.Output)
	for i, p := range r.Parts {
		switch {
		case p.Type == PartText:
			addText(p.Text)
		case !mcpAllowlist.carries(p):
			addText(placeholder(p))
		case p.URL != "":
			name := p.Name
			if name == "" {
				name = lastSegment(p.URL)
			}
			if name == "" {
				name = p.URL
			}
			media = append(media, MCPContent{Type: "resource_link", MIMEType: p.MIMEType, URI: p.URL, Name: name})
		case p.Type == PartFile:
			uri := "toolnexus:part/" + strconv.Itoa(i) + "/" + url.PathEscape(p.Name)
			media = append(media, MCPContent{Type: "resource", Resource: &MCPResource{URI: uri, MIMEType: p.MIMEType, Blob: p.Data}})
		default:
			media = append(media, MCPContent{Type: string(p.Type), Data: p.Data, MIMEType: p.MIMEType})
		}
	}
	return MCPCallToolResult{Content: append(c, media...), IsError: r.IsError}
}

// GeminiFunctionResponse returns r as a Gemini functionResponse for the call
// id of the function name (an empty id is left out). Gemini parts carry no
// text, so the text parts go into the response text: Output, then each text
// part and each placeholder, one per line. The response is
// {"output": text}, or {"error": text} for a failed result. The media go in
// Parts, in order: a PNG, JPEG, WebP, HEIC or HEIF image, a PDF or plain
// text file and WAV or MP3 audio, as inlineData for data or fileData for a
// URL; any other part leaves its placeholder in the text.
func (r ToolResult) GeminiFunctionResponse(name, id string) GeminiFunctionResponse {
	text := r.Output
	addText := func(s string) {
		if s == "" {
			return
		}
		if text != "" {
			text += "\n"
		}
		text += s
	}
	var parts []GeminiFunctionResponsePart
	for _, p := range r.Parts {
		switch {
		case p.Type == PartText:
			addText(p.Text)
		case !geminiAllowlist.carries(p):
			addText(placeholder(p))
		case p.Data != "":
			parts = append(parts, GeminiFunctionResponsePart{InlineData: &GeminiBlob{MIMEType: p.MIMEType, Data: p.Data}})
		default:
			parts = append(parts, GeminiFunctionResponsePart{FileData: &GeminiFileData{MIMEType: p.MIMEType, FileURI: p.URL}})
		}
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	return GeminiFunctionResponse{ID: id, Name: name, Response: map[string]any{key: text}, Parts: parts}
}

// lastSegment returns the last segment of the path of an absolute or opaque
// URI, unescaped, or "" when there is none.
func lastSegment(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	p := u.EscapedPath()
	if p == "" {
		p = u.Opaque
	}
	seg, err := url.PathUnescape(p[strings.LastIndexByte(p, '/')+1:])
	if err != nil {
		return ""
	}
	return seg
}

// mcpWire is the part of an MCP CallToolResult that FromMCPCallToolResult
// reads; the content blocks are decoded one by one.
type mcpWire struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
}

// FromMCPCallToolResult returns the ToolResult for data, the JSON of an MCP
// CallToolResult. Its Output is the text blocks joined by newlines or, when
// the result has structuredContent, that JSON, compacted; text blocks then
// become text parts, except one holding the same JSON. Image and audio
// blocks become image and audio parts; an embedded resource with a blob
// becomes a part of the type its MIME type implies (application/octet-stream
// when it has none), named after the last segment of its uri; one with text
// becomes a text part; a resource_link becomes a part by URL. isError is
// kept, _meta and annotations are dropped.
//
// A block of an unknown type, or one whose payload is not base64 or lacks
// what a part needs, is kept as its placeholder text, "[unsupported TYPE
// part (MIME, N bytes)]", in the Output. Base64 that is valid but not
// canonical (unpadded, or with line breaks) is re-encoded. Input that is not
// a JSON object of that shape, or a content entry that is not an object,
// reports [ErrInvalidMCP].
func FromMCPCallToolResult(data []byte) (ToolResult, error) {
	if !isObject(data) {
		return ToolResult{}, errorf(ErrInvalidMCP, "want a JSON object, got %s", jsonKind(data))
	}
	var w mcpWire
	if err := json.Unmarshal(data, &w); err != nil {
		return ToolResult{}, errorf(ErrInvalidMCP, "%v", err)
	}
	structured := len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null"
	var texts []string
	var parts []ContentPart
	for i, raw := range w.Content {
		if !isObject(raw) {
			return ToolResult{}, errorf(ErrInvalidMCP, "content[%d]: want an object, got %s", i, jsonKind(raw))
		}
		var head struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(raw, &head) // raw is an object; a type that is no string stays nil
		typ, _ := head.Type.(string)
		switch typ {
		case "text", "image", "audio", "resource", "resource_link":
		default:
			texts = append(texts, unknownPlaceholder(typ, raw))
			continue
		}
		var c MCPContent
		if err := json.Unmarshal(raw, &c); err != nil {
			return ToolResult{}, errorf(ErrInvalidMCP, "content[%d]: %v", i, err)
		}
		if c.Type == "text" {
			texts = append(texts, c.Text)
			continue
		}
		p, ok := partFromMCP(c)
		switch {
		case !ok:
			texts = append(texts, placeholder(p))
		case p.Type == PartText:
			texts = append(texts, p.Text)
		default:
			parts = append(parts, p)
		}
	}
	r := ToolResult{IsError: w.IsError}
	if structured {
		var out bytes.Buffer
		if err := json.Compact(&out, w.StructuredContent); err != nil {
			return ToolResult{}, errorf(ErrInvalidMCP, "structuredContent: %v", err)
		}
		r.Output = out.String()
		var textParts []ContentPart
		for _, t := range texts {
			if !sameJSON(t, w.StructuredContent) {
				textParts = append(textParts, TextPart(t))
			}
		}
		parts = append(textParts, parts...)
	} else {
		r.Output = strings.Join(texts, "\n")
	}
	if len(parts) > 0 {
		r.Parts = parts
	}
	return r, nil
}

// partFromMCP returns the part for a non-text MCP block and true, or, when
// the block cannot make a valid part, a part describing it for a
// placeholder and false.
func partFromMCP(c MCPContent) (ContentPart, bool) {
	switch c.Type {
	case "image", "audio":
		p := ContentPart{Type: PartType(c.Type), MIMEType: c.MIMEType, Data: c.Data}
		data, ok := canonicalBase64(c.Data)
		if !ok || c.Data == "" {
			return p, false
		}
		p.Data = data
		return p, p.Validate() == nil
	case "resource_link":
		mimeType := c.MIMEType
		if mimeType == "" {
			mimeType = "application/octet-stream"
		}
		p, err := PartFromURL(c.URI, mimeType)
		if err != nil {
			return ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, URL: c.URI}, false
		}
		if p.Type == PartFile && c.Name != "" {
			p.Name = c.Name
		}
		return p, true
	}
	// An embedded resource.
	if c.Resource == nil {
		return ContentPart{Type: "resource"}, false
	}
	res := c.Resource
	if res.Blob == "" {
		return TextPart(res.Text), true
	}
	mimeType := res.MIMEType
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	p := ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, Data: res.Blob}
	data, ok := canonicalBase64(res.Blob)
	if !ok || checkMIMEType(mimeType) != nil {
		return p, false
	}
	return newPart(mimeType, data, lastSegment(res.URI)), true
}

// canonicalBase64 returns data as canonical standard base64: as it is when
// it already is, re-encoded when it is standard base64 with line breaks or
// without padding, and false when it is not base64 or holds no byte.
func canonicalBase64(data string) (string, bool) {
	if checkBase64(data) == nil {
		return data, true
	}
	s := strings.NewReplacer("\r", "", "\n", "").Replace(data)
	s = strings.TrimRight(s, "=")
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return base64.StdEncoding.EncodeToString(b), true
}

// unknownPlaceholder is the placeholder of an MCP block of an unknown type:
// its MIME type and size when it has a string mimeType and data, else just
// its type.
func unknownPlaceholder(typ string, raw json.RawMessage) string {
	var c struct {
		MIMEType any `json:"mimeType"`
		Data     any `json:"data"`
	}
	_ = json.Unmarshal(raw, &c) // raw is an object; fields of other types stay nil
	mimeType, _ := c.MIMEType.(string)
	data, _ := c.Data.(string)
	if mimeType == "" && data == "" {
		return "[unsupported " + label(typ) + " part]"
	}
	return placeholder(ContentPart{Type: PartType(typ), MIMEType: mimeType, Data: data})
}

// isObject reports whether data, less leading white space, starts a JSON object.
func isObject(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// jsonKind names the kind of JSON value data starts, without quoting it: an
// error must not carry a payload.
func jsonKind(data []byte) string {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return "empty input"
	}
	switch c := data[0]; {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || '0' <= c && c <= '9':
		return "a number"
	}
	return "no JSON value"
}

// sameJSON reports whether text holds the same JSON value as structured.
func sameJSON(text string, structured json.RawMessage) bool {
	var a, b any
	if json.Unmarshal([]byte(text), &a) != nil || json.Unmarshal(structured, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}
