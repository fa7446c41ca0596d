package genaibridge_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genaibridge"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
)

// fixture returns the 82-byte PNG fixture of the main module and its
// base64.
func fixture(t *testing.T) ([]byte, string) {
	t.Helper()
	png, err := os.ReadFile("../testdata/fixture.png")
	require.NoError(t, err)
	return png, base64.StdEncoding.EncodeToString(png)
}

// marshal returns the JSON of v, which genai's own types give it.
func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestFunctionResponse(t *testing.T) {
	t.Parallel()
	png, data := fixture(t)
	tests := []struct {
		name string
		in   toolnexus.GeminiFunctionResponse
		want *genai.FunctionResponse
		json string
	}{
		{
			"no parts",
			toolnexus.GeminiFunctionResponse{ID: "call_01", Name: "lookup", Response: map[string]any{"output": "eu-west-1"}},
			&genai.FunctionResponse{ID: "call_01", Name: "lookup", Response: map[string]any{"output": "eu-west-1"}},
			`{"id":"call_01","name":"lookup","response":{"output":"eu-west-1"}}`,
		},
		{
			"inline data and a URI, in order",
			toolnexus.GeminiFunctionResponse{Name: "render", Response: map[string]any{"error": "failed"}, Parts: []toolnexus.GeminiFunctionResponsePart{
				{FileData: &toolnexus.GeminiFileData{MIMEType: "application/pdf", FileURI: "gs://bucket/report.pdf"}},
				{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: data}},
			}},
			&genai.FunctionResponse{Name: "render", Response: map[string]any{"error": "failed"}, Parts: []*genai.FunctionResponsePart{
				genai.NewFunctionResponsePartFromURI("gs://bucket/report.pdf", "application/pdf"),
				genai.NewFunctionResponsePartFromBytes(png, "image/png"),
			}},
			`{"parts":[{"fileData":{"fileUri":"gs://bucket/report.pdf","mimeType":"application/pdf"}},` +
				`{"inlineData":{"mimeType":"image/png","data":"` + data + `"}}],"name":"render","response":{"error":"failed"}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := genaibridge.FunctionResponse(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.json, marshal(t, got))
			assert.JSONEq(t, marshal(t, tc.in), marshal(t, got), "genai sends the wire value")
		})
	}
}

func TestFunctionResponseRefuses(t *testing.T) {
	t.Parallel()
	_, data := fixture(t)
	inline := func(d string) toolnexus.GeminiFunctionResponsePart {
		return toolnexus.GeminiFunctionResponsePart{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: d}}
	}
	file := &toolnexus.GeminiFileData{MIMEType: "image/png", FileURI: "gs://b/o.png"}
	tests := []struct {
		name string
		part toolnexus.GeminiFunctionResponsePart
		want error
		msg  string
	}{
		{"not base64", inline("not base64!"), toolnexus.ErrInvalidBase64,
			`toolnexus: part 1 of the response of "render": toolnexus: invalid base64: byte ' ' at offset 3 of "not base64!"`},
		{"a line break", inline(data[:8] + "\n" + data[8:]), toolnexus.ErrInvalidBase64, ""},
		{"padding bits set", inline("AB=="), toolnexus.ErrInvalidBase64, ""},
		{"no data", toolnexus.GeminiFunctionResponsePart{}, toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: part 1 of the response of "render" holds no data`},
		{"both", toolnexus.GeminiFunctionResponsePart{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: data}, FileData: file}, toolnexus.ErrInvalidPart,
			`toolnexus: invalid part: part 1 of the response of "render" holds both inline and file data`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fr := toolnexus.GeminiFunctionResponse{Name: "render", Parts: []toolnexus.GeminiFunctionResponsePart{inline(data), tc.part}}
			got, err := genaibridge.FunctionResponse(fr)
			assert.Nil(t, got)
			require.ErrorIs(t, err, tc.want)
			if tc.msg != "" {
				assert.Equal(t, tc.msg, err.Error())
			}
		})
	}
}

// TestFunctionResponseErrorSize checks that an error shows a bounded head
// of bad data, not the data.
func TestFunctionResponseErrorSize(t *testing.T) {
	t.Parallel()
	bad := strings.Repeat("A", 1<<20) + "!!!!"
	_, err := genaibridge.FunctionResponse(toolnexus.GeminiFunctionResponse{Name: "render", Parts: []toolnexus.GeminiFunctionResponsePart{
		{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: bad}},
	}})
	require.ErrorIs(t, err, toolnexus.ErrInvalidBase64)
	assert.Less(t, len(err.Error()), 200)
}

// screen is a result with text, an inline image, and parts by URL that
// only Vertex AI takes as file data.
func screen(t *testing.T) toolnexus.ToolResult {
	t.Helper()
	png, _ := fixture(t)
	img, err := toolnexus.PartFromBytes(png, "image/png")
	require.NoError(t, err)
	pdf, err := toolnexus.PartFromURL("https://example.com/report.pdf", "application/pdf")
	require.NoError(t, err)
	return toolnexus.Ok("a card and a report", img, pdf)
}

func TestPart(t *testing.T) {
	t.Parallel()
	_, data := fixture(t)
	inline := `{"inlineData":{"mimeType":"image/png","data":"` + data + `"}}`
	gemini := `{"functionResponse":{"parts":[` + inline + `],"id":"call_01","name":"screenshot",` +
		`"response":{"output":"a card and a report\n[unsupported file part (application/pdf, url https://example.com/report.pdf)]"}}}`
	vertex := `{"functionResponse":{"parts":[` + inline + `,{"fileData":{"fileUri":"https://example.com/report.pdf","mimeType":"application/pdf"}}],` +
		`"id":"call_01","name":"screenshot","response":{"output":"a card and a report"}}}`
	tests := []struct {
		name    string
		backend genai.Backend
		json    string
		err     error
	}{
		{"gemini api", genai.BackendGeminiAPI, gemini, nil},
		{"vertex ai", genai.BackendVertexAI, vertex, nil},
		{"enterprise", genai.BackendEnterprise, vertex, nil},
		{"unspecified", genai.BackendUnspecified, "", genaibridge.ErrUnknownBackend},
		{"unknown", genai.Backend(99), "", genaibridge.ErrUnknownBackend},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := genaibridge.Part(tc.backend, screen(t), "screenshot", "call_01")
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.json, marshal(t, got))
		})
	}

	t.Run("unknown backend message", func(t *testing.T) {
		t.Parallel()
		_, err := genaibridge.Part(genai.BackendUnspecified, screen(t), "screenshot", "call_01")
		assert.EqualError(t, err, "toolnexus: unknown genai backend: genai.Backend(0)")
	})

	t.Run("invalid result", func(t *testing.T) {
		t.Parallel()
		bad := toolnexus.Ok("x", toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AB=="})
		got, err := genaibridge.Part(genai.BackendGeminiAPI, bad, "screenshot", "call_01")
		assert.Nil(t, got)
		assert.ErrorIs(t, err, toolnexus.ErrInvalidBase64)
	})
}

func TestContent(t *testing.T) {
	t.Parallel()
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_01", Name: "screenshot", Result: screen(t)},
		{ID: "call_02", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Result: toolnexus.Error("denied")},
	}}
	for _, tc := range []struct {
		name    string
		backend genai.Backend
		wire    func(toolnexus.Turn) (toolnexus.GeminiContent, error)
	}{
		{"gemini api", genai.BackendGeminiAPI, toolnexus.Turn.GeminiContent},
		{"vertex ai", genai.BackendVertexAI, toolnexus.Turn.VertexContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := genaibridge.Content(tc.backend, turn)
			require.NoError(t, err)
			want, err := tc.wire(turn)
			require.NoError(t, err)
			assert.JSONEq(t, marshal(t, want), marshal(t, got))
			require.Len(t, got.Parts, 2)
			part, err := genaibridge.Part(tc.backend, turn.Calls[0].Result, "screenshot", "call_01")
			require.NoError(t, err)
			assert.Equal(t, part, got.Parts[0])
			assert.Equal(t, `{"functionResponse":{"id":"call_02","name":"deploy","response":{"error":"denied"}}}`, marshal(t, got.Parts[1]))
		})
	}

	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		waiting := toolnexus.Turn{Calls: []toolnexus.ToolCall{
			{ID: "call_01", Name: "deploy", Result: toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"})},
		}}
		for _, c := range []struct {
			backend genai.Backend
			turn    toolnexus.Turn
			want    error
		}{
			{genai.BackendGeminiAPI, waiting, toolnexus.ErrIncompleteTurn},
			{genai.BackendGeminiAPI, toolnexus.Turn{}, toolnexus.ErrInvalidTurn},
			{genai.BackendUnspecified, turn, genaibridge.ErrUnknownBackend},
		} {
			got, err := genaibridge.Content(c.backend, c.turn)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, c.want)
		}
	})
}

// FuzzFunctionResponse checks that inline data either is refused or
// decodes to bytes whose base64 is the data, as genai sends it.
func FuzzFunctionResponse(f *testing.F) {
	for _, s := range []string{"", "AA==", "AB==", "iVBORw0KGgo=", "a\nbc", "====", "YWJj"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		fr, err := genaibridge.FunctionResponse(toolnexus.GeminiFunctionResponse{Name: "f", Parts: []toolnexus.GeminiFunctionResponsePart{
			{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: data}},
		}})
		if err != nil {
			if !errors.Is(err, toolnexus.ErrInvalidBase64) {
				t.Fatalf("error %v is not ErrInvalidBase64", err)
			}
			return
		}
		if got := base64.StdEncoding.EncodeToString(fr.Parts[0].InlineData.Data); got != data {
			t.Fatalf("data %q decodes to bytes whose base64 is %q", data, got)
		}
	})
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments), that must print and log no part of it; a
// type that can hold none says why instead. The module has none yet: its
// functions take and return the SDK's values and toolnexus's.
var leakValues = leaktest.Values{}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "genaibridge", leakValues)
}
