// Package elicitschema checks the JSON Schema of an MCP elicitation form,
// the flat subset the specification allows: string, number, integer,
// boolean and multi-select properties, their bounds, formats, choices and
// defaults. [Parse] reads a schema, and [Form.Check] holds a client's
// answer to it as the go-sdk's validation does. Users of the module never
// name it: a Request's Data carries the schema, and the root package asks
// and reads the elicitation.
package elicitschema

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
)

// Form is the schema of an elicitation form, checked by [Parse]: its
// properties by name and the names of those required. A Form is never
// changed once parsed, and is safe for concurrent use.
type Form struct {
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

// Parse checks m, a schema decoded from JSON with exact keys, against what
// MCP elicitation allows, and returns the form it describes. The schema is
// flat by construction: it is read to a fixed depth, never recursively.
// Its errors name the keyword or the property that is wrong, never a
// value, without a sentinel: the caller wraps them.
func Parse(m map[string]any) (*Form, error) {
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
	f := &Form{props: make(map[string]*formProp, len(props))}
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
		names, ok := Strings(req)
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
// or " ", for Parse to prefix with the property's name.
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
		if p.minimum, err = numberAt(m, "minimum"); err == nil {
			p.maximum, err = numberAt(m, "maximum")
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
	if p.minLength, err = boundAt(m, "minLength"); err != nil {
		return err
	}
	if p.maxLength, err = boundAt(m, "maxLength"); err != nil {
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
		if n, ok := Strings(names); !ok || len(n) != len(list) {
			return errors.New(": enumNames is not a list of as many strings as enum")
		}
	}
	return nil
}

func (p *formProp) parseArray(m map[string]any) error {
	var err error
	if p.minItems, err = boundAt(m, "minItems"); err != nil {
		return err
	}
	if p.maxItems, err = boundAt(m, "maxItems"); err != nil {
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
		choices, ok := Strings(enum)
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

// boundAt reads the bound under key of m, a non-negative integer, or -1
// when m has none.
func boundAt(m map[string]any, key string) (int, error) {
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

// numberAt reads the bound under key of m, a number, or nil when m has
// none.
func numberAt(m map[string]any, key string) (*float64, error) {
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
		return err == nil && u.Scheme != "" && strings.IndexFunc(s, spaceOrControl) < 0
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, ok := rfc3339.Parse(s)
		return ok
	}
	return false
}

// Check checks content, the content of an accepted elicitation decoded
// from JSON (nil when it had none), against f, and returns it with
// the default of every property that is absent and not required, as the
// go-sdk applies them. A value that is no string, number, boolean or list of
// strings is refused under any key, as MCP defines the content; a key the
// schema does not name is otherwise kept, as JSON Schema allows it, unless
// the schema's additionalProperties is false.
func (f *Form) Check(content map[string]any) (map[string]any, error) {
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
		_, ok := Strings(v)
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

// Strings returns the elements of v, decoded from JSON, when it is a list
// of strings.
func Strings(v any) ([]string, bool) {
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

// spaceOrControl reports whether r may not appear in a URI as it is: a
// space or a control character.
func spaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f
}
