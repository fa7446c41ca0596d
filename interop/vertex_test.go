package interop

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genaibridge"
)

// TestGeminiBackends sends one result through genai's two backends, each
// pointed at its own server, as genaibridge.Part makes it for the client's
// backend: the Gemini API gets the image inline and the parts by URL as
// placeholders (it takes no fileData in a function response); Vertex AI
// gets them as fileData, but for the s3 URL it cannot fetch.
func TestGeminiBackends(t *testing.T) {
	t.Parallel()
	r := toolnexus.Ok("3 files",
		part(t, fixturePNG(t), "image/png"),
		urlPart(t, "https://example.com/report.pdf", "application/pdf"),
		urlPart(t, "gs://bucket/cat.jpg", "image/jpeg"),
		urlPart(t, "s3://bucket/a.wav", "audio/wav"))
	png := goldenPNG(t)
	turns := `{"contents":[{"parts":[{"text":"Show me the test card."}],"role":"user"},` +
		`{"parts":[{"functionCall":{"id":"call_01","name":"screenshot"}}],"role":"model"},`
	cases := []struct {
		name   string
		config genai.ClientConfig
		path   string
		body   string
	}{
		{
			"gemini api",
			genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI},
			"/v1/models/gemini-2.5-flash:generateContent",
			turns + `{"parts":[{"functionResponse":{"id":"call_01","name":"screenshot","parts":[` +
				`{"inlineData":{"data":"` + png + `","mimeType":"image/png"}}],` +
				`"response":{"output":"3 files\n[unsupported file part (application/pdf, url https://example.com/report.pdf)]\n` +
				`[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]\n[unsupported audio part (audio/wav, url s3://bucket/a.wav)]"}}}],"role":"user"}]}`,
		},
		{
			"vertex ai",
			genai.ClientConfig{Project: "p", Location: "us-central1", Backend: genai.BackendVertexAI, HTTPClient: http.DefaultClient},
			"/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent",
			turns + `{"parts":[{"functionResponse":{"id":"call_01","name":"screenshot","parts":[` +
				`{"inlineData":{"data":"` + png + `","mimeType":"image/png"}},` +
				`{"fileData":{"fileUri":"https://example.com/report.pdf","mimeType":"application/pdf"}},` +
				`{"fileData":{"fileUri":"gs://bucket/cat.jpg","mimeType":"image/jpeg"}}],` +
				`"response":{"output":"3 files\n[unsupported audio part (audio/wav, url s3://bucket/a.wav)]"}}}],"role":"user"}]}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(geminiReply)
			defer api.Close()
			cfg := tc.config
			cfg.HTTPOptions.BaseURL = api.URL
			client, err := genai.NewClient(context.Background(), &cfg)
			require.NoError(t, err)
			answer, err := genaibridge.Part(client.ClientConfig().Backend, r, "screenshot", "call_01")
			require.NoError(t, err)
			_, err = client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", geminiRequest(answer.FunctionResponse), nil)
			require.NoError(t, err)
			assert.Equal(t, tc.path, api.lastPath())
			assert.Equal(t, tc.body+"\n", string(api.lastBody()), "genai ends the body with a newline")
		})
	}
}
