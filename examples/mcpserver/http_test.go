package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// httpProcess starts the server with -http on a free port of 127.0.0.1,
// with env, and returns its URL; it stops the server when the test ends,
// or stop stops it sooner.
func httpProcess(t *testing.T, env ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(serverBinary, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	t.Cleanup(func() { stderr.Close() })
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		log, _ := os.ReadFile(stderr.Name())
		t.Fatalf("the server printed no URL: %v; it wrote:\n%s", err, log)
	}
	return strings.TrimSpace(line), stop
}

// httpClient connects a go-sdk client with opts to the server at url, on
// the protocol version ("" for the newest).
func httpClient(t *testing.T, url string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// elicitForm is the capability of a client that takes form elicitations.
var elicitForm = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

// TestHTTPServer runs the server as a process serving stateless streamable
// HTTP and calls it with the go-sdk's client, which takes the
// input_required result itself: it asks the person, through its
// elicitation handler, and retries the call with the answer.
func TestHTTPServer(t *testing.T) {
	t.Parallel()
	url, _ := httpProcess(t, "TOOLNEXUS_STATE_KEY="+oldKey)
	var asked []string
	cs := httpClient(t, url, &mcp.ClientOptions{
		Capabilities: elicitForm,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	require.NoError(t, err)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "deployed to prod"}}, res.Content)
	assert.False(t, res.IsError)
	assert.Equal(t, []string{"Deploy to prod?"}, asked)
}

// TestHTTPServerRestart parks a call in the host, as a client that stores
// the input_required result does (the go-sdk's client with its multi round
// trip disabled), stops the server, and answers the call on a new server
// process with the same key: the state holds the call, so it survives the
// restart, within the expiry that requeststate.Expiry reads from it.
func TestHTTPServerRestart(t *testing.T) {
	t.Parallel()
	env := "TOOLNEXUS_STATE_KEY=" + oldKey
	url, stop := httpProcess(t, env)
	opts := &mcp.ClientOptions{Capabilities: elicitForm, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	call := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}
	res, err := httpClient(t, url, opts, "").CallTool(context.Background(), call)
	require.NoError(t, err)
	require.True(t, res.NeedsInput())
	parked, err := mcpbridge.FromCallToolResult(res)
	require.NoError(t, err)
	req, ok := toolnexus.PendingOf(parked)
	require.True(t, ok)
	assert.Equal(t, "Deploy to prod?", req.Prompt)
	expiry, err := requeststate.Expiry(parked.Metadata[toolnexus.MetadataRequestState].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, timeNow().Add(park.DefaultExpiry), expiry, timeSlack)
	stop()

	url, _ = httpProcess(t, env)
	retry, err := mcpbridge.Retry(call, parked, req.Resolve(nil))
	require.NoError(t, err)
	done, err := httpClient(t, url, opts, "").CallTool(context.Background(), retry)
	require.NoError(t, err)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "deployed to prod"}}, done.Content)
}

// TestHTTPServerOldProtocol calls the stateless server on 2025-11-25,
// whose server asks the client within the call, on its session: a
// stateless server has no session that declared it takes elicitations, so
// the client gets the question as an error result, and nothing is parked.
func TestHTTPServerOldProtocol(t *testing.T) {
	t.Parallel()
	url, _ := httpProcess(t, "TOOLNEXUS_STATE_KEY="+oldKey)
	cs := httpClient(t, url, &mcp.ClientOptions{Capabilities: elicitForm, ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "Deploy to prod?"}}, res.Content)
	assert.Empty(t, res.RequestState)
}

var timeNow = time.Now

// timeSlack is how far apart the test's clock and the server's reading of
// it may be.
const timeSlack = 30 * time.Second

// TestOldProtocolWaitsInTheServer calls the server on stdio on
// 2025-11-25, where the server asks the client on its session and the call
// waits in the server until the answer comes: the server stops while the
// person is asked, and the call is lost with it, unlike a parked call of
// 2026-07-28 (TestHTTPServerRestart).
func TestOldProtocolWaitsInTheServer(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(serverBinary)
	cmd.Env = append(os.Environ(), "TOOLNEXUS_STATE_KEY="+oldKey)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &mcp.ClientOptions{
		Capabilities: elicitForm,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			cmd.Process.Kill() // the server stops while the person thinks
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	require.Error(t, err, "the call ended with its server: %+v", res)
}
