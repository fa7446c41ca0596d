// Command mcpgoserver is the example server of ../mcpserver built on
// mcp-go, through mcpgobridge, with the same contract: an MCP server on
// stdio whose tools wait for a person. deploy asks to approve a
// deployment, login to sign in at a web page, and pick to type an answer.
// Each tool returns a toolnexus suspension; the client puts the question
// to the person and calls the tool again with the answer. Run it from this
// directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run .
//
// as the command of an MCP client. It lives in the examples module, so
// that the Redis client it can use is no dependency of mcpgobridge. The
// environment configures the state a client holds between a question and
// its answer:
//
//   - TOOLNEXUS_AUDIENCE: the name of this service, such as its URL, which
//     every state is bound to: a state opens only on a server with the same
//     audience, so two services sharing a key cannot open each other's
//     states. Give each service its own; toolnexus-example by default.
//   - TOOLNEXUS_STATE_KEYS: comma-separated hex keys, each at least 32
//     bytes: the first seals states, every one opens them, so a key can be
//     rotated without failing a parked call (add the new key second, then
//     move it first, then drop the old one a day later).
//   - TOOLNEXUS_STATE_KEY: one hex key, when there is no ring. Without
//     either, the server makes a random key at start, and a question asked
//     before a restart can no longer be answered.
//   - TOOLNEXUS_REDIS_URL=redis://host:port/db: each state is answered
//     once for every server that shares the Redis, its claim and the
//     result of its one run kept there (the Store of the core's
//     park.Runner: mcpcall.Options{Park: park.Runner{Store: store}} with a
//     redisclaims.Store); without it, once holds in this process only.
//     Once is as durable as that Redis: give it one of its own,
//     maxmemory-policy noeviction and appendonly yes (the server warns at
//     start of what it finds otherwise); a failover may lose the last
//     claims.
//   - TOOLNEXUS_SINGLE_USE: 1 or unset, the same; 0, which used to let a
//     retry run the tool again, stops the server at start.
//   - TOOLNEXUS_EXPIRY: how long a parked call stays answerable, as a Go
//     duration such as 2h: 10m by default.
//
// A value that does not parse stops the server at start. Each state is
// answered once, by default: the tool runs once for one answer, and a
// client that retries the answered state, as after a lost response, gets
// the result of that run, the same bytes; a retry while it still runs
// gets the JSON-RPC error "Call still running: retry later".
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
	"log"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
)

func main() {
	srv, err := fromEnv(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(srv); err != nil {
		log.Fatal(err)
	}
}

// fromEnv returns the server that the environment, read with getenv,
// configures.
func fromEnv(getenv func(string) string) (*server.MCPServer, error) {
	c, err := mcpexample.FromEnv(getenv)
	if err != nil {
		return nil, err
	}
	runner, err := c.NewRunner()
	if err != nil {
		return nil, err
	}
	return newServer(runner)
}

// newServer returns the server with its three tools, whose calls r runs.
func newServer(r *mcpcall.Runner) (*server.MCPServer, error) {
	bridge, err := mcpgobridge.New(r, nil)
	if err != nil {
		return nil, err
	}
	srv := server.NewMCPServer(mcpexample.Name, mcpexample.Version, server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("deploy", mcp.WithDescription(mcpexample.DeployDescription),
		mcp.WithInputSchema[mcpexample.DeployInput]()), mcpgobridge.Handler(bridge, mcpexample.Deploy))
	srv.AddTool(mcp.NewTool("login", mcp.WithDescription(mcpexample.LoginDescription)),
		mcpgobridge.Handler(bridge, mcpexample.Login))
	srv.AddTool(mcp.NewTool("pick", mcp.WithDescription(mcpexample.PickDescription)),
		mcpgobridge.Handler(bridge, mcpexample.Pick))
	return srv, nil
}
