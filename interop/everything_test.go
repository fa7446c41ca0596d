package interop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolnexus-go/toolnexus"
)

// everythingServer is the MCP reference server, installed by `npm ci` in
// everything/: .ci/run does it, and the test does it when it is missing.
const everythingServer = "everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// everythingCall is one call of a tool of the reference server and the
// block types its result holds, as the server sends them.
type everythingCall struct {
	name   string // of the subtest
	tool   string
	args   map[string]any
	blocks []string
}

// everythingCalls calls every tool of the reference server that runs
// offline but the [taskTools], some in several ways.
var everythingCalls = []everythingCall{
	{"echo", "echo", map[string]any{"message": "héllo, world"}, []string{"text"}},
	{"annotated error with image", "get-annotated-message", map[string]any{"messageType": "error", "includeImage": true}, []string{"text", "image"}},
	{"annotated success", "get-annotated-message", map[string]any{"messageType": "success"}, []string{"text"}},
	{"annotated debug", "get-annotated-message", map[string]any{"messageType": "debug"}, []string{"text"}},
	{"env", "get-env", nil, []string{"text"}},
	{"resource links", "get-resource-links", map[string]any{"count": 4}, []string{"text", "resource_link", "resource_link", "resource_link", "resource_link"}},
	{"text resource", "get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1}, []string{"text", "resource", "text"}},
	{"blob resource", "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 2}, []string{"text", "resource", "text"}},
	{"structured content", "get-structured-content", map[string]any{"location": "Chicago"}, []string{"text"}},
	{"sum", "get-sum", map[string]any{"a": 2, "b": 40}, []string{"text"}},
	{"tiny image", "get-tiny-image", nil, []string{"text", "image", "text"}},
	{"gzip as resource", "gzip-file-as-resource", map[string]any{"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"}, []string{"resource"}},
	{"gzip as resource link", "gzip-file-as-resource", map[string]any{"name": "hi.txt.gz", "data": "data:text/plain;base64,aGk=", "outputType": "resourceLink"}, []string{"resource_link"}},
	{"simulated logging", "toggle-simulated-logging", nil, []string{"text"}},
	{"subscriber updates", "toggle-subscriber-updates", nil, []string{"text"}},
	{"long running operation", "trigger-long-running-operation", map[string]any{"duration": 0.2, "steps": 2}, []string{"text"}},
	{"roots", "get-roots-list", nil, []string{"text"}},
	{"elicitation", "trigger-elicitation-request", nil, []string{"text", "text"}},
	{"url elicitation", "trigger-url-elicitation", map[string]any{"url": "https://example.com/consent", "message": "Consent"}, []string{"text", "text"}},
	{"sampling", "trigger-sampling-request", map[string]any{"prompt": "Say hi"}, []string{"text"}},
}

// taskTools are the reference server's tools that a client can call only
// as tasks (execution.taskSupport "required", or requests the client must
// run as tasks), an experimental capability the go-sdk client lacks.
var taskTools = map[string]bool{
	"simulate-research-query":           true,
	"trigger-sampling-request-async":    true,
	"trigger-elicitation-request-async": true,
}

// resultRecorder is a transport that keeps the raw result of the last
// response the client read, as the server wrote it.
type resultRecorder struct {
	mcp.Transport
	mu   sync.Mutex
	last json.RawMessage
}

func (t *resultRecorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return recordingConn{c, t}, nil
}

func (t *resultRecorder) lastResult() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

type recordingConn struct {
	mcp.Connection
	t *resultRecorder
}

func (c recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if res, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.t.mu.Lock()
		c.t.last = bytes.Clone(res.Result)
		c.t.mu.Unlock()
	}
	return msg, err
}

// connectEverything starts the reference server over stdio, with only PATH
// in its environment (get-env prints it all), and connects a go-sdk client
// that declares roots, sampling and elicitation, form and url.
func connectEverything(t *testing.T) (*mcp.ClientSession, *resultRecorder) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the reference server needs Node.js")
	server, err := filepath.Abs(everythingServer)
	require.NoError(t, err)
	if _, err := os.Stat(server); err != nil {
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = "everything"
		out, err := npm.CombinedOutput()
		require.NoError(t, err, "npm ci in interop/everything:\n%s", out)
	}

	cmd := exec.Command(node, server, "stdio")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	// Close gives the server a second to exit once its stdin is closed
	// (the go-sdk's default is 5s), then stops it.
	rec := &resultRecorder{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolnexus-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "Hi."}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		Capabilities: &mcp.ClientCapabilities{
			Roots:       mcp.RootCapabilities{ListChanged: true},
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, rec, nil)
	require.NoError(t, err)
	t.Cleanup(func() { session.Close() })
	return session, rec
}

// TestEverythingRoundTrip calls every offline tool of the reference server
// over stdio, reads each result with both readers, writes it back and
// checks what is kept and what is dropped, as MCPCallToolResult's doc says:
// the media blocks come back in order with their payload, uri, MIME type
// (lower case, no parameters) and a file link's name; the texts come back
// joined, first; structuredContent comes back as it was; annotations,
// _meta and a link's description are dropped.
func TestEverythingRoundTrip(t *testing.T) {
	session, rec := connectEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	listed, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	called := map[string]bool{}
	for _, c := range everythingCalls {
		called[c.tool] = true
	}
	for _, tool := range listed.Tools {
		assert.True(t, called[tool.Name] || taskTools[tool.Name], "tool %s is not called", tool.Name)
	}

	dropped := map[string]bool{}
	for _, c := range everythingCalls { // one session: calls in turn
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args == nil {
				args = map[string]any{} // the server wants an object, never null
			}
			_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
			require.NoError(t, err)
			raw := rec.lastResult()
			var peer map[string]any
			require.NoError(t, json.Unmarshal(raw, &peer))
			blocks, _ := peer["content"].([]any)
			types := make([]string, len(blocks))
			for i, b := range blocks {
				types[i], _ = b.(map[string]any)["type"].(string)
				for _, k := range []string{"annotations", "_meta", "description"} {
					if _, ok := b.(map[string]any)[k]; ok {
						dropped[k] = true
					}
				}
			}
			require.Equal(t, c.blocks, types, "the blocks the server sent: %s", raw)

			r, err := toolnexus.FromMCPCallToolResult(raw)
			require.NoError(t, err)
			require.NoError(t, r.Validate())
			var typed toolnexus.MCPCallToolResult
			require.NoError(t, json.Unmarshal(raw, &typed))
			viaStruct, err := typed.ToolResult()
			require.NoError(t, err)
			assert.Equal(t, r, viaStruct, "both readers read the same result")

			back := toJSON(t, r.MCPCallToolResult())
			assert.Equal(t, kept(t, raw), back, "what a round trip keeps of %s", raw)
			again, err := toolnexus.FromMCPCallToolResult([]byte(back))
			require.NoError(t, err)
			assert.Equal(t, r, again, "what is written back reads as the same result")
		})
	}
	assert.Equal(t, map[string]bool{"annotations": true, "description": true}, dropped,
		"the fields the server sent that a round trip drops")
}

// kept is what a round trip through toolnexus keeps of the CallToolResult
// peer, as JSON: the text blocks joined into one, first (the structured
// content's JSON when there is no text); the other blocks in order, with
// only the fields toolnexus carries; isError; and structuredContent.
func kept(t *testing.T, raw json.RawMessage) string {
	var peer map[string]any
	require.NoError(t, json.Unmarshal(raw, &peer))
	var structured struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(raw, &structured))
	var texts []string
	var media []any
	blocks, _ := peer["content"].([]any)
	for _, b := range blocks {
		b := b.(map[string]any)
		switch b["type"] {
		case "text":
			texts = append(texts, b["text"].(string))
		case "image", "audio":
			media = append(media, mediaBlock{b["type"].(string), b["data"].(string), bareLower(b["mimeType"])})
		case "resource":
			media = append(media, keptResource(t, b["resource"].(map[string]any)))
		case "resource_link":
			mt := bareLower(b["mimeType"])
			if mt == "" {
				mt = "application/octet-stream"
			}
			name := b["name"].(string)
			if strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "audio/") {
				name = b["uri"].(string)[strings.LastIndexByte(b["uri"].(string), '/')+1:] // only a file keeps its name
			}
			media = append(media, linkBlock{"resource_link", mt, b["uri"].(string), name})
		default:
			t.Fatalf("block type %v", b["type"])
		}
	}
	out := struct {
		Content           []any           `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError"`
	}{Content: []any{}}
	if structured.StructuredContent != nil {
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, structured.StructuredContent))
		out.StructuredContent = compact.Bytes()
	}
	text := strings.Join(texts, "\n")
	if text == "" && out.StructuredContent != nil {
		text = string(out.StructuredContent)
	}
	if text != "" {
		out.Content = append(out.Content, textBlock{"text", text})
	}
	out.Content = append(out.Content, media...)
	out.IsError, _ = peer["isError"].(bool)
	return toJSON(t, out)
}

// keptResource is what a round trip keeps of an embedded resource: its uri
// and MIME type (lower case, no parameters; text/plain for text and
// application/octet-stream for a blob without one), and its content in the
// form it came in: a text as text, a blob as a blob, whatever the type.
func keptResource(t *testing.T, res map[string]any) resourceBlock {
	kept := keptContents{URI: res["uri"].(string), MIMEType: bareLower(res["mimeType"])}
	text, isText := res["text"].(string)
	data := []byte(text)
	if !isText {
		var err error
		data, err = base64.StdEncoding.DecodeString(res["blob"].(string))
		require.NoError(t, err)
	}
	switch {
	case kept.MIMEType == "" && isText:
		kept.MIMEType = "text/plain"
	case kept.MIMEType == "":
		kept.MIMEType = "application/octet-stream"
	}
	if isText {
		kept.Text = text
	} else {
		kept.Blob = base64.StdEncoding.EncodeToString(data)
	}
	return resourceBlock{"resource", kept}
}

// The blocks in the order of their keys in MCPContent.
type (
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	mediaBlock struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	}
	linkBlock struct {
		Type     string `json:"type"`
		MIMEType string `json:"mimeType"`
		URI      string `json:"uri"`
		Name     string `json:"name"`
	}
	resourceBlock struct {
		Type     string       `json:"type"`
		Resource keptContents `json:"resource"`
	}
	keptContents struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Text     string `json:"text,omitempty"`
		Blob     string `json:"blob,omitempty"`
	}
)

// bareLower returns a MIME type in lower case, without parameters.
func bareLower(v any) string {
	s, _ := v.(string)
	s, _, _ = strings.Cut(s, ";")
	return strings.ToLower(strings.TrimSpace(s))
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
