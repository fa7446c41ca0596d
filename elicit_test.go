package toolnexus_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// TestRequestMCPElicitParams checks the elicitation of each kind of request
// against WIRE.md, byte for byte.
func TestRequestMCPElicitParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  toolnexus.Request
		want string
	}{
		{"approval", toolnexus.Request{ID: "pnd-7c0", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"},
			`{"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}`},
		{"input", toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindInput, Prompt: "Which environment?"},
			`{"mode":"form","message":"Which environment?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Which environment?"}},"required":["answer"]}}`},
		{"question", toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindQuestion, Prompt: "Why?"},
			`{"mode":"form","message":"Why?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Why?"}},"required":["answer"]}}`},
		{"a kind of the caller's", toolnexus.Request{ID: "pnd-4", Kind: "captcha", Prompt: "Solve \"this\"\n<now>"},
			`{"mode":"form","message":"Solve \"this\"\n\u003cnow\u003e","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Solve \"this\"\n\u003cnow\u003e"}},"required":["answer"]}}`},
		{"login", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"},
			`{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"pnd-1"}`},
		{"authorization without a url", toolnexus.Request{ID: "pnd-5", Kind: toolnexus.KindAuthorization, Prompt: "Paste the code"},
			`{"mode":"form","message":"Paste the code","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Paste the code"}},"required":["answer"]}}`},
		{"data.schema is the form", toolnexus.Request{ID: "pnd-6", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{
			"schema": map[string]any{"type": "object", "properties": map[string]any{
				"env":   map[string]any{"type": "string", "enum": []string{"dev", "prod"}},
				"count": map[string]any{"type": "integer", "minimum": 1},
				"ratio": map[string]any{"type": "number"},
				"force": map[string]any{"type": "boolean", "default": false},
			}, "required": []string{"env"}},
			"other": "ignored"}},
			`{"mode":"form","message":"Where?","requestedSchema":{"properties":{"count":{"minimum":1,"type":"integer"},"env":{"enum":["dev","prod"],"type":"string"},"force":{"default":false,"type":"boolean"},"ratio":{"type":"number"}},"required":["env"],"type":"object"}}`},
		{"data.schema of an approval", toolnexus.Request{ID: "pnd-7", Kind: toolnexus.KindApproval, Prompt: "Deploy?", Data: map[string]any{
			"schema": json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)}},
			`{"mode":"form","message":"Deploy?","requestedSchema":{"properties":{"note":{"type":"string"}},"type":"object"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.req.MCPElicitParams()
			require.NoError(t, err)
			assert.Equal(t, tt.want, mustJSON(t, p))
		})
	}
}

// TestRequestMCPElicitParamsText checks that any prompt gives valid JSON:
// a prompt holds text from anywhere.
func TestRequestMCPElicitParamsText(t *testing.T) {
	t.Parallel()
	for _, prompt := range []string{"NUL \x00 here", "bell \a", "bad \xff UTF-8", "line\u2028separator", "emoji 😀", `back\slash`} {
		p, err := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: prompt}.MCPElicitParams()
		require.NoError(t, err)
		b, err := json.Marshal(p)
		require.NoError(t, err, "prompt %q", prompt)
		var back toolnexus.MCPElicitParams
		require.NoError(t, json.Unmarshal(b, &back))
		var schema struct {
			Properties struct {
				Answer struct {
					Description string `json:"description"`
				} `json:"answer"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(back.RequestedSchema, &schema))
		assert.Equal(t, back.Message, schema.Properties.Answer.Description, "prompt %q", prompt)
	}
}

// TestRequestMCPElicitParamsErrors checks what MCP refuses in a form: only
// a flat object of string, number, integer, boolean and enum properties,
// read with exact keys.
func TestRequestMCPElicitParamsErrors(t *testing.T) {
	t.Parallel()
	props := func(p map[string]any) map[string]any { return map[string]any{"type": "object", "properties": p} }
	tests := []struct {
		name    string
		req     toolnexus.Request
		wantMsg string
	}{
		{"invalid request", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput},
			`toolnexus: invalid request: request "pnd-1" has no prompt`},
		{"nested object", schemaRequest(props(map[string]any{"where": map[string]any{"type": "object", "properties": map[string]any{}}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "where": type "object" is not string, number, integer, boolean or array`},
		{"array of free strings", schemaRequest(props(map[string]any{"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "tags": items have neither enum nor anyOf`},
		{"enum of numbers", schemaRequest(props(map[string]any{"n": map[string]any{"type": "number", "enum": []int{1, 2}}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "n": keyword "enum" is not one a number property takes`},
		{"string enum of numbers", schemaRequest(props(map[string]any{"n": map[string]any{"type": "string", "enum": []any{"a", 2}}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "n": enum is not a non-empty list of strings`},
		{"property without type", schemaRequest(props(map[string]any{"x": map[string]any{"description": "d"}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "x" has no type`},
		{"property not an object", schemaRequest(props(map[string]any{"x": "string"})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "x" is a string, not an object`},
		{"type in another case", schemaRequest(props(map[string]any{"x": map[string]any{"TYPE": "string"}})),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "x" has no type`},
		{"required naming a missing property", schemaRequest(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []string{"a", "b"}}),
			`toolnexus: invalid request: request "pnd-1": data.schema: required property "b" is not in properties`},
		{"required not a list of names", schemaRequest(map[string]any{"type": "object", "properties": map[string]any{}, "required": "a"}),
			`toolnexus: invalid request: request "pnd-1": data.schema: required is not a list of names`},
		{"not an object schema", schemaRequest(map[string]any{"type": "string"}),
			`toolnexus: invalid request: request "pnd-1": data.schema: type is not "object"`},
		{"TYPE in capitals", schemaRequest(map[string]any{"TYPE": "object", "properties": map[string]any{}}),
			`toolnexus: invalid request: request "pnd-1": data.schema: type is not "object"`},
		{"Properties in another case", schemaRequest(map[string]any{"type": "object", "Properties": map[string]any{}}),
			`toolnexus: invalid request: request "pnd-1": data.schema: properties is not an object`},
		{"schema a string", schemaRequest("object"),
			`toolnexus: invalid request: request "pnd-1": data.schema: "schema" is a string, not an object`},
		{"schema null", schemaRequest(nil),
			`toolnexus: invalid request: request "pnd-1": data.schema: "schema" is null, not an object`},
		{"schema not JSON", schemaRequest(func() {}),
			`toolnexus: invalid request: request "pnd-1": data.schema: json: unsupported type: func()`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := tt.req.MCPElicitParams()
			assertErr(t, err, toolnexus.ErrInvalidRequest, tt.wantMsg)
			assert.Zero(t, p)
		})
	}
}

func schemaRequest(schema any) toolnexus.Request {
	return toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"schema": schema}}
}

func TestRequestFromMCPElicitParams(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "required": []any{"env"}}
	tests := []struct {
		name   string
		params string
		want   toolnexus.Request
	}{
		{"login", `{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"e-1"}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}},
		{"url without a mode", `{"message":"Sign in","url":"https://example.com/login"}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}},
		{"form without properties", `{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}},
		{"form without a schema", `{"mode":"form","message":"Deploy?"}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}},
		{"form whose schema is no object", `{"mode":"form","message":"Deploy?","requestedSchema":"x"}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}},
		{"form with properties", `{"mode":"form","message":"Where?","requestedSchema":{"type":"object","properties":{"env":{"type":"string"}},"required":["env"]}}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"schema": schema}}},
		{"Properties in another case", `{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","Properties":{"env":{"type":"string"}}}}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p toolnexus.MCPElicitParams
			require.NoError(t, json.Unmarshal([]byte(tt.params), &p))
			assert.Equal(t, tt.want, toolnexus.RequestFromMCPElicitParams("pnd-1", p))
		})
	}
	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		for _, req := range []toolnexus.Request{
			{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
			{ID: "pnd-2", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"},
			{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"schema": schema}},
		} {
			p, err := req.MCPElicitParams()
			require.NoError(t, err)
			assert.Equal(t, req, toolnexus.RequestFromMCPElicitParams(req.ID, p))
		}
	})
}

func TestAnswerFromMCPElicitResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		result  toolnexus.MCPElicitResult
		want    toolnexus.Answer
		wantMsg string
	}{
		{"accept", toolnexus.MCPElicitResult{Action: "accept", Content: map[string]any{"env": "prod"}},
			toolnexus.Answer{ID: "pnd-1", OK: true, Data: map[string]any{"env": "prod"}}, ""},
		{"accept an approval", toolnexus.MCPElicitResult{Action: "accept"}, toolnexus.Answer{ID: "pnd-1", OK: true}, ""},
		{"decline", toolnexus.MCPElicitResult{Action: "decline", Content: map[string]any{"env": "prod"}},
			toolnexus.Answer{ID: "pnd-1", Reason: toolnexus.ReasonDeclined}, ""},
		{"cancel", toolnexus.MCPElicitResult{Action: "cancel"}, toolnexus.Answer{ID: "pnd-1", Reason: toolnexus.ReasonCancelled}, ""},
		{"action in another case", toolnexus.MCPElicitResult{Action: "ACCEPT"}, toolnexus.Answer{},
			`toolnexus: invalid MCP result: elicitation action "ACCEPT" is not accept, decline or cancel`},
		{"no action", toolnexus.MCPElicitResult{}, toolnexus.Answer{},
			`toolnexus: invalid MCP result: elicitation action "" is not accept, decline or cancel`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.AnswerFromMCPElicitResult("pnd-1", tt.result)
			if tt.wantMsg != "" {
				assertErr(t, err, toolnexus.ErrInvalidMCP, tt.wantMsg)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
