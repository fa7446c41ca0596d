// Command suspend is a host and a tool that cannot finish on its own. The
// tool asks which environment to deploy to by returning a suspension; the
// host stores the result as JSON in a file, as it would before a restart,
// reads it back in a fresh state, answers the request and runs the tool again
// with the answer.
//
// The request offers its choices under the data key "choices", the package's
// convention for a choice without JSON Schema: the answer names the choice
// under "answer", and over MCP ([toolnexus.Request.MCPElicitParams]) the
// person is asked a required string "answer" whose enum is the choices. Run
// it from the examples module:
//
//	go run ./suspend
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// deploy is the tool. Without an answer it parks; with one it finishes.
func deploy(service string, ans *toolnexus.Answer, now time.Time) toolnexus.ToolResult {
	if ans == nil {
		req := toolnexus.Request{
			Kind:   toolnexus.KindInput,
			Prompt: "Which environment should " + service + " go to?",
			Data:   map[string]any{"choices": []string{"dev", "prod"}},
		}.WithExpiry(now.Add(time.Hour))
		return toolnexus.Pending(req)
	}
	if !ans.OK {
		return toolnexus.Errorf("deploy of %s cancelled: %s", service, ans.Reason)
	}
	var choice struct {
		Env string `json:"answer"`
	}
	if err := ans.DecodeData(&choice); err != nil {
		return toolnexus.Errorf("unreadable answer: %v", err)
	}
	env := choice.Env
	if env != "dev" && env != "prod" {
		return toolnexus.Errorf("unknown environment %q; choose dev or prod", env)
	}
	return toolnexus.Ok("deployed " + service + " to " + env)
}

// run is the host: call, park, store, restart, answer, call again.
func run(w io.Writer, dir string, now time.Time) error {
	res := deploy("billing", nil, now)
	req, ok := toolnexus.PendingOf(res)
	if !ok {
		return fmt.Errorf("expected a suspension, got %v", res)
	}
	fmt.Fprintf(w, "parked: %s %q (id %s)\n", req.Kind, req.Prompt, req.ID)

	// Store the parked result: it must survive the process.
	file := filepath.Join(dir, "parked.json")
	stored, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, stored, 0o600); err != nil {
		return err
	}

	// Later, maybe in another process: read it back and find the request.
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var loaded toolnexus.ToolResult
	if err := json.Unmarshal(data, &loaded); err != nil {
		return err
	}
	if err := loaded.Validate(); err != nil {
		return err
	}
	back, ok := toolnexus.PendingOf(loaded)
	if !ok || back.ID != req.ID {
		return fmt.Errorf("lost the suspension: %v", loaded)
	}
	fmt.Fprintf(w, "restored: %s, choices %v, same id %t\n", back.Kind, back.Data["choices"], back.ID == req.ID)

	// A person picks prod; the host checks the answer and re-runs the tool.
	ans := back.Resolve(map[string]any{"answer": "prod"})
	if err := ans.Check(back, now.Add(10*time.Minute)); err != nil {
		return err
	}
	fmt.Fprintln(w, deploy("billing", &ans, now))

	// An answer that comes too late is refused.
	late := ans.Check(back, now.Add(2*time.Hour))
	fmt.Fprintln(w, "late answer refused:", errors.Is(late, toolnexus.ErrExpired))
	return nil
}

func main() {
	dir, err := os.MkdirTemp("", "suspend")
	if err == nil {
		defer os.RemoveAll(dir)
		err = run(os.Stdout, dir, time.Now())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
