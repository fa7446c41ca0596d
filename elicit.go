package toolnexus

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// MCPElicitParams is the params of an MCP elicitation/create request: what a
// suspended tool asks the person through an MCP client, in form mode (a
// message and the schema of the answer) or in url mode (a message and a page
// to visit, such as a login). [Request.MCPElicitParams] builds it and
// [RequestFromMCPElicitParams] reads one back.
type MCPElicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// MCPElicitResult is the result of an MCP elicitation: Action is "accept",
// "decline" or "cancel", and Content holds the answer of an accepted form.
// [AnswerFromMCPElicitResult] turns it into an [Answer].
type MCPElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// The elicitation modes of MCP.
const (
	elicitForm = "form"
	elicitURL  = "url"
)

// The schemas of the forms a Request asks for when its data has none: an
// approval is accepted or not and needs no field; any other request asks for
// one string, its answer.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

func answerSchema(prompt string) json.RawMessage {
	desc, _ := json.Marshal(prompt) // a string always marshals
	return json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","description":` +
		string(desc) + `}},"required":["answer"]}`)
}

// MCPElicitParams returns the elicitation that asks the person for what r
// waits for. A login (kind [KindAuthorization] with a URL) is a url mode
// elicitation whose elicitationId is r's ID. Any other request is a form: an
// approval has no field, accepting it is the approval; other kinds ask for a
// string "answer" described by the prompt. An object under the key "schema"
// of r.Data is the form's schema instead; MCP takes only a flat object of
// string, number, integer, boolean and enum properties, and anything else
// reports [ErrInvalidRequest], as does a request that fails
// [Request.Validate].
//
// The request's ID is the key of the elicitation in an MCP input_required
// result, and the key of its answer when the client retries the call.
func (r Request) MCPElicitParams() (MCPElicitParams, error) {
	if err := r.Validate(); err != nil {
		return MCPElicitParams{}, err
	}
	if r.Kind == KindAuthorization && r.URL != "" {
		return MCPElicitParams{Mode: elicitURL, Message: r.Prompt, URL: r.URL, ElicitationID: r.ID}, nil
	}
	p := MCPElicitParams{Mode: elicitForm, Message: r.Prompt}
	switch schema, ok := r.Data["schema"]; {
	case ok:
		b, err := elicitSchema(schema)
		if err != nil {
			return MCPElicitParams{}, errorf(ErrInvalidRequest, "request %s: data.schema: %v", quote(r.ID), err)
		}
		p.RequestedSchema = b
	case r.Kind == KindApproval:
		p.RequestedSchema = approvalSchema
	default:
		p.RequestedSchema = answerSchema(r.Prompt)
	}
	return p, nil
}

// elicitSchema checks that schema is a schema MCP elicitation takes, reading
// its keys exactly, and returns its JSON.
func elicitSchema(schema any) (json.RawMessage, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	d := jsonReader{data: b}
	if d.peek() != '{' {
		return nil, &typeError{key: "schema", want: "an object", got: d.kind()}
	}
	m, err := d.anyMap("schema")
	if err != nil {
		return nil, err
	}
	if m["type"] != "object" {
		return nil, errors.New(`type is not "object"`)
	}
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return nil, errors.New("properties is not an object")
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		prop, _ := props[name].(map[string]any)
		t, _ := prop["type"].(string)
		enum, hasEnum := prop["enum"]
		switch {
		case t == "string" && (!hasEnum || isStrings(enum)):
		case (t == "number" || t == "integer" || t == "boolean") && !hasEnum:
		default:
			return nil, fmt.Errorf("property %s is not a string, number, integer, boolean or enum", quote(name))
		}
	}
	if req, ok := m["required"]; ok {
		names, _ := req.([]any)
		if !isStrings(req) {
			return nil, errors.New("required is not a list of names")
		}
		for _, n := range names {
			if _, ok := props[n.(string)]; !ok {
				return nil, fmt.Errorf("required property %s is not in properties", quote(n.(string)))
			}
		}
	}
	return b, nil
}

// isStrings reports whether v, decoded from JSON, is an array of strings.
func isStrings(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range a {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// noMessage is the prompt of an elicitation that came without a message.
const noMessage = "[input required; the server sent no message]"

// RequestFromMCPElicitParams returns the Request that the elicitation p,
// whose key in an input_required result is id, stands for: a url mode
// elicitation is a [KindAuthorization] login at p.URL; a form without
// properties is a [KindApproval]; any other form is a [KindInput] request
// whose Data holds the form's schema under "schema". The prompt is p's
// message ([DefaultAuthPrompt] for a login without one).
func RequestFromMCPElicitParams(id string, p MCPElicitParams) Request {
	req := Request{ID: id, Prompt: cmp.Or(p.Message, noMessage)}
	if p.Mode == elicitURL || p.Mode == "" && p.URL != "" {
		req.Kind = KindAuthorization
		req.URL = p.URL
		req.Prompt = cmp.Or(p.Message, DefaultAuthPrompt)
		return req
	}
	var schema map[string]any
	if len(p.RequestedSchema) > 0 {
		d := jsonReader{data: p.RequestedSchema}
		schema, _ = d.anyMap("requestedSchema") // a schema that is no object is no form field
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		req.Kind = KindApproval
		return req
	}
	req.Kind = KindInput
	req.Data = map[string]any{"schema": schema}
	return req
}

// AnswerFromMCPElicitResult returns the Answer to the request id that the
// elicitation result res gives: "accept" grants it with the form's content
// as Data, "decline" and "cancel" refuse it with [ReasonDeclined] or
// [ReasonCancelled]. Any other action reports [ErrInvalidMCP].
func AnswerFromMCPElicitResult(id string, res MCPElicitResult) (Answer, error) {
	switch res.Action {
	case "accept":
		return Answer{ID: id, OK: true, Data: res.Content}, nil
	case "decline":
		return Answer{ID: id, Reason: ReasonDeclined}, nil
	case "cancel":
		return Answer{ID: id, Reason: ReasonCancelled}, nil
	}
	return Answer{}, errorf(ErrInvalidMCP, "elicitation action %s is not accept, decline or cancel", quote(res.Action))
}
