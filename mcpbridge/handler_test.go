package mcpbridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

var (
	testKey  = []byte("0123456789abcdef0123456789abcdef")
	otherKey = bytes.Repeat([]byte{0x5a}, 32)
	testPNG  = []byte("\x89PNG\r\n\x1a\n fixture bytes")
)

type envInput struct {
	Env string `json:"env"`
}

// echo is what the test tools return once answered: the answer as JSON.
func echo(a *toolnexus.Answer) toolnexus.ToolResult {
	b, _ := json.Marshal(a)
	return toolnexus.Ok(string(b))
}

// newTestServer returns a server whose tools suspend as the example's do,
// and answer with the answer they got.
func newTestServer(t *testing.T, key []byte, opts *mcpbridge.Options) *mcp.Server {
	t.Helper()
	b, err := mcpbridge.New(key, opts)
	require.NoError(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	suspend := func(req toolnexus.Request) mcpbridge.ToolFunc[struct{}] {
		return func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
			if a == nil {
				return toolnexus.Pending(req)
			}
			return echo(a)
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, mcpbridge.Handler(b, func(_ context.Context, in envInput, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		}
		return echo(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "login"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.AuthRequired("https://example.com/login", "")
		}
		return echo(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "pick"}, mcpbridge.Handler(b, suspend(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})))
	mcp.AddTool(s, &mcp.Tool{Name: "dated"}, mcpbridge.Handler(b, suspend(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Go?",
		ExpiresAt: "2100-01-01T00:00:00Z"})))
	mcp.AddTool(s, &mcp.Tool{Name: "broken"}, mcpbridge.Handler(b, suspend(toolnexus.Request{ID: "pnd-x", Kind: toolnexus.KindInput})))
	mcp.AddTool(s, &mcp.Tool{Name: "again"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Again?"})
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "render"}, mcpbridge.Handler(b, func(context.Context, struct{}, *toolnexus.Answer) toolnexus.ToolResult {
		p, err := toolnexus.PartFromBytes(testPNG, "image/png")
		if err != nil {
			return toolnexus.Error(err.Error())
		}
		return toolnexus.Ok("chart", p)
	}))
	return s
}

// wire records the JSON-RPC messages a client reads.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// lastResult returns the result of the last response the client read, as
// the server sent it.
func (w *wire) lastResult(t *testing.T) json.RawMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var last json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg))
		if msg.Result != nil {
			last = msg.Result
		}
	}
	require.NotNil(t, last, "no result read")
	return last
}

var (
	formAndURL = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
		Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	manual = &mcp.ClientOptions{Capabilities: formAndURL, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
)

// connect connects a client with opts to s, on the given protocol version
// ("" for the newest), and returns its session and what it reads.
func connect(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, *wire) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	w := &wire{}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs, w
}

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	return res
}

// text returns the text of a result of one text block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     []byte
		opts    *mcpbridge.Options
		wantErr error
		wantMsg string
	}{
		{"32 bytes", testKey, nil, nil, ""},
		{"64 bytes, expiry", bytes.Repeat(testKey, 2), &mcpbridge.Options{Expiry: time.Minute}, nil, ""},
		{"short key", testKey[:31], nil, toolnexus.ErrShortKey, "mcpbridge: toolnexus: request state key too short: 31 bytes, want at least 32"},
		{"no key", nil, &mcpbridge.Options{}, toolnexus.ErrShortKey, ""},
		{"negative expiry", testKey, &mcpbridge.Options{Expiry: -time.Second}, nil, "mcpbridge: negative expiry -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := mcpbridge.New(tt.key, tt.opts)
			if tt.wantErr == nil && tt.wantMsg == "" {
				require.NoError(t, err)
				assert.NotNil(t, b)
				return
			}
			require.Error(t, err)
			assert.Nil(t, b)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			}
			if tt.wantMsg != "" {
				assert.EqualError(t, err, tt.wantMsg)
			}
		})
	}
}

// TestHandlerInputRequired reads the input_required result of each kind of
// request as the server sends it, key by key, then answers it.
func TestHandlerInputRequired(t *testing.T) {
	t.Parallel()
	cs, w := connect(t, newTestServer(t, testKey, nil), manual, "")
	tests := []struct {
		name    string
		args    map[string]any
		params  string // with ID for the request's id
		want    toolnexus.Request
		content map[string]any
	}{
		{"deploy", map[string]any{"env": "prod"},
			`{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}`,
			toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}, nil},
		{"login", map[string]any{},
			`{"mode":"url","message":"Authorization required to continue","url":"https://example.com/login","elicitationId":"ID"}`,
			toolnexus.Request{Kind: toolnexus.KindAuthorization, Prompt: "Authorization required to continue", URL: "https://example.com/login"}, nil},
		{"pick", nil,
			`{"mode":"form","message":"Which environment?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Which environment?"}},"required":["answer"]}}`,
			toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"schema": map[string]any{
				"type": "object", "required": []any{"answer"},
				"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "Which environment?"}}}}},
			map[string]any{"answer": "prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, &mcp.CallToolParams{Name: tt.name, Arguments: tt.args})
			assert.True(t, res.NeedsInput())
			raw := w.lastResult(t)

			var keys map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &keys))
			var reqs map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(keys["inputRequests"], &reqs))
			require.Len(t, reqs, 1)
			var id string
			for id = range reqs {
			}
			assert.Regexp(t, `^pnd-[0-9a-f-]{36}$`, id)
			var state string
			require.NoError(t, json.Unmarshal(keys["requestState"], &state))
			assert.Regexp(t, `^tn1\.[A-Za-z0-9_-]+$`, state)
			assert.NotContains(t, state, id, "the state is opaque")
			assert.NotContains(t, state, tt.want.Prompt, "the state is opaque")
			assert.JSONEq(t, `"input_required"`, string(keys["resultType"]))
			assert.JSONEq(t, `{"method":"elicitation/create","params":`+strings.ReplaceAll(tt.params, "ID", id)+`}`, string(reqs[id]))
			// The SDK writes the rest: its CallToolResult always has content,
			// and its server names itself in _meta.
			assert.JSONEq(t, `null`, string(keys["content"]))
			assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"v0.0.1"}}`, string(keys["_meta"]))
			assert.Len(t, keys, 5, "no other key: %s", raw)

			// What the server sent reads back as the suspension it stands for.
			want := toolnexus.Pending(tt.want)
			want.Metadata[toolnexus.MetadataRequestState] = state
			tt.want.ID = id
			want.Metadata[toolnexus.MetadataPending] = tt.want
			for name, read := range map[string]func() (toolnexus.ToolResult, error){
				"FromMCPCallToolResult": func() (toolnexus.ToolResult, error) { return toolnexus.FromMCPCallToolResult(raw) },
				"FromCallToolResult":    func() (toolnexus.ToolResult, error) { return mcpbridge.FromCallToolResult(res) },
			} {
				r, err := read()
				require.NoError(t, err, name)
				assert.Equal(t, want, r, name)
				req, ok := toolnexus.PendingOf(r)
				require.True(t, ok, name)
				assert.Equal(t, tt.want, req, name)
			}

			answered := call(t, cs, &mcp.CallToolParams{Name: tt.name, Arguments: tt.args, RequestState: state,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: tt.content}}})
			assert.False(t, answered.IsError)
			answer, _ := json.Marshal(toolnexus.Answer{ID: id, OK: true, Data: tt.content})
			assert.Equal(t, string(answer), text(t, answered))
		})
	}
}

// suspended calls a tool that suspends and returns its request's id and
// its state.
func suspended(t *testing.T, cs *mcp.ClientSession, name string, args any) (id, state string) {
	t.Helper()
	res := call(t, cs, &mcp.CallToolParams{Name: name, Arguments: args})
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 1)
	for id = range res.InputRequests {
	}
	return id, res.RequestState
}

// TestHandlerRetry retries calls with states and answers that do not fit
// them: each gives an error result the model can read.
func TestHandlerRetry(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t, newTestServer(t, testKey, nil), manual, "")
	staging := map[string]any{"env": "staging"}
	id, state := suspended(t, cs, "deploy", staging)
	loginID, loginState := suspended(t, cs, "login", nil)
	accept := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}
	seal := func(key []byte, tool string, args string, req toolnexus.Request) string {
		s, err := toolnexus.SealRequestState(key, tool, json.RawMessage(args), req)
		require.NoError(t, err)
		return s
	}
	approval := toolnexus.Request{ID: id, Kind: toolnexus.KindApproval, Prompt: "Deploy to staging?"}
	i := len(state) / 2
	swap := byte('A')
	if state[i] == 'A' {
		swap = 'B'
	}
	tampered := state[:i] + string(swap) + state[i+1:]
	//lint:ignore SA1019 a client may send any kind of answer
	roots := &mcp.ListRootsResult{}

	tests := []struct {
		name      string
		args      any
		state     string
		responses mcp.InputResponseMap
		want      string // the text; IsError unless it is an answer
	}{
		{"accepted", staging, state, accept, `{"id":"` + id + `","ok":true}`},
		{"declined", staging, state, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}}, `{"id":"` + id + `","ok":false,"reason":"declined"}`},
		{"cancelled", staging, state, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "cancel"}}, `{"id":"` + id + `","ok":false,"reason":"cancelled"}`},
		{"arguments reordered", json.RawMessage(` { "env" : "staging" } `), state, accept, `{"id":"` + id + `","ok":true}`},

		{"tampered", staging, tampered, accept, "toolnexus: invalid request state: not sealed with this key, or altered"},
		{"truncated", staging, state[:len(state)-3], accept, "toolnexus: invalid request state: not sealed with this key, or altered"},
		{"forged with another key", staging, seal(otherKey, "deploy", `{"env":"staging"}`, approval), accept,
			"toolnexus: invalid request state: not sealed with this key, or altered"},
		{"garbage", staging, "please deploy", accept, "toolnexus: invalid request state: not sealed with this key, or altered"},
		{"expired", staging, seal(testKey, "deploy", `{"env":"staging"}`, approval.WithExpiry(time.Now().Add(-time.Second))), accept,
			`toolnexus: request expired: request "` + id + `" expired at `},
		{"other tool's state", staging, loginState, mcp.InputResponseMap{loginID: &mcp.ElicitResult{Action: "accept"}},
			`toolnexus: request state does not match the call: it was sealed for another tool, not "deploy"`},
		{"other arguments", map[string]any{"env": "prod"}, state, accept,
			`toolnexus: request state does not match the call: it was sealed for other arguments to "deploy"`},
		{"no answer", staging, state, nil, `mcpbridge: inputResponses holds no answer to request "` + id + `"`},
		{"answer to another id", staging, state, mcp.InputResponseMap{"pnd-other": &mcp.ElicitResult{Action: "accept"}},
			`mcpbridge: inputResponses holds no answer to request "` + id + `"`},
		{"not an elicitation result", staging, state, mcp.InputResponseMap{id: roots},
			`mcpbridge: the answer to request "` + id + `" is not an elicitation result`},
		{"unknown action", staging, state, mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "maybe"}},
			`toolnexus: invalid MCP result: elicitation action "maybe" is not accept, decline or cancel`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: tt.args, RequestState: tt.state, InputResponses: tt.responses})
			assert.False(t, res.NeedsInput())
			got := text(t, res)
			if strings.HasPrefix(tt.want, "{") {
				assert.False(t, res.IsError)
				assert.Equal(t, tt.want, got)
				return
			}
			assert.True(t, res.IsError)
			if strings.HasSuffix(tt.want, "expired at ") {
				assert.True(t, strings.HasPrefix(got, tt.want), got)
			} else {
				assert.Equal(t, tt.want, got)
			}
			assert.NotContains(t, got, tt.state[4:12], "the text shows no state")
		})
	}
}

// TestHandlerOtherInstance answers on a second server a question the first
// one asked: servers with the same key share states.
func TestHandlerOtherInstance(t *testing.T) {
	t.Parallel()
	first, _ := connect(t, newTestServer(t, testKey, nil), manual, "")
	id, state := suspended(t, first, "deploy", map[string]any{"env": "prod"})
	retry := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}, RequestState: state,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}}

	same, _ := connect(t, newTestServer(t, bytes.Clone(testKey), nil), manual, "")
	res := call(t, same, retry)
	assert.False(t, res.IsError)
	assert.Equal(t, `{"id":"`+id+`","ok":true}`, text(t, res))

	other, _ := connect(t, newTestServer(t, otherKey, nil), manual, "")
	res = call(t, other, retry)
	assert.True(t, res.IsError)
	assert.Equal(t, "toolnexus: invalid request state: not sealed with this key, or altered", text(t, res))
}

// TestHandlerExpiry opens the states the server seals: a request without
// ExpiresAt gets the bridge's expiry, one with ExpiresAt keeps it.
func TestHandlerExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *mcpbridge.Options
		tool string
		want time.Duration // from now; 0 for the request's own
	}{
		{"default", nil, "pick", mcpbridge.DefaultExpiry},
		{"configured", &mcpbridge.Options{Expiry: time.Minute}, "pick", time.Minute},
		{"the request's own", &mcpbridge.Options{Expiry: time.Minute}, "dated", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, _ := connect(t, newTestServer(t, testKey, tt.opts), manual, "")
			before := time.Now()
			_, state := suspended(t, cs, tt.tool, nil)
			after := time.Now()
			req, err := toolnexus.OpenRequestState(testKey, state, tt.tool, nil, after)
			require.NoError(t, err)
			expiry, err := req.Expiry()
			require.NoError(t, err)
			if tt.want == 0 {
				assert.Equal(t, "2100-01-01T00:00:00Z", req.ExpiresAt)
				return
			}
			assert.False(t, expiry.Before(before.Add(tt.want)), "expires at %v", expiry)
			assert.False(t, expiry.After(after.Add(tt.want)), "expires at %v", expiry)
		})
	}
}

// TestHandlerCapabilities sends the text of a suspension to a client that
// cannot take its elicitation.
func TestHandlerCapabilities(t *testing.T) {
	t.Parallel()
	elicit := func(e *mcp.ElicitationCapabilities) *mcp.ClientOptions {
		return &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: e}, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	}
	const loginText = "Authorization required to continue\nhttps://example.com/login"
	tests := []struct {
		name string
		opts *mcp.ClientOptions
		tool string
		want string // the text sent; "" for an elicitation
	}{
		{"no elicitation, form", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "pick", "Which environment?"},
		{"no elicitation, url", nil, "login", loginText},
		{"form only, form", elicit(&mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}), "deploy", ""},
		{"form only, url", elicit(&mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}), "login", loginText},
		{"neither mode named, form", elicit(&mcp.ElicitationCapabilities{}), "pick", ""},
		{"neither mode named, url", elicit(&mcp.ElicitationCapabilities{}), "login", loginText},
		{"url only, form", elicit(&mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}), "pick", "Which environment?"},
		{"url only, url", elicit(&mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}), "login", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, _ := connect(t, newTestServer(t, testKey, nil), tt.opts, "")
			var args any
			if tt.tool == "deploy" {
				args = map[string]any{"env": "prod"}
			}
			res := call(t, cs, &mcp.CallToolParams{Name: tt.tool, Arguments: args})
			if tt.want == "" {
				assert.True(t, res.NeedsInput())
				return
			}
			assert.False(t, res.NeedsInput())
			assert.Empty(t, res.RequestState)
			assert.True(t, res.IsError)
			assert.Equal(t, tt.want, text(t, res))
		})
	}
}

// TestHandlerOlderProtocol serves a client on protocol 2025-11-25, which
// the SDK's server asks directly before it calls the handler again.
func TestHandlerOlderProtocol(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		asked []string
	)
	opts := &mcp.ClientOptions{Capabilities: formAndURL, ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Mode+": "+req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "prod"}}, nil
	}}
	cs, w := connect(t, newTestServer(t, testKey, nil), opts, "2025-11-25")
	require.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)

	res := call(t, cs, &mcp.CallToolParams{Name: "pick"})
	assert.False(t, res.IsError)
	assert.Regexp(t, `^\{"id":"pnd-[0-9a-f-]{36}","ok":true,"data":\{"answer":"prod"\}\}$`, text(t, res))
	assert.NotContains(t, string(w.lastResult(t)), "input_required")

	// A tool that suspends again after its answer: the SDK asks only once,
	// so the second question goes as text.
	res = call(t, cs, &mcp.CallToolParams{Name: "again"})
	assert.True(t, res.IsError)
	assert.Equal(t, "Again?", text(t, res))
	assert.NotContains(t, string(w.lastResult(t)), "inputRequests")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"form: Which environment?", "form: Again?"}, asked)
}

// TestHandlerResult sends what is not a suspension as CallToolResult does,
// and a suspension the bridge cannot send as an error.
func TestHandlerResult(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t, newTestServer(t, testKey, nil), manual, "")

	res := call(t, cs, &mcp.CallToolParams{Name: "render"})
	assert.False(t, res.IsError)
	require.Len(t, res.Content, 2)
	assert.Equal(t, &mcp.TextContent{Text: "chart"}, res.Content[0])
	assert.Equal(t, &mcp.ImageContent{Data: testPNG, MIMEType: "image/png"}, res.Content[1])

	res = call(t, cs, &mcp.CallToolParams{Name: "broken"})
	assert.True(t, res.IsError)
	assert.Equal(t, `toolnexus: invalid request: request "pnd-x" has no prompt`, text(t, res))

	res = call(t, cs, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": 7}})
	assert.True(t, res.IsError, "the SDK checks the arguments against the schema of In")
}
