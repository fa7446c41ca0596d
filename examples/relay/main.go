// Command relay is an MCP server that serves the tools of another one, the
// upstream at -upstream URL (a streamable HTTP endpoint), through
// mcpbridge.Relay: tools/list and tools/call pass through, and a question
// the upstream asks in an input_required result reaches the relay's client
// as the relay's own, the upstream's requestState sealed inside the
// relay's. Run it from this directory with
//
//	TOOLNEXUS_STATE_KEY=$(openssl rand -hex 32) go run . -upstream http://127.0.0.1:8080
//
// It serves stateless streamable HTTP (protocol 2026-07-28) at -http
// (127.0.0.1:0, a free port, by default) and prints the URL it serves at
// as the first line of its standard output. The environment configures
// its states as it does the example server's (../mcpserver): the keys
// (TOOLNEXUS_STATE_KEYS, or TOOLNEXUS_STATE_KEY; a random key without
// either), the audience (TOOLNEXUS_AUDIENCE), the Redis in which each
// answered round is claimed with its result, so that it is answered once
// on every relay that shares it (TOOLNEXUS_REDIS_URL, the Store of the
// core's park.Runner; without it, once holds in this process only) and
// how long a round stays answerable (TOOLNEXUS_EXPIRY). A value that does
// not parse, or no -upstream, stops it at start.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve stateless streamable HTTP at `address`")
	upstream := flag.String("upstream", "", "the streamable HTTP MCP endpoint whose tools to serve, such as http://127.0.0.1:8080/mcp")
	flag.Parse()
	handler, relay, err := fromEnv(os.Getenv, *upstream)
	if err != nil {
		log.Fatal(err)
	}
	defer relay.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}

// errUpstream reports an -upstream that is not an http or https URL.
var errUpstream = errors.New("relay: -upstream must be an http or https URL")

// fromEnv returns the stateless streamable HTTP handler of a relay of
// upstream whose states the environment, read with getenv, configures.
func fromEnv(getenv func(string) string, upstream string) (http.Handler, *mcpbridge.Relay, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("%w, not %q", errUpstream, upstream)
	}
	c, err := mcpexample.FromEnv(getenv)
	if err != nil {
		return nil, nil, err
	}
	sealer, err := requeststate.NewSealer(c.State)
	if err != nil {
		return nil, nil, err
	}
	runner, err := mcpcall.NewRunner(sealer, c.Runner)
	if err != nil {
		return nil, nil, err
	}
	relay, err := mcpbridge.NewRelay(runner, func() mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: upstream}
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	server := relay.NewServer(&mcp.Implementation{Name: "toolnexus-relay", Version: mcpexample.Version}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
	return handler, relay, nil
}
