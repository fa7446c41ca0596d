package toolnexus_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

func TestOkAndError(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	text := toolnexus.TextPart("extra")
	tests := []struct {
		name string
		got  toolnexus.ToolResult
		want toolnexus.ToolResult
	}{
		{"ok", toolnexus.Ok("eu-west-1"), toolnexus.ToolResult{Output: "eu-west-1"}},
		{"ok empty", toolnexus.Ok(""), toolnexus.ToolResult{}},
		{"ok with a part", toolnexus.Ok("fixture.png (image/png, 82 bytes)", png),
			toolnexus.ToolResult{Output: "fixture.png (image/png, 82 bytes)", Parts: []toolnexus.ContentPart{png}}},
		{"ok with parts in order", toolnexus.Ok("two", text, png),
			toolnexus.ToolResult{Output: "two", Parts: []toolnexus.ContentPart{text, png}}},
		{"ok with an empty part list", toolnexus.Ok("none", []toolnexus.ContentPart{}...), toolnexus.ToolResult{Output: "none"}},
		{"error", toolnexus.Error("No such config key: nope"), toolnexus.ToolResult{Output: "No such config key: nope", IsError: true}},
		{"error with a part", toolnexus.Error("failed, see screenshot", png),
			toolnexus.ToolResult{Output: "failed, see screenshot", IsError: true, Parts: []toolnexus.ContentPart{png}}},
		{"errorf", toolnexus.Errorf("No such config key: %s (%d tried)", "nope", 3),
			toolnexus.ToolResult{Output: "No such config key: nope (3 tried)", IsError: true}},
		{"errorf without args", toolnexus.Errorf("100%% broken"), toolnexus.ToolResult{Output: "100% broken", IsError: true}},
		{"errorf with an error", toolnexus.Errorf("open: %v", errors.New("denied")), toolnexus.ToolResult{Output: "open: denied", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.got)
			assert.NoError(t, tt.got.Validate())
		})
	}
}

func TestTextOnlyResultHasNilParts(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]toolnexus.ToolResult{
		"Ok":                 toolnexus.Ok("done"),
		"Error":              toolnexus.Error("failed"),
		"Errorf":             toolnexus.Errorf("failed %d", 1),
		"Ok with no parts":   toolnexus.Ok("done", []toolnexus.ContentPart{}...),
		"WithMetadata":       toolnexus.Ok("done").WithMetadata("k", "v"),
		"Pending":            toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p"}),
		"AuthRequired":       toolnexus.AuthRequired("https://example.com/login", ""),
		"Error with no meta": toolnexus.Error("failed"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Nil(t, r.Parts)
		})
	}
}

func TestOkClonesParts(t *testing.T) {
	t.Parallel()
	parts := []toolnexus.ContentPart{toolnexus.TextPart("a"), toolnexus.TextPart("b")}
	ok := toolnexus.Ok("x", parts...)
	failed := toolnexus.Error("x", parts...)
	parts[0] = toolnexus.TextPart("changed")
	assert.Equal(t, "a", ok.Parts[0].Text)
	assert.Equal(t, "a", failed.Parts[0].Text)
}

func TestWithMetadata(t *testing.T) {
	t.Parallel()
	base := toolnexus.Ok("2 results")
	one := base.WithMetadata("count", 2)
	two := one.WithMetadata("title", "search: usage")
	other := one.WithMetadata("title", "other")
	replaced := two.WithMetadata("count", 3)

	assert.Nil(t, base.Metadata, "the receiver is not changed")
	assert.Equal(t, map[string]any{"count": 2}, one.Metadata, "the receiver is not changed")
	assert.Equal(t, map[string]any{"count": 2, "title": "search: usage"}, two.Metadata)
	assert.Equal(t, map[string]any{"count": 2, "title": "other"}, other.Metadata, "siblings do not share a map")
	assert.Equal(t, map[string]any{"count": 3, "title": "search: usage"}, replaced.Metadata)
	assert.Equal(t, map[string]any{"count": 2, "title": "search: usage"}, two.Metadata, "replacing a key clones")

	// The copy keeps everything else.
	png := fixturePNGPart(t)
	withParts := toolnexus.Error("bad", png).WithMetadata("k", nil)
	assert.Equal(t, toolnexus.ToolResult{Output: "bad", IsError: true, Parts: []toolnexus.ContentPart{png}, Metadata: map[string]any{"k": nil}}, withParts)

	// A map the caller set is never written to.
	callers := map[string]any{"a": 1}
	r := toolnexus.ToolResult{Output: "x", Metadata: callers}.WithMetadata("b", 2)
	assert.Equal(t, map[string]any{"a": 1}, callers)
	assert.Equal(t, map[string]any{"a": 1, "b": 2}, r.Metadata)
	r.Metadata["a"] = 99
	assert.Equal(t, 1, callers["a"], "the copy does not alias the receiver's map")
}

func TestToolResultString(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: pdfB64, Name: "report.pdf"}
	url := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	tests := []struct {
		name string
		r    toolnexus.ToolResult
		want string
	}{
		{"zero", toolnexus.ToolResult{}, `ok ""`},
		{"ok", toolnexus.Ok("eu-west-1"), `ok "eu-west-1"`},
		{"error", toolnexus.Error("No such config key: nope"), `error "No such config key: nope"`},
		{"output is quoted", toolnexus.Ok("line 1\nline \"2\""), `ok "line 1\nline \"2\""`},
		{"image", toolnexus.Ok("fixture.png (image/png, 82 bytes)", png),
			`ok "fixture.png (image/png, 82 bytes)" parts=[image (image/png, 82 bytes)]`},
		{"several parts", toolnexus.Error("x", toolnexus.TextPart("hello"), url, pdf),
			`error "x" parts=[text (5 bytes), image (image/png, url), file (application/pdf, 13 bytes)]`},
		{"metadata keys sorted", toolnexus.Ok("2 results").WithMetadata("title", "search: usage").WithMetadata("count", 2).WithMetadata("ids", []int{1, 2}),
			`ok "2 results" metadata=[count ids title]`},
		{"suspension", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}),
			`error "Which environment?" metadata=[pending] pending=input:req-1`},
		{"metadata pending that is not a suspension", toolnexus.Ok("x").WithMetadata("pending", "soon"),
			`ok "x" metadata=[pending]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.r.String())
			assert.Equal(t, tt.want, fmt.Sprint(tt.r))
			assert.Equal(t, tt.want, fmt.Sprintf("%+v", tt.r))
			assert.Equal(t, tt.want, fmt.Sprintf("%v", &tt.r))
		})
	}
}

func TestToolResultGoString(t *testing.T) {
	t.Parallel()
	r := toolnexus.Ok("fixture.png (image/png, 82 bytes)", fixturePNGPart(t))
	want := `toolnexus.ToolResult{Output:"fixture.png (image/png, 82 bytes)", IsError:false, Parts:[]toolnexus.ContentPart{` +
		`toolnexus.ContentPart{Type:"image", Text:"", MIMEType:"image/png", Data:"<82 bytes>", URL:"", Name:""}}, Metadata:map[string]interface {}(nil)}`
	assert.Equal(t, want, r.GoString())
	assert.Equal(t, want, fmt.Sprintf("%#v", r))
}

func TestToolResultOutputHidesData(t *testing.T) {
	t.Parallel()
	golden := fixturePNGBase64(t)
	png := fixturePNGPart(t)
	named := png.WithName("fixture.png")
	results := map[string]toolnexus.ToolResult{
		"ok with part":      toolnexus.Ok("fixture.png (image/png, 82 bytes)", png),
		"error with parts":  toolnexus.Error("failed", toolnexus.TextPart("t"), png, named),
		"part in metadata":  toolnexus.Ok("x").WithMetadata("shot", png),
		"parts in metadata": toolnexus.Ok("x").WithMetadata("shots", []toolnexus.ContentPart{png, named}),
		"result in metadata": toolnexus.Ok("x").WithMetadata("inner",
			toolnexus.Ok("inner", png)),
		"suspension with a part": toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p"}).WithMetadata("shot", png),
	}
	for name, r := range results {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []any{r, &r, []toolnexus.ToolResult{r}, struct{ R toolnexus.ToolResult }{r}} {
				for _, verb := range formatVerbs {
					out := fmt.Sprintf(verb, v)
					assert.NotContains(t, out, golden[8:40], "%s printed data", verb)
					assert.NotContains(t, out, "iVBORw0K", "%s printed data", verb)
				}
			}
			assert.NotContains(t, r.String(), "iVBORw0K")
			assert.NotContains(t, r.GoString(), "iVBORw0K")
			for handler, out := range slogOutputs("result", r) {
				assert.NotContains(t, out, "iVBORw0K", "%s handler logged data", handler)
			}
		})
	}
}

func TestToolResultLogValue(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	long := strings.Repeat("x", 300)
	tests := []struct {
		name     string
		r        toolnexus.ToolResult
		wantText string
		wantJSON string
	}{
		{"ok", toolnexus.Ok("eu-west-1"),
			`level=INFO msg=m result.output=eu-west-1 result.isError=false`,
			`{"level":"INFO","msg":"m","result":{"output":"eu-west-1","isError":false}}`},
		{"image", toolnexus.Ok("fixture.png (image/png, 82 bytes)", png),
			`level=INFO msg=m result.output="fixture.png (image/png, 82 bytes)" result.isError=false result.parts.0.type=image result.parts.0.mimeType=image/png result.parts.0.size=82`,
			`{"level":"INFO","msg":"m","result":{"output":"fixture.png (image/png, 82 bytes)","isError":false,"parts":{"0":{"type":"image","mimeType":"image/png","size":82}}}}`},
		{"suspension", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?", ExpiresAt: "2026-12-01T00:00:00Z"}),
			`level=INFO msg=m result.output="Which environment?" result.isError=true result.pending.id=req-1 result.pending.kind=input result.pending.expiresAt=2026-12-01T00:00:00Z`,
			`{"level":"INFO","msg":"m","result":{"output":"Which environment?","isError":true,"pending":{"id":"req-1","kind":"input","expiresAt":"2026-12-01T00:00:00Z"}}}`},
		{"metadata", toolnexus.Ok("2 results").WithMetadata("count", 2).WithMetadata("title", "search: usage").WithMetadata("ok", true),
			`level=INFO msg=m result.output="2 results" result.isError=false result.metadata.count=2 result.metadata.ok=true result.metadata.title="search: usage"`,
			`{"level":"INFO","msg":"m","result":{"output":"2 results","isError":false,"metadata":{"count":2,"ok":true,"title":"search: usage"}}}`},
		{"metadata payloads are described", toolnexus.Ok("x").WithMetadata("blob", []byte("secret")).WithMetadata("ids", []int{1, 2, 3}).WithMetadata("shot", png).WithMetadata("long", long),
			`level=INFO msg=m result.output=x result.isError=false result.metadata.blob="[]uint8 (len 6)" result.metadata.ids="[]int (len 3)" result.metadata.long="` + long[:256] + `… (300 bytes)" result.metadata.shot.type=image result.metadata.shot.mimeType=image/png result.metadata.shot.size=82`,
			`{"level":"INFO","msg":"m","result":{"output":"x","isError":false,"metadata":{"blob":"[]uint8 (len 6)","ids":"[]int (len 3)","long":"` + long[:256] + `… (300 bytes)","shot":{"type":"image","mimeType":"image/png","size":82}}}}`},
		{"metadata time", toolnexus.Ok("x").WithMetadata("at", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)),
			`level=INFO msg=m result.output=x result.isError=false result.metadata.at=2026-12-01T00:00:00.000Z`,
			`{"level":"INFO","msg":"m","result":{"output":"x","isError":false,"metadata":{"at":"2026-12-01T00:00:00Z"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, js := logWithoutTime(slog.Any("result", tt.r))
			assert.Equal(t, tt.wantText, text)
			assert.Equal(t, tt.wantJSON, js)
		})
	}
}

func TestToolResultValidate(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	tests := []struct {
		name    string
		r       toolnexus.ToolResult
		wantErr error
		wantMsg string
	}{
		{"zero", toolnexus.ToolResult{}, nil, ""},
		{"ok with parts", toolnexus.Ok("x", toolnexus.TextPart("t"), png), nil, ""},
		{"metadata", toolnexus.Ok("x").WithMetadata("count", 2), nil, ""},
		{"suspension", toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"}), nil, ""},
		{"suspension as a JSON object", toolnexus.Error("p").WithMetadata("pending", map[string]any{"id": "req-1", "kind": "input", "prompt": "p", "data": nil}), nil, ""},

		{"bad second part", toolnexus.Ok("x", png, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}),
			toolnexus.ErrInvalidPart, "toolnexus: invalid part: image part has neither data nor url (part 1)"},
		{"unknown part type", toolnexus.Ok("x", toolnexus.ContentPart{Type: "video"}), toolnexus.ErrUnknownPartType, ""},
		{"bad base64 in a part", toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA\n"}),
			toolnexus.ErrInvalidBase64, ""},
		{"pending string", toolnexus.Ok("x").WithMetadata("pending", "soon"), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds string, not a request`},
		{"pending true", toolnexus.Ok("x").WithMetadata("pending", true), toolnexus.ErrInvalidRequest, ""},
		{"pending nil", toolnexus.Ok("x").WithMetadata("pending", nil), toolnexus.ErrInvalidRequest, ""},
		{"pending object without kind", toolnexus.Ok("x").WithMetadata("pending", map[string]any{"id": "req-1", "prompt": "p"}),
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds an object without kind, not a request`},
		{"pending object with a numeric id", toolnexus.Ok("x").WithMetadata("pending", map[string]any{"id": 1.0, "kind": "input", "prompt": "p"}),
			toolnexus.ErrInvalidRequest, "toolnexus: invalid request: pending id is float64, not a string"},
		{"pending object with string data", toolnexus.Ok("x").WithMetadata("pending", map[string]any{"id": "r", "kind": "input", "prompt": "p", "data": "x"}),
			toolnexus.ErrInvalidRequest, "toolnexus: invalid request: pending data is string, not an object"},
		{"suspension without prompt", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput}),
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "req-1" has no prompt`},
		{"suspension without id", toolnexus.Ok("x").WithMetadata("pending", toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "p"}),
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "input" request has no id`},
		{"suspension with a relative url", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindAuthorization, Prompt: "p", URL: "/login"}),
			toolnexus.ErrInvalidRequest, ""},
		{"suspension with a bad expiry", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p", ExpiresAt: "tomorrow"}),
			toolnexus.ErrInvalidExpiry, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.r.Validate()
			assertErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
}

func TestToolResultIsPending(t *testing.T) {
	t.Parallel()
	assert.True(t, toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy?"}).IsPending())
	assert.True(t, toolnexus.AuthRequired("https://example.com/login", "").IsPending())
	assert.False(t, toolnexus.Ok("done").IsPending())
	assert.False(t, toolnexus.Error("failed").IsPending())
	assert.False(t, toolnexus.Ok("x").WithMetadata("pending", "soon").IsPending())
}

func TestToolResultRedacted(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	url := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	r := toolnexus.Ok("fixture.png (image/png, 82 bytes)", png, url, toolnexus.TextPart("hi")).WithMetadata("shot", png)

	red := r.Redacted()

	assert.Equal(t, []toolnexus.ContentPart{
		{Type: toolnexus.PartImage, MIMEType: "image/png"},
		url,
		toolnexus.TextPart("hi"),
	}, red.Parts)
	assert.Equal(t, []string{
		"image (image/png, 82 bytes) sha256:e050dce0dfb38ac05f5b99c16c209fe8b43b0ac5569fcc992069b23f3caa6923",
		"image (image/png, url)",
		"text (2 bytes)",
	}, red.Metadata[toolnexus.MetadataRedacted])
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}, red.Metadata["shot"])
	assert.Equal(t, r.Output, red.Output)

	// The original keeps its data.
	assert.Equal(t, png, r.Parts[0])
	assert.Equal(t, png, r.Metadata["shot"])
	assert.NotContains(t, r.Metadata, toolnexus.MetadataRedacted)

	// Parts behind a pointer and inside a stored result lose their data too,
	// without touching the originals.
	ptr := png
	nested := toolnexus.Ok("x").WithMetadata("ptr", &ptr).WithMetadata("inner", toolnexus.Ok("inner", png)).Redacted()
	assert.Equal(t, &toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}, nested.Metadata["ptr"])
	assert.Equal(t, png, ptr)
	inner, ok := nested.Metadata["inner"].(toolnexus.ToolResult)
	require.True(t, ok)
	assert.Equal(t, []toolnexus.ContentPart{{Type: toolnexus.PartImage, MIMEType: "image/png"}}, inner.Parts)

	// A text-only result stays text-only.
	plain := toolnexus.Ok("done").Redacted()
	assert.Equal(t, toolnexus.Ok("done"), plain)
	require.Nil(t, plain.Parts)
}
