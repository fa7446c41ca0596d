package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// mcpJSONCases are results whose JSON AppendJSON must write as json.Marshal
// does: those the package's own results give, and hand-made ones whose
// strings hold every byte encoding/json escapes.
func mcpJSONCases(t testing.TB) map[string]toolnexus.MCPCallToolResult {
	png := fixturePNGPart(t)
	plain, err := toolnexus.PartFromBytes([]byte("plain"), "text/plain")
	require.NoError(t, err)
	pdf, err := toolnexus.PartFromURL("https://example.com/a.pdf", "application/pdf")
	require.NoError(t, err)
	tricky := "a\"b\\c\b\f\n\r\t\x00\x01\x1f\x7f <tag> & \u2028\u2029 é 日本 \xff\xc3 end"
	return map[string]toolnexus.MCPCallToolResult{
		"text":       toolnexus.Ok("line 1\n\tline \"2\" C:\\path <b>&</b>").MCPCallToolResult(),
		"error":      toolnexus.Error("no such file").MCPCallToolResult(),
		"image":      toolnexus.Ok("a chart", png).MCPCallToolResult(),
		"resources":  toolnexus.Ok("files", plain, pdf).MCPCallToolResult(),
		"structured": toolnexus.Ok(`{"n":1}`).WithMetadata(toolnexus.MetadataStructuredContent, json.RawMessage(` {"n" : 1, "html":"<&>"} `)).MCPCallToolResult(),
		"pending":    toolnexus.Pending(toolnexus.Request{ID: "r1", Kind: toolnexus.KindInput, Prompt: "Which <env>?"}).MCPCallToolResult(),
		"input required": {
			ResultType:    "input_required",
			InputRequests: map[string]toolnexus.MCPInputRequest{"b": {Method: "roots/list"}, "a": {Method: "elicitation/create", Params: json.RawMessage(`{"message":"<ok>"}`)}},
			RequestState:  "tn1.abc<>",
		},
		"nil content":   {},
		"empty content": {Content: []toolnexus.MCPContent{}},
		"every field": {Content: []toolnexus.MCPContent{
			{Type: tricky, Text: tricky, Data: tricky, MIMEType: tricky, URI: tricky, Name: tricky, Resource: &toolnexus.MCPResource{URI: tricky, MIMEType: tricky, Text: tricky, Blob: tricky}},
			{Type: "resource", Resource: &toolnexus.MCPResource{}},
		}, IsError: true, ResultType: tricky, RequestState: tricky},
	}
}

func TestMCPCallToolResultAppendJSON(t *testing.T) {
	for name, c := range mcpJSONCases(t) {
		want, err := json.Marshal(c)
		require.NoError(t, err, name)
		got, err := c.AppendJSON(nil)
		require.NoError(t, err, name)
		assert.Equal(t, string(want), string(got), name)
		assert.Equal(t, len(got), cap(got), "%s: the buffer is grown once, to the exact size", name)

		prefix := []byte("data: ")
		got, err = c.AppendJSON(prefix)
		require.NoError(t, err, name)
		assert.Equal(t, "data: "+string(want), string(got), name)
	}
}

func TestMCPCallToolResultAppendJSONErrors(t *testing.T) {
	for _, c := range []toolnexus.MCPCallToolResult{
		{StructuredContent: json.RawMessage(`{"n":`)},
		{InputRequests: map[string]toolnexus.MCPInputRequest{"a": {Method: "roots/list", Params: json.RawMessage(`nope`)}}},
	} {
		_, want := json.Marshal(c)
		require.Error(t, want)
		prefix := []byte("kept")
		got, err := c.AppendJSON(prefix)
		require.Error(t, err)
		assert.Equal(t, "kept", string(got), "b comes back unchanged")
		var syntax *json.SyntaxError
		assert.ErrorAs(t, err, &syntax, "json.Marshal's error: %v", err)
	}
}

// TestMCPCallToolResultAppendJSONFields checks that AppendJSON knows every
// field of the three types it writes by hand: a field added to one fails
// here until AppendJSON writes it.
func TestMCPCallToolResultAppendJSONFields(t *testing.T) {
	tags := func(v any) string {
		var s []string
		for t, i := reflect.TypeOf(v), 0; i < t.NumField(); i++ {
			s = append(s, t.Field(i).Tag.Get("json"))
		}
		return strings.Join(s, " ")
	}
	assert.Equal(t, "content structuredContent,omitempty isError resultType,omitempty inputRequests,omitempty requestState,omitempty", tags(toolnexus.MCPCallToolResult{}))
	assert.Equal(t, "type text,omitempty data,omitempty mimeType,omitempty uri,omitempty name,omitempty resource,omitempty", tags(toolnexus.MCPContent{}))
	assert.Equal(t, "uri mimeType,omitempty text,omitempty blob,omitempty", tags(toolnexus.MCPResource{}))
}

func FuzzMCPCallToolResultAppendJSON(f *testing.F) {
	f.Add("text", "a\n\"b\"", "", "", "", false, "")
	f.Add("image", "", "iVBORw0KGgo=", "image/png", "", true, "input_required")
	f.Add("\xff", "\u2028<&>", "\x00", "\x7f", "é", false, "\xc3")
	f.Fuzz(func(t *testing.T, typ, text, data, mime, uri string, isError bool, resultType string) {
		c := toolnexus.MCPCallToolResult{
			Content: []toolnexus.MCPContent{
				{Type: typ, Text: text, Data: data, MIMEType: mime, URI: uri, Name: text},
				{Type: "resource", Resource: &toolnexus.MCPResource{URI: uri, MIMEType: mime, Text: text, Blob: data}},
			},
			IsError: isError, ResultType: resultType, RequestState: data,
		}
		want, err := json.Marshal(c)
		require.NoError(t, err)
		got, err := c.AppendJSON(nil)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		require.Equal(t, len(got), cap(got))
	})
}

// A result goes to MCP JSON in one buffer of its exact size: for a large
// file, the only copy of its base64 beside the part itself.
func ExampleMCPCallToolResult_AppendJSON() {
	res := toolnexus.Ok("3 files changed\n")
	out, err := res.MCPCallToolResult().AppendJSON(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"content":[{"type":"text","text":"3 files changed\n"}],"isError":false}
}
