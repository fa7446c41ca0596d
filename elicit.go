package toolnexus

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
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
var approvalForm = sync.OnceValues(func() (*formSchema, error) { return readFormSchema(approvalSchema) })

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
func (r Request) elicitParams(withID bool) (MCPElicitParams, *formSchema, error) {
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
	var form *formSchema
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
	return stringsOf(elems)
}

// stringsOf returns the elements of v, decoded from JSON, when it is a list
// of strings.
func stringsOf(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// elicitSchema checks that schema is a schema MCP elicitation takes, reading
// its keys exactly, and returns the JSON of what it read, with the form it
// describes: the schema that is sent is the one that was checked, whatever
// the caller's value marshals to.
func elicitSchema(schema any) (json.RawMessage, *formSchema, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, nil, err
	}
	m, err := readObject(b, "schema")
	if err != nil {
		return nil, nil, err
	}
	form, err := parseFormSchema(m)
	if err != nil {
		return nil, nil, err
	}
	b, err = json.Marshal(m)
	return b, form, err
}

// readFormSchema reads and checks the JSON of a requestedSchema.
func readFormSchema(b []byte) (*formSchema, error) {
	m, err := readObject(b, "schema")
	if err != nil {
		return nil, err
	}
	return parseFormSchema(m)
}

// formSchema is the schema of an elicitation form, checked: its properties
// by name and the names of those required.
type formSchema struct {
	props    map[string]*formProp
	required map[string]bool
	closed   bool // additionalProperties false: no key but the properties'
}

// formProp is one property of a form: its type ("string", "number",
// "integer", "boolean" or "array", a multi-select) and the constraints its
// value must meet. A bound of -1 is no bound.
type formProp struct {
	typ                  string
	format               string
	minLength, maxLength int
	minimum, maximum     *float64
	choices              map[string]bool // nil: any value of the type
	minItems, maxItems   int
	def                  any
	hasDef               bool
}

// The keywords each part of a form schema may hold: the form itself, each
// property by its type, the items of a multi-select, and a titled choice.
var (
	formKeys   = []string{"$schema", "type", "properties", "required", "title", "description", "additionalProperties"}
	commonKeys = []string{"type", "title", "description", "default"}
	typeKeys   = map[string][]string{
		"string":  {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
		"number":  {"minimum", "maximum"},
		"integer": {"minimum", "maximum"},
		"boolean": nil,
		"array":   {"items", "minItems", "maxItems"},
	}
	itemKeys   = []string{"type", "enum", "anyOf"}
	choiceKeys = []string{"const", "title"}
	formats    = []string{"email", "uri", "date", "date-time"}
)

// parseFormSchema checks m, a schema decoded from JSON, against what MCP
// elicitation allows, and returns the form it describes. The schema is flat
// by construction: it is read to a fixed depth, never recursively.
func parseFormSchema(m map[string]any) (*formSchema, error) {
	if m["type"] != "object" {
		return nil, errors.New(`type is not "object"`)
	}
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return nil, errors.New("properties is not an object")
	}
	for _, k := range msg.SortedKeys(m) {
		if !slices.Contains(formKeys, k) {
			return nil, fmt.Errorf("keyword %s is not one an elicitation form takes", msg.Quote(k))
		}
	}
	for _, k := range []string{"$schema", "title", "description"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(string); !ok {
				return nil, fmt.Errorf("%s is %s, not a string", k, msg.JSONKind(v))
			}
		}
	}
	f := &formSchema{props: make(map[string]*formProp, len(props))}
	if v, ok := m["additionalProperties"]; ok {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("additionalProperties is %s, not a boolean", msg.JSONKind(v))
		}
		f.closed = !b
	}
	for _, name := range msg.SortedKeys(props) {
		p, err := parseProp(props[name])
		if err != nil {
			return nil, fmt.Errorf("property %s%v", msg.Quote(name), err)
		}
		f.props[name] = p
	}
	if req, ok := m["required"]; ok {
		names, ok := stringsOf(req)
		if !ok {
			return nil, errors.New("required is not a list of names")
		}
		f.required = make(map[string]bool, len(names))
		for _, n := range names {
			if _, ok := f.props[n]; !ok {
				return nil, fmt.Errorf("required property %s is not in properties", msg.Quote(n))
			}
			f.required[n] = true
		}
	}
	return f, nil
}

// parseProp reads the schema of one property. Its errors start with ": "
// or " ", for parseFormSchema to prefix with the property's name.
func parseProp(v any) (*formProp, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(" is %s, not an object", msg.JSONKind(v))
	}
	t, ok := m["type"].(string)
	if !ok {
		if _, has := m["type"]; has {
			return nil, fmt.Errorf(": type is %s, not a string", msg.JSONKind(m["type"]))
		}
		return nil, errors.New(" has no type")
	}
	extra, ok := typeKeys[t]
	if !ok {
		return nil, fmt.Errorf(": type %s is not string, number, integer, boolean or array", msg.Quote(t))
	}
	for _, k := range msg.SortedKeys(m) {
		if !slices.Contains(commonKeys, k) && !slices.Contains(extra, k) {
			return nil, fmt.Errorf(": keyword %s is not one a %s property takes", msg.Quote(k), t)
		}
	}
	for _, k := range []string{"title", "description"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(string); !ok {
				return nil, fmt.Errorf(": %s is %s, not a string", k, msg.JSONKind(v))
			}
		}
	}
	p := &formProp{typ: t, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	var err error
	switch t {
	case "string":
		err = p.parseString(m)
	case "number", "integer":
		if p.minimum, err = number(m, "minimum"); err == nil {
			p.maximum, err = number(m, "maximum")
		}
		if err == nil && p.minimum != nil && p.maximum != nil && *p.maximum < *p.minimum {
			err = errors.New(": maximum is less than minimum")
		}
	case "array":
		err = p.parseArray(m)
	}
	if err != nil {
		return nil, err
	}
	if def, ok := m["default"]; ok {
		if err := p.check(def); err != nil {
			return nil, fmt.Errorf(": default %s", err)
		}
		p.def, p.hasDef = def, true
	}
	return p, nil
}

func (p *formProp) parseString(m map[string]any) error {
	var err error
	if p.minLength, err = count(m, "minLength"); err != nil {
		return err
	}
	if p.maxLength, err = count(m, "maxLength"); err != nil {
		return err
	}
	if p.maxLength >= 0 && p.maxLength < p.minLength {
		return errors.New(": maxLength is less than minLength")
	}
	if v, ok := m["format"]; ok {
		f, _ := v.(string)
		if !slices.Contains(formats, f) {
			return errors.New(": format is not email, uri, date or date-time")
		}
		p.format = f
	}
	_, hasEnum := m["enum"]
	_, hasOneOf := m["oneOf"]
	if (hasEnum || hasOneOf) && (p.format != "" || p.minLength >= 0 || p.maxLength >= 0) {
		return errors.New(": a choice takes no format, minLength or maxLength")
	}
	list, err := readChoices(m, "oneOf", "")
	if err != nil {
		return err
	}
	p.choices = setOf(list)
	if names, ok := m["enumNames"]; ok {
		if !hasEnum {
			return errors.New(": enumNames without enum")
		}
		if n, ok := stringsOf(names); !ok || len(n) != len(list) {
			return errors.New(": enumNames is not a list of as many strings as enum")
		}
	}
	return nil
}

func (p *formProp) parseArray(m map[string]any) error {
	var err error
	if p.minItems, err = count(m, "minItems"); err != nil {
		return err
	}
	if p.maxItems, err = count(m, "maxItems"); err != nil {
		return err
	}
	if p.maxItems >= 0 && p.maxItems < p.minItems {
		return errors.New(": maxItems is less than minItems")
	}
	items, ok := m["items"].(map[string]any)
	if !ok {
		return errors.New(": items is not an object")
	}
	for _, k := range msg.SortedKeys(items) {
		if !slices.Contains(itemKeys, k) {
			return fmt.Errorf(": items: keyword %s is not one multi-select items take", msg.Quote(k))
		}
	}
	t, hasType := items["type"]
	if hasType && t != "string" {
		return errors.New(`: items: type is not "string"`)
	}
	list, err := readChoices(items, "anyOf", "items: ")
	if err != nil {
		return err
	}
	if p.choices = setOf(list); p.choices == nil {
		return errors.New(": items have neither enum nor anyOf")
	}
	// As the spec writes them, and as the go-sdk's client only takes them:
	// an untitled enum is of type string, titled choices have no type.
	switch _, titled := items["anyOf"]; {
	case titled && hasType:
		return errors.New(": items: titled choices (anyOf) take no type")
	case !titled && !hasType:
		return errors.New(`: items: an enum takes type "string"`)
	}
	return nil
}

// setOf returns the set of list's strings, or nil for none.
func setOf(list []string) map[string]bool {
	if list == nil {
		return nil
	}
	set := make(map[string]bool, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}

// readChoices reads the choices of m, an untitled "enum" or a list of
// titled choices under titled, or nil when it has neither; prefix says where
// m is in errors.
func readChoices(m map[string]any, titled, prefix string) ([]string, error) {
	enum, hasEnum := m["enum"]
	list, hasTitled := m[titled]
	switch {
	case hasEnum && hasTitled:
		return nil, fmt.Errorf(": %sboth enum and %s", prefix, titled)
	case hasEnum:
		choices, ok := stringsOf(enum)
		if !ok || len(choices) == 0 {
			return nil, fmt.Errorf(": %senum is not a non-empty list of strings", prefix)
		}
		return choices, nil
	case hasTitled:
		return titledChoices(list, prefix+titled)
	}
	return nil, nil
}

// titledChoices reads a oneOf or anyOf of {"const","title"} objects, whose
// const and title are non-empty strings, and returns the consts.
func titledChoices(v any, key string) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf(": %s is not a non-empty list", key)
	}
	consts := make([]string, len(list))
	for i, e := range list {
		c, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(": %s[%d] is %s, not an object", key, i, msg.JSONKind(e))
		}
		for _, k := range msg.SortedKeys(c) {
			if !slices.Contains(choiceKeys, k) {
				return nil, fmt.Errorf(": %s[%d]: keyword %s is not const or title", key, i, msg.Quote(k))
			}
		}
		s, _ := c["const"].(string)
		title, _ := c["title"].(string)
		if s == "" || title == "" {
			return nil, fmt.Errorf(": %s[%d] has no non-empty string const and title", key, i)
		}
		consts[i] = s
	}
	return consts, nil
}

// count reads the bound under key of m, a non-negative integer, or -1 when
// m has none.
func count(m map[string]any, key string) (int, error) {
	v, ok := m[key]
	if !ok {
		return -1, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf(": %s is not a non-negative integer", key)
	}
	return int(f), nil
}

// number reads the bound under key of m, a number, or nil when m has none.
func number(m map[string]any, key string) (*float64, error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	f, ok := v.(float64)
	if !ok {
		return nil, fmt.Errorf(": %s is %s, not a number", key, msg.JSONKind(v))
	}
	return &f, nil
}

// check reports whether v, decoded from JSON, is a value of p, as the
// go-sdk's JSON Schema validation has it: its type (an integer is a number
// without a fraction), its choices, length, bounds and format. Its errors
// name what is wrong, never the value.
func (p *formProp) check(v any) error {
	switch p.typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("is %s, not a string", msg.JSONKind(v))
		}
		if n := utf8.RuneCountInString(s); p.minLength >= 0 && n < p.minLength {
			return fmt.Errorf("is shorter than minLength %d", p.minLength)
		} else if p.maxLength >= 0 && n > p.maxLength {
			return fmt.Errorf("is longer than maxLength %d", p.maxLength)
		}
		if p.format != "" && !validFormat(p.format, s) {
			return fmt.Errorf("is not a valid %s", p.format)
		}
		if p.choices != nil && !p.choices[s] {
			return errors.New("is not one of its choices")
		}
	case "number", "integer":
		f, ok := v.(float64)
		if !ok {
			return fmt.Errorf("is %s, not a number", msg.JSONKind(v))
		}
		if p.typ == "integer" && f != math.Trunc(f) {
			return errors.New("is not an integer")
		}
		if p.minimum != nil && f < *p.minimum {
			return fmt.Errorf("is less than minimum %s", formatNumber(*p.minimum))
		}
		if p.maximum != nil && f > *p.maximum {
			return fmt.Errorf("is greater than maximum %s", formatNumber(*p.maximum))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("is %s, not a boolean", msg.JSONKind(v))
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("is %s, not an array", msg.JSONKind(v))
		}
		if p.minItems >= 0 && len(list) < p.minItems {
			return fmt.Errorf("has fewer items than minItems %d", p.minItems)
		}
		if p.maxItems >= 0 && len(list) > p.maxItems {
			return fmt.Errorf("has more items than maxItems %d", p.maxItems)
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("item %d is %s, not a string", i, msg.JSONKind(e))
			}
			if !p.choices[s] {
				return fmt.Errorf("item %d is not one of its choices", i)
			}
		}
	}
	return nil
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// validFormat reports whether s is in format, one of the formats an
// elicitation string may have: an email address (an addr-spec, no display
// name), an absolute URI, an RFC 3339 full-date or date-time.
func validFormat(format, s string) bool {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Name == "" && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && strings.IndexFunc(s, isSpaceOrControl) < 0
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, err := parseRFC3339(s)
		return err == nil
	}
	return false
}

// checkContent checks content, the content of an accepted elicitation
// decoded from JSON (nil when it had none), against f, and returns it with
// the default of every property that is absent and not required, as the
// go-sdk applies them. A value that is no string, number, boolean or list of
// strings is refused under any key, as MCP defines the content; a key the
// schema does not name is otherwise kept, as JSON Schema allows it, unless
// the schema's additionalProperties is false.
func (f *formSchema) checkContent(content map[string]any) (map[string]any, error) {
	for _, name := range msg.SortedKeys(content) {
		v := content[name]
		if p, ok := f.props[name]; ok {
			if err := p.check(v); err != nil {
				return nil, fmt.Errorf("property %s %w", msg.Quote(name), err)
			}
			continue
		}
		if f.closed {
			return nil, fmt.Errorf("property %s is not in the form, which takes no other", msg.Quote(name))
		}
		if !isContentValue(v) {
			return nil, fmt.Errorf("property %s is %s, not a string, number, boolean or list of strings", msg.Quote(name), msg.JSONKind(v))
		}
	}
	for _, name := range msg.SortedKeys(f.required) {
		if _, ok := content[name]; !ok {
			return nil, fmt.Errorf("required property %s is missing", msg.Quote(name))
		}
	}
	for _, name := range msg.SortedKeys(f.props) {
		p := f.props[name]
		if _, ok := content[name]; ok || !p.hasDef || f.required[name] {
			continue
		}
		if content == nil {
			content = map[string]any{}
		}
		content[name] = cloneDefault(p.def)
	}
	if len(content) == 0 {
		return nil, nil
	}
	return content, nil
}

// isContentValue reports whether v is a value MCP elicitation content may
// hold: a string, a number, a boolean or a list of strings.
func isContentValue(v any) bool {
	switch v := v.(type) {
	case string, float64, bool:
		return true
	case []any:
		_, ok := stringsOf(v)
		return ok
	}
	return false
}

// cloneDefault returns a copy of a default, so that an answer never shares a
// list with the schema it was checked against.
func cloneDefault(v any) any {
	if list, ok := v.([]any); ok {
		return slices.Clone(list)
	}
	return v
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
	return refusal(id, res.Action)
}

// refusal returns the answer an elicitation action other than accept
// gives.
func refusal(id, action string) (Answer, error) {
	switch action {
	case "decline":
		return Answer{ID: id, Reason: ReasonDeclined}, nil
	case "cancel":
		return Answer{ID: id, Reason: ReasonCancelled}, nil
	}
	return Answer{}, msg.Errorf(ErrInvalidMCP, "elicitation action %s is not accept, decline or cancel", msg.Quote(action))
}
