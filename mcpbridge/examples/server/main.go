// Command server is an MCP server on stdio whose tools wait for a person:
// deploy asks to approve a deployment, login to sign in at a web page, and
// pick to type an answer. Each tool returns a toolnexus suspension; the
// client puts the question to the person and calls the tool again with the
// answer. Run it from the mcpbridge directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run ./examples/server
//
// as the command of an MCP client. The key (hex, at least 32 bytes) seals
// the state a client holds between a question and its answer; without it
// the server makes a random key at start, and a question asked before a
// restart can no longer be answered.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

func main() {
	key, err := stateKey()
	if err != nil {
		log.Fatal(err)
	}
	server, err := newServer(key)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// stateKey returns the key in TOOLNEXUS_STATE_KEY, or a random one.
func stateKey() ([]byte, error) {
	if s := os.Getenv("TOOLNEXUS_STATE_KEY"); s != "" {
		key, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("TOOLNEXUS_STATE_KEY is not hex: %w", err)
		}
		return key, nil
	}
	key := make([]byte, 32)
	_, err := rand.Read(key)
	return key, err
}

// newServer returns the server with its three tools.
func newServer(key []byte) (*mcp.Server, error) {
	bridge, err := mcpbridge.New(key, nil)
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "toolnexus-example", Version: "v0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: "Deploy to an environment once a person approves."},
		mcpbridge.Handler(bridge, deploy))
	mcp.AddTool(server, &mcp.Tool{Name: "login", Description: "Sign in to example.com."},
		mcpbridge.Handler(bridge, login))
	mcp.AddTool(server, &mcp.Tool{Name: "pick", Description: "Ask a person which environment to use."},
		mcpbridge.Handler(bridge, pick))
	return server, nil
}

type deployInput struct {
	Env string `json:"env" jsonschema:"the environment to deploy to"`
}

func deploy(_ context.Context, in deployInput, answer *toolnexus.Answer) toolnexus.ToolResult {
	switch {
	case answer == nil:
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case answer.OK:
		return toolnexus.Ok("deployed to " + in.Env)
	case answer.Reason == toolnexus.ReasonCancelled:
		return toolnexus.Error("deploy to " + in.Env + " cancelled")
	}
	return toolnexus.Error("deploy to " + in.Env + " declined")
}

// login trusts the client's word that the person signed in; a real tool
// checks with its identity provider that the login with the request's ID
// (the elicitation's elicitationId) has completed.
func login(_ context.Context, _ struct{}, answer *toolnexus.Answer) toolnexus.ToolResult {
	switch {
	case answer == nil:
		return toolnexus.AuthRequired("https://example.com/login", "")
	case answer.OK:
		return toolnexus.Ok("signed in")
	}
	return toolnexus.Error("login declined")
}

func pick(_ context.Context, _ struct{}, answer *toolnexus.Answer) toolnexus.ToolResult {
	if answer == nil {
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})
	}
	env, _ := answer.Data["answer"].(string)
	if !answer.OK || env == "" {
		return toolnexus.Error("nothing picked")
	}
	return toolnexus.Ok("picked " + env)
}
