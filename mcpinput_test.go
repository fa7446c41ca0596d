package toolnexus_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// samplingData is the params of a sampling request, as a Go caller writes
// them.
var samplingData = map[string]any{
	"messages":     []map[string]any{{"role": "user", "content": map[string]any{"type": "text", "text": "Capital of France?"}}},
	"maxTokens":    100,
	"systemPrompt": "Be brief.",
}

// TestRequestMCPInputRequest checks the input request of each kind of
// request, byte for byte.
func TestRequestMCPInputRequest(t *testing.T) {
	t.Parallel()
	login := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	tests := []struct {
		name     string
		req      toolnexus.Request
		protocol string
		want     string
	}{
		{"login on 2026-07-28", login, "2026-07-28",
			`{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}`},
		{"login on the latest", login, "",
			`{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}`},
		{"login on a draft", login, "DRAFT-2026-v1",
			`{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}`},
		{"login on 2025-11-25", login, "2025-11-25",
			`{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"pnd-1"}}`},
		{"approval", toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}, "",
			`{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}}}}`},
		{"choices", toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"choices": []string{"dev", "prod"}}}, "",
			`{"method":"elicitation/create","params":{"mode":"form","message":"Where?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","description":"Where?","enum":["dev","prod"]}},"required":["answer"]}}}`},
		{"sampling", toolnexus.Request{ID: "pnd-4", Kind: toolnexus.KindSampling, Prompt: "Ask the model", Data: samplingData}, "",
			`{"method":"sampling/createMessage","params":{"maxTokens":100,"messages":[{"content":{"text":"Capital of France?","type":"text"},"role":"user"}],"systemPrompt":"Be brief."}}`},
		{"roots", toolnexus.Request{ID: "pnd-5", Kind: toolnexus.KindRoots, Prompt: "Your roots", Data: map[string]any{"note": "kept for the host"}}, "2025-11-25",
			`{"method":"roots/list","params":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ir, err := tt.req.MCPInputRequestFor(tt.protocol)
			require.NoError(t, err)
			assert.Equal(t, tt.want, mustJSON(t, ir))
			if tt.protocol == "" {
				latest, err := tt.req.MCPInputRequest()
				require.NoError(t, err)
				assert.Equal(t, ir, latest)
			}
		})
	}
}

// TestRequestMCPInputRequestErrors checks what cannot be asked.
func TestRequestMCPInputRequestErrors(t *testing.T) {
	t.Parallel()
	sampling := func(data map[string]any) toolnexus.Request {
		return toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindSampling, Prompt: "p", Data: data}
	}
	msg := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hi"}}}
	tests := []struct {
		name    string
		req     toolnexus.Request
		wantMsg string
	}{
		{"no prompt", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindRoots},
			`toolnexus: invalid request: request "pnd-1" has no prompt`},
		{"sampling without data", sampling(nil),
			`toolnexus: invalid request: request "pnd-1" of kind "sampling" has no data, the sampling/createMessage params`},
		{"sampling without messages", sampling(map[string]any{"maxTokens": 5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: messages is not a non-empty list`},
		{"sampling without maxTokens", sampling(map[string]any{"messages": msg}),
			`toolnexus: invalid request: request "pnd-1": sampling data: maxTokens is not a positive integer`},
		{"sampling with a fraction of a token", sampling(map[string]any{"messages": msg, "maxTokens": 1.5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: maxTokens is not a positive integer`},
		{"sampling with no token", sampling(map[string]any{"messages": msg, "maxTokens": 0}),
			`toolnexus: invalid request: request "pnd-1": sampling data: maxTokens is not a positive integer`},
		{"sampling maxTokens a string", sampling(map[string]any{"messages": msg, "maxTokens": "5"}),
			`toolnexus: invalid request: request "pnd-1": sampling data: maxTokens is a string, not a number`},
		{"sampling with an unknown key", sampling(map[string]any{"messages": msg, "maxTokens": 5, "MaxTokens": 5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: key "MaxTokens" is not one of sampling/createMessage's`},
		{"sampling message of another role", sampling(map[string]any{"messages": []any{map[string]any{"role": "system", "content": map[string]any{"type": "text"}}}, "maxTokens": 5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: messages[0]: role is not "user" or "assistant"`},
		{"sampling message without content", sampling(map[string]any{"messages": []any{map[string]any{"role": "user"}}, "maxTokens": 5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: messages[0]: content block 0 is null, not an object`},
		{"sampling message with an untyped block", sampling(map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"text": "x"}}}}, "maxTokens": 5}),
			`toolnexus: invalid request: request "pnd-1": sampling data: messages[0]: content block 0 has no type`},
		{"sampling includeContext", sampling(map[string]any{"messages": msg, "maxTokens": 5, "includeContext": "everything"}),
			`toolnexus: invalid request: request "pnd-1": sampling data: includeContext is not none, thisServer or allServers`},
		{"sampling stopSequences", sampling(map[string]any{"messages": msg, "maxTokens": 5, "stopSequences": []any{1}}),
			`toolnexus: invalid request: request "pnd-1": sampling data: stopSequences is not a list of strings`},
		{"schema and choices", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{
			"schema": map[string]any{"type": "object", "properties": map[string]any{}}, "choices": []string{"a"}}},
			`toolnexus: invalid request: request "pnd-1": data has both schema and choices`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ir, err := tt.req.MCPInputRequest()
			assertErr(t, err, toolnexus.ErrInvalidRequest, tt.wantMsg)
			assert.Zero(t, ir)
		})
	}
}

// TestMCPInputRequestElicitParams reads the params of input requests back,
// with exact keys, and refuses what is no elicitation whose params read.
func TestMCPInputRequestElicitParams(t *testing.T) {
	t.Parallel()
	elicit := func(params string) toolnexus.MCPInputRequest {
		return toolnexus.MCPInputRequest{Method: "elicitation/create", Params: json.RawMessage(params)}
	}
	tests := []struct {
		name   string
		ir     toolnexus.MCPInputRequest
		want   toolnexus.MCPElicitParams
		wantOK bool
	}{
		{"form", elicit(`{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{}},"_meta":{"k":1}}`),
			toolnexus.MCPElicitParams{Mode: "form", Message: "Deploy?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, true},
		{"login", elicit(` {"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"pnd-1"} `),
			toolnexus.MCPElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "pnd-1"}, true},
		{"null schema", elicit(`{"message":"Go?","requestedSchema":null}`), toolnexus.MCPElicitParams{Message: "Go?"}, true},
		{"keys of another case", elicit(`{"Message":"Go?","MODE":"form"}`), toolnexus.MCPElicitParams{}, true},
		{"no params", elicit(``), toolnexus.MCPElicitParams{}, true},
		{"null params", elicit(`null`), toolnexus.MCPElicitParams{}, true},
		{"a message that is no string", elicit(`{"message":1}`), toolnexus.MCPElicitParams{}, false},
		{"params that are no object", elicit(`["form"]`), toolnexus.MCPElicitParams{}, false},
		{"not JSON", elicit(`{"message":"Go?"`), toolnexus.MCPElicitParams{}, false},
		{"trailing data", elicit(`{"message":"Go?"} {}`), toolnexus.MCPElicitParams{}, false},
		{"sampling", toolnexus.MCPInputRequest{Method: "sampling/createMessage", Params: json.RawMessage(`{"message":"Go?"}`)}, toolnexus.MCPElicitParams{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, ok := tt.ir.ElicitParams()
			assert.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.want, p)
			}
		})
	}
}

// TestRequestAnswerFromMCP reads the client's responses to each kind of
// request.
func TestRequestAnswerFromMCP(t *testing.T) {
	t.Parallel()
	form := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"schema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"env":     map[string]any{"type": "string", "enum": []string{"dev", "prod"}},
			"count":   map[string]any{"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
			"ratio":   map[string]any{"type": "number", "default": 0.5},
			"force":   map[string]any{"type": "boolean", "default": false},
			"tags":    map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b"}}, "default": []string{"a"}},
			"contact": map[string]any{"type": "string", "format": "email"},
		},
		"required": []string{"env"},
	}}}
	choices := toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"choices": []string{"dev", "prod"}}}
	approval := toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}
	login := toolnexus.Request{ID: "pnd-4", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	sampling := toolnexus.Request{ID: "pnd-5", Kind: toolnexus.KindSampling, Prompt: "Ask", Data: samplingData}
	roots := toolnexus.Request{ID: "pnd-6", Kind: toolnexus.KindRoots, Prompt: "Roots"}
	tests := []struct {
		name     string
		req      toolnexus.Request
		response string
		want     string // the answer's JSON
	}{
		{"form with defaults", form, `{"action":"accept","content":{"env":"prod"}}`,
			`{"id":"pnd-1","ok":true,"data":{"count":2,"env":"prod","force":false,"ratio":0.5,"tags":["a"]}}`},
		{"form with every value", form, `{"action":"accept","content":{"env":"dev","count":10,"ratio":-3,"force":true,"tags":[],"contact":"ops@example.com"},"_meta":{"x":1}}`,
			`{"id":"pnd-1","ok":true,"data":{"contact":"ops@example.com","count":10,"env":"dev","force":true,"ratio":-3,"tags":[]}}`},
		{"form with an integer written with a fraction part", form, `{"action":"accept","content":{"env":"dev","count":3.0}}`,
			`{"id":"pnd-1","ok":true,"data":{"count":3,"env":"dev","force":false,"ratio":0.5,"tags":["a"]}}`},
		{"form with a key of its own", form, `{"action":"accept","content":{"env":"dev","note":"hi","list":["x"]}}`,
			`{"id":"pnd-1","ok":true,"data":{"count":2,"env":"dev","force":false,"list":["x"],"note":"hi","ratio":0.5,"tags":["a"]}}`},
		{"form declined", form, `{"action":"decline","content":{"env":{"$ne":""}}}`, `{"id":"pnd-1","ok":false,"reason":"declined"}`},
		{"form cancelled", form, `{"action":"cancel"}`, `{"id":"pnd-1","ok":false,"reason":"cancelled"}`},
		{"choice", choices, `{"action":"accept","content":{"answer":"prod"}}`, `{"id":"pnd-2","ok":true,"data":{"answer":"prod"}}`},
		{"approval", approval, `{"action":"accept"}`, `{"id":"pnd-3","ok":true}`},
		{"approval with empty content", approval, `{"action":"accept","content":{}}`, `{"id":"pnd-3","ok":true}`},
		{"approval with null content", approval, `{"action":"accept","content":null}`, `{"id":"pnd-3","ok":true}`},
		{"login", login, `{"action":"accept"}`, `{"id":"pnd-4","ok":true}`},
		{"login declined", login, `{"action":"decline"}`, `{"id":"pnd-4","ok":false,"reason":"declined"}`},
		{"sampling", sampling, `{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"test-model","stopReason":"endTurn"}`,
			`{"id":"pnd-5","ok":true,"data":{"content":{"text":"Paris.","type":"text"},"model":"test-model","role":"assistant","stopReason":"endTurn"}}`},
		{"sampling with a list of blocks", sampling, `{"role":"assistant","content":[{"type":"text","text":"Paris."}],"model":"m"}`,
			`{"id":"pnd-5","ok":true,"data":{"content":[{"text":"Paris.","type":"text"}],"model":"m","role":"assistant"}}`},
		{"roots", roots, `{"roots":[{"uri":"file:///test/root","name":"Test Root","_meta":{"x":1}},{"uri":"file:///b"}]}`,
			`{"id":"pnd-6","ok":true,"data":{"roots":[{"name":"Test Root","uri":"file:///test/root"},{"uri":"file:///b"}]}}`},
		{"no roots", roots, `{"roots":[]}`, `{"id":"pnd-6","ok":true,"data":{"roots":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.req.AnswerFromMCP(json.RawMessage(tt.response))
			require.NoError(t, err)
			assert.Equal(t, tt.want, mustJSON(t, got))
			require.NoError(t, got.Check(tt.req, time.Now()))
		})
	}
}

// TestRequestAnswerFromMCPErrors checks the responses that are refused: off
// the schema (ErrInvalidAnswer, which also matches ErrInvalidMCP) or not a
// response at all (ErrInvalidMCP).
func TestRequestAnswerFromMCPErrors(t *testing.T) {
	t.Parallel()
	form := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"schema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"env":   map[string]any{"type": "string", "enum": []string{"dev", "prod"}},
			"name":  map[string]any{"type": "string", "minLength": 2, "maxLength": 4},
			"count": map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
			"ratio": map[string]any{"type": "number", "minimum": 0.5},
			"force": map[string]any{"type": "boolean"},
			"pick":  map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "a", "title": "A"}}},
			"tags":  map[string]any{"type": "array", "minItems": 1, "maxItems": 2, "items": map[string]any{"anyOf": []any{map[string]any{"const": "a", "title": "A"}, map[string]any{"const": "b", "title": "B"}}}},
			"mail":  map[string]any{"type": "string", "format": "email"},
			"site":  map[string]any{"type": "string", "format": "uri"},
			"day":   map[string]any{"type": "string", "format": "date"},
			"at":    map[string]any{"type": "string", "format": "date-time"},
		},
		"required": []string{"env"},
	}}}
	choices := toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"choices": []string{"dev", "prod"}}}
	question := toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindQuestion, Prompt: "Why?"}
	login := toolnexus.Request{ID: "pnd-4", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	sampling := toolnexus.Request{ID: "pnd-5", Kind: toolnexus.KindSampling, Prompt: "Ask", Data: samplingData}
	roots := toolnexus.Request{ID: "pnd-6", Kind: toolnexus.KindRoots, Prompt: "Roots"}
	answer := `toolnexus: invalid answer: request "pnd-1": `
	tests := []struct {
		name     string
		req      toolnexus.Request
		response string
		want     error
		wantMsg  string
	}{
		{"an operator for a string", form, `{"action":"accept","content":{"env":{"$ne":""}}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "env" is an object, not a string`},
		{"a number for a string", question, `{"action":"accept","content":{"answer":42}}`, toolnexus.ErrInvalidAnswer,
			`toolnexus: invalid answer: request "pnd-3": property "answer" is a number, not a string`},
		{"missing required", question, `{"action":"accept","content":{}}`, toolnexus.ErrInvalidAnswer,
			`toolnexus: invalid answer: request "pnd-3": required property "answer" is missing`},
		{"a required property with a default is still required", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"schema": map[string]any{
			"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string", "default": "dev"}}, "required": []string{"env"}}}},
			`{"action":"accept","content":{}}`, toolnexus.ErrInvalidAnswer, answer + `required property "env" is missing`},
		{"no content for a required field", question, `{"action":"accept"}`, toolnexus.ErrInvalidAnswer,
			`toolnexus: invalid answer: request "pnd-3": required property "answer" is missing`},
		{"outside the choices", choices, `{"action":"accept","content":{"answer":"staging"}}`, toolnexus.ErrInvalidAnswer,
			`toolnexus: invalid answer: request "pnd-2": property "answer" is not one of its choices`},
		{"outside the enum", form, `{"action":"accept","content":{"env":"staging"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "env" is not one of its choices`},
		{"enum in another case", form, `{"action":"accept","content":{"env":"PROD"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "env" is not one of its choices`},
		{"key in another case", form, `{"action":"accept","content":{"ENV":"prod"}}`, toolnexus.ErrInvalidAnswer,
			answer + `required property "env" is missing`},
		{"null for a required string", form, `{"action":"accept","content":{"env":null}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "env" is null, not a string`},
		{"too short", form, `{"action":"accept","content":{"env":"dev","name":"é"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "name" is shorter than minLength 2`},
		{"too long, in code points", form, `{"action":"accept","content":{"env":"dev","name":"ééééé"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "name" is longer than maxLength 4`},
		{"a fraction for an integer", form, `{"action":"accept","content":{"env":"dev","count":1.5}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "count" is not an integer`},
		{"a string for an integer", form, `{"action":"accept","content":{"env":"dev","count":"2"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "count" is a string, not a number`},
		{"under the minimum", form, `{"action":"accept","content":{"env":"dev","count":0}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "count" is less than minimum 1`},
		{"over the maximum", form, `{"action":"accept","content":{"env":"dev","count":11}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "count" is greater than maximum 10`},
		{"under a fractional minimum", form, `{"action":"accept","content":{"env":"dev","ratio":0.25}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "ratio" is less than minimum 0.5`},
		{"a string for a boolean", form, `{"action":"accept","content":{"env":"dev","force":"true"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "force" is a string, not a boolean`},
		{"outside oneOf", form, `{"action":"accept","content":{"env":"dev","pick":"A"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "pick" is not one of its choices`},
		{"a string for a multi-select", form, `{"action":"accept","content":{"env":"dev","tags":"a"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "tags" is a string, not an array`},
		{"too few items", form, `{"action":"accept","content":{"env":"dev","tags":[]}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "tags" has fewer items than minItems 1`},
		{"too many items", form, `{"action":"accept","content":{"env":"dev","tags":["a","b","a"]}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "tags" has more items than maxItems 2`},
		{"an item outside anyOf", form, `{"action":"accept","content":{"env":"dev","tags":["a","c"]}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "tags" item 1 is not one of its choices`},
		{"an item not a string", form, `{"action":"accept","content":{"env":"dev","tags":[1]}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "tags" item 0 is a number, not a string`},
		{"not an email", form, `{"action":"accept","content":{"env":"dev","mail":"Ops <ops@example.com>"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "mail" is not a valid email`},
		{"not a uri", form, `{"action":"accept","content":{"env":"dev","site":"example.com/x"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "site" is not a valid uri`},
		{"not a date", form, `{"action":"accept","content":{"env":"dev","day":"2026-02-30"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "day" is not a valid date`},
		{"not a date-time", form, `{"action":"accept","content":{"env":"dev","at":"2026-01-01 10:00"}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "at" is not a valid date-time`},
		{"a key of its own in a closed form", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"schema": map[string]any{
			"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}, "additionalProperties": false}}},
			`{"action":"accept","content":{"env":"dev","note":"hi"}}`, toolnexus.ErrInvalidAnswer, answer + `property "note" is not in the form, which takes no other`},
		{"a nested object under a key of its own", form, `{"action":"accept","content":{"env":"dev","where":{"a":1}}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "where" is an object, not a string, number, boolean or list of strings`},
		{"a list of numbers under a key of its own", form, `{"action":"accept","content":{"env":"dev","n":[1]}}`, toolnexus.ErrInvalidAnswer,
			answer + `property "n" is an array, not a string, number, boolean or list of strings`},
		{"content for a login", login, `{"action":"accept","content":{"token":"x"}}`, toolnexus.ErrInvalidAnswer,
			`toolnexus: invalid answer: request "pnd-4": an accepted login carries content`},
		{"not an object", form, `12345`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: response to request "pnd-1" is a number, not an object`},
		{"null", form, `null`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: response to request "pnd-1" is null, not an object`},
		{"empty", form, ``, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: response to request "pnd-1": the input is empty, not JSON`},
		{"not JSON", form, `{"action":"accept",}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: response to request "pnd-1": the input is not JSON: byte 20 of 20, "}", cannot be there`},
		{"a word", form, `nope`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: response to request "pnd-1": the input is not JSON: byte 2 of 4, "o", cannot be there`},
		{"unknown action", form, `{"action":"approve"}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: elicitation action "approve" is not accept, decline or cancel`},
		{"action in another case", form, `{"Action":"accept","content":{"env":"dev"}}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: elicitation result for request "pnd-1" has no action`},
		{"action not a string", form, `{"action":true}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: elicitation result for request "pnd-1": action is a boolean, not a string`},
		{"content not an object", form, `{"action":"accept","content":["env"]}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: elicitation result for request "pnd-1": content is an array, not an object`},
		{"a sampling result without a model", sampling, `{"role":"assistant","content":{"type":"text","text":"x"}}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: sampling result for request "pnd-5": model is not a non-empty string`},
		{"an elicitation result for sampling", sampling, `{"action":"accept","content":{}}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: sampling result for request "pnd-5": role is not "user" or "assistant"`},
		{"a sampling stopReason not a string", sampling, `{"role":"assistant","content":{"type":"text"},"model":"m","stopReason":1}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: sampling result for request "pnd-5": stopReason is a number, not a string`},
		{"roots missing", roots, `{"action":"accept"}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: roots result for request "pnd-6": roots is null, not an array`},
		{"a root without uri", roots, `{"roots":[{"name":"x"}]}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: roots result for request "pnd-6": roots[0] has no uri`},
		{"a root not an object", roots, `{"roots":["file:///a"]}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: roots result for request "pnd-6": roots[0] is a string, not an object`},
		{"a root name not a string", roots, `{"roots":[{"uri":"file:///a","name":7}]}`, toolnexus.ErrInvalidMCP,
			`toolnexus: invalid MCP result: roots result for request "pnd-6": roots[0]: name is a number, not a string`},
		{"a request that cannot be asked", toolnexus.Request{ID: "pnd-7", Kind: toolnexus.KindInput}, `{"action":"accept"}`, toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "pnd-7" has no prompt`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.req.AnswerFromMCP(json.RawMessage(tt.response))
			assertErr(t, err, tt.want, tt.wantMsg)
			if tt.want == toolnexus.ErrInvalidAnswer {
				assert.ErrorIs(t, err, toolnexus.ErrInvalidMCP, "an answer off its schema is also invalid MCP")
			}
			assert.Zero(t, got)
		})
	}
}

// TestRequestAnswerFromMCPLongValue checks that an error never carries the
// value it refuses.
func TestRequestAnswerFromMCPLongValue(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Where?", Data: map[string]any{"choices": []string{"dev"}}}
	long := "secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	_, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"answer":"` + long + `"}}`))
	require.ErrorIs(t, err, toolnexus.ErrInvalidAnswer)
	assert.NotContains(t, err.Error(), "secret")
}
