package toolnexus_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
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

// TestRedactedCycle checks that a cycle of pointers in metadata ends.
func TestRedactedCycle(t *testing.T) {
	t.Parallel()
	type node struct {
		Part toolnexus.ContentPart
		Next *node
	}
	n := &node{Part: toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}}
	n.Next = n
	r := toolnexus.Ok("x").WithMetadata("list", n)
	done := make(chan toolnexus.ToolResult)
	go func() {
		red := r.Redacted()
		_, _ = logWithoutTime(slog.Any("r", r))
		done <- red
	}()
	select {
	case red := <-done:
		got := red.Metadata["list"].(*node)
		assert.Empty(t, got.Part.Data)
		assert.Empty(t, got.Next.Part.Data)
		assert.Equal(t, "AAAA", n.Part.Data, "the original is unchanged")
	case <-time.After(10 * time.Second):
		t.Fatal("Redacted does not end on a cycle")
	}
}
