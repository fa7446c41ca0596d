package adkbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/adkbridge"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/park"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// deployModel stands in for Gemini: it calls the deploy tool, and once it
// reads the tool's response, repeats its output.
type deployModel struct{}

func (deployModel) Name() string { return "deploy-model" }

func (deployModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		last := req.Contents[len(req.Contents)-1].Parts[0]
		reply := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "deploy"}}}}
		if last.FunctionResponse != nil {
			reply = genai.NewContentFromText(fmt.Sprint("the tool says: ", last.FunctionResponse.Response["output"]), genai.RoleModel)
		}
		yield(&model.LLMResponse{Content: reply, TurnComplete: true}, nil)
	}
}

// A tool behind an approval parks its call; a fresh runner on the same
// session, given the person's reply, runs it once, and the same reply
// given again gets the result of that run. Processes that share the
// sessions share a Store too (park.Runner{Store: ...}, redisclaims' in
// Redis), and a reply runs the tool once among all of them.
func Example() {
	ctx := context.Background()
	runs := 0
	gated, _ := approval.Gate(func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs++
		return toolnexus.Ok("deployed to prod")
	}, approval.Require("Deploy to prod?"), nil)
	deploy, _ := adkbridge.New("deploy", "Deploys the service", nil, gated)
	deploy.Park = park.Runner{Store: park.NewMemoryStore(0, 0)}

	sessions := session.InMemoryService()
	created, _ := sessions.Create(ctx, &session.CreateRequest{AppName: "ops", UserID: "me"})
	run := func(msg *genai.Content) (events []*session.Event) {
		a, _ := llmagent.New(llmagent.Config{Name: "ops", Model: deployModel{}, Tools: []tool.Tool{deploy}})
		r, _ := runner.New(runner.Config{AppName: "ops", Agent: a, SessionService: sessions})
		for ev, err := range r.Run(ctx, "me", created.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				fmt.Println(err)
				return nil
			}
			events = append(events, ev)
		}
		return events
	}

	wait := adkbridge.Waiting(run(genai.NewContentFromText("deploy the service", genai.RoleUser))...)[0]
	fmt.Println(wait.Tool, wait.Requests[0].Kind, wait.Requests[0].Prompt) // keep wait until the person answers

	reply := wait.Reply(wait.Requests[0].Resolve(nil))
	for range 2 {
		events := run(reply)
		fmt.Println(events[len(events)-1].Content.Parts[0].Text)
	}
	fmt.Println("runs:", runs)
	// Output:
	// deploy approval Deploy to prod?
	// the tool says: deployed to prod
	// the tool says: deployed to prod
	// runs: 1
}
