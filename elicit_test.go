package toolnexus_test

import (
	"encoding/json"
	"errors"
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

// TestRequestMCPElicitParamsForms checks that every property form of MCP's
// elicitation schema (protocols 2025-11-25 and 2026-07-28) is taken, and
// sent as it was read, keys sorted.
func TestRequestMCPElicitParamsForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prop string // the JSON of property "p"
	}{
		{"string", `{"type":"string"}`},
		{"string with everything", `{"default":"a@example.com","description":"Where we write","format":"email","maxLength":64,"minLength":3,"title":"Email","type":"string"}`},
		{"uri", `{"format":"uri","type":"string"}`},
		{"date", `{"default":"2026-12-01","format":"date","type":"string"}`},
		{"date-time", `{"default":"2026-12-01T10:00:00Z","format":"date-time","type":"string"}`},
		{"number", `{"default":0.5,"maximum":1,"minimum":0,"title":"Ratio","type":"number"}`},
		{"integer", `{"default":30,"maximum":150,"minimum":0,"type":"integer"}`},
		{"integer with fractional bounds", `{"maximum":9.5,"minimum":-0.5,"type":"integer"}`},
		{"boolean", `{"default":true,"description":"Verified","type":"boolean"}`},
		{"untitled enum", `{"default":"b","enum":["a","b"],"type":"string"}`},
		{"legacy enumNames", `{"enum":["a","b"],"enumNames":["A","B"],"type":"string"}`},
		{"titled oneOf", `{"default":"v2","oneOf":[{"const":"v1","title":"First"},{"const":"v2","title":"Second"}],"title":"Pick","type":"string"}`},
		{"untitled multi-select", `{"default":["a"],"items":{"enum":["a","b","c"],"type":"string"},"maxItems":2,"minItems":1,"type":"array"}`},
		{"titled multi-select", `{"items":{"anyOf":[{"const":"v1","title":"First"},{"const":"v2","title":"Second"}]},"type":"array"}`},
		{"empty multi-select default", `{"default":[],"items":{"enum":["a"],"type":"string"},"type":"array"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"description":"d","properties":{"p":` + tt.prop + `},"required":["p"],"title":"Form","type":"object"}`
			req := schemaRequest(json.RawMessage(schema))
			p, err := req.MCPElicitParams()
			require.NoError(t, err)
			assert.Equal(t, schema, string(p.RequestedSchema))

			back := toolnexus.RequestFromMCPElicitParams(req.ID, p)
			assert.Equal(t, toolnexus.KindInput, back.Kind)
			again, err := back.MCPElicitParams()
			require.NoError(t, err)
			assert.Equal(t, p, again, "read back, it asks the same")
		})
	}
}

// TestRequestMCPElicitParamsChoices checks the choices convention: a Go
// caller asks for one of a list without writing JSON Schema.
func TestRequestMCPElicitParamsChoices(t *testing.T) {
	t.Parallel()
	const want = `{"type":"object","properties":{"answer":{"type":"string","description":"Which environment?","enum":["dev","prod"]}},"required":["answer"]}`
	for _, choices := range []any{[]string{"dev", "prod"}, []any{"dev", "prod"}, json.RawMessage(`["dev","prod"]`)} {
		for _, kind := range []string{toolnexus.KindInput, toolnexus.KindApproval, toolnexus.KindQuestion, "pick"} {
			req := toolnexus.Request{ID: "pnd-1", Kind: kind, Prompt: "Which environment?", Data: map[string]any{"choices": choices}}
			p, err := req.MCPElicitParams()
			require.NoError(t, err, "%s %T", kind, choices)
			assert.Equal(t, want, string(p.RequestedSchema), "%s %T", kind, choices)
		}
	}
	for _, bad := range []any{[]string{}, []any{"dev", 1}, "dev", nil, map[string]any{"dev": true}} {
		req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"choices": bad}}
		_, err := req.MCPElicitParams()
		assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1": data.choices is not a non-empty list of strings`)
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
	prop := func(p string) toolnexus.Request {
		return schemaRequest(json.RawMessage(`{"type":"object","properties":{"p":` + p + `}}`))
	}
	tests := []struct {
		name    string
		req     toolnexus.Request
		wantMsg string
	}{
		{"invalid request", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput},
			`toolnexus: invalid request: request "pnd-1" has no prompt`},
		{"sampling", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindSampling, Prompt: "p"},
			`toolnexus: invalid request: request "pnd-1" of kind "sampling" is not asked by elicitation`},
		{"roots", toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindRoots, Prompt: "p"},
			`toolnexus: invalid request: request "pnd-1" of kind "roots" is not asked by elicitation`},
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
		{"unknown keyword in a property", prop(`{"type":"string","pattern":"^a"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": keyword "pattern" is not one a string property takes`},
		{"keyword of another type", prop(`{"type":"boolean","minimum":1}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": keyword "minimum" is not one a boolean property takes`},
		{"keyword in another case", prop(`{"type":"string","MinLength":1}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": keyword "MinLength" is not one a string property takes`},
		{"unknown keyword in the form", schemaRequest(map[string]any{"type": "object", "properties": map[string]any{}, "patternProperties": map[string]any{}}),
			`toolnexus: invalid request: request "pnd-1": data.schema: keyword "patternProperties" is not one an elicitation form takes`},
		{"additionalProperties a schema", schemaRequest(map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": map[string]any{"type": "string"}}),
			`toolnexus: invalid request: request "pnd-1": data.schema: additionalProperties is an object, not a boolean`},
		{"title not a string", prop(`{"type":"string","title":1}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": title is a number, not a string`},
		{"form description not a string", schemaRequest(map[string]any{"type": "object", "properties": map[string]any{}, "description": true}),
			`toolnexus: invalid request: request "pnd-1": data.schema: description is a boolean, not a string`},
		{"type not a string", prop(`{"type":["string","null"]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": type is an array, not a string`},
		{"unknown format", prop(`{"type":"string","format":"ipv4"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": format is not email, uri, date or date-time`},
		{"negative minLength", prop(`{"type":"string","minLength":-1}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": minLength is not a non-negative integer`},
		{"fractional maxLength", prop(`{"type":"string","maxLength":1.5}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": maxLength is not a non-negative integer`},
		{"maxLength under minLength", prop(`{"type":"string","minLength":3,"maxLength":2}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": maxLength is less than minLength`},
		{"minimum a string", prop(`{"type":"number","minimum":"1"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": minimum is a string, not a number`},
		{"maximum under minimum", prop(`{"type":"integer","minimum":3,"maximum":2}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": maximum is less than minimum`},
		{"empty enum", prop(`{"type":"string","enum":[]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": enum is not a non-empty list of strings`},
		{"enum with a format", prop(`{"type":"string","enum":["a"],"format":"email"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": a choice takes no format, minLength or maxLength`},
		{"enum and oneOf", prop(`{"type":"string","enum":["a"],"oneOf":[{"const":"a","title":"A"}]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": both enum and oneOf`},
		{"enumNames of another length", prop(`{"type":"string","enum":["a","b"],"enumNames":["A"]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": enumNames is not a list of as many strings as enum`},
		{"enumNames without enum", prop(`{"type":"string","enumNames":["A"]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": enumNames without enum`},
		{"oneOf not a list", prop(`{"type":"string","oneOf":{"const":"a","title":"A"}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf is not a non-empty list`},
		{"oneOf without title", prop(`{"type":"string","oneOf":[{"const":"a"}]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf[0] has no non-empty string const and title`},
		{"oneOf with an empty const", prop(`{"type":"string","oneOf":[{"const":"","title":"A"}]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf[0] has no non-empty string const and title`},
		{"oneOf with a number const", prop(`{"type":"string","oneOf":[{"const":1,"title":"A"}]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf[0] has no non-empty string const and title`},
		{"oneOf entry with another keyword", prop(`{"type":"string","oneOf":[{"const":"a","title":"A","type":"string"}]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf[0]: keyword "type" is not const or title`},
		{"oneOf entry not an object", prop(`{"type":"string","oneOf":["a"]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": oneOf[0] is a string, not an object`},
		{"array without items", prop(`{"type":"array"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items is not an object`},
		{"array of numbers", prop(`{"type":"array","items":{"type":"number","enum":[1]}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: type is not "string"`},
		{"array of objects", prop(`{"type":"array","items":{"type":"object","properties":{}}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: keyword "properties" is not one multi-select items take`},
		{"titled items with a type", prop(`{"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"A"}]}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: titled choices (anyOf) take no type`},
		{"untitled items without a type", prop(`{"type":"array","items":{"enum":["a"]}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: an enum takes type "string"`},
		{"items with enum and anyOf", prop(`{"type":"array","items":{"enum":["a"],"anyOf":[{"const":"a","title":"A"}]}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: both enum and anyOf`},
		{"items anyOf without const", prop(`{"type":"array","items":{"anyOf":[{"title":"A"}]}}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": items: anyOf[0] has no non-empty string const and title`},
		{"maxItems under minItems", prop(`{"type":"array","items":{"enum":["a"]},"minItems":2,"maxItems":1}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": maxItems is less than minItems`},
		{"default of another type", prop(`{"type":"integer","default":"30"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is a string, not a number`},
		{"default with a fraction for an integer", prop(`{"type":"integer","default":1.5}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is not an integer`},
		{"default outside the enum", prop(`{"type":"string","enum":["a"],"default":"b"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is not one of its choices`},
		{"default over the maximum", prop(`{"type":"number","maximum":1,"default":2}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is greater than maximum 1`},
		{"default not in its format", prop(`{"type":"string","format":"date","default":"tomorrow"}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is not a valid date`},
		{"multi-select default outside its items", prop(`{"type":"array","items":{"type":"string","enum":["a"]},"default":["b"]}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default item 0 is not one of its choices`},
		{"null default", prop(`{"type":"boolean","default":null}`),
			`toolnexus: invalid request: request "pnd-1": data.schema: property "p": default is null, not a boolean`},
		{"schema not JSON bytes", schemaRequest(json.RawMessage(`{"type":"object",}`)),
			`toolnexus: invalid request: request "pnd-1": data.schema: the input is not JSON: byte 18 of 18, "}", cannot be there`},
		{"schema whose MarshalJSON fails", schemaRequest(failingJSON{}),
			`toolnexus: invalid request: request "pnd-1": data.schema: a toolnexus_test.failingJSON does not marshal to JSON`},
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

// failingJSON fails to write its JSON.
type failingJSON struct{}

func (failingJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON") }

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
		{"a schema that is not UTF-8", `{"mode":"form","message":"Deploy?","requestedSchema":{"type":"object","properties":{"env\ud800":{"type":"string"}}}}`,
			toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}},
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
