package toolnexus_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolnexus-go/toolnexus"
)

// ToolFor decodes a tool's arguments into its input with exact keys: a key
// the input does not take, or that matches a field only when case is
// folded, is refused with the keys it takes, and the model can correct its
// call.
func ExampleToolFor() {
	greet := toolnexus.ToolFor(func(_ context.Context, in struct {
		Name string `json:"name"`
	}, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("hello, " + cmp.Or(in.Name, "stranger"))
	})
	fmt.Println(greet(context.Background(), json.RawMessage(`{"name":"Ada"}`), nil).Output)
	fmt.Println(greet(context.Background(), json.RawMessage(`{}`), nil).Output)
	fmt.Println(greet(context.Background(), json.RawMessage(`{"NAME":"Ada"}`), nil).Output)
	fmt.Println(greet(context.Background(), json.RawMessage(`{"name":7}`), nil).Output)
	// Output:
	// hello, Ada
	// hello, stranger
	// toolnexus: arguments are not what the tool takes: unknown key "NAME": keys are matched exactly, did you mean "name"? (it takes "name")
	// toolnexus: arguments are not what the tool takes: json: cannot unmarshal number into Go struct field .name of type string
}

// A struct with a field tagged with the option unknown takes keys it does
// not declare, and leaves them out.
func ExampleDecodeArguments() {
	var in struct {
		Env   string         `json:"env"`
		Extra map[string]any `json:",unknown"`
	}
	err := toolnexus.DecodeArguments(json.RawMessage(`{"env":"prod","comment":"from the model"}`), &in)
	fmt.Println(in.Env, err)

	var strict struct {
		Env string `json:"env"`
	}
	err = toolnexus.DecodeArguments(json.RawMessage(`{"env":"prod","comment":"from the model"}`), &strict)
	fmt.Println(errors.Is(err, toolnexus.ErrInvalidArguments))
	// Output:
	// prod <nil>
	// true
}

// Latest is the answer of a tool that asks once: nil on its first run.
func ExampleAnswers_Latest() {
	deploy := func(ans *toolnexus.Answer) string {
		switch {
		case ans == nil:
			return "Deploy to prod?"
		case !ans.OK:
			return "deploy to prod " + ans.Reason
		}
		return "deployed to prod"
	}
	fmt.Println(deploy(toolnexus.Answers(nil).Latest()))
	answers := toolnexus.Answers{{ID: "req-1", OK: false, Reason: toolnexus.ReasonDeclined}}
	fmt.Println(deploy(answers.Latest()))
	// Output:
	// Deploy to prod?
	// deploy to prod declined
}
