// Command mcpserver is an MCP server on the go-sdk, through mcpbridge, whose
// tools wait for a person: deploy asks to approve a deployment, login to
// sign in at a web page, and pick to type an answer. Each tool returns a
// toolnexus suspension; the client puts the question to the person and
// calls the tool again with the answer. Run it from this directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run .
//
// as the command of an MCP client, on stdio, or with -http 127.0.0.1:8080
// as a stateless streamable HTTP server, whose URL it prints: each call is
// a request of its own, which any instance with the same key and audience
// answers, and a parked call survives a restart. Over HTTP it serves
// protocol 2026-07-28, where the client retries the call with the answer
// and the requestState; a client on an older protocol, whose session the
// server would ask, gets the question as an error result. It lives in the
// examples module, so that the Redis client it can use is no dependency of
// mcpbridge. The environment configures the state a client holds between a
// question and its answer:
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
//     duration such as 2h: 10m by default, at most 30 days. Its state is
//     refused after that, and in any case a day after it was sealed when
//     the expiry is shorter than a day; a host reads the time from the
//     requestState with requeststate.Expiry.
//
// A value that does not parse stops the server at start. Each state is
// answered once, by default: the tool runs once for one answer, and a
// client that retries the answered state, as after a lost response, gets
// the result of that run, the same bytes; a retry while it still runs
// gets the JSON-RPC error -32603 "Call still running: retry later".
//
// On protocol 2026-07-28 the client gets each question in an
// input_required result and retries the call with the answer and the
// requestState; on older protocols the server asks the client directly.
// A requestState that does not open (altered, sealed with a key the server
// no longer holds, for another call, or expired) is the
// JSON-RPC error -32602 "Invalid or expired requestState" with data
// {"reason":"invalid_request_state"}; an answer off the question's schema
// is a JSON-RPC error -32602 too, and the tool does not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
)

func main() {
	addr := flag.String("http", "", "serve stateless streamable HTTP at `address`, such as 127.0.0.1:8080, instead of stdio")
	flag.Parse()
	server, err := fromEnv(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, httpHandler(server)))
}

// httpHandler returns the stateless streamable HTTP handler of server.
func httpHandler(server *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
}

// fromEnv returns the server that the environment, read with getenv,
// configures.
func fromEnv(getenv func(string) string) (*mcp.Server, error) {
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
func newServer(r *mcpcall.Runner) (*mcp.Server, error) {
	bridge, err := mcpbridge.New(r, nil)
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: mcpexample.Name, Version: mcpexample.Version}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: mcpexample.DeployDescription},
		mcpbridge.Handler(bridge, mcpexample.Deploy))
	mcp.AddTool(server, &mcp.Tool{Name: "login", Description: mcpexample.LoginDescription},
		mcpbridge.Handler(bridge, mcpexample.Login))
	mcp.AddTool(server, &mcp.Tool{Name: "pick", Description: mcpexample.PickDescription},
		mcpbridge.Handler(bridge, mcpexample.Pick))
	return server, nil
}
