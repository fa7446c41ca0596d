package toolnexus

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MCPCallToolResult is an MCP CallToolResult, the value
// [ToolResult.MCPCallToolResult] returns and [FromMCPCallToolResult] reads.
// A result that asks for input (protocol 2026-07-28) has ResultType
// "input_required", the InputRequests the client must fulfil, keyed by id,
// and the RequestState it must echo when it retries the call, instead of
// content.
type MCPCallToolResult struct {
	Content           []MCPContent               `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent,omitempty"`
	IsError           bool                       `json:"isError"`
	ResultType        string                     `json:"resultType,omitempty"`
	InputRequests     map[string]MCPInputRequest `json:"inputRequests,omitempty"`
	RequestState      string                     `json:"requestState,omitempty"`
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

// MetadataRequestState is the metadata key under which
// [FromMCPCallToolResult] keeps the requestState of an input_required
// result: a host that answers the suspension sends it back, unchanged, with
// the answer when it calls the tool again.
const MetadataRequestState = "requestState"

// The MCP names this file reads and writes.
const (
	inputRequired = "input_required"
)

// MCPCallToolResult returns r as an MCP CallToolResult with IsError sent as
// isError: text blocks first, Output and then each text part, then the media
// in the order of Parts. An image or audio part holding data is image or
// audio content, a file part holding data an embedded resource with a blob,
// and a part by URL, of any scheme, a resource_link named after the part, or
// else the last segment of its URL. An embedded resource has no URL of its
// own, so its uri is "toolnexus:part/N/NAME", N the index of the part in
// Parts and NAME its name, path-escaped (empty for a part without a name);
// [FromMCPCallToolResult] reads the name back from it. MCP takes every valid
// part, whatever its MIME type, which is written as the part has it.
//
// A suspension is sent as its text. To suspend a call over MCP, so that the
// client asks the person and retries, see [Request.MCPElicitParams] and the
// mcpbridge package.
func (r ToolResult) MCPCallToolResult() MCPCallToolResult {
	texts, media := layout(r, mcpBlock)
	content := make([]MCPContent, 0, len(texts)+len(media))
	for _, t := range texts {
		content = append(content, MCPContent{Type: "text", Text: t})
	}
	return MCPCallToolResult{Content: append(content, media...), IsError: r.IsError}
}

// mcpBlock returns the content block for the valid part p, the i'th of its
// result.
func mcpBlock(i int, p ContentPart) (MCPContent, string) {
	switch {
	case p.URL != "":
		name := cmp.Or(p.Name, baseName(lastSegment(p.URL)), p.URL)
		return MCPContent{Type: "resource_link", MIMEType: p.MIMEType, URI: p.URL, Name: name}, ""
	case p.Type == PartFile:
		uri := "toolnexus:part/" + strconv.Itoa(i) + "/" + url.PathEscape(p.Name)
		return MCPContent{Type: "resource", Resource: &MCPResource{URI: uri, MIMEType: p.MIMEType, Blob: p.Data}}, ""
	}
	return MCPContent{Type: string(p.Type), Data: p.Data, MIMEType: p.MIMEType}, ""
}

// FromMCPCallToolResult returns the ToolResult for data, the JSON of an MCP
// CallToolResult, as [MCPCallToolResult.ToolResult] reads it. Keys are read
// exactly, as the MCP SDKs read them: "ISERROR" is not "isError", and a
// text block with "TYPE":"image" is not an image. Input that is not JSON, or
// whose known keys hold values of the wrong type, reports [ErrInvalidMCP].
// It reads input of any size; use [PartReader.MCPCallToolResult] to limit it.
func FromMCPCallToolResult(data []byte) (ToolResult, error) {
	return PartReader{}.MCPCallToolResult(data)
}

// MCPCallToolResult reads data, the JSON of an MCP CallToolResult, as
// [FromMCPCallToolResult] does. It refuses input longer than MaxBytes with a
// [*PartTooLargeError] before it decodes any of it.
//
// The content blocks are converted as they are read: a text block is copied
// once, into Output, and a payload once, into its part.
func (pr PartReader) MCPCallToolResult(data []byte) (ToolResult, error) {
	if err := pr.check(int64(len(data))); err != nil {
		return ToolResult{}, err
	}
	d := jsonReader{data: data}
	if d.peek() != '{' {
		return ToolResult{}, errorf(ErrInvalidMCP, "want a JSON object, got %s", d.kind())
	}
	if !json.Valid(data) {
		// Decoding says where and why it is not JSON.
		return ToolResult{}, errorf(ErrInvalidMCP, "%v", json.Unmarshal(data, &struct{}{}))
	}
	c, content, err := d.mcpResult()
	if err != nil {
		return ToolResult{}, errorf(ErrInvalidMCP, "%v", err)
	}
	if c.ResultType == inputRequired {
		return c.suspension(), nil
	}
	texts, others := countBlocks(content)
	m, err := newMCPReader(c.StructuredContent, texts+others, others)
	if err != nil {
		return ToolResult{}, err
	}
	if content != nil {
		cd := jsonReader{data: content}
		if err := cd.mcpContents(m); err != nil {
			return ToolResult{}, errorf(ErrInvalidMCP, "%v", err)
		}
	}
	return m.result(c.IsError), nil
}

// countBlocks counts the text blocks and the other blocks of a content
// array, reading only their types, so that what holds them is allocated
// once, at its size.
func countBlocks(content []byte) (texts, others int) {
	d := jsonReader{data: content}
	if d.peek() != '[' {
		return 0, 0
	}
	d.pos++
	for {
		if ok, err := d.nextElem(); !ok || err != nil || d.peek() != '{' {
			return texts, others
		}
		d.pos++
		isText := false
		for {
			key, ok, err := d.nextKey()
			if err != nil {
				return texts, others
			}
			if !ok {
				break
			}
			if string(key) == "type" {
				raw, escaped, err := d.peekString()
				isText = err == nil && !escaped && string(raw) == "text"
			}
			if _, err := d.skip(); err != nil {
				return texts, others
			}
		}
		if isText {
			texts++
		} else {
			others++
		}
	}
}

// mcpResult reads the members of a CallToolResult but its content, which it
// returns as it is in the input, for mcpContents to read once the rest,
// structuredContent above all, is known.
func (d *jsonReader) mcpResult() (c MCPCallToolResult, content []byte, err error) {
	err = d.members("result", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "content":
			switch d.peek() {
			case 'n':
				content = nil
				if !d.null() {
					err = errSyntax
				}
			case '[':
				content, err = d.skip()
			default:
				err = &typeError{key: "content", want: "an array", got: d.kind()}
			}
		case "structuredContent":
			var raw []byte
			if raw, err = d.skip(); err == nil && string(raw) != "null" {
				c.StructuredContent = raw
			}
		case "isError":
			c.IsError, err = d.boolean("isError")
		case "resultType":
			c.ResultType, err = d.str("resultType")
		case "inputRequests":
			c.InputRequests, err = d.mcpInputRequests()
		case "requestState":
			c.RequestState, err = d.str("requestState")
		default:
			return false, nil
		}
		return true, err
	})
	return c, content, err
}

// mcpContents reads the content array and hands each block to m. The text
// of a text block goes to m as it is in the input, so that a text without
// escapes is copied only once.
func (d *jsonReader) mcpContents(m *mcpReader) error {
	d.pos++ // the '[' mcpResult saw
	for i := 0; ; i++ {
		ok, err := d.nextElem()
		if err != nil || !ok {
			return err
		}
		if d.peek() != '{' {
			return fmt.Errorf("content[%d] is %s, not an object", i, d.kind())
		}
		c, text, err := d.mcpContent()
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		if c.Type == "text" {
			if err := m.rawText(text); err != nil {
				return fmt.Errorf("content[%d]: %w", i, err)
			}
			continue
		}
		m.block(c)
	}
}

// mcpContent reads one content block. The text of a text block is
// returned as it is in the input, quotes included, and not decoded. A field
// of the wrong type is an error in a block of a type this package reads; in
// a block of another type, which is kept only as a placeholder, it is left
// out.
func (d *jsonReader) mcpContent() (c MCPContent, text []byte, err error) {
	var bad error
	err = d.members("block", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "type":
			// The types this package reads are not copied.
			raw, escaped, perr := d.peekString()
			if t := knownType(raw); perr == nil && !escaped && t != "" {
				c.Type = t
				_, err = d.skip()
			} else {
				err = d.field("type", &c.Type, &bad)
			}
		case "text":
			switch d.peek() {
			case '"', 'n':
				text, err = d.skip()
			default:
				err = d.field("text", &c.Text, &bad)
			}
		case "data":
			err = d.field("data", &c.Data, &bad)
		case "mimeType":
			err = d.field("mimeType", &c.MIMEType, &bad)
		case "uri":
			err = d.field("uri", &c.URI, &bad)
		case "name":
			err = d.field("name", &c.Name, &bad)
		case "resource":
			c.Resource, err = d.mcpResource()
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return c, nil, err
	}
	if knownType([]byte(c.Type)) == "" {
		bad = nil // a block of another type is kept only as a placeholder
	}
	return c, text, bad
}

// field reads a string field of a content block into s. A value of another
// type is skipped, and the first such is kept in bad.
func (d *jsonReader) field(key string, s *string, bad *error) error {
	switch d.peek() {
	case '"', 'n':
		v, err := d.str(key)
		*s = v
		return err
	}
	if *bad == nil {
		*bad = &typeError{key: key, want: "a string", got: d.kind()}
	}
	_, err := d.skip()
	return err
}

// knownType returns the block type raw names when it is one this package
// reads, as a constant, or "".
func knownType(raw []byte) string {
	for _, t := range [...]string{"text", "image", "audio", "resource", "resource_link"} {
		if string(raw) == t {
			return t
		}
	}
	return ""
}

func (d *jsonReader) mcpResource() (*MCPResource, error) {
	if d.null() {
		return nil, nil
	}
	var r MCPResource
	err := d.members("resource", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "uri":
			r.URI, err = d.str("uri")
		case "mimeType":
			r.MIMEType, err = d.str("mimeType")
		case "text":
			r.Text, err = d.str("text")
		case "blob":
			r.Blob, err = d.str("blob")
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (d *jsonReader) mcpInputRequests() (map[string]MCPInputRequest, error) {
	if d.null() {
		return nil, nil
	}
	reqs := map[string]MCPInputRequest{}
	err := d.members("inputRequests", func(key []byte) (bool, error) {
		id := string(key)
		ir, err := d.mcpInputRequest("inputRequests." + id)
		reqs[id] = ir
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return reqs, nil
}

// mcpInputRequest reads one input request: its method, and its params, an
// object kept as JSON; an elicitation's params must be ones
// [RequestFromMCPElicitParams] reads.
func (d *jsonReader) mcpInputRequest(what string) (MCPInputRequest, error) {
	var ir MCPInputRequest
	err := d.members(what, func(key []byte) (known bool, err error) {
		switch string(key) {
		case "method":
			ir.Method, err = d.str("method")
		case "params":
			switch d.peek() {
			case 'n':
				ir.Params = nil
				if !d.null() {
					err = errSyntax
				}
			case '{':
				var raw []byte
				if raw, err = d.skip(); err == nil {
					ir.Params = bytes.Clone(raw)
				}
			default:
				err = &typeError{key: "params", want: "an object", got: d.kind()}
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err == nil && ir.Method == methodElicit {
		_, err = readElicitParams(ir.Params)
	}
	return ir, err
}

// ToolResult returns the ToolResult c stands for. Its Output is the text
// blocks joined by newlines or, when c has StructuredContent, that JSON,
// compacted; text blocks then become text parts, except those holding the
// same JSON. Image and audio blocks become image and audio parts; an
// embedded resource with a blob becomes a part of the type its MIME type
// implies (application/octet-stream when it has none), named after the last
// segment of its uri, and one with text is read like a text block; a
// resource_link becomes a part by URL. A MIME type keeps its case but loses
// its parameters. Names are cut to their base names.
//
// A block of an unknown type, or one whose payload is not base64 or lacks
// what a part needs, is kept as its placeholder text, "[unsupported TYPE
// part (MIME, N bytes)]", in the Output. Base64 that is valid but not
// canonical (unpadded, or with line breaks) is re-encoded.
//
// An input_required result is a suspension ([PendingAllOf] finds it): each
// input request becomes a Request, rebuilt by its method with
// [RequestFromMCPInputRequest], in the sort order of their ids ([PendingOf]
// returns the first), and RequestState is kept in Metadata under
// [MetadataRequestState].
func (c MCPCallToolResult) ToolResult() (ToolResult, error) {
	if c.ResultType == inputRequired {
		return c.suspension(), nil
	}
	others := 0
	for _, b := range c.Content {
		if b.Type != "text" {
			others++
		}
	}
	m, err := newMCPReader(c.StructuredContent, len(c.Content), others)
	if err != nil {
		return ToolResult{}, err
	}
	for _, b := range c.Content {
		if b.Type == "text" {
			m.text(b.Text)
			continue
		}
		m.block(b)
	}
	return m.result(c.IsError), nil
}

// mcpReader builds a ToolResult from content blocks, one at a time.
// Without structured content, Output is the texts joined by newlines; with
// it, Output is that JSON and each text that does not hold the same JSON
// becomes a text part, ahead of the media.
type mcpReader struct {
	texts      []mcpText
	parts      []ContentPart
	structured string // Output, when there is structured content
	same       func(string) bool
}

// mcpText is the text of a block: a string, or the bytes of a JSON string
// without escapes, which are copied only into Output.
type mcpText struct {
	s   string
	raw []byte
}

// newMCPReader returns a reader for blocks, others of which are not text.
func newMCPReader(structured json.RawMessage, blocks, others int) (*mcpReader, error) {
	m := &mcpReader{texts: make([]mcpText, 0, blocks), parts: make([]ContentPart, 0, others)}
	if len(structured) > 0 {
		var out bytes.Buffer
		if err := json.Compact(&out, structured); err != nil {
			return nil, errorf(ErrInvalidMCP, "structuredContent: %v", err)
		}
		m.structured = out.String()
		m.same = sameJSON(structured)
	}
	return m, nil
}

// text adds the text of a block.
func (m *mcpReader) text(t string) {
	m.texts = append(m.texts, mcpText{s: t})
}

// rawText adds the text of a block as it is in the JSON input, quotes
// included: a text without escapes is copied once, into Output.
func (m *mcpReader) rawText(raw []byte) error {
	if len(raw) < 2 || raw[0] != '"' { // null
		m.text("")
		return nil
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		m.texts = append(m.texts, mcpText{raw: body})
		return nil
	}
	var t string
	if err := json.Unmarshal(raw, &t); err != nil {
		return err
	}
	m.text(t)
	return nil
}

// block adds a block that is not a text block.
func (m *mcpReader) block(b MCPContent) {
	switch b.Type {
	case "image", "audio", "resource", "resource_link":
	default:
		m.text(unknownPlaceholder(b))
		return
	}
	p, ok := partFromMCP(b)
	switch {
	case !ok:
		m.text(placeholder(p))
	case p.Type == PartText:
		m.text(p.Text)
	default:
		m.parts = append(m.parts, p)
	}
}

func (m *mcpReader) result(isError bool) ToolResult {
	r := ToolResult{IsError: isError}
	parts := m.parts
	if m.same != nil {
		r.Output = m.structured
		textParts := make([]ContentPart, 0, len(m.texts)+len(m.parts))
		for _, t := range m.texts {
			if t.raw != nil {
				t.s = string(t.raw)
			}
			if !m.same(t.s) {
				textParts = append(textParts, TextPart(t.s))
			}
		}
		parts = append(textParts, parts...)
	} else {
		n := max(len(m.texts)-1, 0)
		for _, t := range m.texts {
			n += len(t.s) + len(t.raw)
		}
		var out strings.Builder
		out.Grow(n)
		for i, t := range m.texts {
			if i > 0 {
				out.WriteByte('\n')
			}
			out.WriteString(t.s)
			out.Write(t.raw)
		}
		r.Output = out.String()
	}
	if len(parts) > 0 {
		r.Parts = parts
	}
	return r
}

// suspension reads an input_required result.
func (c MCPCallToolResult) suspension() ToolResult {
	ids := slices.Sorted(maps.Keys(c.InputRequests))
	if len(ids) == 0 {
		return Error("[the MCP server asked for input but sent no request; retry the call later]")
	}
	reqs := make([]Request, len(ids))
	for i, id := range ids {
		reqs[i] = RequestFromMCPInputRequest(id, c.InputRequests[id])
	}
	r := suspendAll(reqs) // as they came: an id the server chose, even "", is what the answer echoes
	if c.RequestState != "" {
		r.Metadata[MetadataRequestState] = c.RequestState
	}
	return r
}

// partFromMCP returns the part for a non-text MCP block and true, or, when
// the block cannot make a valid part, a part describing it for a
// placeholder and false.
func partFromMCP(c MCPContent) (ContentPart, bool) {
	switch c.Type {
	case "image", "audio":
		p := ContentPart{Type: PartType(c.Type), MIMEType: bareType(c.MIMEType), Data: c.Data}
		data, ok := canonicalBase64(c.Data)
		if !ok {
			return p, false
		}
		p.Data = data
		return p, p.Validate() == nil
	case "resource_link":
		mimeType := cmp.Or(bareType(c.MIMEType), "application/octet-stream")
		p, err := PartFromURL(c.URI, mimeType)
		if err != nil {
			return ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, URL: c.URI}, false
		}
		if p.Type == PartFile {
			p.Name = baseName(c.Name)
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
	mimeType := cmp.Or(bareType(res.MIMEType), "application/octet-stream")
	p := ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, Data: res.Blob}
	data, ok := canonicalBase64(res.Blob)
	if !ok || checkMIMEType(mimeType) != nil {
		return p, false
	}
	return newPart(mimeType, data, lastSegment(res.URI)), true
}

// bareType returns a MIME type without its parameters, as written.
func bareType(mimeType string) string {
	t, _, _ := strings.Cut(mimeType, ";")
	return strings.TrimSpace(t)
}

// canonicalBase64 returns data as canonical standard base64: as it is when
// it already is, re-encoded when it is standard base64 with line breaks or
// without padding, and false when it is not base64 or holds no byte.
func canonicalBase64(data string) (string, bool) {
	if data == "" {
		return "", false
	}
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
// its MIME type and size when it has a mimeType or data, else just its type.
func unknownPlaceholder(c MCPContent) string {
	if c.MIMEType == "" && c.Data == "" {
		return "[unsupported " + label(c.Type) + " part]"
	}
	return placeholder(ContentPart{Type: PartType(c.Type), MIMEType: c.MIMEType, Data: c.Data})
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

// sameJSON returns a function that reports whether a text holds the same
// JSON value as structured, which it decodes once. A text that does not
// start as that value does is not decoded.
func sameJSON(structured json.RawMessage) func(text string) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return func(string) bool { return false }
	}
	first := bytes.TrimLeft(structured, " \t\r\n")[0]
	return func(text string) bool {
		t := strings.TrimLeft(text, " \t\r\n")
		if t == "" || t[0] != first {
			return false
		}
		var got any
		return json.Unmarshal([]byte(t), &got) == nil && reflect.DeepEqual(got, want)
	}
}
