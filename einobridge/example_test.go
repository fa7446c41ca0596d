package einobridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
)

// memStore is a checkpoint store in memory; a real one is a database.
type memStore map[string][]byte

func (s memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	b, ok := s[id]
	return b, ok, nil
}

func (s memStore) Set(_ context.Context, id string, b []byte) error {
	s[id] = b
	return nil
}

// A tool that asks for an approval interrupts the graph; resumed with the
// answer, on a graph built anew over the same store, it runs again.
func Example() {
	ctx := context.Background()
	deploy, _ := einobridge.New("deploy", "Deploys the service", nil,
		func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
			if len(answers) == 0 {
				return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"})
			}
			return toolnexus.Ok("deployed to prod")
		})
	store := memStore{}
	graph := func() compose.Runnable[*schema.Message, []*schema.Message] {
		tools, _ := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}})
		g := compose.NewGraph[*schema.Message, []*schema.Message]()
		_ = g.AddToolsNode("tools", tools)
		_ = g.AddEdge(compose.START, "tools")
		_ = g.AddEdge("tools", compose.END)
		r, _ := g.Compile(ctx, compose.WithCheckPointStore(store))
		return r
	}
	call := schema.AssistantMessage("", []schema.ToolCall{{ID: "call-1", Function: schema.FunctionCall{Name: "deploy", Arguments: "{}"}}})

	_, err := graph().Invoke(ctx, call, compose.WithCheckPointID("run-1"))
	info, _ := compose.ExtractInterruptInfo(err)
	wait := einobridge.Waiting(info.InterruptContexts)[0] // store it with the checkpoint's ID
	fmt.Println(wait.Tool, wait.Request.Kind, wait.Request.Prompt)

	answer := wait.Request.Resolve(nil)
	out, err := graph().Invoke(compose.ResumeWithData(ctx, wait.InterruptID, answer), call, compose.WithCheckPointID("run-1"))
	fmt.Println(out[0].UserInputMultiContent[0].Text, err)
	// Output:
	// deploy approval Deploy to prod?
	// deployed to prod <nil>
}
