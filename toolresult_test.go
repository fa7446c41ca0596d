package toolnexus_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// fixtureWire is the image part of WIRE.md, byte for byte.
const fixtureWire = `{"type":"image","mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="}`

// wireCase is one JSON shape: value marshals to wire byte for byte, and wire
// unmarshals to decoded (value itself when nil: JSON numbers and arrays in
// fields of type any come back as float64 and []any), which marshals to
// wire again.
type wireCase[T any] struct {
	name    string
	value   T
	wire    string
	decoded *T
}

func checkWire[T any](t *testing.T, tests []wireCase[T]) {
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

// TestTextOnlyResultHasNilParts checks that a result without parts has nil
// Parts, so that its JSON has no parts key.
func TestTextOnlyResultHasNilParts(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]toolnexus.ToolResult{
		"Ok":               toolnexus.Ok("done"),
		"Error":            toolnexus.Error("failed"),
		"Errorf":           toolnexus.Errorf("failed %d", 1),
		"Ok with no parts": toolnexus.Ok("done", []toolnexus.ContentPart{}...),
		"Error, no parts":  toolnexus.Error("failed", []toolnexus.ContentPart{}...),
		"WithMetadata":     toolnexus.Ok("done").WithMetadata("k", "v"),
		"Pending":          toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p"}),
		"AuthRequired":     toolnexus.AuthRequired("https://example.com/login", ""),
	} {
		assert.Nil(t, r.Parts, name)
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

	png := fixturePNGPart(t)
	assert.Equal(t, toolnexus.ToolResult{Output: "bad", IsError: true, Parts: []toolnexus.ContentPart{png}, Metadata: map[string]any{"k": nil}},
		toolnexus.Error("bad", png).WithMetadata("k", nil), "the copy keeps everything else")

	callers := map[string]any{"a": 1}
	r := toolnexus.ToolResult{Output: "x", Metadata: callers}.WithMetadata("b", 2)
	r.Metadata["a"] = 99
	assert.Equal(t, map[string]any{"a": 1}, callers, "a map the caller set is never written to")
}

// TestToolResultZeroValue checks the doc: the zero ToolResult is a
// successful result with empty output. It is not comparable with ==.
func TestToolResultZeroValue(t *testing.T) {
	t.Parallel()
	var zero toolnexus.ToolResult
	assert.Equal(t, toolnexus.Ok(""), zero)
	assert.NoError(t, zero.Validate())
	assert.False(t, zero.IsPending())
	assert.Equal(t, `ok ""`, zero.String())
	b, err := json.Marshal(zero)
	require.NoError(t, err)
	assert.Equal(t, `{"output":"","isError":false}`, string(b))
	assert.False(t, reflect.TypeFor[toolnexus.ToolResult]().Comparable())
}

func TestToolResultJSON(t *testing.T) {
	t.Parallel()
	checkWire(t, []wireCase[toolnexus.ToolResult]{
		{name: "ok", value: toolnexus.Ok("eu-west-1"),
			wire: `{"output":"eu-west-1","isError":false}`},
		{name: "error", value: toolnexus.Error("No such config key: nope"),
			wire: `{"output":"No such config key: nope","isError":true}`},
		{name: "metadata", value: toolnexus.Ok("2 results").WithMetadata("title", "search: usage").WithMetadata("count", 2).WithMetadata("ids", []int{1, 2}),
			wire: `{"output":"2 results","isError":false,"metadata":{"count":2,"ids":[1,2],"title":"search: usage"}}`,
			decoded: &toolnexus.ToolResult{Output: "2 results",
				Metadata: map[string]any{"count": 2.0, "ids": []any{1.0, 2.0}, "title": "search: usage"}}},
		{name: "image part", value: toolnexus.Ok("fixture.png (image/png, 82 bytes)", fixturePNGPart(t)),
			wire: `{"output":"fixture.png (image/png, 82 bytes)","isError":false,"parts":[` + fixtureWire + `]}`},
		{name: "suspension", value: toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}),
			wire: `{"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}`,
			decoded: &toolnexus.ToolResult{Output: "Which environment?", IsError: true,
				Metadata: map[string]any{"pending": map[string]any{"id": "req-1", "kind": "input", "prompt": "Which environment?"}}}},
		{name: "every key in order", value: toolnexus.Error("failed", toolnexus.TextPart("log tail")).WithMetadata("attempt", 3),
			wire: `{"output":"failed","isError":true,"parts":[{"type":"text","text":"log tail"}],"metadata":{"attempt":3}}`,
			decoded: &toolnexus.ToolResult{Output: "failed", IsError: true, Parts: []toolnexus.ContentPart{toolnexus.TextPart("log tail")},
				Metadata: map[string]any{"attempt": 3.0}}},
		{name: "text escapes", value: toolnexus.Ok("line\n\"2\" <&> \u2028"),
			wire: `{"output":"line\n\"2\" \u003c\u0026\u003e \u2028","isError":false}`},
	})
}

// TestToolResultValidate covers the checks of the parts; the checks of a
// suspension's request are in TestValidatePending.
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
		{"valid parts", toolnexus.Ok("x", toolnexus.TextPart("t"), png), nil, ""},
		{"metadata", toolnexus.Ok("x").WithMetadata("count", 2), nil, ""},
		{"valid suspension", toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"}), nil, ""},
		{"bad second part", toolnexus.Ok("x", png, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}),
			toolnexus.ErrInvalidPart, "toolnexus: invalid part: image part has neither data nor url (part 1)"},
		{"the first bad part is named", toolnexus.Error("two", toolnexus.ContentPart{Type: "IMAGE"}, toolnexus.ContentPart{}),
			toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "IMAGE" (part 0)`},
		{"bad base64 in a part", toolnexus.Ok("x", png, toolnexus.TextPart("x"), toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AA-_"}),
			toolnexus.ErrInvalidBase64, `toolnexus: invalid base64: byte '-' at offset 2 of "AA-_" (part 2)`},
		{"a bad part before a bad suspension", func() toolnexus.ToolResult {
			r := toolnexus.Pending(toolnexus.Request{})
			r.Parts = []toolnexus.ContentPart{{Type: toolnexus.PartFile, MIMEType: "application/pdf"}}
			return r
		}(), toolnexus.ErrInvalidPart, "toolnexus: invalid part: file part has neither data nor url (part 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.r.Validate(), tt.wantErr, tt.wantMsg)
		})
	}
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
		{"pending that is no suspension", toolnexus.Ok("x").WithMetadata("pending", "soon"), `ok "x" metadata=[pending]`},
		// Text from a peer cannot forge a line of a log: a key, kind, id,
		// type or MIME type holding a space, a control or a format
		// character is quoted.
		{"odd metadata keys", toolnexus.Ok("x").WithMetadata("k\nlevel=ERROR", 1).WithMetadata("a b", 2).WithMetadata("rtl\u202e", 3).WithMetadata("ok", 4),
			`ok "x" metadata=["a b" "k\nlevel=ERROR" ok "rtl\u202e"]`},
		{"odd kind and id", toolnexus.Pending(toolnexus.Request{ID: "id\r\n1", Kind: "in\u202eput", Prompt: "p"}),
			`error "p" metadata=[pending] pending="in\u202eput":"id\r\n1"`},
		{"odd type and MIME type", toolnexus.Ok("x", toolnexus.ContentPart{Type: "image\n", MIMEType: "image/png\nX: y", Data: "AAAA"}),
			`ok "x" parts=["image\n" ("image/png\nX: y", 3 bytes)]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.r.String())
			for _, verb := range []string{"%v", "%s", "%+v"} {
				assert.Equal(t, tt.want, fmt.Sprintf(verb, tt.r), verb)
				assert.Equal(t, tt.want, fmt.Sprintf(verb, &tt.r), verb)
			}
			assert.Equal(t, fmt.Sprintf("%q", tt.want), fmt.Sprintf("%q", tt.r))
			assert.NotContains(t, fmt.Sprintf("%v %s %q %+v", tt.r, tt.r, tt.r, tt.r), "\n")
		})
	}
}

func TestToolResultGoString(t *testing.T) {
	t.Parallel()
	type hit struct{ Title string }
	part := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}
	goPart := `toolnexus.ContentPart{Type:"image", Text:"", MIMEType:"image/png", Data:"<3 bytes>", URL:"", Name:""}`
	tests := []struct {
		name string
		r    toolnexus.ToolResult
		want string
	}{
		{"part", toolnexus.Ok("x", part),
			`toolnexus.ToolResult{Output:"x", IsError:false, Parts:[]toolnexus.ContentPart{` + goPart + `}, Metadata:map[string]interface {}(nil)}`},
		// A metadata value is printed when it is a number, a boolean, a
		// string, a time, a part or a result, else by its type.
		{"metadata", toolnexus.Error("x").WithMetadata("n", 2).WithMetadata("ok", true).WithMetadata("nil", nil).
			WithMetadata("s", "data:image/png;base64,AAAA").WithMetadata("long", strings.Repeat("y", 300)).
			WithMetadata("b", []byte("secret")).WithMetadata("hit", hit{"a"}).WithMetadata("p", part).
			WithMetadata("t", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
			`toolnexus.ToolResult{Output:"x", IsError:true, Parts:[]toolnexus.ContentPart(nil), Metadata:map[string]interface {}{` +
				`"b":[]uint8(len 6), "hit":toolnexus_test.hit{…}, "long":"` + strings.Repeat("y", 256) + `"… (300 bytes), "n":2, "nil":<nil>, "ok":true, ` +
				`"p":` + goPart + `, "s":"data:image/png;base64,…", "t":time.Date(2026, time.January, 2, 3, 4, 5, 0, time.UTC)}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.r.GoString())
			assert.Equal(t, tt.want, fmt.Sprintf("%#v", tt.r))
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
		{"metadata that may hold payloads is described", toolnexus.Ok("x").WithMetadata("blob", []byte("secret")).WithMetadata("ids", []int{1, 2, 3}).
			WithMetadata("shot", png).WithMetadata("long", long).WithMetadata("url", "data:image/png;base64,AAAA"),
			`level=INFO msg=m result.output=x result.isError=false result.metadata.blob="[]uint8 (len 6)" result.metadata.ids="[]int (len 3)" result.metadata.long="` +
				long[:256] + `… (300 bytes)" result.metadata.shot.type=image result.metadata.shot.mimeType=image/png result.metadata.shot.size=82 result.metadata.url=data:image/png;base64,…`,
			`{"level":"INFO","msg":"m","result":{"output":"x","isError":false,"metadata":{"blob":"[]uint8 (len 6)","ids":"[]int (len 3)","long":"` +
				long[:256] + `… (300 bytes)","shot":{"type":"image","mimeType":"image/png","size":82},"url":"data:image/png;base64,…"}}}`},
		{"metadata time", toolnexus.Ok("x").WithMetadata("at", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)),
			`level=INFO msg=m result.output=x result.isError=false result.metadata.at=2026-12-01T00:00:00.000Z`,
			`{"level":"INFO","msg":"m","result":{"output":"x","isError":false,"metadata":{"at":"2026-12-01T00:00:00Z"}}}`},
		// A nil pointer is logged as such, not as a panic that loses the
		// whole result.
		{"nil pointers in metadata", toolnexus.Ok("x").WithMetadata("part", (*toolnexus.ContentPart)(nil)).WithMetadata("req", (*toolnexus.Request)(nil)),
			`level=INFO msg=m result.output=x result.isError=false result.metadata.part=*toolnexus.ContentPart(nil) result.metadata.req=*toolnexus.Request(nil)`,
			`{"level":"INFO","msg":"m","result":{"output":"x","isError":false,"metadata":{"part":"*toolnexus.ContentPart(nil)","req":"*toolnexus.Request(nil)"}}}`},
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

// TestToolResultDescriptionCost checks that describing a result costs the
// same whatever the size of its parts.
func TestToolResultDescriptionCost(t *testing.T) {
	result := func(n int) toolnexus.ToolResult {
		p := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: strings.Repeat("A", n)}
		return toolnexus.Ok("a screenshot", p).WithMetadata("page", 1).WithMetadata("shot", p)
	}
	small, large := result(1<<10), result(16<<20)
	assertCostDoesNotGrow(t, "String", small, large, 0, func(r toolnexus.ToolResult) { costString = r.String() })
	assertCostDoesNotGrow(t, "LogValue", small, large, 4, func(r toolnexus.ToolResult) {
		slog.New(slog.NewJSONHandler(io.Discard, nil)).Info("m", "r", r)
	})
	assertCostDoesNotGrow(t, "GoString", small, large, 1, func(r toolnexus.ToolResult) { costString = r.GoString() })
}

// TestToolResultPrintsNoPayload is the leak matrix of a result: no verb of
// fmt, no method and no slog handler prints a window of a part's data,
// wherever the part is.
func TestToolResultPrintsNoPayload(t *testing.T) {
	t.Parallel()
	data := secretPayload()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Send this?", Data: map[string]any{"attachment": img}}
	values := []struct {
		name      string
		v         any
		jsonWhole bool // slog's JSONHandler encodes it with encoding/json
	}{
		{"result with parts", toolnexus.Ok("two files", img, pdf), false},
		{"error result with a part", toolnexus.Error("failed", img), false},
		{"result pointer", &toolnexus.ToolResult{Output: "pointer", Parts: []toolnexus.ContentPart{img}}, false},
		{"part in metadata", toolnexus.Ok("x").WithMetadata("attachment", img), false},
		{"part pointer in metadata", toolnexus.Ok("x").WithMetadata("attachment", &img), false},
		{"parts in metadata", toolnexus.Ok("x").WithMetadata("attachments", []toolnexus.ContentPart{img, pdf}), false},
		{"result in metadata", toolnexus.Ok("outer").WithMetadata("inner", toolnexus.Ok("inner", img)), false},
		{"data URL in metadata", toolnexus.Ok("x").WithMetadata("url", "data:image/png;base64,"+data), false},
		{"part in a suspension's request", toolnexus.Pending(req), false},
		{"request holding a part", req, false},
		{"redacted result", toolnexus.Ok("x", img).WithMetadata("attachment", img).Redacted(), false},
		{"slice of results", []toolnexus.ToolResult{toolnexus.Ok("x", img)}, true},
		{"struct holding a result", struct{ R toolnexus.ToolResult }{toolnexus.Ok("x", img)}, true},
	}
	for _, tt := range values {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, verb := range printVerbs {
				assertNoPayload(t, fmt.Sprintf(verb, tt.v), data, 16)
			}
			assertNoPayload(t, fmt.Sprint(tt.v), data, 16)
			assertNoPayload(t, fmt.Sprintln(tt.v), data, 16)
			if s, ok := tt.v.(fmt.Stringer); ok {
				assertNoPayload(t, s.String(), data, 16)
			}
			if s, ok := tt.v.(fmt.GoStringer); ok {
				assertNoPayload(t, s.GoString(), data, 16)
			}
			text, js := logWithoutTime(slog.Any("v", tt.v), slog.Group("g", slog.Any("v", tt.v)))
			assertNoPayload(t, text, data, 16)
			if !tt.jsonWhole {
				assertNoPayload(t, js, data, 16)
			}
		})
	}
}

// TestToolResultRedacted checks the parts of a redacted result: each keeps
// its shape without its payload, and the metadata describes what was
// there. Metadata values are covered by TestRedactedMetadata.
func TestToolResultRedacted(t *testing.T) {
	t.Parallel()
	png := fixturePNGPart(t)
	url := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "https://example.com/cat.png"}
	misplaced := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: "data:image/png;base64," + png.Data}
	bad := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AA-_"}
	r := toolnexus.Error("fixture.png (image/png, 82 bytes)", png, url, toolnexus.TextPart("hi"), misplaced, bad).WithMetadata("count", 2)
	before, err := json.Marshal(r)
	require.NoError(t, err)

	red := r.Redacted()
	assert.Equal(t, toolnexus.ToolResult{
		Output:  r.Output,
		IsError: true,
		Parts: []toolnexus.ContentPart{
			{Type: toolnexus.PartImage, MIMEType: "image/png"},
			url,
			toolnexus.TextPart("hi"),
			{Type: toolnexus.PartImage, MIMEType: "image/png"},
			{Type: toolnexus.PartImage, MIMEType: "image/png"},
		},
		Metadata: map[string]any{
			"count": 2,
			toolnexus.MetadataRedacted: []string{
				"image (image/png, 82 bytes) sha256:e050dce0dfb38ac05f5b99c16c209fe8b43b0ac5569fcc992069b23f3caa6923",
				"image (image/png, url)",
				"text (2 bytes)",
				"image (image/png, url)",
				"image (image/png, 3 bytes) (invalid base64)",
			},
		},
	}, red)

	after, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the original is unchanged")
	assert.Equal(t, toolnexus.Ok("done"), toolnexus.Ok("done").Redacted(), "a text-only result stays as it is")
	assert.Equal(t, "redacted", toolnexus.MetadataRedacted)
}

// TestToolResultSharedAcrossGoroutines checks the doc: results that share a
// part or metadata can be used from several goroutines. Run under -race, it
// fails on any write to shared state.
func TestToolResultSharedAcrossGoroutines(t *testing.T) {
	t.Parallel()
	part, err := toolnexus.PartFromBytes([]byte("\x89PNG\r\n\x1a\n shared"), "image/png")
	require.NoError(t, err)
	req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which?", Data: map[string]any{"choices": []any{"dev", "prod"}}}
	meta := map[string]any{"count": 2, "part": part, "parts": []toolnexus.ContentPart{part}, toolnexus.MetadataPending: req}
	wantMeta := maps.Clone(meta)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				_, _ = part.SHA256()
				_ = fmt.Sprintf("%v %#v %q", part, part, part.WithName(fmt.Sprint(g)))
				_ = part.LogValue().Resolve()
				shared := toolnexus.ToolResult{Output: "shared", Parts: []toolnexus.ContentPart{part}, Metadata: meta}
				for _, r := range []toolnexus.ToolResult{shared, shared.WithMetadata(fmt.Sprint("k", g), i), toolnexus.Pending(req), toolnexus.Ok("ok", part)} {
					_ = r.Validate()
					_, _ = toolnexus.PendingOf(r)
					_ = fmt.Sprintf("%v %#v %q", r, r, r)
					_, _ = json.Marshal(r.Redacted())
					b, err := json.Marshal(r)
					if err == nil {
						err = json.Unmarshal(b, new(toolnexus.ToolResult))
					}
					if err != nil {
						panic(err)
					}
					slog.New(slog.NewJSONHandler(io.Discard, nil)).Info("r", "r", r)
				}
				_ = req.Validate()
				_ = req.WithExpiry(now).Expired(now)
				_ = req.Resolve(nil).Check(req, now)
				_, _ = req.MCPElicitParams()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, wantMeta, meta, "the shared metadata map is unchanged")
}

// TestEstimatedTokens pins the estimate every toolnexus port gives: a
// media part max(85, floor(decoded bytes / 750)), a text part a quarter of
// its UTF-16 length, a result its output's quarter plus each part's.
func TestEstimatedTokens(t *testing.T) {
	t.Parallel()
	image := func(n int) toolnexus.ContentPart {
		p, err := toolnexus.PartFromBytes(make([]byte, n), "image/png")
		require.NoError(t, err)
		return p
	}
	url, err := toolnexus.PartFromURL("https://example.com/a.png", "image/png")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		part toolnexus.ContentPart
		want int
	}{
		{"the golden 82-byte PNG", fixturePNGPart(t), 85},
		{"2 MiB", image(2 << 20), 2796},
		{"750 * 85 bytes", image(750 * 85), 85},
		{"750 * 86 - 1 bytes", image(750*86 - 1), 85},
		{"750 * 86 bytes", image(750 * 86), 86},
		{"by URL", url, 85},
		{"text of 7 bytes", toolnexus.TextPart("abcdefg"), 1},
		{"text of 8 bytes", toolnexus.TextPart("abcdefgh"), 2},
		{"text past ASCII, UTF-16 units", toolnexus.TextPart("日本語です"), 1},
		{"text with a rune of two UTF-16 units", toolnexus.TextPart("😀😀"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.part.EstimatedTokens())
		})
	}
	assert.Equal(t, 0, toolnexus.Ok("").EstimatedTokens())
	assert.Equal(t, 2, toolnexus.Ok("deployed").EstimatedTokens())
	assert.Equal(t, 7+85+2796, toolnexus.Ok("fixture.png and a screenshot", fixturePNGPart(t), image(2<<20)).EstimatedTokens())
}
