// Command providers sends one tool result, a caption and an image, to every
// destination toolnexus knows: an Anthropic tool_result block, the OpenAI
// Chat messages, an OpenAI Responses function_call_output item, an MCP
// CallToolResult and a Gemini functionResponse. It prints each as the JSON
// that goes into the provider's request.
//
//	go run ./examples/providers [file.png]
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolnexus-go/toolnexus"
)

// result is what the tool returns: a description for text-only readers, a
// caption and the image.
func result(path string) (toolnexus.ToolResult, error) {
	img, err := toolnexus.PartFromFile(path)
	if err != nil {
		return toolnexus.ToolResult{}, err
	}
	desc := fmt.Sprintf("%s (%s, %d bytes)", filepath.Base(path), img.MIMEType, img.Size())
	return toolnexus.Ok(desc, toolnexus.TextPart("A test card, 8 by 8 pixels."), img), nil
}

func run(w io.Writer, path string) error {
	r, err := result(path)
	if err != nil {
		return err
	}
	// The ids are the ones the model gave the call; the name is the tool's.
	destinations := []struct {
		name  string
		value any
	}{
		{"Anthropic Messages, a tool_result block", r.AnthropicToolResult("toolu_01")},
		{"OpenAI Chat Completions, messages", r.OpenAIChatMessages("call_01", "screenshot")},
		{"OpenAI Responses, a function_call_output item", r.OpenAIResponsesOutput("call_01")},
		{"MCP, a CallToolResult", r.MCPCallToolResult()},
		{"Gemini, a functionResponse", r.GeminiFunctionResponse("screenshot", "call_01")},
	}
	for _, d := range destinations {
		out, err := json.MarshalIndent(d.value, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "== %s\n%s\n", d.name, out); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	path := "testdata/fixture.png"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(os.Stdout, path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
