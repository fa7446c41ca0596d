package toolnexus

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/toolnexus-go/toolnexus/internal/elicitschema"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// MCPElicitParams is the params of an MCP elicitation/create request: what a
// suspended tool asks the person through an MCP client, in form mode (a
// message and the schema of the answer) or in url mode (a message and a page
// to visit, such as a login). [Request.MCPElicitParams] builds it and
// [RequestFromMCPElicitParams] reads one back.
type MCPElicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty" toolnexus:"payload"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v MCPElicitParams) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPElicitParams) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPElicitParams.String] (%#v: [MCPElicitParams.GoString]).
func (v MCPElicitParams) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPElicitParams) LogValue() slog.Value { return logWire(v) }

// MCPElicitResult is the result of an MCP elicitation: Action is "accept",
// "decline" or "cancel", and Content holds the answer of an accepted form.
// [AnswerFromMCPElicitResult] turns it into an [Answer].
type MCPElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// String returns v's fields without payload, for %v.
func (v MCPElicitResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPElicitResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPElicitResult.String] (%#v: [MCPElicitResult.GoString]).
func (v MCPElicitResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPElicitResult) LogValue() slog.Value { return logWire(v) }

// The elicitation modes of MCP.
const (
	elicitForm = "form"
	elicitURL  = "url"
)

// firstWithoutElicitationID is the first MCP protocol version whose url mode
// elicitation has no elicitationId: 2025-11-25 defines it, 2026-07-28
// removed it. Versions are dates, which compare as strings.
const firstWithoutElicitationID = "2026-07-28"

// The schemas of the forms a Request asks for when its data has none: an
// approval is accepted or not and needs no field; any other request asks for
// one string, its answer, one of the choices when there are some.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// approvalForm returns the form of approvalSchema, read once: a form is
// never changed once read.
var approvalForm = sync.OnceValues(func() (*elicitschema.Form, error) { return readFormSchema(approvalSchema) })

func answerSchema(prompt string, choices []string) json.RawMessage {
	desc, _ := json.Marshal(prompt) // strings always marshal
	enum := ""
	if choices != nil {
		b, _ := json.Marshal(choices)
		enum = `,"enum":` + string(b)
	}
	return json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","description":` +
		string(desc) + enum + `}},"required":["answer"]}`)
}

// MCPElicitParams returns the elicitation that asks the person for what r
// waits for, as protocol 2025-11-25 writes it (see [Request.MCPInputRequest]
// for 2026-07-28). A login (kind [KindAuthorization] with a URL) is a url
// mode elicitation whose elicitationId is r's ID. Any other request is a
// form, whose schema is, first that applies:
//
//   - the object under the key "schema" of r.Data: a JSON Schema that MCP
//     elicitation takes, a flat object whose properties are each a string
//     (with title, description, format "email", "uri", "date" or
//     "date-time", minLength, maxLength), a number or integer (minimum,
//     maximum), a boolean, a single choice (a string with an untitled
//     "enum", with legacy "enumNames", or with a titled "oneOf" of
//     {"const","title"} objects) or several choices (type "array" whose
//     "items" are of type "string" with an "enum", or have an "anyOf" of
//     {"const","title"} objects and no type, as the spec writes them; with
//     minItems and maxItems), each with an optional "default" of its
//     own type; plus "required", a list of property names, and
//     "additionalProperties", false to refuse an answer with a key the
//     properties do not name (with "$schema", "title" and "description",
//     the keys the form itself may have). Keys are read
//     exactly, and anything else is refused with [ErrInvalidRequest]
//     naming the property, as is a default off its own property;
//   - the choices convention: a list of strings under the key "choices" of
//     r.Data asks for one of them, as a required string property "answer"
//     with that enum, described by the prompt; the answer's Data is then
//     {"answer": the choice};
//   - for an approval, no field: accepting it is the approval;
//   - for any other kind, a required string "answer" described by the
//     prompt.
//
// It reports [ErrInvalidRequest] for a request that fails
// [Request.Validate], for a [KindSampling] or [KindRoots] request, which no
// elicitation asks (see [Request.MCPInputRequest]), for data that holds
// both "schema" and "choices", and for choices that are not a non-empty
// list of strings.
//
// The request's ID is the key of the elicitation in an MCP input_required
// result, and the key of its answer when the client retries the call.
func (r Request) MCPElicitParams() (MCPElicitParams, error) {
	p, _, err := r.elicitParams(true)
	return p, err
}

// elicitParams returns the elicitation that asks r, with the form it asks
// for (nil for a login); withID says whether a login carries an
// elicitationId.
func (r Request) elicitParams(withID bool) (MCPElicitParams, *elicitschema.Form, error) {
	if err := r.Validate(); err != nil {
		return MCPElicitParams{}, nil, err
	}
	if r.Kind == KindSampling || r.Kind == KindRoots {
		return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s of kind %s is not asked by elicitation", msg.Quote(r.ID), msg.Quote(r.Kind))
	}
	if r.Kind == KindAuthorization && r.URL != "" {
		p := MCPElicitParams{Mode: elicitURL, Message: r.Prompt, URL: r.URL}
		if withID {
			p.ElicitationID = r.ID
		}
		return p, nil, nil
	}
	p := MCPElicitParams{Mode: elicitForm, Message: r.Prompt}
	var form *elicitschema.Form
	schema, hasSchema := r.Data["schema"]
	choices, hasChoices := r.Data["choices"]
	switch {
	case hasSchema && hasChoices:
		return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: data has both schema and choices", msg.Quote(r.ID))
	case hasSchema:
		b, f, err := elicitSchema(schema)
		if err != nil {
			return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: data.schema: %v", msg.Quote(r.ID), err)
		}
		p.RequestedSchema, form = b, f
	case hasChoices:
		list, ok := stringList(choices)
		if !ok || len(list) == 0 {
			return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: data.choices is not a non-empty list of strings", msg.Quote(r.ID))
		}
		p.RequestedSchema = answerSchema(r.Prompt, list)
	case r.Kind == KindApproval:
		p.RequestedSchema = approvalSchema
		var err error
		if form, err = approvalForm(); err != nil { // not reached: approvalSchema is a form
			return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: %v", msg.Quote(r.ID), err)
		}
	default:
		p.RequestedSchema = answerSchema(r.Prompt, nil)
	}
	if form == nil {
		var err error
		if form, err = readFormSchema(p.RequestedSchema); err != nil { // not reached: the schemas written here are forms
			return MCPElicitParams{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: %v", msg.Quote(r.ID), err)
		}
	}
	return p, form, nil
}

// stringList returns v, a list of strings as Go or JSON has it, and true,
// or false for any other value.
func stringList(v any) ([]string, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var elems []any
	if b[0] != '[' || json.Unmarshal(b, &elems) != nil {
		return nil, false
	}
	return elicitschema.Strings(elems)
}

// elicitSchema checks that schema is a schema MCP elicitation takes, reading
// its keys exactly, and returns the JSON of what it read, with the form it
// describes: the schema that is sent is the one that was checked, whatever
// the caller's value marshals to.
func elicitSchema(schema any) (json.RawMessage, *elicitschema.Form, error) {
	b, err := jsonOf(schema)
	if err != nil {
		return nil, nil, err
	}
	m, err := readObject(b, "schema")
	if err != nil {
		return nil, nil, err
	}
	form, err := elicitschema.Parse(m)
	if err != nil {
		return nil, nil, err
	}
	b, err = json.Marshal(m)
	return b, form, err
}

// readFormSchema reads and checks the JSON of a requestedSchema.
func readFormSchema(b []byte) (*elicitschema.Form, error) {
	m, err := readObject(b, "schema")
	if err != nil {
		return nil, err
	}
	return elicitschema.Parse(m)
}

// noMessage is the prompt of an elicitation that came without a message.
const noMessage = "[input required; the server sent no message]"

// RequestFromMCPElicitParams returns the Request that the elicitation p,
// whose key in an input_required result is id, stands for: a url mode
// elicitation is a [KindAuthorization] login at p.URL; a form without
// properties is a [KindApproval]; any other form is a [KindInput] request
// whose Data holds the form's schema under "schema", whatever property
// forms it uses (see [Request.MCPElicitParams]). The prompt is p's message
// ([DefaultAuthPrompt] for a login without one).
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
		schema, _ = readObject(p.RequestedSchema, "requestedSchema") // a schema that is no object is no form field
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
// [ReasonCancelled]. Any other action reports [ErrInvalidMCP]. It does not
// know the schema the form was asked with, so it does not check the
// content: [Request.AnswerFromMCP] does.
func AnswerFromMCPElicitResult(id string, res MCPElicitResult) (Answer, error) {
	if res.Action == "accept" {
		return Answer{ID: id, OK: true, Data: res.Content}, nil
	}
	return declinedAnswer(id, res.Action)
}

// declinedAnswer returns the answer an elicitation action other than accept
// gives.
func declinedAnswer(id, action string) (Answer, error) {
	switch action {
	case "decline":
		return Answer{ID: id, Reason: ReasonDeclined}, nil
	case "cancel":
		return Answer{ID: id, Reason: ReasonCancelled}, nil
	}
	return Answer{}, msg.Errorf(ErrInvalidMCP, "elicitation action %s is not accept, decline or cancel", msg.Quote(action))
}
