// Command providers sends one tool result, a caption and an image, to every
// destination toolnexus knows: an Anthropic tool_result block, the OpenAI
// Chat messages, an OpenAI Responses function_call_output item, an MCP
// CallToolResult and a Gemini functionResponse. It prints each as the JSON
// that goes into the provider's request. Run it from the examples module:
//
//	go run ./providers             # the test card built into the program
//	go run ./providers shot.png    # a PNG in the current directory
package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toolnexus-go/toolnexus"
)

//go:embed fixture.png
var testCard embed.FS

// result is what the tool returns: a description for text-only readers, a
// caption and the image.
func result(files fs.FS, name string) (toolnexus.ToolResult, error) {
	img, err := toolnexus.PartFromFS(files, name)
	if err != nil {
		return toolnexus.ToolResult{}, err
	}
	desc := fmt.Sprintf("%s (%s, %d bytes)", name, img.MIMEType, img.Size())
	return toolnexus.Ok(desc, toolnexus.TextPart("A test card, 8 by 8 pixels."), img), nil
}

func run(w io.Writer, files fs.FS, name string) error {
	r, err := result(files, name)
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
	files, name := fs.FS(testCard), "fixture.png"
	if len(os.Args) > 1 {
		files, name = os.DirFS("."), os.Args[1]
	}
	if err := run(os.Stdout, files, name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
