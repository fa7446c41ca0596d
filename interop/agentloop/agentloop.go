// Package agentloop is an agent loop written against each official SDK, as
// a host would write it: the model asks for tools, the host runs them and
// answers with the whole turn. When a tool waits for a person, the host
// parks the turn in a file and stops; any later process resumes it with the
// person's answer, sends the turn, and the run goes on to its end.
package agentloop

import (
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// ErrParked reports a run that stopped because a tool waits for a person:
// its turn is parked in the file, to resume with the person's answer.
var ErrParked = errors.New("agentloop: parked until a person answers")

// Person answers a request a tool waits on.
type Person func(toolnexus.Request) toolnexus.Answer

// parked is what a park file holds: the conversation so far, as it was sent
// to the model, and the turn that waits.
type parked struct {
	Messages json.RawMessage `json:"messages"`
	Turn     toolnexus.Turn  `json:"turn"`
}

// run runs a tool with its arguments and the answers it was given so far:
// screenshot returns testdata/fixture.png, deploy waits for an approval.
func run(name string, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	switch name {
	case "screenshot":
		img, err := toolnexus.PartFromFile("testdata/fixture.png")
		if err != nil {
			return toolnexus.Error(err.Error())
		}
		return toolnexus.Ok("fixture.png (image/png, 82 bytes)", img)
	case "deploy":
		var in struct {
			Env string `json:"env"`
		}
		if err := json.Unmarshal(args, &in); err != nil || in.Env == "" {
			return toolnexus.Error(`deploy takes {"env": NAME}`)
		}
		if len(answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		}
		if a := answers[len(answers)-1]; !a.OK {
			return toolnexus.Error("deploy to " + in.Env + " " + a.Reason)
		}
		return toolnexus.Ok("deployed to " + in.Env)
	}
	return toolnexus.Errorf("no tool %q", name)
}

// newCall returns the call id of the tool name with the arguments args,
// run. Arguments that are not JSON are kept as the JSON string they are.
func newCall(id, name string, args []byte) toolnexus.ToolCall {
	if !json.Valid(args) {
		args, _ = json.Marshal(string(args))
	}
	return toolnexus.ToolCall{ID: id, Name: name, Arguments: args, Result: run(name, args, nil)}
}

// park writes the conversation and the waiting turn to the file path.
func park(path string, msgs any, turn toolnexus.Turn) error {
	b, err := json.Marshal(msgs)
	if err != nil {
		return err
	}
	if b, err = json.Marshal(parked{Messages: b, Turn: turn}); err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return err
	}
	return ErrParked
}

// unpark reads the file path, puts each request its turn waits on to the
// person, and runs each answered call again. It returns the conversation,
// each message made an SDK's message by override, and the turn.
func unpark[M any](path string, person Person, override func(any) M) ([]M, toolnexus.Turn, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, toolnexus.Turn{}, err
	}
	var p parked
	var history []json.RawMessage
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, toolnexus.Turn{}, err
	}
	if err := json.Unmarshal(p.Messages, &history); err != nil {
		return nil, toolnexus.Turn{}, err
	}
	turn := p.Turn
	for _, w := range turn.Waiting() {
		call, err := turn.Answer(person(w.Request), time.Now())
		if err != nil {
			return nil, toolnexus.Turn{}, err
		}
		call.Result = run(call.Name, call.Arguments, call.Answers)
		if turn, err = turn.WithCall(call); err != nil {
			return nil, toolnexus.Turn{}, err
		}
	}
	msgs := make([]M, len(history))
	for i, m := range history {
		msgs[i] = override(m)
	}
	return msgs, turn, nil
}
