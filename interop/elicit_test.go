package interop

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolnexus-go/toolnexus"
)

// elicitForm is the schema every case of TestElicitAnswersAsGoSDK answers:
// one property of each form MCP elicitation allows, with defaults.
const elicitForm = `{"type":"object","properties":{` +
	`"s":{"type":"string","minLength":2,"maxLength":4},` +
	`"env":{"type":"string","enum":["dev","prod"]},` +
	`"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},` +
	`"pick":{"type":"string","oneOf":[{"const":"v1","title":"One"},{"const":"v2","title":"Two"}]},` +
	`"mail":{"type":"string","format":"email"},` +
	`"n":{"type":"number","minimum":0,"maximum":1,"default":0.5},` +
	`"i":{"type":"integer","minimum":1,"default":3},` +
	`"b":{"type":"boolean","default":true},` +
	`"multi":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["x","y","z"]},"default":["x"]},` +
	`"titled":{"type":"array","items":{"anyOf":[{"const":"v1","title":"One"},{"const":"v2","title":"Two"}]}}` +
	`},"required":["env"]}`

// TestElicitAnswersAsGoSDK checks Request.AnswerFromMCP against the go-sdk's
// own check of an elicitation's content (ServerSession.Elicit, and the
// client's check before it sends the result, both through
// github.com/google/jsonschema-go): the same content is taken or refused,
// and what is taken comes with the same defaults. Where toolnexus is
// stricter than the SDK, the row says so: a format the SDK does not check,
// and a value MCP's content cannot hold under a key the form does not name.
func TestElicitAnswersAsGoSDK(t *testing.T) {
	const (
		taken    = iota // by both
		refused         // by both
		stricter        // the go-sdk takes it, toolnexus refuses it
	)
	tests := []struct {
		name    string
		content string
		want    int
	}{
		{"the required property, defaults applied", `{"env":"dev"}`, taken},
		{"every property", `{"env":"prod","s":"abcd","legacy":"b","pick":"v2","mail":"a@example.com","n":1,"i":7,"b":false,"multi":["y","z"],"titled":["v1"]}`, taken},
		{"an integer written with a fraction part", `{"env":"dev","i":4.0}`, taken},
		{"a key of its own", `{"env":"dev","note":"hi"}`, taken},
		{"a number for a string", `{"env":42}`, refused},
		{"an operator for a string", `{"env":{"$ne":""}}`, refused},
		{"null for a string", `{"env":"dev","s":null}`, refused},
		{"missing the required property", `{"s":"abc"}`, refused},
		{"outside the enum", `{"env":"staging"}`, refused},
		{"the enum in another case", `{"env":"PROD"}`, refused},
		{"outside the legacy enum", `{"env":"dev","legacy":"A"}`, refused},
		{"outside oneOf", `{"env":"dev","pick":"One"}`, refused},
		{"too short, in code points", `{"env":"dev","s":"é"}`, refused},
		{"too long", `{"env":"dev","s":"abcde"}`, refused},
		{"under the minimum", `{"env":"dev","n":-0.1}`, refused},
		{"over the maximum", `{"env":"dev","n":1.5}`, refused},
		{"a fraction for an integer", `{"env":"dev","i":1.5}`, refused},
		{"a string for an integer", `{"env":"dev","i":"2"}`, refused},
		{"a string for a boolean", `{"env":"dev","b":"true"}`, refused},
		{"a string for a multi-select", `{"env":"dev","multi":"x"}`, refused},
		{"too few items", `{"env":"dev","multi":[]}`, refused},
		{"too many items", `{"env":"dev","multi":["x","y","z"]}`, refused},
		{"an item outside the enum", `{"env":"dev","multi":["w"]}`, refused},
		{"an item outside anyOf", `{"env":"dev","titled":["v3"]}`, refused},
		{"not an email", `{"env":"dev","mail":"not an address"}`, stricter},
		{"an object under a key of its own", `{"env":"dev","where":{"a":1}}`, stricter},
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var contents sync.Map // the message of an elicitation → the content the client accepts it with
	server := mcp.NewServer(&mcp.Implementation{Name: "elicit", Version: "v0.0.1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Case string `json:"case"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: in.Case, RequestedSchema: json.RawMessage(elicitForm)})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			out, err := json.Marshal(res.Content)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
		})
	client := mcp.NewClient(&mcp.Implementation{Name: "person", Version: "v0.0.1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			raw, ok := contents.Load(req.Params.Message)
			if !ok {
				return nil, errors.New("no such case")
			}
			var content map[string]any
			if err := json.Unmarshal([]byte(raw.(string)), &content); err != nil {
				return nil, err
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
	})
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	require.NoError(t, err)
	// 2025-11-25: the last protocol on which a server elicits while it
	// serves a call, and so the SDK checks the answer.
	session, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer func() {
		require.NoError(t, session.Close())
		require.NoError(t, serverSession.Wait())
	}()

	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"schema": json.RawMessage(elicitForm)}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contents.Store(tt.name, tt.content)
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"case": tt.name}})
			require.NoError(t, err)
			require.Len(t, res.Content, 1)
			sdkText := res.Content[0].(*mcp.TextContent).Text

			require.Equal(t, tt.want == refused, res.IsError, "the go-sdk: %s", sdkText)

			ans, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":` + tt.content + `}`))
			switch tt.want {
			case refused, stricter:
				assert.ErrorIs(t, err, toolnexus.ErrInvalidAnswer)
			default:
				require.NoError(t, err, "the go-sdk takes it: %s", sdkText)
				ours, err := json.Marshal(ans.Data)
				require.NoError(t, err)
				assert.JSONEq(t, sdkText, string(ours), "the same content, the same defaults")
			}
		})
	}
}

// TestInputRequestsAsGoSDK checks input requests and the answers to them
// against the go-sdk's types: the SDK reads every input request
// Request.MCPInputRequest writes as the request of its method, and
// Request.AnswerFromMCP reads every result the SDK writes.
func TestInputRequestsAsGoSDK(t *testing.T) {
	form := toolnexus.Request{ID: "form", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"schema": json.RawMessage(elicitForm)}}
	choice := toolnexus.Request{ID: "choice", Kind: toolnexus.KindInput, Prompt: "Which?", Data: map[string]any{"choices": []string{"dev", "prod"}}}
	login := toolnexus.Request{ID: "login", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	sampling := toolnexus.Request{ID: "sampling", Kind: toolnexus.KindSampling, Prompt: "Ask", Data: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Capital of France?"}}},
		"maxTokens": 100, "systemPrompt": "Be brief.",
	}}
	roots := toolnexus.Request{ID: "roots", Kind: toolnexus.KindRoots, Prompt: "Roots"}
	inputs := map[string]toolnexus.MCPInputRequest{}
	for _, req := range []toolnexus.Request{form, choice, login, sampling, roots} {
		ir, err := req.MCPInputRequest()
		require.NoError(t, err, req.ID)
		inputs[req.ID] = ir
	}
	data, err := json.Marshal(inputs)
	require.NoError(t, err)
	var sdk mcp.InputRequestMap
	require.NoError(t, json.Unmarshal(data, &sdk))
	require.Len(t, sdk, 5)
	require.IsType(t, &mcp.ElicitParams{}, sdk["form"])
	require.IsType(t, &mcp.ElicitParams{}, sdk["choice"])
	url := sdk["login"].(*mcp.ElicitParams)
	assert.Equal(t, mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login"}, *url)
	params := sdk["sampling"].(*mcp.CreateMessageWithToolsParams)
	assert.Equal(t, int64(100), params.MaxTokens)
	assert.Equal(t, "Be brief.", params.SystemPrompt)
	require.Len(t, params.Messages, 1)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "Capital of France?"}}, params.Messages[0].Content)
	require.IsType(t, &mcp.ListRootsParams{}, sdk["roots"])
	again, err := json.Marshal(sdk)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again), "the SDK writes them back as they were")

	tests := []struct {
		name   string
		req    toolnexus.Request
		result any
		want   string
	}{
		{"form", form, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "prod", "i": 2}},
			`{"id":"form","ok":true,"data":{"b":true,"env":"prod","i":2,"multi":["x"],"n":0.5}}`},
		{"choice", choice, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "dev"}},
			`{"id":"choice","ok":true,"data":{"answer":"dev"}}`},
		{"login", login, &mcp.ElicitResult{Action: "accept"}, `{"id":"login","ok":true}`},
		{"declined", choice, &mcp.ElicitResult{Action: "decline"}, `{"id":"choice","ok":false,"reason":"declined"}`},
		{"sampling", sampling, &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "Paris."}, Model: "m", Role: "assistant", StopReason: "endTurn"},
			`{"id":"sampling","ok":true,"data":{"content":{"text":"Paris.","type":"text"},"model":"m","role":"assistant","stopReason":"endTurn"}}`},
		{"sampling with tools", sampling, &mcp.CreateMessageWithToolsResult{Content: []mcp.Content{&mcp.TextContent{Text: "Paris."}, &mcp.TextContent{Text: "Sure."}}, Model: "m", Role: "assistant"},
			`{"id":"sampling","ok":true,"data":{"content":[{"text":"Paris.","type":"text"},{"text":"Sure.","type":"text"}],"model":"m","role":"assistant"}}`},
		{"roots", roots, &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///a", Name: "A"}, {URI: "file:///b"}}},
			`{"id":"roots","ok":true,"data":{"roots":[{"name":"A","uri":"file:///a"},{"uri":"file:///b"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := json.Marshal(tt.result)
			require.NoError(t, err)
			ans, err := tt.req.AnswerFromMCP(res)
			require.NoError(t, err, string(res))
			got, err := json.Marshal(ans)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
