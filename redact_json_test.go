package toolnexus_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// wrapped writes the JSON of a part it keeps unexported, as a loop's
// message type marshals what it holds.
type wrapped struct{ p toolnexus.ContentPart }

func (w wrapped) MarshalJSON() ([]byte, error) { return json.Marshal(w.p) }

// failing fails to write its JSON, or panics doing it.
type failing struct{ panics bool }

func (f failing) MarshalJSON() ([]byte, error) {
	if f.panics {
		panic("no JSON")
	}
	return nil, errors.New("no JSON")
}

// dataURLText writes a data URL as its text.
type dataURLText struct{}

func (dataURLText) MarshalText() ([]byte, error) { return []byte("data:image/png;base64,QUJD"), nil }

// holder holds raw JSON and a marshaler in fields of their own types.
type holder struct {
	Raw  json.RawMessage
	Part wrapped
	Note string
}

// TestRedactedRawJSON checks that raw JSON, and any value that writes its
// own JSON, is redacted as the JSON it holds: read with exact keys,
// redacted as decoded metadata is, written again (keys sorted, numbers as
// written); JSON that cannot be read is described, never kept.
func TestRedactedRawJSON(t *testing.T) {
	t.Parallel()
	part := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "QUJD"}
	raw := json.RawMessage(`{"b":1, "a":{"type":"image","mimeType":"image/png","data":"QUJD"},"u":"data:image/png;base64,QUJD","n":12345678901234567890,"t":"<&>"}`)
	const want = `{"a":{"mimeType":"image/png","type":"image"},"b":1,"n":12345678901234567890,"t":"<&>","u":"data:image/png;base64,…"}`
	plain := json.RawMessage(`{"z": 1, "a": "kept as written"}`)
	r := toolnexus.Ok("x").
		WithMetadata("raw", raw).
		WithMetadata("nested", map[string]any{"list": []any{raw}}).
		WithMetadata("plain", plain).
		WithMetadata("empty", json.RawMessage(nil)).
		WithMetadata("invalid", json.RawMessage(`{"data":"QUJD"`)).
		WithMetadata("notUTF8", json.RawMessage("{\"type\":\"text\",\"text\":\"\xff\"}")).
		WithMetadata("twice", json.RawMessage(`{"type":"image","data":"QUJD","data":"QUJE"}`)).
		WithMetadata("wrapped", wrapped{part}).
		WithMetadata("ptr", &wrapped{part}).
		WithMetadata("failing", failing{}).
		WithMetadata("panics", failing{panics: true}).
		WithMetadata("text", dataURLText{}).
		WithMetadata("holder", holder{Raw: raw, Part: wrapped{part}, Note: "n"})
	red := r.Redacted()

	m := red.Metadata
	assert.Equal(t, json.RawMessage(want), m["raw"])
	assert.Equal(t, map[string]any{"list": []any{json.RawMessage(want)}}, m["nested"])
	assert.Equal(t, plain, m["plain"], "raw JSON without a payload is kept as it is")
	assert.Equal(t, json.RawMessage(nil), m["empty"])
	assert.Equal(t, json.RawMessage(`"[json.RawMessage: not JSON, 14 bytes]"`), m["invalid"])
	assert.Equal(t, json.RawMessage(`"[json.RawMessage: not JSON, 26 bytes]"`), m["notUTF8"], "not UTF-8: refused, not replaced with U+FFFD")
	assert.Equal(t, json.RawMessage(`{"type":"image"}`), m["twice"], "a key that repeats: both gone")
	assert.Equal(t, json.RawMessage(`{"mimeType":"image/png","type":"image"}`), m["wrapped"])
	assert.Equal(t, json.RawMessage(`{"mimeType":"image/png","type":"image"}`), m["ptr"])
	assert.Equal(t, json.RawMessage(`"[toolnexus_test.failing: no JSON]"`), m["failing"])
	assert.Equal(t, json.RawMessage(`"[toolnexus_test.failing: no JSON]"`), m["panics"])
	assert.Equal(t, json.RawMessage(`"data:image/png;base64,…"`), m["text"])
	assert.Equal(t, holder{Raw: json.RawMessage(want), Note: "n"}, m["holder"], "a marshaler in a field of its own type is dropped")

	// The original is untouched.
	assert.Equal(t, raw, r.Metadata["raw"])
	assert.Equal(t, wrapped{part}, r.Metadata["wrapped"])

	b, err := json.Marshal(red)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "QUJD")
	assert.NotContains(t, string(b), "QUJE")
}

// TestRawJSONPrintsNoPayload checks that raw JSON and marshalers in
// metadata print and log as their type and length, wherever they are.
func TestRawJSONPrintsNoPayload(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"type":"image","mimeType":"image/png","data":"QUJD"}`)
	part := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "QUJD"}
	r := toolnexus.Ok("x").WithMetadata("raw", raw).
		WithMetadata("m", map[string]any{"r": raw, "w": wrapped{part}}).
		WithMetadata("l", []any{raw})
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: dropTime})).Info("m", "r", r)
	assert.Equal(t, `level=INFO msg=m r.output=x r.isError=false r.metadata.l.0="json.RawMessage (len 53)" r.metadata.m.r="json.RawMessage (len 53)" r.metadata.m.w=toolnexus_test.wrapped r.metadata.raw="json.RawMessage (len 53)"`+"\n", b.String())
	assert.Equal(t, `toolnexus.ToolResult{Output:"x", IsError:false, Parts:[]toolnexus.ContentPart(nil), Metadata:map[string]interface {}{"l":[]interface {}(len 1), "m":map[string]interface {}(len 2), "raw":json.RawMessage(len 53)}}`, fmt.Sprintf("%#v", r))
	assert.Equal(t, `ok "x" metadata=[l m raw]`, fmt.Sprint(r))
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
