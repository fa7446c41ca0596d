// Command server is mcpbridge's example server built on mcp-go, with the
// same contract: an MCP server on stdio whose tools wait for a person.
// deploy asks to approve a deployment, login to sign in at a web page, and
// pick to type an answer. Each tool returns a toolnexus suspension; the
// client puts the question to the person and calls the tool again with the
// answer. Run it from this directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run .
//
// as the command of an MCP client. It is a module of its own, so that the
// Redis client it can use is no dependency of mcpgobridge. The environment
// configures the state a client holds between a question and its answer:
//
//   - TOOLNEXUS_STATE_KEYS: comma-separated hex keys, each at least 32
//     bytes: the first seals states, every one opens them, so a key can be
//     rotated without failing a parked call (add the new key second, then
//     move it first, then drop the old one a day later).
//   - TOOLNEXUS_STATE_KEY: one hex key, when there is no ring. Without
//     either, the server makes a random key at start, and a question asked
//     before a restart can no longer be answered.
//   - TOOLNEXUS_SINGLE_USE=1: each state is answered at most once, a replay
//     refused (claims kept in memory, for one process).
//   - TOOLNEXUS_REDIS_URL=redis://host:port/db: the same, for every server
//     that shares the Redis.
//   - TOOLNEXUS_EXPIRY: how long a parked call stays answerable, as a Go
//     duration such as 2h: 10m by default.
//
// A value that does not parse stops the server at start. Without single use
// a client may retry a state until it expires, as after a lost response.
//
// On protocol 2026-07-28 the client gets each question in an
// input_required result and retries the call with the answer and the
// requestState; on older protocols the server asks the client directly. A
// requestState that does not open is the JSON-RPC error "Invalid or
// expired requestState", and an answer off the question's schema a
// JSON-RPC error too: mcp-go sends both with the code -32603, where
// mcpbridge's server sends -32602.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
	"github.com/toolnexus-go/toolnexus/redisclaims"
)

func main() {
	key, opts, err := config(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := newServer(key, opts)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(srv); err != nil {
		log.Fatal(err)
	}
}

// config returns the sealing key and the options of the Bridge that the
// environment, read with getenv, asks for.
func config(getenv func(string) string) ([]byte, *mcpgobridge.Options, error) {
	opts := &mcpgobridge.Options{Audience: "toolnexus-example"}
	keys, err := stateKeys(getenv("TOOLNEXUS_STATE_KEYS"), getenv("TOOLNEXUS_STATE_KEY"))
	if err != nil {
		return nil, nil, err
	}
	opts.Keys = keys[1:]
	switch v := getenv("TOOLNEXUS_SINGLE_USE"); v {
	case "", "0":
	case "1":
		opts.Claims = toolnexus.NewMemoryClaims()
	default:
		return nil, nil, fmt.Errorf("TOOLNEXUS_SINGLE_USE is %q, not 1 or 0", v)
	}
	if u := getenv("TOOLNEXUS_REDIS_URL"); u != "" {
		ro, err := redis.ParseURL(u)
		if err != nil {
			return nil, nil, fmt.Errorf("TOOLNEXUS_REDIS_URL: %w", err)
		}
		if opts.Claims, err = redisclaims.New(redis.NewClient(ro), nil); err != nil {
			return nil, nil, err
		}
	}
	if v := getenv("TOOLNEXUS_EXPIRY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, nil, fmt.Errorf("TOOLNEXUS_EXPIRY is %q, not a positive duration such as 2h", v)
		}
		opts.Expiry = d
		opts.MaxAge = max(d, toolnexus.DefaultStateMaxAge)
	}
	return keys[0], opts, nil
}

// stateKeys returns the keys of TOOLNEXUS_STATE_KEYS (list), or else the
// one of TOOLNEXUS_STATE_KEY (one), or else a random key.
func stateKeys(list, one string) ([][]byte, error) {
	switch {
	case list != "" && one != "":
		return nil, fmt.Errorf("both TOOLNEXUS_STATE_KEYS and TOOLNEXUS_STATE_KEY are set: set one")
	case one != "":
		list = one
	case list == "":
		key := make([]byte, 32)
		_, err := rand.Read(key)
		return [][]byte{key}, err
	}
	keys, err := toolnexus.KeysFromHex(list)
	if err != nil {
		return nil, fmt.Errorf("TOOLNEXUS_STATE_KEYS: %w", err)
	}
	return keys, nil
}

// newServer returns the server with its three tools.
func newServer(key []byte, opts *mcpgobridge.Options) (*server.MCPServer, error) {
	bridge, err := mcpgobridge.New(key, opts)
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
