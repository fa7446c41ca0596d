// Command server is an MCP server on stdio whose tools wait for a person:
// deploy asks to approve a deployment, login to sign in at a web page, and
// pick to type an answer. Each tool returns a toolnexus suspension; the
// client puts the question to the person and calls the tool again with the
// answer. Run it from this directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run .
//
// as the command of an MCP client. It is a module of its own, so that the
// Redis client it can use is no dependency of mcpbridge. The environment
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
//     duration such as 2h: 10m by default, at most 30 days. Its state is
//     refused after that, and in any case a day after it was sealed when
//     the expiry is shorter than a day; a host reads the time from the
//     requestState with toolnexus.RequestStateExpiry.
//
// A value that does not parse stops the server at start. Without single use
// a client may retry a state until it expires, as after a lost response.
//
// On protocol 2026-07-28 the client gets each question in an
// input_required result and retries the call with the answer and the
// requestState; on older protocols the server asks the client directly.
// A requestState that does not open (altered, sealed with a key the server
// no longer holds, for another call, expired, or already used) is the
// JSON-RPC error -32602 "Invalid or expired requestState" with data
// {"reason":"invalid_request_state"}; an answer off the question's schema
// is a JSON-RPC error -32602 too, and the tool does not run.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/redisclaims"
)

func main() {
	key, opts, err := config(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	server, err := newServer(key, opts)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// config returns the sealing key and the options of the Bridge that the
// environment, read with getenv, asks for.
func config(getenv func(string) string) ([]byte, *mcpbridge.Options, error) {
	opts := &mcpbridge.Options{Audience: "toolnexus-example"}
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
		// A state lives no longer than its maximum age: a day unless the
		// expiry asks for more.
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
func newServer(key []byte, opts *mcpbridge.Options) (*mcp.Server, error) {
	bridge, err := mcpbridge.New(key, opts)
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
