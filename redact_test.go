package toolnexus_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// attachment is a struct of the caller's holding a part.
type attachment struct {
	Title string
	Part  toolnexus.ContentPart
	note  string
}

// TestRedactedMetadata checks the promise of Redacted: whatever the caller
// put in metadata, no payload survives in the JSON or any printed form of
// the redacted result, the original is unchanged, and LogValue, which finds
// payloads the same way, logs none.
func TestRedactedMetadata(t *testing.T) {
	t.Parallel()
	data := secretPayload()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: data, Name: "report.pdf"}
	imgOut := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}
	pdfOut := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Name: "report.pdf"}
	dataURL := "data:image/png;base64," + data
	inMisplaced := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: dataURL}
	var decodedPart map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type":"image","mimeType":"image/png","data":"`+data+`","extra":1}`), &decodedPart))
	var decodedURL map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type":"file","mimeType":"application/pdf","url":"`+dataURL+`","name":"r.pdf"}`), &decodedURL))
	raw, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	// A result as it is once redacted, for the results nested in metadata.
	redactedInner := toolnexus.ToolResult{Output: "inner", Parts: []toolnexus.ContentPart{imgOut},
		Metadata: map[string]any{toolnexus.MetadataRedacted: []string{"image (image/png, 1048576 bytes) sha256:" + hex.EncodeToString(sum[:])}}}

	tests := []struct {
		name string
		v    any
		want any // the metadata value once redacted
	}{
		{"ContentPart", img, imgOut},
		{"*ContentPart", &img, &imgOut},
		{"[]ContentPart", []toolnexus.ContentPart{img, pdf}, []toolnexus.ContentPart{imgOut, pdfOut}},
		{"[]*ContentPart", []*toolnexus.ContentPart{&img, nil}, []*toolnexus.ContentPart{&imgOut, nil}},
		{"[2]ContentPart", [2]toolnexus.ContentPart{img, toolnexus.TextPart("t")}, [2]toolnexus.ContentPart{imgOut, toolnexus.TextPart("t")}},
		{"map[string]ContentPart", map[string]toolnexus.ContentPart{"a": img}, map[string]toolnexus.ContentPart{"a": imgOut}},
		{"[]any", []any{img, "text", 3}, []any{imgOut, "text", 3}},
		{"map[string]any", map[string]any{"shot": img, "n": 1}, map[string]any{"shot": imgOut, "n": 1}},
		{"struct of the caller's", attachment{Title: "t", Part: img, note: "n"}, attachment{Title: "t", Part: imgOut, note: "n"}},
		{"pointer to a struct of the caller's", &attachment{Part: pdf}, &attachment{Part: pdfOut}},
		{"structs of the caller's, one holding a part", []attachment{{Title: "t"}, {Part: img}}, []attachment{{Title: "t"}, {Part: imgOut}}},
		{"ToolResult", toolnexus.Ok("inner", img), redactedInner},
		{"*ToolResult", &toolnexus.ToolResult{Output: "inner", Parts: []toolnexus.ContentPart{img}}, &redactedInner},
		{"[]ToolResult", []toolnexus.ToolResult{toolnexus.Ok("inner", img)}, []toolnexus.ToolResult{redactedInner}},
		{"result nested in a result", toolnexus.Ok("outer").WithMetadata("inner", toolnexus.Ok("inner", img)),
			toolnexus.ToolResult{Output: "outer", Metadata: map[string]any{"inner": redactedInner}}},
		{"part decoded from JSON", decodedPart, map[string]any{"type": "image", "mimeType": "image/png", "extra": 1.0}},
		{"part decoded from JSON with a data URL", decodedURL, map[string]any{"type": "file", "mimeType": "application/pdf", "name": "r.pdf"}},
		{"data URL string", dataURL, "data:image/png;base64,…"},
		{"data URL in a part's url", inMisplaced, imgOut},
		{"Request holding a part", toolnexus.Request{ID: "r", Kind: toolnexus.KindApproval, Prompt: "Send?", Data: map[string]any{"file": pdf}},
			toolnexus.Request{ID: "r", Kind: toolnexus.KindApproval, Prompt: "Send?", Data: map[string]any{"file": pdfOut}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.Ok("x").WithMetadata("v", tt.v).WithMetadata("n", 1)
			before, err := json.Marshal(r)
			require.NoError(t, err)

			red := r.Redacted()
			assert.Equal(t, tt.want, red.Metadata["v"])
			assert.Equal(t, 1, red.Metadata["n"])
			out, err := json.Marshal(red)
			require.NoError(t, err)
			assertNoPayload(t, string(out), data, 16)
			for _, verb := range printVerbs {
				assertNoPayload(t, fmt.Sprintf(verb, red), data, 16)
				assertNoPayload(t, fmt.Sprintf(verb, red.Metadata["v"]), data, 16)
			}

			after, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "the original is unchanged")
			assert.Contains(t, string(after), data[:64])

			text, js := logWithoutTime(slog.Any("result", r))
			assertNoPayload(t, text, data, 16)
			assertNoPayload(t, js, data, 16)
		})
	}
}

// reaches reports whether a window of data can be found in v, following
// every map, slice, array, pointer, interface and exported field once.
func reaches(v any, data string) bool {
	type ref struct {
		t reflect.Type
		p uintptr
		n int
	}
	seen := map[ref]bool{}
	stack := []reflect.Value{reflect.ValueOf(v)}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !v.IsValid() {
			continue
		}
		switch v.Kind() {
		case reflect.Map, reflect.Slice, reflect.Pointer:
			if v.IsNil() {
				continue
			}
			r := ref{v.Type(), v.Pointer(), 0}
			if v.Kind() == reflect.Slice {
				r.n = v.Len()
			}
			if seen[r] {
				continue
			}
			seen[r] = true
		}
		switch v.Kind() {
		case reflect.String:
			if strings.Contains(v.String(), data[100:116]) {
				return true
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				if strings.Contains(string(v.Bytes()), data[100:116]) {
					return true
				}
				continue
			}
			for i := range v.Len() {
				stack = append(stack, v.Index(i))
			}
		case reflect.Interface, reflect.Pointer:
			stack = append(stack, v.Elem())
		case reflect.Array:
			for i := range v.Len() {
				stack = append(stack, v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				stack = append(stack, it.Key(), it.Value())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					stack = append(stack, v.Field(i))
				}
			}
		}
	}
	return false
}

// within runs f and fails the test if it does not end in a minute.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("does not end")
	}
}

// hostileMetadata builds metadata values that link back to themselves or
// nest deeply, each holding the payload data somewhere.
func hostileMetadata(t *testing.T, data string) map[string]func() any {
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	dataURL := "data:image/png;base64," + data
	type node struct {
		Part       toolnexus.ContentPart
		Next, Also *node
	}
	type box struct{ A [2]any }
	type wrap struct{ X any }
	deepJSON := func(open, close, leaf string, n int) any {
		in := `{"output":"x","isError":false,"metadata":{"v":` + strings.Repeat(open, n) + leaf + strings.Repeat(close, n) + `}}`
		r, err := toolnexus.ParseToolResult([]byte(in), 0)
		require.NoError(t, err)
		return r.Metadata["v"]
	}
	part := `{"type":"image","mimeType":"image/png","data":"` + data + `"}`
	return map[string]func() any{
		"map holding itself": func() any {
			m := map[string]any{"img": img}
			m["self"] = m
			return m
		},
		"slice holding itself": func() any {
			s := make([]any, 2)
			s[0], s[1] = dataURL, s
			return s
		},
		"array in a struct behind a pointer": func() any {
			b := &box{}
			b.A = [2]any{img, b}
			return b
		},
		"pointer cycle": func() any {
			n := &node{Part: img}
			n.Next = n
			return n
		},
		"interface holding a pointer to itself": func() any {
			var x any
			x = []any{&x, dataURL}
			return &x
		},
		"cycle through two maps": func() any {
			a, b := map[string]any{"img": img}, map[string]any{}
			a["b"], b["a"] = b, a
			return []any{a, b}
		},
		"map twice holding itself": func() any {
			m := map[string]any{"img": img}
			m["a"], m["b"] = m, m
			return m
		},
		"maps branching 64 levels": func() any {
			var v any = map[string]any{"img": img}
			for range 64 {
				v = map[string]any{"l": v, "r": v}
			}
			return v
		},
		"slices branching 64 levels": func() any {
			var v any = []any{dataURL}
			for range 64 {
				v = []any{v, v}
			}
			return v
		},
		"pointers branching 64 levels": func() any {
			n := &node{Part: img}
			for range 64 {
				n = &node{Next: n, Also: n}
			}
			return n
		},
		"result holding itself": func() any {
			r := toolnexus.Ok("inner", img)
			r.Metadata = map[string]any{}
			r.Metadata["self"], r.Metadata["ptr"] = r, &r
			return &r
		},
		"part 9 990 objects deep from JSON": func() any {
			return deepJSON(`{"a":`, `}`, part, 9990)
		},
		"data URL 9 990 arrays deep from JSON": func() any {
			return deepJSON(`[`, `]`, `{"src":"`+dataURL+`"}`, 9990)
		},
		"part 20 000 maps deep": func() any { // twice jsonscan.MaxDepth
			var v any = img
			for range 20_000 {
				v = map[string]any{"a": v}
			}
			return v
		},
		"data URL 20 000 structs deep in place": func() any {
			var v any = dataURL
			for range 20_000 {
				v = wrap{X: v}
			}
			return v
		},
	}
}

// TestHostileMetadata checks that Redacted, LogValue, String, GoString and
// every fmt verb end on metadata that links back to itself, along one path
// or many, or nests deeply, and that none of them lets the payload through.
func TestHostileMetadata(t *testing.T) {
	t.Parallel()
	data := secretPayload()
	for name, build := range hostileMetadata(t, data) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := build()
			r := toolnexus.Ok("x").WithMetadata("v", v)
			within(t, func() {
				red := r.Redacted()
				assert.False(t, reaches(red, data), "Redacted keeps the payload")
				assert.True(t, reaches(r, data), "the original keeps it")
				text, js := logWithoutTime(slog.Any("r", r))
				for _, out := range []string{text, js, r.String(), r.GoString(), fmt.Sprintf("%v %+v %#v %s %q", r, r, r, r, r)} {
					assert.NotContains(t, out, data[100:116])
				}
			})
		})
	}
}

// TestRedactedKeepsCycles checks that a redacted copy links as the original
// does: a map holding itself is a copy holding the copy.
func TestRedactedKeepsCycles(t *testing.T) {
	t.Parallel()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}
	m := map[string]any{"img": img, "n": 1}
	m["self"] = m
	type node struct {
		Part toolnexus.ContentPart
		Next *node
	}
	n := &node{Part: img}
	n.Next = n
	red := toolnexus.Ok("x").WithMetadata("m", m).WithMetadata("list", n).Redacted()

	got := red.Metadata["m"].(map[string]any)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}, got["img"])
	assert.Equal(t, 1, got["n"])
	assert.Equal(t, reflect.ValueOf(got).Pointer(), reflect.ValueOf(got["self"]).Pointer(), "the copy holds itself")
	assert.NotEqual(t, reflect.ValueOf(m).Pointer(), reflect.ValueOf(got).Pointer())
	assert.Equal(t, img, m["img"], "the original is unchanged")

	list := red.Metadata["list"].(*node)
	assert.Empty(t, list.Part.Data)
	assert.Same(t, list, list.Next)
	assert.Equal(t, "AAAA", n.Part.Data, "the original is unchanged")
}

// TestRedactedPartMembers checks that an object shaped like a part loses
// its own payload and that of every member: a nested part, a data URL, an
// array of parts.
func TestRedactedPartMembers(t *testing.T) {
	t.Parallel()
	data := secretPayload()[:64]
	in := `{"output":"x","isError":false,"metadata":{"v":{"type":"image","mimeType":"image/png","data":"` + data + `",` +
		`"thumb":{"type":"image","mimeType":"image/png","data":"` + data + `"},"src":"data:image/png;base64,` + data + `",` +
		`"more":[{"type":"audio","mimeType":"audio/wav","url":"data:audio/wav;base64,` + data + `","name":"a.wav"},"data:,` + data + `"]}}}`
	r, err := toolnexus.ParseToolResult([]byte(in), 0)
	require.NoError(t, err)
	out, err := json.Marshal(r.Redacted())
	require.NoError(t, err)
	assert.Equal(t, `{"output":"x","isError":false,"metadata":{"v":{"mimeType":"image/png","more":[{"mimeType":"audio/wav","name":"a.wav","type":"audio"},"data:,…"],`+
		`"src":"data:image/png;base64,…","thumb":{"mimeType":"image/png","type":"image"},"type":"image"}}}`, string(out))
}

// TestRedactedCostIsLinear checks that the walk of Redacted and LogValue
// allocates in proportion to the distinct values of the metadata, however
// they are linked: ten times the nodes, at most about ten times the
// allocations.
func TestRedactedCostIsLinear(t *testing.T) {
	for _, shape := range hostileShapes {
		small, large := shape.build(1000), shape.build(10_000)
		for _, op := range []struct {
			name string
			f    func(toolnexus.ToolResult)
		}{
			{"Redacted", func(r toolnexus.ToolResult) { _ = r.Redacted() }},
			{"LogValue", func(r toolnexus.ToolResult) { slog.New(slog.NewJSONHandler(io.Discard, nil)).Info("m", "r", r) }},
		} {
			a, _ := callCost(2, func() { op.f(small) })
			b, _ := callCost(2, func() { op.f(large) })
			t.Logf("%s %s: %d allocations at 1 000 nodes, %d at 10 000", shape.name, op.name, a, b)
			assert.LessOrEqual(t, b, 12*a+100, "%s %s", shape.name, op.name)
		}
	}
}

// hostileShapes build metadata of n nodes: wide (one map of n parts),
// deep (n nested maps, a part at the bottom) and cyclic (n maps, each
// holding the next twice and the first once).
var hostileShapes = []struct {
	name  string
	build func(n int) toolnexus.ToolResult
}{
	{"wide", func(n int) toolnexus.ToolResult {
		m := make(map[string]any, n)
		for i := range n {
			m[strconv.Itoa(i)] = map[string]any{"type": "image", "mimeType": "image/png", "data": "AAAA"}
		}
		return toolnexus.Ok("x").WithMetadata("v", m)
	}},
	{"deep", func(n int) toolnexus.ToolResult {
		var v any = toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}
		for range n {
			v = map[string]any{"a": v}
		}
		return toolnexus.Ok("x").WithMetadata("v", v)
	}},
	{"cyclic", func(n int) toolnexus.ToolResult {
		first := map[string]any{"img": toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}}
		m := first
		for range n - 1 {
			next := map[string]any{"first": first}
			m["l"], m["r"] = next, next
			m = next
		}
		m["first"] = first
		return toolnexus.Ok("x").WithMetadata("v", first)
	}},
}

// BenchmarkRedacted measures Redacted and LogValue on metadata of 1 000 and
// 10 000 nodes of each shape: the time per node stays the same.
func BenchmarkRedacted(b *testing.B) {
	for _, shape := range hostileShapes {
		for _, n := range []int{1000, 10_000} {
			r := shape.build(n)
			b.Run(fmt.Sprintf("shape=%s/nodes=%d/op=Redacted", shape.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = r.Redacted()
				}
			})
			b.Run(fmt.Sprintf("shape=%s/nodes=%d/op=LogValue", shape.name, n), func(b *testing.B) {
				b.ReportAllocs()
				h := slog.New(slog.NewJSONHandler(io.Discard, nil))
				for b.Loop() {
					h.Info("m", "r", r)
				}
			})
		}
	}
}

// TestRedactedWireValues checks what Redacted keeps of a wire value in
// metadata: all but its payload (the leak matrix checks that none is left).
func TestRedactedWireValues(t *testing.T) {
	t.Parallel()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}
	c := toolnexus.Ok("x", img, img.WithName("a.png")).MCPCallToolResult()
	red := toolnexus.Ok("x").WithMetadata("mcp", c).Redacted()
	assert.Equal(t, toolnexus.MCPCallToolResult{Content: []toolnexus.MCPContent{{Type: "text", Text: "x"}, {Type: "image", MIMEType: "image/png"}, {Type: "image", MIMEType: "image/png"}}},
		red.Metadata["mcp"])
	web := toolnexus.OpenAIImageURL{URL: "https://example.com/a.png"}
	assert.Equal(t, web, toolnexus.Ok("x").WithMetadata("u", web).Redacted().Metadata["u"])
}
