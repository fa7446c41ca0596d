package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolnexus-go/toolnexus"
)

// A result with an image goes to Anthropic as one tool_result block. The
// audio clip, which Anthropic cannot take, is left as a placeholder text.
func ExampleToolResult_AnthropicToolResult() {
	img, err := toolnexus.PartFromURL("https://example.com/chart.png", "image/png")
	if err != nil {
		fmt.Println(err)
		return
	}
	clip, err := toolnexus.PartFromBytes([]byte("RIFF....WAVE"), "audio/wav")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := toolnexus.Ok("Sales chart for May", img, clip)
	out, _ := json.Marshal(r.AnthropicToolResult("toolu_01"))
	fmt.Println(string(out))
	// Output:
	// {"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[{"type":"text","text":"Sales chart for May"},{"type":"text","text":"[unsupported audio part (audio/wav, 12 bytes)]"},{"type":"image","source":{"type":"url","url":"https://example.com/chart.png"}}]}
}

// OpenAI Chat cannot put an image in a tool message, so the image follows in
// a user message.
func ExampleToolResult_OpenAIChatMessages() {
	img, err := toolnexus.PartFromFile("testdata/fixture.png")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range toolnexus.Ok("fixture.png (image/png, 82 bytes)", img).OpenAIChatMessages("call_01", "screenshot") {
		fmt.Println(m.Role)
	}
	// Output:
	// tool
	// user
}

// A result read back from an MCP server keeps its text as Output and its
// media as parts.
func ExampleFromMCPCallToolResult() {
	data := []byte(`{"content":[{"type":"text","text":"Rendered"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false}`)
	r, err := toolnexus.FromMCPCallToolResult(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(r)
	// Output:
	// ok "Rendered" parts=[image (image/png, 8 bytes)]
}

// The Gemini API takes no media by URI in a function response; Vertex AI
// takes a Cloud Storage object as fileData.
func ExampleToolResult_VertexFunctionResponse() {
	scan, err := toolnexus.PartFromURL("gs://scans/invoice.pdf", "application/pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := toolnexus.Ok("Invoice scanned", scan)
	gemini, _ := json.Marshal(r.GeminiFunctionResponse("scan", "call_01"))
	vertex, _ := json.Marshal(r.VertexFunctionResponse("scan", "call_01"))
	fmt.Println(string(gemini))
	fmt.Println(string(vertex))
	// Output:
	// {"id":"call_01","name":"scan","response":{"output":"Invoice scanned\n[unsupported file part (application/pdf, url gs://scans/invoice.pdf)]"}}
	// {"id":"call_01","name":"scan","response":{"output":"Invoice scanned"},"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"gs://scans/invoice.pdf"}}]}
}

// A result read from MCP and written back keeps its embedded resource, with
// its URI and text, and its structured content.
func ExampleToolResult_MCPCallToolResult() {
	data := []byte(`{"content":[{"type":"text","text":"{\"rows\":2}"},` +
		`{"type":"resource","resource":{"uri":"file:///data/report.csv","mimeType":"text/csv","text":"a,b\n1,2"}}],` +
		`"structuredContent":{"rows":2}}`)
	r, err := toolnexus.FromMCPCallToolResult(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := r.Parts[0]
	fmt.Println(r.Output, p.Type, p.MIMEType, p.Name, r.Metadata[toolnexus.MetadataResourceURIs])
	out, _ := json.Marshal(r.MCPCallToolResult())
	fmt.Println(string(out))
	// Output:
	// {"rows":2} file text/csv report.csv map[0:file:///data/report.csv]
	// {"content":[{"type":"text","text":"{\"rows\":2}"},{"type":"resource","resource":{"uri":"file:///data/report.csv","mimeType":"text/csv","text":"a,b\n1,2"}}],"structuredContent":{"rows":2},"isError":false}
}

// A host learns, without converting and without reading the placeholder
// text, which parts a destination would not carry and why.
func ExampleToolResult_Unsupported() {
	clip, err := toolnexus.PartFromBytes([]byte("RIFF....WAVE"), "audio/wav")
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := toolnexus.PartFromURL("s3://bucket/chart.png", "image/png")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := toolnexus.Ok("Sales chart for May", clip, img)
	for _, u := range r.Unsupported(toolnexus.DestinationAnthropic) {
		fmt.Println(u.Index, u.Part, u.Reason)
	}
	fmt.Println(len(r.Unsupported(toolnexus.DestinationGemini)), len(r.Unsupported(toolnexus.DestinationMCP)))
	// Output:
	// 0 audio (audio/wav, 12 bytes) type
	// 1 image (image/png, url) urlScheme
	// 1 0
}

// An OpenAI Agents session takes a tool's result with a success flag: a
// successful result's image goes in its output, and a failed result is its
// error message. A suspension is refused until the call finishes.
func ExampleToolResult_OpenAIAgentsToolResult() {
	img, err := toolnexus.PartFromURL("https://example.com/chart.png", "image/png")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range []toolnexus.ToolResult{
		toolnexus.Ok("Sales chart for May", img),
		toolnexus.Error("No sales data for May"),
		toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Share the chart?"}),
	} {
		event, err := r.OpenAIAgentsToolResult("call_01", "turn_01")
		if err != nil {
			fmt.Println(err)
			continue
		}
		out, _ := json.Marshal(event)
		fmt.Println(string(out))
	}
	// Output:
	// {"type":"agent.session.input.tool_result","call_id":"call_01","turn_id":"turn_01","success":true,"output":[{"type":"input_text","text":"Sales chart for May"},{"type":"input_image","image_url":"https://example.com/chart.png"}]}
	// {"type":"agent.session.input.tool_result","call_id":"call_01","turn_id":"turn_01","success":false,"error":"No sales data for May"}
	// toolnexus: result is a suspension: call "call_01" waits on request "req-1"
}
