package toolnexus

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/toolnexus-go/toolnexus/internal/elicitschema"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// MCPInputRequest is one input request of an input_required MCP result
// (protocol 2026-07-28): a request the client fulfils before it retries the
// call, Method "elicitation/create", "sampling/createMessage" or
// "roots/list", with its Params as JSON.
// [Request.MCPInputRequest] builds one and [RequestFromMCPInputRequest]
// reads one back.
type MCPInputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty" toolnexus:"payload"`
}

// String returns v's fields without payload, for %v.
func (v MCPInputRequest) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPInputRequest) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPInputRequest.String] (%#v: [MCPInputRequest.GoString]).
func (v MCPInputRequest) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPInputRequest) LogValue() slog.Value { return logWire(v) }

// The MCP methods of input requests.
const (
	methodElicit   = "elicitation/create"
	methodSampling = "sampling/createMessage"
	methodRoots    = "roots/list"
)

// MCPInputRequest returns the input request that asks r over MCP, as
// protocol 2026-07-28 writes it: [Request.MCPInputRequestFor] of that
// version.
func (r Request) MCPInputRequest() (MCPInputRequest, error) {
	return r.MCPInputRequestFor("")
}

// MCPInputRequestFor returns the input request that asks r over MCP as
// protocol, an MCP protocol version such as "2025-11-25", writes it (empty
// means the latest this package knows, 2026-07-28):
//
//   - a [KindSampling] request is "sampling/createMessage" whose params are
//     r.Data, which must hold "messages", a non-empty list of
//     {"role","content"} messages whose role is "user" or "assistant", and
//     "maxTokens", a positive integer, and may hold the other keys of
//     CreateMessageRequestParams, each of its type ([ErrInvalidRequest]
//     names any other);
//   - a [KindRoots] request is "roots/list" with empty params (r.Data is
//     not sent): the spec makes them optional, and the go-sdk needs them;
//   - any other request is "elicitation/create" whose params are those of
//     [Request.MCPElicitParams], except that a url mode elicitation carries
//     an elicitationId only on versions before 2026-07-28, which removed it.
//
// It reports [ErrInvalidRequest] for a request that fails
// [Request.Validate] or whose data cannot be asked as its kind says.
func (r Request) MCPInputRequestFor(protocol string) (MCPInputRequest, error) {
	ir, _, err := r.ask(protocol)
	return ir, err
}

// ask returns the input request that asks r and, for a form, the schema its
// answer is checked against.
func (r Request) ask(protocol string) (MCPInputRequest, *elicitschema.Form, error) {
	if err := r.Validate(); err != nil {
		return MCPInputRequest{}, nil, err
	}
	switch r.Kind {
	case KindSampling:
		if len(r.Data) == 0 {
			return MCPInputRequest{}, nil, msg.Errorf(ErrInvalidRequest, "request %s of kind %s has no data, the sampling/createMessage params", msg.Quote(r.ID), msg.Quote(r.Kind))
		}
		params, err := samplingParams(r.Data)
		if err != nil {
			return MCPInputRequest{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: sampling data: %v", msg.Quote(r.ID), err)
		}
		return MCPInputRequest{Method: methodSampling, Params: params}, nil, nil
	case KindRoots:
		return MCPInputRequest{Method: methodRoots, Params: json.RawMessage(`{}`)}, nil, nil
	}
	withID := protocol != "" && protocol < firstWithoutElicitationID
	p, form, err := r.elicitParams(withID)
	if err != nil {
		return MCPInputRequest{}, nil, err
	}
	b, err := json.Marshal(p)
	if err != nil { // not reached: the params hold strings and checked JSON
		return MCPInputRequest{}, nil, msg.Errorf(ErrInvalidRequest, "request %s: %v", msg.Quote(r.ID), err)
	}
	return MCPInputRequest{Method: methodElicit, Params: b}, form, nil
}

// samplingKeys are the keys of sampling/createMessage params and the JSON
// type each must have; messages and maxTokens are checked more closely.
var samplingKeys = map[string]string{
	"messages":         "an array",
	"maxTokens":        "a number",
	"modelPreferences": "an object",
	"systemPrompt":     "a string",
	"includeContext":   "a string",
	"temperature":      "a number",
	"stopSequences":    "an array",
	"metadata":         "an object",
	"tools":            "an array",
	"toolChoice":       "an object",
	"_meta":            "an object",
}

// samplingParams checks data, the params of a sampling request, and returns
// their JSON as it was checked.
func samplingParams(data map[string]any) (json.RawMessage, error) {
	b, err := jsonOf(data)
	if err != nil {
		return nil, err
	}
	m, err := readObject(b, "data")
	if err != nil {
		return nil, err
	}
	for _, k := range msg.SortedKeys(m) {
		want, ok := samplingKeys[k]
		if !ok {
			return nil, fmt.Errorf("key %s is not one of sampling/createMessage's", msg.Quote(k))
		}
		if got := msg.JSONKind(m[k]); got != want {
			return nil, fmt.Errorf("%s is %s, not %s", k, got, want)
		}
	}
	messages, _ := m["messages"].([]any)
	if len(messages) == 0 {
		return nil, errors.New("messages is not a non-empty list")
	}
	for i, msg := range messages {
		if err := checkMessage(msg); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	if n, ok := m["maxTokens"].(float64); !ok || n < 1 || n != float64(int64(n)) {
		return nil, errors.New("maxTokens is not a positive integer")
	}
	if s, ok := m["stopSequences"]; ok {
		if _, ok := elicitschema.Strings(s); !ok {
			return nil, errors.New("stopSequences is not a list of strings")
		}
	}
	if c, ok := m["includeContext"]; ok && !slices.Contains([]string{"none", "thisServer", "allServers"}, c.(string)) {
		return nil, errors.New("includeContext is not none, thisServer or allServers")
	}
	return json.Marshal(m)
}

// checkMessage checks a sampling message, of a request or a result: its
// role is "user" or "assistant" and its content one content block or a
// non-empty list of them, each an object with a string type.
func checkMessage(v any) error {
	message, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("is %s, not an object", msg.JSONKind(v))
	}
	if role, _ := message["role"].(string); role != "user" && role != "assistant" {
		return errors.New(`role is not "user" or "assistant"`)
	}
	blocks, ok := message["content"].([]any)
	if !ok {
		blocks = []any{message["content"]}
	}
	if len(blocks) == 0 {
		return errors.New("content is an empty list")
	}
	for i, b := range blocks {
		block, ok := b.(map[string]any)
		if !ok {
			return fmt.Errorf("content block %d is %s, not an object", i, msg.JSONKind(b))
		}
		if t, _ := block["type"].(string); t == "" {
			return fmt.Errorf("content block %d has no type", i)
		}
	}
	return nil
}

// Prompts of the requests read back from input requests that carry none.
const (
	samplingPrompt = "[the MCP server asks for a message from the client's model]"
	rootsPrompt    = "[the MCP server asks for the client's roots]"
)

// RequestFromMCPInputRequest returns the Request that the input request ir,
// whose key in an input_required result is id, stands for: an elicitation
// as [RequestFromMCPElicitParams] reads it; a sampling/createMessage a
// [KindSampling] request whose Data is its params; a roots/list a
// [KindRoots] request. An input request of another method, or whose params
// cannot be read, is a [KindInput] request whose prompt names it, so that a
// host shows the person what it cannot answer. Keys are read exactly.
func RequestFromMCPInputRequest(id string, ir MCPInputRequest) Request {
	switch ir.Method {
	case methodElicit:
		if p, ok := ir.ElicitParams(); ok {
			return RequestFromMCPElicitParams(id, p)
		}
	case methodSampling:
		var params map[string]any
		if len(ir.Params) > 0 {
			params, _ = readObject(ir.Params, "params")
		}
		if params != nil {
			return Request{ID: id, Kind: KindSampling, Prompt: samplingPrompt, Data: params}
		}
	case methodRoots:
		return Request{ID: id, Kind: KindRoots, Prompt: rootsPrompt}
	}
	return Request{ID: id, Kind: KindInput, Prompt: "[unsupported MCP input request " + mimeLabel(ir.Method) + "]"}
}

// ElicitParams returns the params of ir, read with exact keys as
// [RequestFromMCPInputRequest] reads them, and true when ir is an
// elicitation whose params read, or false. Their RequestedSchema shares
// the bytes of ir.Params. An SDK adapter gives them to its SDK's own
// elicitation type without a second JSON decoder.
func (ir MCPInputRequest) ElicitParams() (MCPElicitParams, bool) {
	if ir.Method != methodElicit {
		return MCPElicitParams{}, false
	}
	p, err := readElicitParams(ir.Params)
	return p, err == nil
}

// readElicitParams reads the JSON of elicitation params with exact keys;
// none is the zero params. The schema shares the bytes of b.
func readElicitParams(b json.RawMessage) (MCPElicitParams, error) {
	if len(b) == 0 {
		return MCPElicitParams{}, nil
	}
	d := jsonReader{data: b}
	p, err := d.elicitParams()
	if err == nil {
		err = d.end()
	}
	if err != nil && !jsonscan.Valid(b) {
		return MCPElicitParams{}, jsonscan.ErrSyntax
	}
	return p, err
}

func (d *jsonReader) elicitParams() (MCPElicitParams, error) {
	var p MCPElicitParams
	if d.null() {
		return p, nil
	}
	err := d.members("params", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "mode":
			p.Mode, err = d.str("mode")
		case "message":
			p.Message, err = d.str("message")
		case "requestedSchema":
			var raw []byte
			if raw, err = d.skip(); err == nil && string(raw) != "null" {
				p.RequestedSchema = raw
			}
		case "url":
			p.URL, err = d.str("url")
		case "elicitationId":
			p.ElicitationID, err = d.str("elicitationId")
		default:
			return false, nil
		}
		return true, err
	})
	return p, err
}

// AnswerFromMCP returns the Answer that response, the JSON of the client's
// response to the input request that asks r ([Request.MCPInputRequest]),
// gives. The response is read by r's kind, with exact keys; unknown keys,
// such as _meta, are ignored:
//
//   - an elicitation's ElicitResult: "decline" and "cancel" refuse r with
//     [ReasonDeclined] or [ReasonCancelled]; "accept" grants it with the
//     form's content as Data, checked against the schema r is asked with as
//     the go-sdk's JSON Schema validation checks it (each value's type, an
//     integer without a fraction, required properties, choices, length,
//     bounds, minItems and maxItems, and format, which the go-sdk does not
//     check), with the default of every absent property that is not
//     required applied. Content is no nested object or list of anything but
//     strings, under any key. An accepted login (url mode) carries no
//     content, and its Answer no Data;
//   - a sampling request's CreateMessageResult grants r with the result
//     object as Data, once its role, content and model are checked;
//   - a roots request's ListRootsResult grants r with Data
//     {"roots":[{"uri":…,"name":…}]}, each root's uri and, when it has one,
//     its name.
//
// Content off the schema reports [ErrInvalidAnswer], naming the property
// and never quoting its value; a response of the wrong shape (not a JSON
// object, an unknown action, content that is not an object, a result
// without what it must hold) reports [ErrInvalidMCP], which ErrInvalidAnswer
// also matches. A request that cannot be asked reports the error of
// [Request.MCPInputRequest].
func (r Request) AnswerFromMCP(response json.RawMessage) (Answer, error) {
	method, form, err := r.answerForm()
	if err != nil {
		return Answer{}, err
	}
	d := jsonReader{data: response}
	var m map[string]any
	if d.peek() == '{' {
		if m, err = d.anyMap("response"); err == nil {
			err = d.end()
		}
	}
	switch {
	case (m == nil || err != nil) && !jsonscan.Valid(response):
		return Answer{}, msg.Errorf(ErrInvalidMCP, "response to request %s: %s", msg.Quote(r.ID), jsonscan.NotJSON(response))
	case m == nil && err == nil:
		return Answer{}, msg.Errorf(ErrInvalidMCP, "response to request %s is %s, not an object", msg.Quote(r.ID), d.kind())
	case err != nil:
		return Answer{}, msg.Errorf(ErrInvalidMCP, "response to request %s: %v", msg.Quote(r.ID), err)
	}
	switch method {
	case methodSampling:
		if err := checkSamplingResult(m); err != nil {
			return Answer{}, msg.Errorf(ErrInvalidMCP, "sampling result for request %s: %v", msg.Quote(r.ID), err)
		}
		return Answer{ID: r.ID, OK: true, Data: m}, nil
	case methodRoots:
		roots, err := readRoots(m)
		if err != nil {
			return Answer{}, msg.Errorf(ErrInvalidMCP, "roots result for request %s: %v", msg.Quote(r.ID), err)
		}
		return Answer{ID: r.ID, OK: true, Data: map[string]any{"roots": roots}}, nil
	}
	return r.elicitAnswer(m, form)
}

// answerForm returns the method that asks r and, for a form, the schema
// its answer is checked against, with the error of ask for a request that
// cannot be asked; it does not write the params.
func (r Request) answerForm() (string, *elicitschema.Form, error) {
	if r.Kind == KindSampling || r.Kind == KindRoots {
		ir, _, err := r.ask("")
		return ir.Method, nil, err
	}
	_, form, err := r.elicitParams(false)
	return methodElicit, form, err
}

// elicitAnswer reads m, an ElicitResult, as the answer to r, whose form is
// form (nil for a login).
func (r Request) elicitAnswer(m map[string]any, form *elicitschema.Form) (Answer, error) {
	action, ok := m["action"].(string)
	if !ok {
		if _, has := m["action"]; has {
			return Answer{}, msg.Errorf(ErrInvalidMCP, "elicitation result for request %s: action is %s, not a string", msg.Quote(r.ID), msg.JSONKind(m["action"]))
		}
		return Answer{}, msg.Errorf(ErrInvalidMCP, "elicitation result for request %s has no action", msg.Quote(r.ID))
	}
	var content map[string]any
	switch c := m["content"].(type) {
	case nil:
	case map[string]any:
		content = c
	default:
		return Answer{}, msg.Errorf(ErrInvalidMCP, "elicitation result for request %s: content is %s, not an object", msg.Quote(r.ID), msg.JSONKind(c))
	}
	if action != "accept" {
		return declinedAnswer(r.ID, action)
	}
	if form == nil {
		if len(content) > 0 {
			return Answer{}, msg.Errorf(ErrInvalidAnswer, "request %s: an accepted login carries content", msg.Quote(r.ID))
		}
		return Answer{ID: r.ID, OK: true}, nil
	}
	data, err := form.Check(content)
	if err != nil {
		return Answer{}, msg.Errorf(ErrInvalidAnswer, "request %s: %v", msg.Quote(r.ID), err)
	}
	return Answer{ID: r.ID, OK: true, Data: data}, nil
}

// checkSamplingResult checks m, a CreateMessageResult: a sampling message
// with the name of the model that wrote it, and a string stopReason if any.
func checkSamplingResult(m map[string]any) error {
	if err := checkMessage(m); err != nil {
		return err
	}
	if model, _ := m["model"].(string); model == "" {
		return errors.New("model is not a non-empty string")
	}
	if s, ok := m["stopReason"]; ok && s != nil {
		if _, ok := s.(string); !ok {
			return fmt.Errorf("stopReason is %s, not a string", msg.JSONKind(s))
		}
	}
	return nil
}

// readRoots reads the roots of m, a ListRootsResult: each root's uri, a
// non-empty string, and its name, a string, when it has one.
func readRoots(m map[string]any) ([]any, error) {
	list, ok := m["roots"].([]any)
	if !ok {
		return nil, fmt.Errorf("roots is %s, not an array", msg.JSONKind(m["roots"]))
	}
	roots := make([]any, len(list))
	for i, e := range list {
		root, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("roots[%d] is %s, not an object", i, msg.JSONKind(e))
		}
		uri, _ := root["uri"].(string)
		if uri == "" {
			return nil, fmt.Errorf("roots[%d] has no uri", i)
		}
		out := map[string]any{"uri": uri}
		switch name := root["name"].(type) {
		case nil:
		case string:
			out["name"] = name
		default:
			return nil, fmt.Errorf("roots[%d]: name is %s, not a string", i, msg.JSONKind(name))
		}
		roots[i] = out
	}
	return roots, nil
}
