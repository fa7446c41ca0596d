package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// destinations maps the destination names of the shared tests to their
// Destination.
var destinations = map[string]string{
	"anthropic":        toolnexus.DestinationAnthropic,
	"openai chat":      toolnexus.DestinationOpenAIChat,
	"openai responses": toolnexus.DestinationOpenAIResponses,
	"gemini":           toolnexus.DestinationGemini,
	"vertex":           toolnexus.DestinationVertex,
	"mcp":              toolnexus.DestinationMCP,
	"openai agents":    toolnexus.DestinationOpenAIAgents,
}

func TestUnsupported(t *testing.T) {
	t.Parallel()
	r := toolnexus.Ok("out",
		textNote,
		imagePNG,
		audioWAV,
		imageAt("s3://bucket/cat.jpg"),
		pdfAt("https://example.com/report.pdf"),
		file("text/plain", "/w==", "bad.txt"),
		image("image/bmp", "Qk0="),
		toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}, // neither data nor URL
	)
	invalid := `{"index":7,"part":"image (image/png, 0 bytes)","reason":"invalid","placeholder":"[unsupported image part (image/png, 0 bytes)]"}`
	wav := func(reason string) string {
		return `{"index":2,"part":"audio (audio/wav, 12 bytes)","reason":"` + reason + `","placeholder":"[unsupported audio part (audio/wav, 12 bytes)]"}`
	}
	s3 := func(reason string) string {
		return `{"index":3,"part":"image (image/jpeg, url)","reason":"` + reason + `","placeholder":"[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]"}`
	}
	bmp := `{"index":6,"part":"image (image/bmp, 2 bytes)","reason":"mediaType","placeholder":"[unsupported image part (image/bmp, 2 bytes)]"}`
	badText := func(reason string) string {
		return `{"index":5,"part":"file (text/plain, 1 bytes)","reason":"` + reason + `","placeholder":"[unsupported file part (text/plain, 1 bytes)]"}`
	}
	want := map[string]string{
		toolnexus.DestinationAnthropic: `[` + wav("type") + `,` + s3("urlScheme") + `,` + badText("encoding") + `,` + bmp + `,` + invalid + `]`,
		toolnexus.DestinationOpenAIChat: `[` + s3("urlScheme") +
			`,{"index":4,"part":"file (application/pdf, url)","reason":"url","placeholder":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"},` +
			badText("encoding") + `,` + bmp + `,` + invalid + `]`,
		toolnexus.DestinationOpenAIResponses: `[` + wav("type") + `,` + s3("urlScheme") + `,` + bmp + `,` + invalid + `]`,
		toolnexus.DestinationGemini: `[` + s3("url") +
			`,{"index":4,"part":"file (application/pdf, url)","reason":"url","placeholder":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"},` +
			bmp + `,` + invalid + `]`,
		toolnexus.DestinationVertex: `[` + s3("urlScheme") + `,` + bmp + `,` + invalid + `]`,
		toolnexus.DestinationMCP:    `[` + invalid + `]`,
		toolnexus.DestinationOpenAIAgents: `[` + wav("type") + `,` + s3("urlScheme") +
			`,{"index":4,"part":"file (application/pdf, url)","reason":"type","placeholder":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"},` +
			badText("type") + `,` + bmp + `,` + invalid + `]`,
		"smoke-signals": `[` + strings.Join([]string{
			`{"index":1,"part":"image (image/png, 8 bytes)","reason":"destination","placeholder":"[unsupported image part (image/png, 8 bytes)]"}`,
			`{"index":2,"part":"audio (audio/wav, 12 bytes)","reason":"destination","placeholder":"[unsupported audio part (audio/wav, 12 bytes)]"}`,
			`{"index":3,"part":"image (image/jpeg, url)","reason":"destination","placeholder":"[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]"}`,
			`{"index":4,"part":"file (application/pdf, url)","reason":"destination","placeholder":"[unsupported file part (application/pdf, url https://example.com/report.pdf)]"}`,
			`{"index":5,"part":"file (text/plain, 1 bytes)","reason":"destination","placeholder":"[unsupported file part (text/plain, 1 bytes)]"}`,
			`{"index":6,"part":"image (image/bmp, 2 bytes)","reason":"destination","placeholder":"[unsupported image part (image/bmp, 2 bytes)]"}`,
			invalid}, ",") + `]`,
	}
	for d, w := range want {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, w, mustJSON(t, r.Unsupported(d)))
		})
	}
	assert.Nil(t, toolnexus.Ok("text only", textNote).Unsupported(toolnexus.DestinationAnthropic))
}

// allA is the base64 the size-limit tests slice their parts from, built once
// for all of them: 133_333_336 'A's, 100_000_002 bytes decoded.
var allA = sync.OnceValue(func() string { return strings.Repeat("A", 133_333_336) })

// bigBase64 returns n bytes of base64, n <= 133_333_336, that decode to
// zeros, shared by every test that asks.
func bigBase64(n int) string { return allA()[:n] }

// TestUnsupportedSizeLimits reports each limit a part is over.
func TestUnsupportedSizeLimits(t *testing.T) {
	t.Parallel()
	big := bigBase64(133_333_336) // 100_000_002 bytes decoded
	tests := []struct {
		name  string
		d     string
		part  toolnexus.ContentPart
		limit toolnexus.SizeLimit
	}{
		{"anthropic image", toolnexus.DestinationAnthropic, image("image/png", big[:5<<20+4]),
			toolnexus.SizeLimit{Bytes: 5 << 20, Base64: true, What: "the 5 MiB (5242880 bytes) of base64 Anthropic takes in an image"}},
		{"anthropic document", toolnexus.DestinationAnthropic, file("application/pdf", big[:32_000_004], "a.pdf"),
			toolnexus.SizeLimit{Bytes: 32_000_000, Base64: true, What: "the 32 MB (32000000 bytes) Anthropic takes in a request"}},
		{"openai chat image", toolnexus.DestinationOpenAIChat, image("image/png", big[:26_666_668]),
			toolnexus.SizeLimit{Bytes: 20_000_000, What: "the 20 MB OpenAI takes in an image"}},
		{"openai responses pdf", toolnexus.DestinationOpenAIResponses, file("application/pdf", big[:42_666_672], "a.pdf"),
			toolnexus.SizeLimit{Bytes: 32_000_000, What: "the 32 MB OpenAI takes in a request's files"}},
		{"gemini inline", toolnexus.DestinationGemini, image("image/png", big[:100_000_004]),
			toolnexus.SizeLimit{Bytes: 100_000_000, Base64: true, What: "the 100 MB (100000000 bytes) of base64 Gemini takes inline"}},
		{"gemini pdf", toolnexus.DestinationGemini, file("application/pdf", big[:66_666_672], "a.pdf"),
			toolnexus.SizeLimit{Bytes: 50_000_000, What: "the 50 MB Gemini takes in a PDF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := toolnexus.Ok("", tt.part).Unsupported(tt.d)
			require.Len(t, got, 1)
			assert.Equal(t, toolnexus.UnsupportedSize, got[0].Reason)
			assert.Equal(t, tt.limit, got[0].Limit)
			desc := strings.Replace(tt.part.String(), " (", " part (", 1)
			if tt.limit.Base64 { // the size in the unit of the limit
				desc = fmt.Sprintf("%s part (%s, %d bytes of base64)", tt.part.Type, tt.part.MIMEType, len(tt.part.Data))
			}
			assert.Equal(t, "[unsupported "+desc+": larger than "+tt.limit.What+"]", got[0].Placeholder)
			assert.NotContains(t, mustJSON(t, got), tt.part.Data[:64], "no payload")
		})
	}
}

// TestUnsupportedAgrees checks, for every part of the delivery tables and
// every destination, that a part Unsupported reports is sent as its
// Placeholder and any other part is sent as media.
func TestUnsupportedAgrees(t *testing.T) {
	t.Parallel()
	parts := maps.Clone(deliveryParts)
	parts["invalid"] = toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: "not base64"}
	parts["unknown type"] = toolnexus.ContentPart{Type: "video", MIMEType: "video/mp4", Data: "AAAA"}
	for _, name := range slices.Sorted(maps.Keys(destinations)) {
		d := destinations[name]
		for pname, p := range parts {
			r := toolnexus.Ok("out", p)
			got := r.Unsupported(d)
			var sent string
			if d == toolnexus.DestinationVertex {
				sent = mustJSON(t, r.VertexFunctionResponse("lookup", "call_1"))
			} else {
				sent = mustJSON(t, send(name, r))
			}
			if len(got) == 0 {
				assert.NotContains(t, sent, "[unsupported", "%s: %s is carried", name, pname)
				continue
			}
			require.Len(t, got, 1)
			assert.Equal(t, 0, got[0].Index)
			assert.Equal(t, p.String(), got[0].Part)
			placeholder, err := json.Marshal(got[0].Placeholder)
			require.NoError(t, err)
			assert.Contains(t, sent, string(placeholder[1:len(placeholder)-1]), "%s: %s is sent as its placeholder", name, pname)
		}
	}
}

// TestCarried checks that a host can have a conversion fail on a part its
// destination cannot carry, instead of the placeholder.
func TestCarried(t *testing.T) {
	t.Parallel()
	audio, err := toolnexus.PartFromBytes([]byte("RIFF"), "audio/wav")
	require.NoError(t, err)
	r := toolnexus.Ok("a recording", audio)
	assert.NoError(t, r.Carried(toolnexus.DestinationOpenAIChat))
	assert.NoError(t, toolnexus.Ok("text only").Carried(toolnexus.DestinationAnthropic))
	err = r.Carried(toolnexus.DestinationAnthropic)
	require.ErrorIs(t, err, toolnexus.ErrNotCarried)
	assert.Equal(t, r.Unsupported(toolnexus.DestinationAnthropic)[0].Reason, toolnexus.UnsupportedType)
	assert.EqualError(t, err, `toolnexus: part not carried: "anthropic" does not carry part 0, audio (audio/wav, 4 bytes), for the reason "type"`)
}
