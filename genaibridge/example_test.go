package genaibridge_test

import (
	"encoding/json"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genaibridge"
)

// ExamplePart answers a model's function call with a tool's result, image
// included, in genai's own part: the content to send after the model's.
func ExamplePart() {
	img, err := toolnexus.PartFromBytes([]byte("\x89PNG\r\n\x1a\n"), "image/png")
	if err != nil {
		log.Fatal(err)
	}
	r := toolnexus.Ok("The screen, as asked.", img)

	// With a client, the backend is client.ClientConfig().Backend.
	part, err := genaibridge.Part(genai.BackendGeminiAPI, r, "screenshot", "call_01")
	if err != nil {
		log.Fatal(err)
	}
	answer := genai.NewContentFromParts([]*genai.Part{part}, genai.RoleUser)

	fmt.Println(len(part.FunctionResponse.Parts[0].InlineData.Data), "bytes of", part.FunctionResponse.Parts[0].InlineData.MIMEType)
	b, err := json.Marshal(answer)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output:
	// 8 bytes of image/png
	// {"parts":[{"functionResponse":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}],"id":"call_01","name":"screenshot","response":{"output":"The screen, as asked."}}}],"role":"user"}
}
