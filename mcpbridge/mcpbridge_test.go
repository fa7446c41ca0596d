package mcpbridge_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	testWAV = []byte("RIFF\x00\x00\x00\x00WAVE")
	testPDF = []byte("%PDF-1.4 tiny")
)

func TestCallToolResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    toolnexus.ToolResult
		want *mcp.CallToolResult
	}{
		{"text", toolnexus.Ok("done"), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}},
		{"empty", toolnexus.ToolResult{}, &mcp.CallToolResult{Content: []mcp.Content{}}},
		{"error", toolnexus.Error("no such key"), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no such key"}}, IsError: true}},
		{"media after text", toolnexus.Error("failed halfway",
			bridgetest.Part(t, testPNG, "image/png"),
			toolnexus.TextPart("see the log"),
			bridgetest.Part(t, testWAV, "audio/wav"),
			bridgetest.Part(t, testPDF, "application/pdf").WithName("report.pdf"),
			bridgetest.URLPart(t, "https://example.com/cat.png", "image/png"),
		), &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "failed halfway"},
			&mcp.TextContent{Text: "see the log"},
			&mcp.ImageContent{Data: testPNG, MIMEType: "image/png"},
			&mcp.AudioContent{Data: testWAV, MIMEType: "audio/wav"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "toolnexus:part/3/report.pdf", MIMEType: "application/pdf", Blob: testPDF}},
			&mcp.ResourceLink{URI: "https://example.com/cat.png", Name: "cat.png", MIMEType: "image/png"},
		}}},
		{"text resource with its uri, structured content", toolnexus.Ok(`{"n":1}`, bridgetest.Part(t, []byte("a note"), "text/plain").WithName("notes.txt")).
			WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"0": "file:///notes.txt"}).
			WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"n":1}`)),
			&mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: `{"n":1}`},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"}},
			}, StructuredContent: json.RawMessage(`{"n":1}`)}},
		{"text with structured content", toolnexus.Ok(`{"n":2}`).WithMetadata(toolnexus.MetadataStructuredContent, map[string]any{"n": 2}),
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n":2}`}}, StructuredContent: json.RawMessage(`{"n":2}`)}},
		{"invalid part as its placeholder", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "not base64!"}),
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.TextContent{Text: "[unsupported image part (image/png, 11 bytes, not base64)]"}}}},
		{"suspension as its text", toolnexus.AuthRequired("https://example.com/login", "Sign in"),
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sign in\nhttps://example.com/login"}}, IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mcpbridge.CallToolResult(tt.r)
			assert.Equal(t, tt.want, got)
			bridged := bridgetest.ViaJSON[mcp.CallToolResult](t, tt.r)
			if len(bridged.Content) == 0 {
				bridged.Content = []mcp.Content{}
			}
			if got.StructuredContent != nil { // decoded by the JSON bridge, raw here
				decoded, err := json.Marshal(bridged.StructuredContent)
				require.NoError(t, err)
				assert.JSONEq(t, string(got.StructuredContent.(json.RawMessage)), string(decoded))
				bridged.StructuredContent = got.StructuredContent
			}
			assert.Equal(t, bridged, got, "as the JSON bridge converts it")
		})
	}
}

func TestFromCallToolResult(t *testing.T) {
	t.Parallel()
	//lint:ignore SA1019 a server may still ask for sampling
	sampling := &mcp.CreateMessageParams{MaxTokens: 10}
	//lint:ignore SA1019 sampling content has no place in a tool result, but may reach one
	toolUse := &mcp.ToolUseContent{ID: "t-1", Name: "search"}
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want toolnexus.ToolResult
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, toolnexus.Ok("a\nb")},
		{"error", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "failed"}}, IsError: true}, toolnexus.Error("failed")},
		{"media", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "rendered"},
			&mcp.ImageContent{Data: testPNG, MIMEType: "image/png"},
			&mcp.AudioContent{Data: testWAV, MIMEType: "audio/wav"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///reports/report.pdf", MIMEType: "application/pdf", Blob: testPDF}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", Text: "a note"}},
			&mcp.ResourceLink{URI: "https://example.com/cat.png", Name: "cat.png", MIMEType: "image/png"},
		}}, toolnexus.Ok("rendered",
			bridgetest.Part(t, testPNG, "image/png"),
			bridgetest.Part(t, testWAV, "audio/wav"),
			bridgetest.Part(t, testPDF, "application/pdf").WithName("report.pdf"),
			bridgetest.Part(t, []byte("a note"), "text/plain").WithName("notes.txt"),
			bridgetest.URLPart(t, "https://example.com/cat.png", "image/png"),
		).WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"2": "file:///reports/report.pdf", "3": "file:///notes.txt"})},
		{"empty image as its placeholder", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png"}}},
			toolnexus.Ok("[unsupported image part (image/png, 0 bytes)]")},
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n": 1}`}}, StructuredContent: map[string]any{"n": 1}},
			toolnexus.Ok(`{"n": 1}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"n":1}`))},
		{"structured raw", &mcp.CallToolResult{StructuredContent: json.RawMessage(` [1, 2] `)},
			toolnexus.Ok(`[1,2]`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`[1,2]`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpbridge.FromCallToolResult(tt.res)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)

			data, err := json.Marshal(tt.res)
			require.NoError(t, err)
			bridged, err := toolnexus.FromMCPCallToolResult(data)
			require.NoError(t, err)
			assert.Equal(t, bridged, got, "as the JSON bridge reads it")
		})
	}

	// What the JSON bridge cannot carry: a result as the server's handler
	// returns it (the SDK sets resultType on the way out) and nil content.
	inputs := []struct {
		name string
		res  *mcp.CallToolResult
		want toolnexus.ToolResult
	}{
		{"input required", &mcp.CallToolResult{RequestState: "tn1.x", InputRequests: mcp.InputRequestMap{
			"pnd-1": &mcp.ElicitParams{Mode: "form", Message: "Deploy?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}},
			toolnexus.Pending(toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}).WithMetadata(toolnexus.MetadataRequestState, "tn1.x")},
		{"url inferred", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"pnd-2": &mcp.ElicitParams{Message: "Sign in", URL: "https://example.com/login"}}},
			toolnexus.Pending(toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"})},
		{"form with a schema", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"pnd-3": &mcp.ElicitParams{Message: "Which?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}}}}},
			toolnexus.Pending(toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Which?", Data: map[string]any{"schema": map[string]any{
				"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}}}})},
		{"sampling", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s-1": sampling}},
			toolnexus.Pending(toolnexus.Request{ID: "s-1", Kind: toolnexus.KindSampling, Prompt: "[the MCP server asks for a message from the client's model]",
				Data: map[string]any{"messages": nil, "maxTokens": 10.0}})},
		{"load shedding", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}},
			toolnexus.Error("[the MCP server asked for input but sent no request; retry the call later]")},
		{"nil content", &mcp.CallToolResult{Content: []mcp.Content{nil, (*mcp.TextContent)(nil), (*mcp.ImageContent)(nil), &mcp.TextContent{Text: "kept"},
			(*mcp.AudioContent)(nil), (*mcp.EmbeddedResource)(nil), &mcp.EmbeddedResource{}, (*mcp.ResourceLink)(nil), toolUse}},
			toolnexus.Ok("kept\n[unsupported resource part (0 bytes)]\n[unsupported sampling part]")},
	}
	for _, tt := range inputs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpbridge.FromCallToolResult(tt.res)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFromCallToolResultErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		wantMsg string
	}{
		{"nil", nil, "mcpbridge: toolnexus: invalid MCP result: nil result"},
		{"structured content not JSON", &mcp.CallToolResult{StructuredContent: make(chan int)},
			"mcpbridge: toolnexus: invalid MCP result: structuredContent: json: unsupported type: chan int"},
		{"schema not JSON", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"x": &mcp.ElicitParams{RequestedSchema: func() {}}}},
			"mcpbridge: toolnexus: invalid MCP result: input request: json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpbridge.FromCallToolResult(tt.res)
			require.ErrorIs(t, err, toolnexus.ErrInvalidMCP)
			assert.EqualError(t, err, tt.wantMsg)
			assert.Equal(t, toolnexus.ToolResult{}, got)
		})
	}
}

// TestRoundTrip sends results through the SDK's types and back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, r := range []toolnexus.ToolResult{
		toolnexus.Ok("done"),
		toolnexus.Error("failed halfway", bridgetest.Part(t, testPNG, "image/png"), bridgetest.Part(t, testWAV, "audio/wav"),
			bridgetest.Part(t, testPDF, "application/pdf").WithName("report.pdf"), bridgetest.URLPart(t, "https://example.com/report.pdf", "application/pdf").WithName("report.pdf")),
		toolnexus.Ok(`{"n":1}`, bridgetest.Part(t, []byte("a note"), "text/plain").WithName("notes.txt"), bridgetest.Part(t, testPNG, "image/png")).
			WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"0": "file:///notes.txt", "1": "file:///a.png"}).
			WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(`{"n":1}`)),
	} {
		got, err := mcpbridge.FromCallToolResult(mcpbridge.CallToolResult(r))
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
}

// TestResourceFormRoundTrip reads SDK results with FromCallToolResult and
// writes them back with CallToolResult: an embedded resource comes back in
// the form it came in, a text/plain blob as a blob and a text of any type
// as text, in the SDK's JSON exactly.
func TestResourceFormRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in string }{
		{"a text/plain blob", `{"content":[{"type":"resource","resource":{"uri":"demo://text/1","mimeType":"text/plain","blob":"aGVsbG8="}}]}`},
		{"a JSON blob", `{"content":[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"application/json","blob":"eyJhIjoxfQ=="}}]}`},
		{"a text/plain text", `{"content":[{"type":"resource","resource":{"uri":"demo://text/2","mimeType":"text/plain","text":"hello"}}]}`},
		{"a text of another type", `{"content":[{"type":"resource","resource":{"uri":"file:///a.csv","mimeType":"application/octet-stream","text":"x,y"}},` +
			`{"type":"resource","resource":{"uri":"file:///a.svg","mimeType":"image/svg+xml","text":"svg"}}]}`},
		{"a binary blob", `{"content":[{"type":"resource","resource":{"uri":"file:///r.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQgdGlueQ=="}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var res mcp.CallToolResult
			require.NoError(t, json.Unmarshal([]byte(tc.in), &res))
			r, err := mcpbridge.FromCallToolResult(&res)
			require.NoError(t, err)
			out, err := json.Marshal(mcpbridge.CallToolResult(r))
			require.NoError(t, err)
			assert.Equal(t, tc.in, string(out))

			// Through the ToolResult's JSON, as a host stores it.
			var stored toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(must(json.Marshal(r)), &stored))
			out, err = json.Marshal(mcpbridge.CallToolResult(stored))
			require.NoError(t, err)
			assert.Equal(t, tc.in, string(out))
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments, as a key), that must print and log no part
// of it; a type that can hold none says why instead.
var leakValues = leaktest.Values{
	"mcpbridge.Options":      nil, // a function
	"mcpbridge.RelayOptions": nil, // a name and version, a function and a duration
	"mcpbridge.ToolFunc":     nil, // a function
	"mcpbridge.CallFunc":     nil, // a function
	"mcpbridge.OutFunc":      nil, // a function
	"mcpbridge.Bridge": func(data string) []any {
		b, err := mcpbridge.New(leakRunner(data), nil)
		if err != nil {
			panic(err)
		}
		return []any{b, *b}
	},
	"mcpbridge.Relay": func(data string) []any {
		r, err := mcpbridge.NewRelay(leakRunner(data), func() mcp.Transport { return nil }, nil)
		if err != nil {
			panic(err)
		}
		return []any{r}
	},
	"mcpbridge.Call": func(data string) []any {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shot", Arguments: json.RawMessage(`{"image":"` + data + `"}`), RequestState: data},
			Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "u", Extra: map[string]any{"key": data}}}}
		answers := toolnexus.Answers{{ID: "r", OK: true, Data: map[string]any{"url": "data:image/png;base64," + data}}}
		type input struct{ Image string }
		return []any{
			mcpbridge.Call[input]{Request: req, In: input{Image: data}, Answers: answers},
			mcpbridge.Call[json.RawMessage]{Request: req, In: json.RawMessage(`{"image":"` + data + `"}`)},
			mcpbridge.Call[any]{In: map[string]any{"image": data}},
		}
	},
}

// leakRunner returns a runner whose Sealer's key is the first 32 bytes of
// data.
func leakRunner(data string) *mcpcall.Runner {
	s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte(data[:32])}})
	if err != nil {
		panic(err)
	}
	r, err := mcpcall.NewRunner(s, mcpcall.Options{})
	if err != nil {
		panic(err)
	}
	return r
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "mcpbridge", leakValues)
}
