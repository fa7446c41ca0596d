// Package mcpgobridge serves toolnexus tools over MCP with
// github.com/mark3labs/mcp-go. [CallToolResult] and [FromCallToolResult]
// convert results to and from mcp-go's types without a JSON round trip.
// [Handler] turns a tool that may suspend into a handler for mcp-go's
// AddTool: a suspension becomes an input request that the client puts to a
// person, and the client's answer reaches the tool when it retries the call.
// It runs every call through [mcpcall.Runner], the core the go-sdk
// bridge (mcpbridge) shares, so both seal, check and answer alike.
package mcpgobridge

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// CallToolResult returns r as mcp-go's CallToolResult, with the content
// [toolnexus.ToolResult.MCPCallToolResult] gives it: text blocks first, then
// the media in the order of r's parts. mcp-go holds payloads as base64, as
// toolnexus does, so each payload is passed on as it is, never decoded. A
// suspension is sent as its text, as a client that cannot answer it sees it;
// [Handler] sends it as an input request instead.
func CallToolResult(r toolnexus.ToolResult) *mcp.CallToolResult {
	res, err := callToolResult(r.MCPCallToolResult())
	if err != nil { // not reached: a complete result has no input requests
		return mcp.NewToolResultError("mcpgobridge: " + err.Error())
	}
	return res
}

// callToolResult returns c as mcp-go's CallToolResult.
func callToolResult(c toolnexus.MCPCallToolResult) (*mcp.CallToolResult, error) {
	res := &mcp.CallToolResult{Content: make([]mcp.Content, len(c.Content)), IsError: c.IsError}
	res.ResultType = mcp.ResultType(c.ResultType)
	for i, b := range c.Content {
		res.Content[i] = goContent(b)
	}
	if len(c.StructuredContent) > 0 {
		res.StructuredContent = c.StructuredContent
		res.RawStructuredContent = c.StructuredContent
	}
	if len(c.InputRequests) > 0 {
		res.InputRequests = make(mcp.InputRequests, len(c.InputRequests))
		for id, ir := range c.InputRequests {
			in, err := goInputRequest(ir)
			if err != nil {
				return nil, fmt.Errorf("input request %q: %w", id, err)
			}
			res.InputRequests[id] = in
		}
	}
	res.RequestState = c.RequestState
	return res, nil
}

// goContent returns mcp-go's content for a block of
// [toolnexus.ToolResult.MCPCallToolResult].
func goContent(b toolnexus.MCPContent) mcp.Content {
	switch b.Type {
	case mcp.ContentTypeText:
		return mcp.TextContent{Type: b.Type, Text: b.Text}
	case mcp.ContentTypeImage:
		return mcp.ImageContent{Type: b.Type, Data: b.Data, MIMEType: b.MIMEType}
	case mcp.ContentTypeAudio:
		return mcp.AudioContent{Type: b.Type, Data: b.Data, MIMEType: b.MIMEType}
	case mcp.ContentTypeLink:
		return mcp.ResourceLink{Type: b.Type, URI: b.URI, Name: b.Name, MIMEType: b.MIMEType}
	case mcp.ContentTypeResource:
		if r := b.Resource; r != nil {
			if r.Blob == "" {
				return mcp.EmbeddedResource{Type: b.Type, Resource: mcp.TextResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}}
			}
			return mcp.EmbeddedResource{Type: b.Type, Resource: mcp.BlobResourceContents{URI: r.URI, MIMEType: r.MIMEType, Blob: r.Blob}}
		}
	}
	// Not reached: MCPCallToolResult writes valid blocks only.
	return mcp.NewTextContent("[unsupported " + b.Type + " part]")
}

// goInputRequest returns mcp-go's input request for ir. An elicitation
// keeps its requestedSchema as the JSON it is, so that mcp-go sends it
// unchanged; mcp-go holds sampling params in its own struct, which keeps
// the members it knows.
func goInputRequest(ir toolnexus.MCPInputRequest) (mcp.InputRequest, error) {
	in, err := reencode[mcp.InputRequest](ir)
	if err != nil || in.Elicitation == nil {
		return in, err
	}
	var p struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(ir.Params, &p); err != nil {
		return mcp.InputRequest{}, err
	}
	if len(p.RequestedSchema) > 0 {
		in.Elicitation.RequestedSchema = p.RequestedSchema
	}
	return in, nil
}

// reencode returns v as a To, through JSON. It converts input requests,
// which are small and whose params are open JSON objects.
func reencode[To any](v any) (To, error) {
	var to To
	data, err := json.Marshal(v)
	if err != nil {
		return to, msg.JSONCause(err)
	}
	err = json.Unmarshal(data, &to)
	return to, err
}

// FromCallToolResult returns the ToolResult that res, a result of mcp-go,
// stands for, as [toolnexus.MCPCallToolResult.ToolResult] reads it: each
// payload is checked once and kept as the base64 it is. Content of a kind a
// tool result has no place for (a sampling message's tool use or tool
// result) is read as a placeholder. A result whose ResultType is
// input_required asks for input: it is read as a suspension whose Request
// comes from its first input request, with its RequestState under
// [toolnexus.MetadataRequestState]. It reports [toolnexus.ErrInvalidMCP]
// for a nil result, StructuredContent that does not encode to JSON or an
// input request that does not.
func FromCallToolResult(res *mcp.CallToolResult) (toolnexus.ToolResult, error) {
	if res == nil {
		return toolnexus.ToolResult{}, fmt.Errorf("mcpgobridge: %w: nil result", toolnexus.ErrInvalidMCP)
	}
	c := toolnexus.MCPCallToolResult{
		Content:      make([]toolnexus.MCPContent, 0, len(res.Content)),
		IsError:      res.IsError,
		ResultType:   string(res.ResultType),
		RequestState: res.RequestState,
	}
	for _, b := range res.Content {
		if b, ok := mcpContent(b); ok {
			c.Content = append(c.Content, b)
		}
	}
	structured, err := structuredContent(res)
	if err != nil {
		return toolnexus.ToolResult{}, err
	}
	c.StructuredContent = structured
	if len(res.InputRequests) > 0 {
		c.InputRequests = make(map[string]toolnexus.MCPInputRequest, len(res.InputRequests))
		for id, ir := range res.InputRequests {
			in, err := reencode[toolnexus.MCPInputRequest](ir)
			if err != nil {
				return toolnexus.ToolResult{}, fmt.Errorf("mcpgobridge: %w: input request %q: %v", toolnexus.ErrInvalidMCP, id, err)
			}
			c.InputRequests[id] = in
		}
	}
	return c.ToolResult()
}

// structuredContent returns the JSON of res's structured content, as it
// came when res was read from the wire, or nil for none.
func structuredContent(res *mcp.CallToolResult) (json.RawMessage, error) {
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent, nil
	}
	if res.StructuredContent == nil {
		return nil, nil
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("mcpgobridge: %w: structuredContent: %v", toolnexus.ErrInvalidMCP, err)
	}
	if string(raw) == "null" {
		return nil, nil
	}
	return raw, nil
}

// mcpContent returns the block of toolnexus for mcp-go's content c, whether
// it holds a value or a pointer, or false for a nil one.
func mcpContent(c mcp.Content) (toolnexus.MCPContent, bool) {
	switch c := c.(type) {
	case mcp.TextContent:
		return toolnexus.MCPContent{Type: "text", Text: c.Text}, true
	case mcp.ImageContent:
		return toolnexus.MCPContent{Type: "image", Data: c.Data, MIMEType: c.MIMEType}, true
	case mcp.AudioContent:
		return toolnexus.MCPContent{Type: "audio", Data: c.Data, MIMEType: c.MIMEType}, true
	case mcp.ResourceLink:
		return toolnexus.MCPContent{Type: "resource_link", URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}, true
	case mcp.EmbeddedResource:
		return toolnexus.MCPContent{Type: "resource", Resource: resource(c.Resource)}, true
	case mcp.ToolUseContent:
		return toolnexus.MCPContent{Type: mcp.ContentTypeToolUse}, true
	case mcp.ToolResultContent:
		return toolnexus.MCPContent{Type: mcp.ContentTypeToolResult}, true
	case *mcp.TextContent:
		return deref(c)
	case *mcp.ImageContent:
		return deref(c)
	case *mcp.AudioContent:
		return deref(c)
	case *mcp.ResourceLink:
		return deref(c)
	case *mcp.EmbeddedResource:
		return deref(c)
	case *mcp.ToolUseContent:
		return deref(c)
	case *mcp.ToolResultContent:
		return deref(c)
	case nil:
		return toolnexus.MCPContent{}, false
	}
	// Content of a type mcp-go does not define: its placeholder says so.
	return toolnexus.MCPContent{Type: fmt.Sprintf("%T", c)}, true
}

// deref returns the block for the content c points to, or false for nil.
func deref[C mcp.Content](c *C) (toolnexus.MCPContent, bool) {
	if c == nil {
		return toolnexus.MCPContent{}, false
	}
	return mcpContent(*c)
}

// resource returns the embedded resource of toolnexus for mcp-go's
// resource contents, or nil for none.
func resource(r mcp.ResourceContents) *toolnexus.MCPResource {
	switch r := r.(type) {
	case mcp.TextResourceContents:
		return &toolnexus.MCPResource{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}
	case mcp.BlobResourceContents:
		return &toolnexus.MCPResource{URI: r.URI, MIMEType: r.MIMEType, Blob: r.Blob}
	case *mcp.TextResourceContents:
		if r != nil {
			return resource(*r)
		}
	case *mcp.BlobResourceContents:
		if r != nil {
			return resource(*r)
		}
	}
	return nil
}
