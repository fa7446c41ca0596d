package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scenario is one call of a tool and the person's answer to its question,
// with what the client must end with: the contract of this server.
type scenario struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Action    string         `json:"action"`
	Content   map[string]any `json:"content,omitempty"`

	asked   string // the question: mode, message and URL
	text    string
	isError bool
}

var scenarios = []scenario{
	{Tool: "deploy", Arguments: map[string]any{"env": "prod"}, Action: "accept", asked: "form: Deploy to prod?", text: "deployed to prod"},
	{Tool: "deploy", Arguments: map[string]any{"env": "staging"}, Action: "decline", asked: "form: Deploy to staging?", text: "deploy to staging declined", isError: true},
	{Tool: "deploy", Arguments: map[string]any{"env": "prod"}, Action: "cancel", asked: "form: Deploy to prod?", text: "deploy to prod cancelled", isError: true},
	{Tool: "login", Action: "accept", asked: "url: Authorization required to continue https://example.com/login", text: "signed in"},
	{Tool: "login", Action: "decline", asked: "url: Authorization required to continue https://example.com/login", text: "login declined", isError: true},
	{Tool: "login", Action: "cancel", asked: "url: Authorization required to continue https://example.com/login", text: "login declined", isError: true},
	{Tool: "pick", Action: "accept", Content: map[string]any{"answer": "prod"}, asked: "form: Which environment?", text: "picked prod"},
	{Tool: "pick", Action: "decline", asked: "form: Which environment?", text: "nothing picked", isError: true},
}

func (s scenario) name() string { return s.Tool + " " + s.Action }

// question describes an elicitation as scenario.asked does.
func question(mode, message, url string) string {
	return strings.TrimSpace(mode + ": " + message + " " + url)
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

// TestGoClient runs every scenario with a client of the Go SDK that answers
// the server's question: on the newest protocol, where the client gets the
// question in an input_required result and retries the call, and on
// 2025-11-25, where the server asks the client directly.
func TestGoClient(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25"} {
		for _, sc := range scenarios {
			t.Run(cmp.Or(version, "newest")+"/"+sc.name(), func(t *testing.T) {
				t.Parallel()
				var (
					mu    sync.Mutex
					asked []string
				)
				opts := &mcp.ClientOptions{
					Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
						Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						mu.Lock()
						defer mu.Unlock()
						asked = append(asked, question(req.Params.Mode, req.Params.Message, req.Params.URL))
						return &mcp.ElicitResult{Action: sc.Action, Content: sc.Content}, nil
					},
				}
				cs := connect(t, opts, version)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: sc.Tool, Arguments: sc.Arguments})
				require.NoError(t, err)
				require.Len(t, res.Content, 1)
				assert.Equal(t, &mcp.TextContent{Text: sc.text}, res.Content[0])
				assert.Equal(t, sc.isError, res.IsError)
				mu.Lock()
				defer mu.Unlock()
				assert.Equal(t, []string{sc.asked}, asked)
			})
		}
	}
}

// connect connects a client with opts to a new server on the given protocol
// version ("" for the newest).
func connect(t *testing.T, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server, err := newServer(testKey)
	require.NoError(t, err)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs
}

// TestTypeScriptClient runs every scenario with the official TypeScript SDK
// as the client, on protocol 2025-11-25, against this server built and run
// over stdio. It installs the SDK with npm ci when tsclient has no
// node_modules.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tsclient, err := filepath.Abs(filepath.Join("..", "..", "tsclient"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(tsclient, "node_modules")); err != nil {
		npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = tsclient
		out, err := npm.CombinedOutput()
		require.NoError(t, err, "npm ci in %s:\n%s", tsclient, out)
	}
	bin := filepath.Join(t.TempDir(), "server")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)

	args, err := json.Marshal(scenarios)
	require.NoError(t, err)
	node := exec.CommandContext(ctx, "node", filepath.Join(tsclient, "client.mjs"), bin, string(args))
	var stderr bytes.Buffer
	node.Stderr = &stderr
	stdout, err := node.Output()
	require.NoError(t, err, "node client.mjs:\n%s", stderr.String())

	type line struct {
		Tool    string `json:"tool"`
		Action  string `json:"action"`
		IsError bool   `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Asked []struct {
			Mode    string `json:"mode"`
			Message string `json:"message"`
			URL     string `json:"url"`
		} `json:"asked"`
		Error string `json:"error"`
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var l line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "%s", sc.Bytes())
		lines = append(lines, l)
	}
	require.Len(t, lines, len(scenarios), "stdout:\n%s\nstderr:\n%s", stdout, stderr.String())
	for i, sc := range scenarios {
		t.Run(sc.name(), func(t *testing.T) {
			l := lines[i]
			require.Empty(t, l.Error)
			assert.Equal(t, sc.Tool, l.Tool)
			assert.Equal(t, sc.Action, l.Action)
			require.Len(t, l.Content, 1)
			assert.Equal(t, "text", l.Content[0].Type)
			assert.Equal(t, sc.text, l.Content[0].Text)
			assert.Equal(t, sc.isError, l.IsError)
			require.Len(t, l.Asked, 1)
			assert.Equal(t, sc.asked, question(l.Asked[0].Mode, l.Asked[0].Message, l.Asked[0].URL))
		})
	}
}
