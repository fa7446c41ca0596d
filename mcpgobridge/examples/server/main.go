// Command server is the mcpbridge example server built on mcp-go: an MCP
// server on stdio whose tools wait for a person. deploy asks to approve a
// deployment, login to sign in at a web page, and pick to type an answer.
// Each tool returns a toolnexus suspension; the client puts the question to
// the person and calls the tool again with the answer. Run it from this
// directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run .
//
// as the command of an MCP client. The key (hex, at least 32 bytes) seals
// the state a client holds between a question and its answer; without one
// the server makes a random key at start, and a question asked before a
// restart can no longer be answered. TOOLNEXUS_STATE_KEYS holds several
// comma-separated keys for a rotation: the first seals, all open.
// TOOLNEXUS_SINGLE_USE=1 lets each state finish at most once. A key that is
// not hex, or too short, stops the server at start.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
)

func main() {
	srv, err := newServer(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(srv); err != nil {
		log.Fatal(err)
	}
}

// newServer returns the server with its three tools, configured by the
// environment that getenv reads.
func newServer(getenv func(string) string) (*server.MCPServer, error) {
	keys, err := stateKeys(getenv)
	if err != nil {
		return nil, err
	}
	opts := &mcpgobridge.Options{Keys: keys[1:]}
	switch v := getenv("TOOLNEXUS_SINGLE_USE"); v {
	case "", "0":
	case "1":
		opts.Claims = toolnexus.NewMemoryClaims()
	default:
		return nil, fmt.Errorf("TOOLNEXUS_SINGLE_USE is %q, want 1 or 0", v)
	}
	bridge, err := mcpgobridge.New(keys[0], opts)
	if err != nil {
		return nil, err
	}
	srv := server.NewMCPServer("toolnexus-example", "v0.1.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("deploy", mcp.WithDescription("Deploy to an environment once a person approves."),
		mcp.WithInputSchema[deployInput]()), mcpgobridge.Handler(bridge, deploy))
	srv.AddTool(mcp.NewTool("login", mcp.WithDescription("Sign in to example.com.")),
		mcpgobridge.Handler(bridge, login))
	srv.AddTool(mcp.NewTool("pick", mcp.WithDescription("Ask a person which environment to use.")),
		mcpgobridge.Handler(bridge, pick))
	return srv, nil
}

// stateKeys returns the keys of TOOLNEXUS_STATE_KEYS, or else the key of
// TOOLNEXUS_STATE_KEY, or else one random key; the first seals.
func stateKeys(getenv func(string) string) ([][]byte, error) {
	for _, name := range []string{"TOOLNEXUS_STATE_KEYS", "TOOLNEXUS_STATE_KEY"} {
		if s := getenv(name); s != "" {
			keys, err := toolnexus.KeysFromHex(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if name == "TOOLNEXUS_STATE_KEY" && len(keys) > 1 {
				return nil, fmt.Errorf("TOOLNEXUS_STATE_KEY holds %d keys: use TOOLNEXUS_STATE_KEYS", len(keys))
			}
			return keys, nil
		}
	}
	key := make([]byte, 32)
	_, err := rand.Read(key)
	return [][]byte{key}, err
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
// has completed.
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
