package mcpbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

// retryClient connects a go-sdk client that takes input_required results
// itself to an in-memory go-sdk server whose tools suspend through
// mcpbridge.Handler and, once answered, return the answer as JSON.
func retryClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	b := newBridge(t, []byte("0123456789abcdef0123456789abcdef"), bridgetest.Config{})
	s := mcp.NewServer(&mcp.Implementation{Name: "retry-server", Version: "v0.0.1"}, nil)
	answered := func(a *toolnexus.Answer) toolnexus.ToolResult {
		out, _ := json.Marshal(a)
		return toolnexus.Ok(string(out))
	}
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, mcpbridge.Handler(b, func(_ context.Context, in struct {
		Env string `json:"env"`
	}, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		}
		return answered(a)
	}))
	mcp.AddTool(s, &mcp.Tool{Name: "pick"}, mcpbridge.Handler(b, func(_ context.Context, _ struct{}, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})
		}
		return answered(a)
	}))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "retry-client", Version: "v0.0.1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := c.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs
}

// parkedCall calls tool and returns the input_required result, the id of
// its one request, and the result as a host parks it: read, stored as JSON
// and read back.
func parkedCall(t *testing.T, cs *mcp.ClientSession, call *mcp.CallToolParams) (*mcp.CallToolResult, string, toolnexus.ToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), call)
	require.NoError(t, err)
	require.True(t, res.NeedsInput())
	require.Len(t, res.InputRequests, 1)
	var id string
	for id = range res.InputRequests {
	}
	r, err := mcpbridge.FromCallToolResult(res)
	require.NoError(t, err)
	stored, err := json.Marshal(r)
	require.NoError(t, err)
	parked, err := toolnexus.ParseToolResult(stored, 1<<20)
	require.NoError(t, err)
	return res, id, parked
}

func TestRetry(t *testing.T) {
	t.Parallel()
	cs := retryClient(t)
	tests := []struct {
		name   string
		call   *mcp.CallToolParams
		answer toolnexus.Answer // its ID is set to the request's
		sent   string           // the inputResponses, ID for the request's id
		got    string           // the answer the tool gets, as JSON
	}{
		{"approved", &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}},
			toolnexus.Answer{OK: true}, `{"ID":{"action":"accept"}}`, `{"id":"ID","ok":true}`},
		{"declined", &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}},
			toolnexus.Answer{Reason: toolnexus.ReasonDeclined}, `{"ID":{"action":"decline"}}`, `{"id":"ID","ok":false,"reason":"declined"}`},
		{"cancelled", &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`)},
			toolnexus.Answer{Reason: toolnexus.ReasonCancelled}, `{"ID":{"action":"cancel"}}`, `{"id":"ID","ok":false,"reason":"cancelled"}`},
		{"any other refusal declines", &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}},
			toolnexus.Answer{Reason: toolnexus.ReasonExpired}, `{"ID":{"action":"decline"}}`, `{"id":"ID","ok":false,"reason":"declined"}`},
		{"answered with content", &mcp.CallToolParams{Name: "pick"},
			toolnexus.Answer{OK: true, Data: map[string]any{"answer": "prod"}},
			`{"ID":{"action":"accept","content":{"answer":"prod"}}}`, `{"id":"ID","ok":true,"data":{"answer":"prod"}}`},
	}
	retries := map[string]func(call *mcp.CallToolParams, res *mcp.CallToolResult, parked toolnexus.ToolResult, a toolnexus.Answer) (*mcp.CallToolParams, error){
		"Retry": func(call *mcp.CallToolParams, _ *mcp.CallToolResult, parked toolnexus.ToolResult, a toolnexus.Answer) (*mcp.CallToolParams, error) {
			return mcpbridge.Retry(call, parked, a)
		},
		"RetryCallToolResult": func(call *mcp.CallToolParams, res *mcp.CallToolResult, _ toolnexus.ToolResult, a toolnexus.Answer) (*mcp.CallToolParams, error) {
			return mcpbridge.RetryCallToolResult(call, res, a)
		},
	}
	for _, tt := range tests {
		for name, retry := range retries {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				res, id, parked := parkedCall(t, cs, tt.call)
				before := *tt.call
				answer := tt.answer
				answer.ID = id
				p, err := retry(tt.call, res, parked, answer)
				require.NoError(t, err)
				assert.Equal(t, before, *tt.call, "the call is not changed")
				assert.Equal(t, tt.call.Name, p.Name)
				assert.Equal(t, tt.call.Arguments, p.Arguments)
				assert.Equal(t, res.RequestState, p.RequestState)
				sent, err := json.Marshal(p.InputResponses)
				require.NoError(t, err)
				assert.Equal(t, strings.ReplaceAll(tt.sent, "ID", id), string(sent))

				done, err := cs.CallTool(context.Background(), p)
				require.NoError(t, err)
				require.False(t, done.NeedsInput())
				assert.False(t, done.IsError)
				require.Len(t, done.Content, 1)
				text, ok := done.Content[0].(*mcp.TextContent)
				require.True(t, ok, "content is %T", done.Content[0])
				assert.Equal(t, strings.ReplaceAll(tt.got, "ID", id), text.Text)
			})
		}
	}
}

// TestRetryInputResponses checks the exact inputResponses of each kind of
// answer, as the SDK writes them (a root's name before its uri, a sampling
// result of one content block with that block as its content).
func TestRetryInputResponses(t *testing.T) {
	t.Parallel()
	parked := toolnexus.PendingAll(
		toolnexus.Request{ID: "r1", Kind: toolnexus.KindApproval, Prompt: "Go?"},
		toolnexus.Request{ID: "r2", Kind: toolnexus.KindRoots, Prompt: "Share your roots"},
		toolnexus.Request{ID: "r3", Kind: toolnexus.KindSampling, Prompt: "Ask your model", Data: map[string]any{"messages": []any{}, "maxTokens": 10.0}},
	).WithMetadata(toolnexus.MetadataRequestState, "state-1")
	call := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}
	roots := toolnexus.Answer{ID: "r2", OK: true, Data: map[string]any{"roots": []any{map[string]any{"uri": "file:///repo", "name": "repo"}}}}
	sampled := toolnexus.Answer{ID: "r3", OK: true, Data: map[string]any{
		"role": "assistant", "model": "m1", "content": map[string]any{"type": "text", "text": "yes"}}}
	tests := []struct {
		name    string
		answers []toolnexus.Answer
		want    string
	}{
		{"accept", []toolnexus.Answer{{ID: "r1", OK: true}}, `{"r1":{"action":"accept"}}`},
		{"accept with content", []toolnexus.Answer{{ID: "r1", OK: true, Data: map[string]any{"n": 2.0}}}, `{"r1":{"action":"accept","content":{"n":2}}}`},
		{"decline", []toolnexus.Answer{{ID: "r1", Reason: toolnexus.ReasonDeclined}}, `{"r1":{"action":"decline"}}`},
		{"decline without reason", []toolnexus.Answer{{ID: "r1"}}, `{"r1":{"action":"decline"}}`},
		{"cancel", []toolnexus.Answer{{ID: "r1", Reason: toolnexus.ReasonCancelled}}, `{"r1":{"action":"cancel"}}`},
		{"roots", []toolnexus.Answer{roots}, `{"r2":{"roots":[{"name":"repo","uri":"file:///repo"}]}}`},
		{"sampling", []toolnexus.Answer{sampled}, `{"r3":{"content":{"type":"text","text":"yes"},"model":"m1","role":"assistant"}}`},
		{"all three", []toolnexus.Answer{{ID: "r1", OK: true}, roots, sampled},
			`{"r1":{"action":"accept"},"r2":{"roots":[{"name":"repo","uri":"file:///repo"}]},"r3":{"content":{"type":"text","text":"yes"},"model":"m1","role":"assistant"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := mcpbridge.Retry(call, parked, tt.answers...)
			require.NoError(t, err)
			b, err := json.Marshal(p)
			require.NoError(t, err)
			assert.Equal(t, `{"name":"deploy","arguments":{"env":"prod"},"inputResponses":`+tt.want+`,"requestState":"state-1"}`, string(b))
		})
	}
}

func TestRetryRefuses(t *testing.T) {
	t.Parallel()
	call := &mcp.CallToolParams{Name: "deploy"}
	req := toolnexus.Request{ID: "r1", Kind: toolnexus.KindApproval, Prompt: "Go?"}
	parked := toolnexus.Pending(req).WithMetadata(toolnexus.MetadataRequestState, "state-1")
	expired := toolnexus.Pending(req.WithExpiry(time.Now().Add(-time.Minute))).WithMetadata(toolnexus.MetadataRequestState, "state-1")
	res := &mcp.CallToolResult{RequestState: "state-1", InputRequests: mcp.InputRequestMap{
		"r1": &mcp.ElicitParams{Message: "Go?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
		//lint:ignore SA1019 a server may still ask for roots
		"r2": &mcp.ListRootsParams{},
	}}
	rootsOnly := toolnexus.PendingAll(toolnexus.Request{ID: "r2", Kind: toolnexus.KindRoots, Prompt: "Roots?"}).
		WithMetadata(toolnexus.MetadataRequestState, "state-1")
	ok := toolnexus.Answer{ID: "r1", OK: true}
	tests := []struct {
		name    string
		retry   func() (*mcp.CallToolParams, error)
		wantErr error
		msg     string
	}{
		{"another request", func() (*mcp.CallToolParams, error) {
			return mcpbridge.Retry(call, parked, toolnexus.Answer{ID: "r9", OK: true})
		},
			toolnexus.ErrAnswerMismatch, `mcpbridge: toolnexus: answer does not match request: answer id "r9" answers none of the result's 1 requests`},
		{"expired", func() (*mcp.CallToolParams, error) { return mcpbridge.Retry(call, expired, ok) }, toolnexus.ErrExpired, ""},
		{"not a suspension", func() (*mcp.CallToolParams, error) { return mcpbridge.Retry(call, toolnexus.Ok("done"), ok) },
			toolnexus.ErrInvalidMCP, "mcpbridge: toolnexus: invalid MCP result: the parked result is not a suspension"},
		{"no state", func() (*mcp.CallToolParams, error) { return mcpbridge.Retry(call, toolnexus.Pending(req), ok) },
			toolnexus.ErrInvalidMCP, "mcpbridge: toolnexus: invalid MCP result: the result holds no requestState"},
		{"no call", func() (*mcp.CallToolParams, error) { return mcpbridge.Retry(nil, parked, ok) },
			toolnexus.ErrInvalidMCP, "mcpbridge: toolnexus: invalid MCP result: no call to retry"},
		{"no answer", func() (*mcp.CallToolParams, error) { return mcpbridge.Retry(call, parked) },
			toolnexus.ErrInvalidMCP, "mcpbridge: toolnexus: invalid MCP result: no answer to send"},
		{"result: another request", func() (*mcp.CallToolParams, error) {
			return mcpbridge.RetryCallToolResult(call, res, toolnexus.Answer{ID: "r9", OK: true})
		}, toolnexus.ErrAnswerMismatch, `mcpbridge: toolnexus: answer does not match request: answer id "r9" answers none of the result's 2 requests`},
		{"result: roots refused", func() (*mcp.CallToolParams, error) {
			return mcpbridge.RetryCallToolResult(call, res, ok, toolnexus.Answer{ID: "r2", Reason: toolnexus.ReasonDeclined})
		}, toolnexus.ErrInvalidMCP, `mcpbridge: toolnexus: invalid MCP result: request "r2" (roots) cannot be refused in a retry`},
		{"roots not a roots result", func() (*mcp.CallToolParams, error) {
			return mcpbridge.Retry(call, rootsOnly, toolnexus.Answer{ID: "r2", OK: true, Data: map[string]any{"roots": "all"}})
		}, toolnexus.ErrInvalidMCP, ""},
		{"result: complete", func() (*mcp.CallToolParams, error) {
			return mcpbridge.RetryCallToolResult(call, &mcp.CallToolResult{}, ok)
		}, toolnexus.ErrInvalidMCP, "mcpbridge: toolnexus: invalid MCP result: the result asks for no input"},
		{"result: nil", func() (*mcp.CallToolParams, error) { return mcpbridge.RetryCallToolResult(call, nil, ok) }, toolnexus.ErrInvalidMCP, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.retry()
			require.ErrorIs(t, err, tt.wantErr)
			assert.Nil(t, p)
			if tt.msg != "" {
				assert.EqualError(t, err, tt.msg)
			}
		})
	}
}
