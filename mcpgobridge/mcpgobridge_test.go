package mcpgobridge_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The payloads of the tests and their base64, as mcp-go holds them.
var (
	pngBytes = []byte("\x89PNG\r\n\x1a\n gobridge fixture")
	wavBytes = []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	pdfBytes = []byte("%PDF-1.7 gobridge")
	png64    = base64.StdEncoding.EncodeToString(pngBytes)
	wav64    = base64.StdEncoding.EncodeToString(wavBytes)
	pdf64    = base64.StdEncoding.EncodeToString(pdfBytes)
)

func TestCallToolResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    toolnexus.ToolResult
		want *mcp.CallToolResult
		// wire is the JSON mcp-go sends.
		wire string
	}{
		{"text", toolnexus.Ok("done"),
			&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "done"}}},
			`{"content":[{"type":"text","text":"done"}]}`},
		{"empty", toolnexus.ToolResult{}, &mcp.CallToolResult{Content: []mcp.Content{}}, `{"content":[]}`},
		{"error", toolnexus.Error("no such key"),
			&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "no such key"}}, IsError: true},
			`{"content":[{"type":"text","text":"no such key"}],"isError":true}`},
		{"every kind", toolnexus.Error("failed halfway",
			bridgetest.Part(t, pngBytes, "image/png"),
			toolnexus.TextPart("see the log"),
			bridgetest.Part(t, wavBytes, "audio/wav"),
			bridgetest.Part(t, pdfBytes, "application/pdf").WithName("report.pdf"),
			bridgetest.URLPart(t, "https://example.com/cat.png", "image/png"),
		), &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: "failed halfway"},
			mcp.TextContent{Type: "text", Text: "see the log"},
			mcp.ImageContent{Type: "image", Data: png64, MIMEType: "image/png"},
			mcp.AudioContent{Type: "audio", Data: wav64, MIMEType: "audio/wav"},
			mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "toolnexus:part/3/report.pdf", MIMEType: "application/pdf", Blob: pdf64}},
			mcp.ResourceLink{Type: "resource_link", URI: "https://example.com/cat.png", Name: "cat.png", MIMEType: "image/png"},
		}}, `{"content":[{"type":"text","text":"failed halfway"},{"type":"text","text":"see the log"},` +
			`{"type":"image","data":"` + png64 + `","mimeType":"image/png"},{"type":"audio","data":"` + wav64 + `","mimeType":"audio/wav"},` +
			`{"type":"resource","resource":{"uri":"toolnexus:part/3/report.pdf","mimeType":"application/pdf","blob":"` + pdf64 + `"}},` +
			`{"type":"resource_link","uri":"https://example.com/cat.png","name":"cat.png","description":"","mimeType":"image/png"}],"isError":true}`},
		{"invalid part as its placeholder", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "not base64!"}),
			&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "x"}, mcp.TextContent{Type: "text", Text: "[unsupported image part (image/png, 11 bytes, not base64)]"}}},
			`{"content":[{"type":"text","text":"x"},{"type":"text","text":"[unsupported image part (image/png, 11 bytes, not base64)]"}]}`},
		{"suspension as its text", toolnexus.AuthRequired("https://example.com/login", "Sign in"),
			&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "Sign in\nhttps://example.com/login"}}, IsError: true},
			`{"content":[{"type":"text","text":"Sign in\nhttps://example.com/login"}],"isError":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mcpgobridge.CallToolResult(tt.r)
			assert.Equal(t, tt.want, got)
			wire, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tt.wire, string(wire))

			bridged := bridgetest.ViaJSON[mcp.CallToolResult](t, tt.r)
			if bridged.Content == nil {
				bridged.Content = []mcp.Content{}
			}
			assert.Equal(t, bridged, got, "as the JSON round trip converts it")
		})
	}
}

func TestFromCallToolResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want toolnexus.ToolResult
	}{
		{"texts", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, toolnexus.Ok("a\nb")},
		{"error", mcp.NewToolResultError("failed"), toolnexus.Error("failed")},
		{"every kind", &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("rendered"),
			mcp.NewImageContent(png64, "image/png"),
			mcp.NewAudioContent(wav64, "audio/wav"),
			mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "file:///reports/report.pdf", MIMEType: "application/pdf", Blob: pdf64}),
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///notes.txt", Text: "a note"}),
			mcp.NewResourceLink("https://example.com/cat.png", "cat.png", "", "image/png"),
		}}, toolnexus.Ok("rendered",
			bridgetest.Part(t, pngBytes, "image/png"),
			bridgetest.Part(t, wavBytes, "audio/wav"),
			bridgetest.Part(t, pdfBytes, "application/pdf").WithName("report.pdf"),
			bridgetest.Part(t, []byte("a note"), "text/plain").WithName("notes.txt"),
			bridgetest.URLPart(t, "https://example.com/cat.png", "image/png"),
		).WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"2": "file:///reports/report.pdf", "3": "file:///notes.txt"})},
		{"base64 with line breaks", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(png64[:8]+"\n"+png64[8:], "image/png")}},
			toolnexus.Ok("", bridgetest.Part(t, pngBytes, "image/png"))},
		{"empty image as its placeholder", &mcp.CallToolResult{Content: []mcp.Content{mcp.ImageContent{Type: "image", MIMEType: "image/png"}}},
			toolnexus.Ok("[unsupported image part (image/png, 0 bytes)]")},
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"n": 1}`)}, StructuredContent: map[string]any{"n": 1}},
			toolnexus.Ok(`{"n": 1}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"n":1}`))},
		{"structured raw", &mcp.CallToolResult{StructuredContent: json.RawMessage(` [1, 2] `)}, toolnexus.Ok(`[1,2]`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`[1,2]`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpgobridge.FromCallToolResult(tt.res)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)

			data, err := json.Marshal(tt.res)
			require.NoError(t, err)
			bridged, err := toolnexus.FromMCPCallToolResult(data)
			require.NoError(t, err)
			assert.Equal(t, bridged, got, "as the JSON round trip reads it")
		})
	}
}

// TestFromCallToolResultWire reads results as mcp-go's client decodes them
// from the wire, values and pointers alike.
func TestFromCallToolResultWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wire string
		want toolnexus.ToolResult
	}{
		{"structured kept as sent", `{"content":[{"type":"text","text":"{\"id\": 9007199254740993}"}],"structuredContent":{"id": 9007199254740993}}`,
			toolnexus.Ok(`{"id": 9007199254740993}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"id":9007199254740993}`))},
		{"input required", `{"resultType":"input_required","content":null,"requestState":"tn1.x",` +
			`"inputRequests":{"pnd-1":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}}}`,
			toolnexus.Pending(toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}).WithMetadata(toolnexus.MetadataRequestState, "tn1.x")},
		{"url elicitation", `{"resultType":"input_required","inputRequests":{"pnd-2":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}},"requestState":"s"}`,
			toolnexus.Pending(toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}).WithMetadata(toolnexus.MetadataRequestState, "s")},
		{"form with a schema", `{"resultType":"input_required","inputRequests":{"pnd-3":{"method":"elicitation/create","params":{"message":"Which?",` +
			`"requestedSchema":{"type":"object","properties":{"env":{"type":"string"}}}}}},"requestState":"s"}`,
			toolnexus.Pending(toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Which?", Data: map[string]any{"schema": map[string]any{
				"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}}}}).WithMetadata(toolnexus.MetadataRequestState, "s")},
		{"load shedding", `{"resultType":"input_required","inputRequests":{},"requestState":"s"}`,
			toolnexus.Error("[the MCP server asked for input but sent no request; retry the call later]")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var res mcp.CallToolResult
			require.NoError(t, json.Unmarshal([]byte(tt.wire), &res))
			got, err := mcpgobridge.FromCallToolResult(&res)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestFromCallToolResultPointers reads content that a Go caller built with
// pointers, nil ones included, and content a tool result has no place for.
func TestFromCallToolResultPointers(t *testing.T) {
	t.Parallel()
	res := &mcp.CallToolResult{Content: []mcp.Content{
		nil,
		(*mcp.TextContent)(nil),
		&mcp.TextContent{Type: "text", Text: "kept"},
		&mcp.ImageContent{Type: "image", Data: png64, MIMEType: "image/png"},
		(*mcp.AudioContent)(nil),
		&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.TextResourceContents{URI: "file:///a.txt", Text: "a text"}},
		&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.BlobResourceContents{URI: "file:///r.pdf", MIMEType: "application/pdf", Blob: pdf64}},
		&mcp.EmbeddedResource{Type: "resource"},
		(*mcp.ResourceLink)(nil),
		&mcp.ToolUseContent{Type: "tool_use", ID: "t-1", Name: "search"},
		mcp.ToolResultContent{Type: "tool_result", ToolUseID: "t-1"},
	}}
	got, err := mcpgobridge.FromCallToolResult(res)
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("kept\n[unsupported resource part (0 bytes)]\n[unsupported tool_use part]\n[unsupported tool_result part]",
		bridgetest.Part(t, pngBytes, "image/png"), bridgetest.Part(t, []byte("a text"), "text/plain").WithName("a.txt"),
		bridgetest.Part(t, pdfBytes, "application/pdf").WithName("r.pdf")).
		WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"1": "file:///a.txt", "2": "file:///r.pdf"}), got)
}

func TestFromCallToolResultErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		wantMsg string
	}{
		{"nil", nil, "mcpgobridge: toolnexus: invalid MCP result: nil result"},
		{"structured content not JSON", &mcp.CallToolResult{StructuredContent: make(chan int)},
			"mcpgobridge: toolnexus: invalid MCP result: structuredContent: json: unsupported type: chan int"},
		{"schema not JSON", &mcp.CallToolResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
			MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: mcp.InputRequests{
				"x": mcp.NewElicitationInputRequest(mcp.ElicitationParams{Message: "m", RequestedSchema: func() {}})}}},
			`mcpgobridge: toolnexus: invalid MCP result: input request "x": json: unsupported type: func()`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpgobridge.FromCallToolResult(tt.res)
			require.ErrorIs(t, err, toolnexus.ErrInvalidMCP)
			assert.EqualError(t, err, tt.wantMsg)
			assert.Equal(t, toolnexus.ToolResult{}, got)
		})
	}
}

// TestRoundTrip sends results through mcp-go's types and back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, r := range []toolnexus.ToolResult{
		toolnexus.Ok("done"),
		toolnexus.Error("failed halfway", bridgetest.Part(t, pngBytes, "image/png"), bridgetest.Part(t, wavBytes, "audio/wav"),
			bridgetest.Part(t, pdfBytes, "application/pdf").WithName("report.pdf"),
			bridgetest.URLPart(t, "https://example.com/report.pdf", "application/pdf").WithName("report.pdf")),
	} {
		got, err := mcpgobridge.FromCallToolResult(mcpgobridge.CallToolResult(r))
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments, as a key), that must print and log no part
// of it; a type that can hold none says why instead.
var leakValues = leaktest.Values{
	"mcpgobridge.Options":  nil, // a function
	"mcpgobridge.ToolFunc": nil, // a function
	"mcpgobridge.CallFunc": nil, // a function
	"mcpgobridge.Bridge": func(data string) []any {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte(data[:32])}})
		if err != nil {
			panic(err)
		}
		r, err := mcpcall.NewRunner(s, mcpcall.Options{})
		if err != nil {
			panic(err)
		}
		b, err := mcpgobridge.New(r, nil)
		if err != nil {
			panic(err)
		}
		return []any{b, *b}
	},
	"mcpgobridge.Call": func(data string) []any {
		var req mcp.CallToolRequest
		req.Params.Name = "shot"
		req.Params.Arguments = map[string]any{"image": data}
		req.Params.RequestState = data
		req.Header = http.Header{"Authorization": {"Bearer " + data}}
		raw := req
		raw.Params.RawArguments = json.RawMessage(`{"image":"` + data + `"}`)
		raw.Params.Arguments = json.RawMessage(`{"image":"` + data + `"}`)
		answers := toolnexus.Answers{{ID: "r", OK: true, Data: map[string]any{"url": "data:image/png;base64," + data}}}
		type input struct{ Image string }
		return []any{
			mcpgobridge.Call[input]{Request: req, In: input{Image: data}, Answers: answers},
			mcpgobridge.Call[json.RawMessage]{Request: raw, In: json.RawMessage(`{"image":"` + data + `"}`)},
			mcpgobridge.Call[any]{In: map[string]any{"image": data}},
		}
	},
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "mcpgobridge", leakValues)
}
