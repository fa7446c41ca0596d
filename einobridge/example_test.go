package einobridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
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

// scriptedModel is a chat model that plays a script in place of an LLM: it
// calls the deploy tool for prod, then, once it reads the tool's message,
// answers "done". It keeps the tool messages it reads.
type scriptedModel struct {
	mu   sync.Mutex
	seen []*schema.Message
}

func (m *scriptedModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if last := in[len(in)-1]; last.Role == schema.Tool {
		m.seen = append(m.seen, last)
		return schema.AssistantMessage("done", nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "call-1", Type: "function",
		Function: schema.FunctionCall{Name: "deploy", Arguments: `{"env":"prod"}`}}}), nil
}

func (m *scriptedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// toolMessages returns the tool messages m has read.
func (m *scriptedModel) toolMessages() []*schema.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seen)
}

// interrupted reads the events of an adk run to the end, and returns its
// interrupt, if it was interrupted, and its error.
func interrupted(events *adk.AsyncIterator[*adk.AgentEvent]) (*adk.InterruptInfo, error) {
	var info *adk.InterruptInfo
	var err error
	for ev, ok := events.Next(); ok; ev, ok = events.Next() {
		switch {
		case ev.Err != nil:
			err = ev.Err
		case ev.Action != nil && ev.Action.Interrupted != nil:
			info = ev.Action.Interrupted
		}
	}
	return info, err
}

// deployIn is what the deploy tool takes.
type deployIn struct {
	Env string `json:"env"`
}

// An adk ChatModelAgent whose tool asks for an approval is interrupted,
// and its Runner keeps the run in a checkpoint store. Resumed with the
// answer, by a Runner built anew over the same store, the tool runs once;
// resumed again, as a retry would, the model reads the same result and
// the tool does not run. Processes that resume each other's checkpoints
// share the tools' claim store too (deploy.Park.Store, such as the
// redisclaims module's).
func Example_adk() {
	ctx := context.Background()
	var runs int
	deploy, _ := einobridge.Infer("deploy", "Deploys the service",
		func(_ context.Context, in deployIn, answers toolnexus.Answers) toolnexus.ToolResult {
			if _, ok := answers.Get("approve"); !ok {
				return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
			}
			runs++
			return toolnexus.Ok("deployed to " + in.Env)
		})
	checkpoints := memStore{} // a database, shared by the processes
	runner := func(m model.ToolCallingChatModel) *adk.Runner {
		agent, _ := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "ops", Description: "runs deploys", Model: m,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}}},
		})
		return adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: checkpoints})
	}

	info, _ := interrupted(runner(&scriptedModel{}).Query(ctx, "deploy prod", adk.WithCheckPointID("run-1")))
	wait := einobridge.Waiting(info.InterruptContexts)[0] // store it with the checkpoint's ID
	fmt.Println("asks:", wait.Request.Prompt, "runs:", runs)

	for range 2 {
		m := &scriptedModel{}
		events, err := runner(m).ResumeWithParams(ctx, "run-1",
			&adk.ResumeParams{Targets: map[string]any{wait.InterruptID: wait.Request.Resolve(nil)}})
		if err == nil {
			_, err = interrupted(events)
		}
		fmt.Println("model reads:", m.toolMessages()[0].UserInputMultiContent[0].Text, "runs:", runs, err)
	}
	// Output:
	// asks: Deploy to prod? runs: 0
	// model reads: deployed to prod runs: 1 <nil>
	// model reads: deployed to prod runs: 1 <nil>
}
