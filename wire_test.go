package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// fixtureWire is the image part of WIRE.md, byte for byte.
const fixtureWire = `{"type":"image","mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="}`

// wireCase is one JSON shape: value marshals to wire byte for byte, and wire
// unmarshals to decoded (value itself when nil; JSON numbers and arrays in
// any-typed fields decode as float64 and []any), which marshals to wire again.
type wireCase[T any] struct {
	name    string
	value   T
	wire    string
	decoded *T
}

func testWire[T any](t *testing.T, tests []wireCase[T]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.wire, string(b), "marshal")

			var got T
			require.NoError(t, json.Unmarshal([]byte(tt.wire), &got))
			want := tt.value
			if tt.decoded != nil {
				want = *tt.decoded
			}
			assert.Equal(t, want, got, "unmarshal")

			again, err := json.Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, tt.wire, string(again), "marshal after unmarshal")
		})
	}
}

func TestWireToolResult(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	testWire(t, []wireCase[toolnexus.ToolResult]{
		{name: "ok", value: toolnexus.Ok("eu-west-1"),
			wire: `{"output":"eu-west-1","isError":false}`},
		{name: "error", value: toolnexus.Error("No such config key: nope"),
			wire: `{"output":"No such config key: nope","isError":true}`},
		{name: "metadata", value: toolnexus.Ok("2 results").WithMetadata("title", "search: usage").WithMetadata("count", 2).WithMetadata("ids", []int{1, 2}),
			wire: `{"output":"2 results","isError":false,"metadata":{"count":2,"ids":[1,2],"title":"search: usage"}}`,
			decoded: &toolnexus.ToolResult{Output: "2 results",
				Metadata: map[string]any{"count": 2.0, "ids": []any{1.0, 2.0}, "title": "search: usage"}}},
		{name: "image part", value: toolnexus.Ok("fixture.png (image/png, 82 bytes)", png),
			wire: `{"output":"fixture.png (image/png, 82 bytes)","isError":false,"parts":[` + fixtureWire + `]}`},
		{name: "suspension", value: toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}),
			wire: `{"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}`,
			decoded: &toolnexus.ToolResult{Output: "Which environment?", IsError: true,
				Metadata: map[string]any{"pending": map[string]any{"id": "req-1", "kind": "input", "prompt": "Which environment?"}}}},
		{name: "every key in order", value: toolnexus.Error("failed", toolnexus.TextPart("log tail")).WithMetadata("attempt", 3),
			wire: `{"output":"failed","isError":true,"parts":[{"type":"text","text":"log tail"}],"metadata":{"attempt":3}}`,
			decoded: &toolnexus.ToolResult{Output: "failed", IsError: true, Parts: []toolnexus.ContentPart{toolnexus.TextPart("log tail")},
				Metadata: map[string]any{"attempt": 3.0}}},
		{name: "zero", value: toolnexus.ToolResult{},
			wire: `{"output":"","isError":false}`},
	})
}

func TestWireContentPart(t *testing.T) {
	t.Parallel()
	testWire(t, []wireCase[toolnexus.ContentPart]{
		{name: "text", value: toolnexus.TextPart("hello"),
			wire: `{"type":"text","text":"hello"}`},
		{name: "empty text", value: toolnexus.TextPart(""),
			wire: `{"type":"text"}`},
		{name: "image", value: fixturePNGPart(t),
			wire: fixtureWire},
		{name: "file", value: toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"},
			wire: `{"type":"file","mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ==","name":"report.pdf"}`},
		{name: "audio", value: toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64},
			wire: `{"type":"audio","mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}`},
		{name: "image url", value: toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"},
			wire: `{"type":"image","mimeType":"image/png","url":"https://example.com/cat.png"}`},
		{name: "every key in order", value: toolnexus.ContentPart{Type: "x", Text: "t", MIMEType: "a/b", Data: "AAAA", URL: "https://e.x", Name: "n"},
			wire: `{"type":"x","text":"t","mimeType":"a/b","data":"AAAA","url":"https://e.x","name":"n"}`},
	})
}

// TestWireConstructedParts checks the JSON of parts built by the
// constructors against the shapes of WIRE.md.
func TestWireConstructedParts(t *testing.T) {
	t.Parallel()
	fromBytes := func(b, mimeType string) toolnexus.ContentPart {
		p, err := toolnexus.PartFromBytes([]byte(b), mimeType)
		require.NoError(t, err)
		return p
	}
	fromURL := func(url, mimeType string) toolnexus.ContentPart {
		p, err := toolnexus.PartFromURL(url, mimeType)
		require.NoError(t, err)
		return p
	}
	fromFile := func(path string) toolnexus.ContentPart {
		p, err := toolnexus.PartFromFile(path)
		require.NoError(t, err)
		return p
	}
	tests := []struct {
		name string
		part toolnexus.ContentPart
		want string
	}{
		{"text", toolnexus.TextPart("hello"), `{"type":"text","text":"hello"}`},
		{"fixture file", fromFile("testdata/fixture.png"), fixtureWire},
		{"named pdf", fromBytes(pdfBytes, "application/pdf").WithName("report.pdf"),
			`{"type":"file","mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ==","name":"report.pdf"}`},
		{"wav", fromBytes(wavBytes, "audio/wav"), `{"type":"audio","mimeType":"audio/wav","data":"UklGRgAAAABXQVZF"}`},
		{"url", fromURL("https://example.com/cat.png", "image/png"), `{"type":"image","mimeType":"image/png","url":"https://example.com/cat.png"}`},
		{"data URL is stored as data", fromURL("data:image/png;base64,AAAA", ""), `{"type":"image","mimeType":"image/png","data":"AAAA"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.part)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
}

func TestWireRequestAndAnswer(t *testing.T) {
	t.Parallel()
	req2 := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
		Data: map[string]any{"choices": []string{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}
	testWire(t, []wireCase[toolnexus.Request]{
		{name: "minimal", value: toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"},
			wire: `{"id":"req-1","kind":"input","prompt":"Which environment?"}`},
		{name: "every field", value: req2,
			wire: `{"id":"req-2","kind":"input","prompt":"Pick an environment","url":"https://example.com/pick","data":{"choices":["dev","prod"]},"expiresAt":"2026-12-01T00:00:00Z"}`,
			decoded: &toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
				Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}},
		{name: "zero keeps the required keys", value: toolnexus.Request{},
			wire: `{"id":"","kind":"","prompt":""}`},
	})
	testWire(t, []wireCase[toolnexus.Answer]{
		{name: "resolved", value: req2.Resolve(map[string]any{"choice": "prod"}),
			wire: `{"id":"req-2","ok":true,"data":{"choice":"prod"}}`},
		{name: "declined", value: req2.Decline(toolnexus.ReasonDeclined),
			wire: `{"id":"req-2","ok":false,"reason":"declined"}`},
		{name: "resolved without data", value: req2.Resolve(nil),
			wire: `{"id":"req-2","ok":true}`},
	})
}

func TestWireLenientDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		want     toolnexus.ToolResult
		wantWire string
	}{
		{"missing isError is false", `{"output":"done"}`,
			toolnexus.ToolResult{Output: "done"}, `{"output":"done","isError":false}`},
		{"null parts and metadata are absent", `{"output":"done","isError":false,"parts":null,"metadata":null}`,
			toolnexus.ToolResult{Output: "done"}, `{"output":"done","isError":false}`},
		{"empty parts and metadata are written as absent", `{"output":"done","isError":true,"parts":[],"metadata":{}}`,
			toolnexus.ToolResult{Output: "done", IsError: true, Parts: []toolnexus.ContentPart{}, Metadata: map[string]any{}},
			`{"output":"done","isError":true}`},
		{"unknown top-level keys are ignored", `{"output":"done","isError":true,"status":"x","extra":{"a":[1,2]},"version":2}`,
			toolnexus.ToolResult{Output: "done", IsError: true}, `{"output":"done","isError":true}`},
		{"keys in another order", `{"metadata":{"k":"v"},"parts":[{"name":"r.pdf","data":"AAAA","mimeType":"application/pdf","type":"file"}],"isError":true,"output":"x"}`,
			toolnexus.ToolResult{Output: "x", IsError: true,
				Parts:    []toolnexus.ContentPart{{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: "AAAA", Name: "r.pdf"}},
				Metadata: map[string]any{"k": "v"}},
			`{"output":"x","isError":true,"parts":[{"type":"file","mimeType":"application/pdf","data":"AAAA","name":"r.pdf"}],"metadata":{"k":"v"}}`},
		{"part without text", `{"output":"x","isError":false,"parts":[{"type":"text"}]}`,
			toolnexus.ToolResult{Output: "x", Parts: []toolnexus.ContentPart{{Type: toolnexus.PartText}}},
			`{"output":"x","isError":false,"parts":[{"type":"text"}]}`},
		{"unknown part keys are ignored", `{"output":"x","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AAAA","annotations":{"audience":["user"]}}]}`,
			toolnexus.ToolResult{Output: "x", Parts: []toolnexus.ContentPart{{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}}},
			`{"output":"x","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AAAA"}]}`},
		{"missing output is empty", `{"isError":true}`,
			toolnexus.ToolResult{IsError: true}, `{"output":"","isError":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got toolnexus.ToolResult
			require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
			assert.Equal(t, tt.want, got)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, tt.wantWire, string(b))
			assert.False(t, got.IsPending())
		})
	}
}

func TestWireRequestLenientDecoding(t *testing.T) {
	t.Parallel()
	var req toolnexus.Request
	require.NoError(t, json.Unmarshal([]byte(`{"id":"req-1","kind":"input","prompt":"p","data":null,"extra":true}`), &req))
	assert.Equal(t, toolnexus.Request{ID: "req-1", Kind: "input", Prompt: "p"}, req)

	var a toolnexus.Answer
	require.NoError(t, json.Unmarshal([]byte(`{"id":"req-1"}`), &a))
	assert.Equal(t, toolnexus.Answer{ID: "req-1"}, a, "a missing ok is a refusal")
}

// TestWireRoundTrip checks that every type comes back equal from JSON.
func TestWireRoundTrip(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}
	url := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindApproval, Prompt: "Deploy?", URL: "https://example.com/approve",
		Data: map[string]any{"service": "api", "replicas": 3.0, "tags": []any{"a", "b"}, "dry": false}, ExpiresAt: "2026-12-01T00:00:00.5Z"}
	values := map[string]any{
		"text part":            toolnexus.TextPart("hello\n\"world\" <&>"),
		"image part":           png,
		"file part":            pdf,
		"url part":             url,
		"audio part":           toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: wavB64},
		"ok":                   toolnexus.Ok("done"),
		"result with parts":    toolnexus.Error("failed", toolnexus.TextPart("t"), png, pdf, url),
		"result with meta":     toolnexus.Ok("x").WithMetadata("n", 1.5).WithMetadata("list", []any{"a", 2.0}).WithMetadata("obj", map[string]any{"k": nil}),
		"request":              req,
		"answer":               req.Resolve(map[string]any{"choice": "prod", "n": 2.0}),
		"declined answer":      req.Decline(toolnexus.ReasonExpired),
		"part type":            toolnexus.PartAudio,
		"list of parts":        []toolnexus.ContentPart{png, url},
		"part too large error": toolnexus.PartTooLargeError{Limit: 1, Size: 2},
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(v)
			require.NoError(t, err)
			got := newLike(v)
			require.NoError(t, json.Unmarshal(b, got))
			assert.Equal(t, v, deref(got))
		})
	}
}

func newLike(v any) any {
	switch v.(type) {
	case toolnexus.ContentPart:
		return new(toolnexus.ContentPart)
	case toolnexus.ToolResult:
		return new(toolnexus.ToolResult)
	case toolnexus.Request:
		return new(toolnexus.Request)
	case toolnexus.Answer:
		return new(toolnexus.Answer)
	case toolnexus.PartType:
		return new(toolnexus.PartType)
	case []toolnexus.ContentPart:
		return new([]toolnexus.ContentPart)
	case toolnexus.PartTooLargeError:
		return new(toolnexus.PartTooLargeError)
	}
	panic(fmt.Sprintf("no case for %T", v))
}

func deref(p any) any {
	switch p := p.(type) {
	case *toolnexus.ContentPart:
		return *p
	case *toolnexus.ToolResult:
		return *p
	case *toolnexus.Request:
		return *p
	case *toolnexus.Answer:
		return *p
	case *toolnexus.PartType:
		return *p
	case *[]toolnexus.ContentPart:
		return *p
	case *toolnexus.PartTooLargeError:
		return *p
	}
	panic(fmt.Sprintf("no case for %T", p))
}

// TestWireSuspensionRoundTrip is the promise of WIRE.md: after decoding,
// metadata.pending is again usable as a Request.
func TestWireSuspensionRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}`
	var r toolnexus.ToolResult
	require.NoError(t, json.Unmarshal([]byte(in), &r))
	req, ok := toolnexus.PendingOf(r)
	require.True(t, ok)
	assert.Equal(t, toolnexus.Request{ID: "req-1", Kind: "input", Prompt: "Which environment?"}, req)
	assert.Equal(t, toolnexus.Pending(req), toolnexus.ToolResult{Output: r.Output, IsError: r.IsError, Metadata: map[string]any{"pending": req}})
	assert.NoError(t, r.Validate())
	assert.Equal(t, `error "Which environment?" metadata=[pending] pending=input:req-1`, r.String())
}
