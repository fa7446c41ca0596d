package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// relayBinary is this command, built once by TestMain.
var relayBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "relay-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	relayBinary = filepath.Join(dir, "relay")
	build := exec.Command("go", "build", "-o", relayBinary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the relay:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// upstreamServer serves, over stateless streamable HTTP on a free port of
// 127.0.0.1, a tool "deploy" that asks for an approval with a requestState
// of its own; it returns its URL and the number of calls it served.
func upstreamServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			if e, ok := req.Params.InputResponses["approve"].(*mcp.ElicitResult); ok && e.Action == "accept" && req.Params.RequestState == "upstream-round-1" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///log.txt", MIMEType: "text/plain", Blob: []byte("ok")}}}}, nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"approve": &mcp.ElicitParams{Mode: "form", Message: "Deploy?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
				RequestState:  "upstream-round-1",
			}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	return srv.URL, &calls
}

// start runs the relay with args and env and returns the first line of
// its standard output; the relay is stopped when the test ends.
func start(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(relayBinary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the relay printed no URL; it wrote: %s", stderr.String())
	return strings.TrimSpace(line)
}

// TestRelayProcess runs the relay in front of an upstream over HTTP: the
// client gets the upstream's tools and question, a state that hides the
// upstream's, and with its answer the upstream's result, a text/plain blob
// still a blob; a tampered state is -32602 and the upstream is not called.
func TestRelayProcess(t *testing.T) {
	upstream, calls := upstreamServer(t)
	url := start(t, []string{"TOOLNEXUS_STATE_KEY=" + strings.Repeat("ab", 32)}, "-upstream", upstream)
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, url)

	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	defer cs.Close()
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	assert.Equal(t, "deploy", tools.Tools[0].Name)

	args := map[string]any{"env": "prod"}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, `{"approve":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"properties":{},"type":"object"}}}}`, mustJSON(t, first.InputRequests))
	assert.True(t, strings.HasPrefix(first.RequestState, "tn1."))
	assert.NotContains(t, first.RequestState, "upstream-round")
	assert.Equal(t, int64(1), calls.Load())

	answer := mcp.InputResponseMap{"approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, InputResponses: answer, RequestState: first.RequestState + "-TAMPERED"})
	var e *jsonrpc.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, int64(-32602), e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.Equal(t, int64(1), calls.Load(), "the upstream was called with a tampered state")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"text","text":"deployed"},{"type":"resource","resource":{"uri":"file:///log.txt","mimeType":"text/plain","blob":"b2s="}}]`, mustJSON(t, res.Content))
	assert.False(t, res.IsError)
	assert.Equal(t, int64(2), calls.Load())
}

// TestRelayProcessFlags checks that the relay refuses to start without an
// upstream, or with a bad environment.
func TestRelayProcessFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no upstream", nil, nil, `relay: -upstream must be an http or https URL, not ""`},
		{"not http", nil, []string{"-upstream", "ftp://127.0.0.1/"}, `relay: -upstream must be an http or https URL, not "ftp://127.0.0.1/"`},
		{"a key that is not hex", []string{"TOOLNEXUS_STATE_KEY=zz"}, []string{"-upstream", "http://127.0.0.1:1/mcp"}, "TOOLNEXUS_STATE_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(relayBinary, tc.args...)
			cmd.Env = append(os.Environ(), tc.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Contains(t, string(out), tc.want)
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
