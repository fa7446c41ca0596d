package interop

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
)

// handoffImpl is one SDK's hand-off of a converted result and the JSON round
// trip it replaces: our value encoded, decoded into the SDK's param type and
// encoded again. Each returns the request body the SDK's client sends, as
// the client encodes it.
type handoffImpl struct {
	sdk       string
	handoff   func() ([]byte, error)
	roundTrip func() ([]byte, error)
}

// handoffImpls returns the hand-offs of r, converted once for each SDK.
func handoffImpls(r toolnexus.ToolResult) []handoffImpl {
	block := r.AnthropicToolResult("toolu_01")
	msgs := r.OpenAIChatMessages("call_01", "screenshot")
	item := r.OpenAIResponsesOutput("call_01")
	fr := r.GeminiFunctionResponse("screenshot", "call_01")
	return []handoffImpl{
		{
			sdk:     "anthropic",
			handoff: func() ([]byte, error) { return anthropicHandoff(block).MarshalJSON() },
			roundTrip: func() ([]byte, error) {
				var p anthropic.ToolResultBlockParam
				if err := jsonRoundTrip(block, &p); err != nil {
					return nil, err
				}
				return anthropicRequest(anthropic.ContentBlockParamUnion{OfToolResult: &p}).MarshalJSON()
			},
		},
		{
			sdk:     "openai-chat",
			handoff: func() ([]byte, error) { return openAIChatHandoff(msgs).MarshalJSON() },
			roundTrip: func() ([]byte, error) {
				answer := make([]openai.ChatCompletionMessageParamUnion, len(msgs))
				for i, m := range msgs {
					if err := jsonRoundTrip(m, &answer[i]); err != nil {
						return nil, err
					}
				}
				return openAIChatRequest(answer...).MarshalJSON()
			},
		},
		{
			sdk:     "openai-responses",
			handoff: func() ([]byte, error) { return openAIResponsesHandoff(item).MarshalJSON() },
			roundTrip: func() ([]byte, error) {
				var p responses.ResponseInputItemUnionParam
				if err := jsonRoundTrip(item, &p); err != nil {
					return nil, err
				}
				return openAIResponsesRequest(p).MarshalJSON()
			},
		},
		{
			sdk: "gemini",
			handoff: func() ([]byte, error) {
				contents, err := geminiHandoff(fr)
				if err != nil {
					return nil, err
				}
				return json.Marshal(contents)
			},
			roundTrip: func() ([]byte, error) {
				var p genai.FunctionResponse
				if err := jsonRoundTrip(fr, &p); err != nil {
					return nil, err
				}
				return json.Marshal(geminiRequest(&p))
			},
		},
	}
}

// jsonRoundTrip encodes ours and decodes it into sdk.
func jsonRoundTrip(ours, sdk any) error {
	data, err := json.Marshal(ours)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, sdk)
}

// bigSize is the size of the payload of the benchmarks.
const bigSize = 16 << 20

// bigPayload is 16 MiB of random bytes.
var bigPayload = sync.OnceValue(func() []byte {
	b := make([]byte, bigSize)
	_, _ = rand.NewChaCha8([32]byte{}).Read(b) // never fails
	return b
})

// BenchmarkHandoff puts a converted 16 MiB result into each SDK's request
// and encodes the request as the SDK's client does, the hand-off next to the
// JSON round trip through the SDK's param type. The payload is an image,
// except for Anthropic, which takes at most 5 MiB of base64 in an image and
// gets it as a PDF document.
func BenchmarkHandoff(b *testing.B) {
	results := map[string]toolnexus.ToolResult{}
	for _, mimeType := range []string{"image/png", "application/pdf"} {
		p, err := toolnexus.PartFromBytes(bigPayload(), mimeType)
		if err != nil {
			b.Fatal(err)
		}
		results[mimeType] = toolnexus.Ok("A test card.", p)
	}
	impls := handoffImpls(results["image/png"])
	for i, pdf := range handoffImpls(results["application/pdf"]) {
		if pdf.sdk == "anthropic" {
			impls[i] = pdf
		}
	}
	for _, impl := range impls {
		for _, run := range []struct {
			impl string
			body func() ([]byte, error)
		}{{"handoff", impl.handoff}, {"roundtrip", impl.roundTrip}} {
			b.Run("sdk="+impl.sdk+"/impl="+run.impl, func(b *testing.B) {
				body, err := run.body()
				if err != nil {
					b.Fatal(err)
				}
				if len(body) < base64.StdEncoding.EncodedLen(bigSize) {
					b.Fatalf("the request holds %d bytes, not the payload: the converter left a placeholder", len(body))
				}
				b.ReportAllocs()
				b.SetBytes(bigSize)
				for b.Loop() {
					if _, err := run.body(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
