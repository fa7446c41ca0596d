package toolnexus

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// MCPCallToolResult is an MCP CallToolResult, the value
// [ToolResult.MCPCallToolResult] returns and [FromMCPCallToolResult] reads.
// A result that asks for input (protocol 2026-07-28) has ResultType
// "input_required", the InputRequests the client must fulfil, keyed by id,
// and the RequestState it must echo when it retries the call, instead of
// content.
type MCPCallToolResult struct {
	Content           []MCPContent               `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent,omitempty" toolnexus:"payload"`
	IsError           bool                       `json:"isError"`
	ResultType        string                     `json:"resultType,omitempty"`
	InputRequests     map[string]MCPInputRequest `json:"inputRequests,omitempty"`
	RequestState      string                     `json:"requestState,omitempty" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v MCPCallToolResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPCallToolResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPCallToolResult.String] (%#v: [MCPCallToolResult.GoString]).
func (v MCPCallToolResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPCallToolResult) LogValue() slog.Value { return logWire(v) }

// MCPContent is one MCP content block: Type "text" with Text; "image" or
// "audio" with Data (base64) and MIMEType; "resource", an embedded resource,
// with Resource; or "resource_link" with URI, Name and MIMEType.
type MCPContent struct {
	Type     string       `json:"type"`
	Text     string       `json:"text,omitempty"`
	Data     string       `json:"data,omitempty" toolnexus:"payload"`
	MIMEType string       `json:"mimeType,omitempty"`
	URI      string       `json:"uri,omitempty"`
	Name     string       `json:"name,omitempty"`
	Resource *MCPResource `json:"resource,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v MCPContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPContent.String] (%#v: [MCPContent.GoString]).
func (v MCPContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPContent) LogValue() slog.Value { return logWire(v) }

// MCPResource is the content of an MCP embedded resource: its URI, MIME type
// and either Text or Blob (base64).
type MCPResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v MCPResource) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPResource) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPResource.String] (%#v: [MCPResource.GoString]).
func (v MCPResource) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPResource) LogValue() slog.Value { return logWire(v) }

// MetadataRequestState is the metadata key under which
// [FromMCPCallToolResult] keeps the requestState of an input_required
// result: a host that answers the suspension sends it back, unchanged, with
// the answer when it calls the tool again.
const MetadataRequestState = "requestState"

// MetadataStructuredContent is the metadata key under which
// [FromMCPCallToolResult] keeps the structuredContent of a result, as a
// json.RawMessage, apart from its Output; [ToolResult.MCPCallToolResult]
// sends it back as structuredContent. A host may set it too: any value that
// encoding/json writes as a JSON object (after a JSON round trip of the
// ToolResult it is a map[string]any, written back with its keys sorted).
const MetadataStructuredContent = "structuredContent"

// MetadataResourceURIs is the metadata key under which
// [FromMCPCallToolResult] keeps the URI of each part it read from an MCP
// embedded resource: a map[string]string from the index of the part in
// Parts, in decimal, to the URI ({"0":"file:///notes.txt"}). A part holding
// data cannot also hold a URL, so the URI lives with the result;
// [ToolResult.MCPCallToolResult] sends a part with a URI there back as an
// embedded resource with that URI. After a JSON round trip of the
// ToolResult it is a map[string]any of strings, read the same way. A host
// that reorders or removes parts must renumber it.
const MetadataResourceURIs = "resourceURIs"

// MetadataResourceForms is the metadata key under which
// [FromMCPCallToolResult] keeps how an MCP embedded resource carried its
// bytes, for each part it read from one in the form that
// [ToolResult.MCPCallToolResult] would not write: a map[string]string from
// the index of the part in Parts, in decimal, to "blob" (a text/plain or
// JSON resource sent as a base64 blob) or "text" (a resource of another
// type sent as text), such as {"0":"blob"}. MCPCallToolResult writes such
// a part in that form again ("text" only for bytes that are UTF-8), so that
// a blob stays a blob and a text stays text; a part it does not name is
// written as MCPCallToolResult says. After a JSON round trip of the
// ToolResult it is a map[string]any of strings, read the same way. A host
// that reorders or removes parts must renumber it.
const MetadataResourceForms = "resourceForms"

// The forms of an embedded resource under [MetadataResourceForms].
const (
	formBlob = "blob"
	formText = "text"
)

// The MCP names this file reads and writes.
const (
	inputRequired = "input_required"
)

// MCPCallToolResult returns r as an MCP CallToolResult with IsError sent as
// isError: text blocks first, Output and then each text part, then the media
// in the order of Parts. Media types are written in lower case, without
// parameters, as every destination writes them. An image or audio part
// holding data is image or audio content. A file part holding data is an
// embedded resource: with its "text" when its type is text/* or JSON
// (application/json, or a +json suffix) and its bytes are UTF-8, as MCP's
// conformance suite sends text (the tools-call-embedded-resource and
// tools-call-mixed-content scenarios), else with a base64 "blob". A part by
// URL, of any scheme, is a resource_link named after the part, or else the
// last segment of its URL. MCP takes every valid part, whatever its type.
//
// The uri of an embedded resource is the one [MetadataResourceURIs] gives
// the part, when it gives a valid absolute URI; then an image or audio part
// is an embedded resource too, as it was read. Otherwise it is
// "toolnexus:part/N/NAME", N the index of the part in Parts and NAME its
// name, path-escaped (empty for a part without a name);
// [FromMCPCallToolResult] reads the name back from it. The value under
// [MetadataStructuredContent], when it is a JSON object, is sent as
// structuredContent (a value encoding/json cannot write as an object is
// left out); Output stays the text, so a client without structured output
// still reads the JSON a tool put there.
//
// What a round trip through toolnexus keeps (an MCP result read with
// [FromMCPCallToolResult] and written back): isError, every text, each
// image, audio, embedded resource (its uri, its MIME type in lower case
// without parameters, and its bytes) and resource_link (uri, MIME type, and
// the name of a file's link), in their order among the media, and
// structuredContent. It drops annotations, _meta (of the result and of each
// block), a resource_link's title, description and size (and the name of an
// image or audio link, which comes back as the last segment of its URL), and
// the boundaries and places of text blocks: the texts come back as one text
// block, first (text first is the toolnexus rule), or none when they were
// all empty. An embedded resource comes back in the form it came in, a
// blob as a blob and a text as text, whatever its type
// ([MetadataResourceForms] keeps a form that is not the one written here);
// blocks of unknown types come back as their placeholder text.
// The interop module checks this against MCP's reference server,
// @modelcontextprotocol/server-everything.
//
// A suspension is sent as its text. To suspend a call over MCP, so that the
// client asks the person and retries, see [Request.MCPElicitParams] and the
// mcpbridge package.
func (r ToolResult) MCPCallToolResult() MCPCallToolResult {
	if len(r.Parts) == 0 { // text only: its one block, if any
		content := []MCPContent{}
		if r.Output != "" {
			content = []MCPContent{{Type: "text", Text: r.Output}}
		}
		return MCPCallToolResult{Content: content, StructuredContent: structuredContent(r.Metadata), IsError: r.IsError}
	}
	uris := resourceURIs(r.Metadata)
	forms := indexedStrings(r.Metadata, MetadataResourceForms, func(form string) bool { return form == formBlob || form == formText })
	texts, media := layoutParts(r, mcpCarries, func(i int, p ContentPart) MCPContent {
		return mcpBlock(i, p, uris[i], forms[i])
	})
	content := make([]MCPContent, 0, len(texts)+len(media))
	for _, t := range texts {
		content = append(content, MCPContent{Type: "text", Text: t})
	}
	return MCPCallToolResult{Content: append(content, media...), StructuredContent: structuredContent(r.Metadata), IsError: r.IsError}
}

// mcpCarries says why MCP does not carry the valid part p: it carries
// every valid part.
func mcpCarries(ContentPart) carry { return carry{} }

// mcpBlock returns the content block for the valid part p, the i'th of its
// result, that was read from an embedded resource at uri ("" for none) in
// form ("" for the one this package writes, or a form of
// [MetadataResourceForms]).
func mcpBlock(i int, p ContentPart, uri, form string) MCPContent {
	mt := mediaType(p.MIMEType)
	switch {
	case p.URL != "":
		name := cmp.Or(p.Name, baseName(lastSegment(p.URL)), p.URL)
		return MCPContent{Type: "resource_link", MIMEType: mt, URI: p.URL, Name: name}
	case p.Type == PartFile || uri != "" || form != "":
		res := &MCPResource{URI: uri, MIMEType: mt, Blob: p.Data}
		if uri == "" {
			res.URI = "toolnexus:part/" + strconv.Itoa(i) + "/" + url.PathEscape(p.Name)
		}
		text, ok := textOf(mt, p.Data)
		if form == formText {
			text, ok = utf8Text(p.Data)
		}
		if ok && form != formBlob {
			res.Text, res.Blob = text, ""
		}
		return MCPContent{Type: "resource", Resource: res}
	}
	return MCPContent{Type: string(p.Type), Data: p.Data, MIMEType: mt}
}

// textOf returns the text that data, canonical base64, holds when the media
// type mt is text/*, application/json or a +json type and the bytes are
// UTF-8.
func textOf(mt, data string) (string, bool) {
	if !strings.HasPrefix(mt, "text/") && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return "", false
	}
	return utf8Text(data)
}

// utf8Text returns the bytes of data, canonical base64, as text when they
// are UTF-8.
func utf8Text(data string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// resourceURIs returns the URIs that metadata gives parts under
// [MetadataResourceURIs], by index, keeping only valid absolute URIs (nil
// when it gives none).
func resourceURIs(metadata map[string]any) map[int]string {
	return indexedStrings(metadata, MetadataResourceURIs, func(uri string) bool { return checkURL(uri) == nil })
}

// indexedStrings returns the strings that metadata gives parts under key,
// a map from a part's index in decimal to a string, by index, keeping only
// those keep accepts (nil when it gives none).
func indexedStrings(metadata map[string]any, key string, keep func(string) bool) map[int]string {
	var uris map[int]string
	add := func(key, uri string) {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || strconv.Itoa(i) != key || !keep(uri) {
			return
		}
		if uris == nil {
			uris = map[int]string{}
		}
		uris[i] = uri
	}
	switch m := metadata[key].(type) {
	case map[string]string:
		for k, v := range m {
			add(k, v)
		}
	case map[string]any:
		for k, v := range m {
			if uri, ok := v.(string); ok {
				add(k, uri)
			}
		}
	}
	return uris
}

// structuredContent returns the value under [MetadataStructuredContent] as
// JSON, or nil when there is none or it is not a JSON object.
func structuredContent(metadata map[string]any) json.RawMessage {
	v, ok := metadata[MetadataStructuredContent]
	if !ok || v == nil {
		return nil
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil
		}
	}
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil || out.Len() == 0 || out.Bytes()[0] != '{' {
		return nil
	}
	return out.Bytes()
}

// FromMCPCallToolResult returns the ToolResult for data, the JSON of an MCP
// CallToolResult, as [MCPCallToolResult.ToolResult] reads it. Keys are read
// exactly, as the MCP SDKs read them: "ISERROR" is not "isError", and a
// text block with "TYPE":"image" is not an image. Input that is not JSON,
// whose known keys hold values of the wrong type, that holds a string that
// is not UTF-8 (named by where it is), or that asks for a url mode
// elicitation at a URL a part could not hold, reports [ErrInvalidMCP].
// It reads input of any size; use [ParseMCPCallToolResult] to limit it.
func FromMCPCallToolResult(data []byte) (ToolResult, error) {
	return ParseMCPCallToolResult(data, 0)
}

// parseMCP reads data for [ParseMCPCallToolResult]: the members of the
// result as [MCPCallToolResult] holds them, each content block handed, as
// it is read, to the converter [MCPCallToolResult.ToolResult] uses.
func parseMCP(data []byte, maxBytes int64) (ToolResult, error) {
	d, err := openPeerJSON(data, maxBytes, ErrInvalidMCP)
	if err != nil {
		return ToolResult{}, err
	}
	var m mcpReader
	c, err := d.mcpResult(&m)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return ToolResult{}, peerError(data, err, ErrInvalidMCP)
	}
	return c.convert(&m)
}

// mcpResult reads a CallToolResult, handing each content block to m
// instead of keeping it in Content.
func (d *jsonReader) mcpResult(m *mcpReader) (c MCPCallToolResult, err error) {
	err = d.members("result", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "content":
			m.reset()
			if !d.null() {
				err = d.mcpContents(m)
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
	return c, err
}

// mcpContents reads the content array and hands each block to m.
func (d *jsonReader) mcpContents(m *mcpReader) error {
	if err := d.openArray("content"); err != nil {
		return err
	}
	for i := 0; ; i++ {
		ok, err := d.nextElem(i)
		if err != nil || !ok {
			return err
		}
		if d.peek() != '{' {
			return fmt.Errorf("content[%d] is %s, not an object", i, d.kind())
		}
		c, err := d.mcpContent()
		if err != nil {
			if _, ok := err.(*pathError); ok {
				return withPathStep(err, indexPath(i)) // members adds .content
			}
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		m.addRead(c, d.dataCanonical)
	}
}

// mcpContent reads one content block. A field of the wrong type is an
// error in a block of a type this package reads; in a block of another
// type, which is kept only as a placeholder, it is left out.
func (d *jsonReader) mcpContent() (c MCPContent, err error) {
	var bad error
	canonical, blobCanonical := false, false
	err = d.members("block", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "type":
			err = d.field("type", &c.Type, &bad)
		case "text":
			err = d.field("text", &c.Text, &bad)
		case "data":
			if d.peek() == '"' {
				c.Data, canonical, err = d.base64Str("data")
				return true, err
			}
			canonical = false
			err = d.field("data", &c.Data, &bad)
		case "mimeType":
			err = d.field("mimeType", &c.MIMEType, &bad)
		case "uri":
			err = d.field("uri", &c.URI, &bad)
		case "name":
			err = d.field("name", &c.Name, &bad)
		case "resource":
			c.Resource, blobCanonical, err = d.mcpResource()
		default:
			return false, nil
		}
		return true, err
	})
	d.dataCanonical = canonical // of the data, or of the blob of a resource
	if c.Type == "resource" {
		d.dataCanonical = blobCanonical
	}
	if err != nil {
		return c, err
	}
	switch c.Type {
	case "text", "image", "audio", "resource", "resource_link":
		return c, bad
	}
	return c, nil // a block of another type is kept only as a placeholder
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

// mcpResource reads an embedded resource, and reports whether its blob was
// found to be canonical base64 as it was read.
func (d *jsonReader) mcpResource() (*MCPResource, bool, error) {
	if d.null() {
		return nil, false, nil
	}
	var r MCPResource
	canonical := false
	err := d.members("resource", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "uri":
			r.URI, err = d.str("uri")
		case "mimeType":
			r.MIMEType, err = d.str("mimeType")
		case "text":
			r.Text, err = d.str("text")
		case "blob":
			r.Blob, canonical, err = d.base64Str("blob")
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, false, err
	}
	return &r, canonical, nil
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
					err = jsonscan.ErrSyntax
				}
			case '{':
				var raw []byte
				d.reread = ir.Method == methodElicit // readElicitParams reads it
				raw, err = d.skip()
				d.reread = false
				if err == nil {
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
		err = withPathStep(err, ".params")
	}
	return ir, err
}

// ToolResult returns the ToolResult c stands for. Its Output is the text
// blocks joined by newlines. StructuredContent, compacted, is kept apart
// (a structuredContent of null is none)
// under [MetadataStructuredContent], so that [ToolResult.MCPCallToolResult]
// sends it back; when c has no text, Output is that JSON, which a provider
// is sent as the text (MCP asks a server to send it in a text block too).
// Image and audio blocks become image and audio parts. An embedded resource
// becomes a part of the type its MIME type implies, named after the last
// segment of its uri: with a blob, of that MIME type
// (application/octet-stream when it has none); with text, holding the text
// as its data, of its MIME type or text/plain (one with an empty text, or
// an invalid MIME type, is read like a text block). Its uri is kept under
// [MetadataResourceURIs] (but for the toolnexus:part URIs this package
// writes itself, which it writes again), and its form under
// [MetadataResourceForms] when [ToolResult.MCPCallToolResult] would write
// it in the other. A resource_link becomes a part by
// URL. A MIME type keeps its case but loses its parameters. Names are cut
// to their base names.
//
// A block of an unknown type, or one whose payload is not base64 or lacks
// what a part needs, is kept as its placeholder text, "[unsupported TYPE
// part (MIME, N bytes)]", in the Output. Base64 that is valid but not
// canonical (unpadded, or with line breaks) is re-encoded. What a round
// trip keeps and drops is listed at [ToolResult.MCPCallToolResult].
//
// An input_required result is a suspension ([PendingAllOf] finds it): each
// input request becomes a Request, rebuilt by its method with
// [RequestFromMCPInputRequest], in the sort order of their ids ([PendingOf]
// returns the first), and RequestState is kept in Metadata under
// [MetadataRequestState].
func (c MCPCallToolResult) ToolResult() (ToolResult, error) {
	var m mcpReader
	for _, b := range c.Content {
		m.add(b)
	}
	return c.convert(&m)
}

// convert returns the ToolResult c stands for, its content blocks already
// handed to m.
func (c MCPCallToolResult) convert(m *mcpReader) (ToolResult, error) {
	if c.ResultType == inputRequired {
		if err := c.checkInputRequests(); err != nil {
			return ToolResult{}, err
		}
		return c.suspension(), nil
	}
	var structured json.RawMessage // compacted; null is none
	if len(c.StructuredContent) > 0 && string(bytes.TrimSpace(c.StructuredContent)) != "null" {
		var out bytes.Buffer
		if err := json.Compact(&out, c.StructuredContent); err != nil {
			return ToolResult{}, msg.Errorf(ErrInvalidMCP, "structuredContent: %v", err)
		}
		structured = out.Bytes()
	}
	return m.result(c.IsError, structured), nil
}

// mcpReader builds a ToolResult from content blocks, one at a time.
type mcpReader struct {
	texts int             // how many texts were added
	size  int             // their bytes
	first string          // the first text, Output while it is the only one
	out   strings.Builder // the texts joined by newlines, once there are two
	parts []ContentPart
	uris  map[string]string // the embedded resources' URIs, by part index
	forms map[string]string // the embedded resources' forms that differ from ours, by part index
}

// reset drops the blocks read so far, for a content key that repeats: the
// last one wins.
func (m *mcpReader) reset() { *m = mcpReader{} }

// add adds a block.
func (m *mcpReader) add(b MCPContent) { m.addRead(b, false) }

// addRead adds a block whose data, or blob, is known to be canonical base64
// when canonical is true.
func (m *mcpReader) addRead(b MCPContent, canonical bool) {
	switch b.Type {
	case "text":
		m.text(b.Text)
		return
	case "image", "audio", "resource", "resource_link":
	default:
		m.text(unknownPlaceholder(b))
		return
	}
	p, ok := partFromMCP(b, canonical)
	switch {
	case !ok:
		m.text(placeholderText(p))
	case p.Type == PartText:
		m.text(p.Text)
	default:
		m.parts = append(m.parts, p)
		if b.Type == "resource" && !strings.HasPrefix(b.Resource.URI, "toolnexus:part/") && checkURL(b.Resource.URI) == nil {
			if m.uris == nil {
				m.uris = map[string]string{}
			}
			m.uris[strconv.Itoa(len(m.parts)-1)] = b.Resource.URI
		}
		if b.Type == "resource" {
			m.form(b.Resource, p)
		}
	}
}

// form records the form of res, read as the part p, when it is not the
// one [ToolResult.MCPCallToolResult] writes p in.
func (m *mcpReader) form(res *MCPResource, p ContentPart) {
	came := formText
	if res.Blob != "" {
		came = formBlob
	}
	ours := formBlob
	if _, ok := textOf(mediaType(p.MIMEType), p.Data); ok {
		ours = formText
	}
	if came == ours {
		return
	}
	if m.forms == nil {
		m.forms = map[string]string{}
	}
	m.forms[strconv.Itoa(len(m.parts)-1)] = came
}

// text adds the text of a block. A lone text is Output as it is; the
// texts of more blocks are joined as they come, in a buffer that doubles,
// so that many small blocks cost little more than their bytes.
func (m *mcpReader) text(t string) {
	m.texts++
	m.size += len(t)
	switch m.texts {
	case 1:
		m.first = t
		return
	case 2:
		m.write(m.first)
	}
	m.write("\n")
	m.write(t)
}

func (m *mcpReader) write(s string) {
	m.out.Grow(len(s)) // at least doubles the buffer when it grows
	m.out.WriteString(s)
}

// result returns the ToolResult of the blocks added, with structured, the
// compacted structuredContent, or nil for none.
func (m *mcpReader) result(isError bool, structured json.RawMessage) ToolResult {
	r := ToolResult{IsError: isError, Output: m.first}
	switch {
	case m.size == 0 && structured != nil:
		r.Output = string(structured)
	case m.texts > 1:
		r.Output = m.out.String()
	}
	if len(m.parts) > 0 {
		r.Parts = m.parts
	}
	if structured != nil || m.uris != nil || m.forms != nil {
		r.Metadata = make(map[string]any, 3)
		if structured != nil {
			r.Metadata[MetadataStructuredContent] = structured
		}
		if m.uris != nil {
			r.Metadata[MetadataResourceURIs] = m.uris
		}
		if m.forms != nil {
			r.Metadata[MetadataResourceForms] = m.forms
		}
	}
	return r
}

// checkInputRequests refuses a url mode elicitation whose URL a part could
// not hold (see [PartFromURL]): a peer's login page must be an absolute URL
// with no space or control character, and no data URL.
func (c MCPCallToolResult) checkInputRequests() error {
	for _, id := range slices.Sorted(maps.Keys(c.InputRequests)) {
		p, ok := c.InputRequests[id].ElicitParams()
		if !ok || p.Mode != elicitURL && (p.Mode != "" || p.URL == "") {
			continue
		}
		if isDataURL(p.URL) || !isAbsoluteURL(p.URL) {
			return msg.Errorf(ErrInvalidMCP, "input request %s: url %s is not an absolute URL", msg.Quote(id), msg.Quote(p.URL))
		}
	}
	return nil
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
// placeholderText and false.
func partFromMCP(c MCPContent, canonical bool) (ContentPart, bool) {
	switch c.Type {
	case "image", "audio":
		p := ContentPart{Type: PartType(c.Type), MIMEType: bareType(c.MIMEType), Data: c.Data}
		data, ok := c.Data, canonical && c.Data != ""
		if !ok {
			data, ok = canonicalBase64(c.Data)
		}
		if !ok {
			return p, false
		}
		p.Data = data
		return p, p.validate(true) == nil
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
		mimeType := cmp.Or(bareType(res.MIMEType), "text/plain")
		if res.Text == "" || checkMIMEType(mimeType) != nil {
			return TextPart(res.Text), true
		}
		return newPart(mimeType, base64.StdEncoding.EncodeToString([]byte(res.Text)), lastSegment(res.URI)), true
	}
	mimeType := cmp.Or(bareType(res.MIMEType), "application/octet-stream")
	p := ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, Data: res.Blob}
	data, ok := res.Blob, canonical
	if !ok {
		data, ok = canonicalBase64(res.Blob)
	}
	if !ok || checkMIMEType(mimeType) != nil {
		return p, false
	}
	return newPart(mimeType, data, lastSegment(res.URI)), true
}

// bareType returns a MIME type without its parameters, as written, or a
// MIME type that is not one (see [ContentPart.Validate]) as it is, for the
// part that has it to fail.
func bareType(mimeType string) string {
	if t, err := parseMIMEType(mimeType); err == nil {
		return t
	}
	return mimeType
}

// canonicalBase64 returns data as canonical standard base64: as it is when
// it already is, re-encoded when it is standard base64 with line breaks or
// without padding, and false when it is not base64 or holds no byte.
func canonicalBase64(data string) (string, bool) {
	if data == "" {
		return "", false
	}
	if b64.Check(data) == nil {
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
		return "[unsupported " + mimeLabel(c.Type) + " part]"
	}
	return placeholderText(ContentPart{Type: PartType(c.Type), MIMEType: c.MIMEType, Data: c.Data})
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
