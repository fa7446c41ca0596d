package genkitbridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genkitbridge"
)

// A tool that asks for an approval interrupts the generation; restarted
// with the answer, it runs again and the model reads its result.
func Example() {
	ctx := context.Background()
	g := genkit.Init(ctx)
	// A model that calls deploy, then repeats what the tool said.
	model := genkit.DefineModelAction(g, "fake/model", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}},
		func(_ context.Context, req *ai.ModelRequest, _ any, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == ai.RoleTool {
				out := last.Content[0].ToolResponse.Output.(map[string]any)
				return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage(out["output"].(string))}, nil
			}
			call := ai.NewToolRequestPart(&ai.ToolRequest{Name: "deploy", Input: map[string]any{}})
			return &ai.ModelResponse{Request: req, Message: ai.NewModelMessage(call)}, nil
		})
	deploy, _ := genkitbridge.New("deploy", "Deploys the service", nil,
		func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
			if len(answers) == 0 {
				return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"})
			}
			return toolnexus.Ok("deployed to prod")
		})

	resp, _ := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy"), ai.WithTools(deploy))
	interrupt := resp.Interrupts()[0] // store resp.History() until the answer comes
	reqs, _ := genkitbridge.Requests(interrupt)
	fmt.Println(resp.FinishReason, reqs[0].Prompt)

	restart, err := deploy.Resume(interrupt, reqs[0].Resolve(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(resp.History()...),
		ai.WithTools(deploy), ai.WithToolRestarts(restart))
	fmt.Println(resp.Text(), err)
	// Output:
	// interrupted Deploy to prod?
	// deployed to prod <nil>
}
