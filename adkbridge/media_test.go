package adkbridge_test

import (
	"encoding/base64"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/adkbridge"
	"google.golang.org/adk/v2/model"
	"google.golang.org/genai"
)

// TestProcessRequest gives the tool requests whose function responses
// keep media as a session gives them back, sound and not: sound media
// become the response's parts, the rest is refused, and the contents of
// other tools and the session's own values are left alone.
func TestProcessRequest(t *testing.T) {
	t.Parallel()
	png, err := os.ReadFile("testdata/fixture.png")
	require.NoError(t, err)
	b64 := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name    string
		media   any
		want    []*genai.FunctionResponsePart
		wantErr error
	}{
		{"inline, as the tool keeps it", []toolnexus.GeminiFunctionResponsePart{{InlineData: &toolnexus.GeminiBlob{MIMEType: "image/png", Data: b64}}},
			[]*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: png}}}, nil},
		{"inline and a file, as JSON gives them back", []any{
			map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": b64}},
			map[string]any{"fileData": map[string]any{"mimeType": "application/pdf", "fileUri": "gs://b/o.pdf"}},
		}, []*genai.FunctionResponsePart{
			{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: png}},
			{FileData: &genai.FunctionResponseFileData{MIMEType: "application/pdf", FileURI: "gs://b/o.pdf"}},
		}, nil},
		{"base64 with a line break", []any{map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": b64[:8] + "\n" + b64[8:]}}}, nil, toolnexus.ErrInvalidBase64},
		{"not base64", []any{map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "!!"}}}, nil, toolnexus.ErrInvalidBase64},
		{"neither", []any{map[string]any{}}, nil, toolnexus.ErrInvalidPart},
		{"both", []any{map[string]any{"inlineData": map[string]any{"data": b64}, "fileData": map[string]any{"fileUri": "gs://b/o"}}}, nil, toolnexus.ErrInvalidPart},
		{"not a list", "media", nil, toolnexus.ErrInvalidPart},
		{"a key in another case", []any{map[string]any{"InlineData": map[string]any{"mimeType": "image/png", "data": b64}}}, nil, toolnexus.ErrInvalidPart},
	}
	tl, err := adkbridge.New("shoot", "Takes a screenshot", nil, (&deleteTool{}).run)
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ours := &genai.FunctionResponse{ID: "c", Name: "shoot", Response: map[string]any{"output": "shot", "toolnexus.media": tc.media}}
			theirs := &genai.FunctionResponse{ID: "d", Name: "other", Response: map[string]any{"toolnexus.media": "kept"}}
			content := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: ours}, {FunctionResponse: theirs}}}
			before := content.Parts
			req := &model.LLMRequest{Contents: []*genai.Content{content}}
			err := tl.ProcessRequest(nil, req)
			assert.Same(t, ours, before[0].FunctionResponse, "the parts given are not changed")
			assert.Equal(t, "shot", ours.Response["output"])
			assert.Contains(t, ours.Response, "toolnexus.media")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Contains(t, err.Error(), `(a response of tool "shoot")`)
				return
			}
			require.NoError(t, err)
			got := req.Contents[0].Parts
			require.Len(t, got, 2)
			assert.Equal(t, &genai.FunctionResponse{ID: "c", Name: "shoot", Response: map[string]any{"output": "shot"}, Parts: tc.want}, got[0].FunctionResponse)
			assert.Same(t, theirs, got[1].FunctionResponse)
			assert.Equal(t, []string{"shoot"}, []string{req.Config.Tools[0].FunctionDeclarations[0].Name})
		})
	}
}
