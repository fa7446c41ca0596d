package toolnexus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonReader reads JSON with exact keys: "isError" matches only "isError",
// never "ISERROR" or "iſError", which encoding/json folds onto the same
// struct field. Every decoder of JSON from a peer reads through it
// (ParseToolResult, FromMCPCallToolResult, Request and Answer), so that a
// key means what the other toolnexus ports and the MCP SDKs take it to mean;
// when a key repeats, the last one wins, as in JavaScript.
//
// It reads input that encoding/json has already found valid (json.Valid, or
// the bytes encoding/json hands to an UnmarshalJSON method), so it checks
// the structure only as far as it needs to find its way; it still checks
// every index, and fails with an error, never a panic, on any input.
type jsonReader struct {
	data []byte
	pos  int
}

// errSyntax reports input that is not JSON where the reader expected it.
var errSyntax = errors.New("malformed JSON")

// typeError reports a value of the wrong JSON type.
type typeError struct {
	key       string
	want, got string
}

func (e *typeError) Error() string {
	return strconv.Quote(e.key) + " is " + e.got + ", not " + e.want
}

// skipSpace moves past JSON white space.
func (d *jsonReader) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the first byte of the next token, or 0 at the end of input.
func (d *jsonReader) peek() byte {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// kind names the JSON type of the next value, for error messages: they name
// the type of what was found, never the value, which may be a payload.
func (d *jsonReader) kind() string {
	switch c := d.peek(); {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || '0' <= c && c <= '9':
		return "a number"
	case c == 0:
		return "empty input"
	}
	return "no JSON value"
}

// literal consumes lit if it comes next.
func (d *jsonReader) literal(lit string) bool {
	if d.peek() == lit[0] && bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
		d.pos += len(lit)
		return true
	}
	return false
}

// null consumes a null if it comes next.
func (d *jsonReader) null() bool { return d.literal("null") }

// openObject consumes the '{' of an object; key names the value in the error
// when something else comes.
func (d *jsonReader) openObject(key string) error {
	if d.peek() != '{' {
		return &typeError{key: key, want: "an object", got: d.kind()}
	}
	d.pos++
	return nil
}

// nextKey reads up to the value of the next member of the object being read
// and returns its key, unescaped, or ok false after the closing '}'. The
// caller consumes the value before it calls nextKey again. The key aliases the
// input when it has no escapes.
func (d *jsonReader) nextKey() (key []byte, ok bool, err error) {
	switch d.peek() {
	case '}':
		d.pos++
		return nil, false, nil
	case ',':
		d.pos++
	}
	start := d.pos
	raw, escaped, err := d.rawString()
	if err != nil {
		return nil, false, err
	}
	if escaped || !utf8.Valid(raw) {
		// Decoded as encoding/json decodes it: escapes read, and bytes that
		// are not UTF-8 replaced.
		var s string
		if err := json.Unmarshal(d.data[start:d.pos], &s); err != nil {
			return nil, false, errSyntax
		}
		raw = []byte(s)
	}
	if d.peek() != ':' {
		return nil, false, errSyntax
	}
	d.pos++
	return raw, true, nil
}

// openArray consumes the '[' of an array.
func (d *jsonReader) openArray(key string) error {
	if d.peek() != '[' {
		return &typeError{key: key, want: "an array", got: d.kind()}
	}
	d.pos++
	return nil
}

// nextElem moves to the next element of the array being read, or reports
// false after the closing ']'.
func (d *jsonReader) nextElem() (bool, error) {
	switch d.peek() {
	case ']':
		d.pos++
		return false, nil
	case ',':
		d.pos++
	case 0:
		return false, errSyntax
	}
	return true, nil
}

// rawString reads a string and returns the bytes between its quotes, as they
// are in the input, and whether they hold escapes. It finds the end with two
// byte searches per escape, so a long payload is crossed at memory speed.
func (d *jsonReader) rawString() (raw []byte, escaped bool, err error) {
	if d.peek() != '"' {
		return nil, false, errSyntax
	}
	start := d.pos + 1
	i, q := start, -1
	for {
		if q < i {
			n := bytes.IndexByte(d.data[i:], '"')
			if n < 0 {
				return nil, false, errSyntax
			}
			q = i + n
		}
		b := bytes.IndexByte(d.data[i:q], '\\')
		if b < 0 {
			d.pos = q + 1
			return d.data[start:q], escaped, nil
		}
		escaped = true
		i += b + 2 // the backslash and the byte it escapes
		if i > len(d.data) {
			return nil, false, errSyntax
		}
	}
}

// peekString returns the bytes between the quotes of the string that comes
// next, and whether they hold escapes, without moving past it.
func (d *jsonReader) peekString() ([]byte, bool, error) {
	pos := d.pos
	raw, escaped, err := d.rawString()
	d.pos = pos
	return raw, escaped, err
}

// str reads a string value, or null as "". Its bytes are copied once; a
// string with escapes or invalid UTF-8 is decoded as encoding/json decodes it.
func (d *jsonReader) str(key string) (string, error) {
	if d.null() {
		return "", nil
	}
	if d.peek() != '"' {
		return "", &typeError{key: key, want: "a string", got: d.kind()}
	}
	start := d.pos
	raw, escaped, err := d.rawString()
	if err != nil {
		return "", err
	}
	if !escaped && utf8.Valid(raw) {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(d.data[start:d.pos], &s); err != nil {
		return "", errSyntax
	}
	return s, nil
}

// boolean reads true or false, or null as false.
func (d *jsonReader) boolean(key string) (bool, error) {
	switch {
	case d.literal("true"):
		return true, nil
	case d.literal("false"), d.null():
		return false, nil
	}
	return false, &typeError{key: key, want: "a boolean", got: d.kind()}
}

// skip moves past the next value and returns its bytes.
func (d *jsonReader) skip() ([]byte, error) {
	d.skipSpace()
	start := d.pos
	depth := 0
	for {
		switch c := d.peek(); c {
		case '"':
			if _, _, err := d.rawString(); err != nil {
				return nil, err
			}
		case '{', '[':
			depth++
			d.pos++
		case '}', ']':
			depth--
			d.pos++
		case ',', ':':
			if depth == 0 {
				return nil, errSyntax
			}
			d.pos++
		case 0:
			return nil, errSyntax
		default: // a number or a literal
			n := bytes.IndexAny(d.data[d.pos:], " \t\r\n,:]}")
			if n <= 0 {
				d.pos = len(d.data)
			} else {
				d.pos += n
			}
		}
		if depth <= 0 {
			if depth < 0 {
				return nil, errSyntax
			}
			return d.data[start:d.pos], nil
		}
	}
}

// anyMap reads an object as encoding/json decodes one into a map[string]any,
// with its keys exact as they are in any map; null is a nil map.
func (d *jsonReader) anyMap(key string) (map[string]any, error) {
	if d.null() {
		return nil, nil
	}
	if d.peek() != '{' {
		return nil, &typeError{key: key, want: "an object", got: d.kind()}
	}
	v, err := d.anyValue(0)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// maxDepth is how deeply anyValue nests, as encoding/json limits it.
const maxDepth = 10000

// anyValue reads the next value as encoding/json decodes it into an any:
// map[string]any, []any, string, float64, bool or nil.
func (d *jsonReader) anyValue(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	switch c := d.peek(); {
	case c == '{':
		d.pos++
		m := map[string]any{}
		for {
			key, ok, err := d.nextKey()
			if err != nil || !ok {
				return m, err
			}
			v, err := d.anyValue(depth + 1)
			if err != nil {
				return nil, err
			}
			m[string(key)] = v
		}
	case c == '[':
		d.pos++
		a := []any{}
		for {
			ok, err := d.nextElem()
			if err != nil || !ok {
				return a, err
			}
			v, err := d.anyValue(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case c == '"':
		return d.str("")
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.null():
		return nil, nil
	}
	start := d.pos
	if _, err := d.skip(); err != nil {
		return nil, err
	}
	f, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
	if err != nil {
		return nil, errors.New("number out of range")
	}
	return f, nil
}

// members reads the members of an object, after its '{' is checked under
// the name what. member is called with each key, the reader at its value;
// it reads the value of a key it knows and reports false for any other,
// whose value is then skipped.
func (d *jsonReader) members(what string, member func(key []byte) (known bool, err error)) error {
	if err := d.openObject(what); err != nil {
		return err
	}
	for {
		key, ok, err := d.nextKey()
		if err != nil || !ok {
			return err
		}
		known, err := member(key)
		if err == nil && !known {
			_, err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

// end reports an error unless only white space is left.
func (d *jsonReader) end() error {
	if d.peek() != 0 {
		return errSyntax
	}
	return nil
}

// unmarshal decodes data into v with read, for the UnmarshalJSON methods: null
// leaves v as it is, and an error leaves v unchanged.
func unmarshal[T any](data []byte, v *T, read func(*jsonReader) (T, error)) error {
	d := jsonReader{data: data}
	var out T
	var err error
	if d.null() {
		if err = d.end(); err == nil {
			return nil
		}
	} else if out, err = read(&d); err == nil {
		err = d.end()
	}
	if err != nil && !json.Valid(data) {
		// Called directly, not by encoding/json: what is wrong is the
		// syntax, whatever the reader made of it.
		return errorf(ErrInvalidJSON, "%s", notJSON(data))
	}
	if err != nil {
		return errorf(ErrInvalidJSON, "%v", err)
	}
	*v = out
	return nil
}

// ParseToolResult decodes data, the JSON of a result that came from
// another process, strictly, as every other toolnexus port and the MCP SDKs
// read it: keys are matched exactly ("ISERROR" is not "isError"; when a key
// repeats, the last one wins), input longer than maxBytes is refused with a
// [*PartTooLargeError] (its Document set) before any of it is decoded (zero
// or less means no limit), a part's name is cut to its base name, and the result must pass
// [ToolResult.Validate]. A value of the wrong type, or input that is not
// JSON, reports [ErrInvalidJSON]. Missing keys and null leave their fields
// zero and unknown keys are ignored, as json.Unmarshal does.
func ParseToolResult(data []byte, maxBytes int64) (ToolResult, error) {
	d, err := openPeerJSON(data, maxBytes, ErrInvalidJSON)
	if err != nil {
		return ToolResult{}, err
	}
	r, err := d.toolResult()
	if err != nil {
		return ToolResult{}, errorf(ErrInvalidJSON, "%v", err)
	}
	if err := r.Validate(); err != nil {
		return ToolResult{}, err
	}
	return r, nil
}

// UnmarshalJSON decodes a request from JSON with exact keys ("id", "kind",
// "prompt", "url", "data", "expiresAt"), as every other port reads them: a
// case variant of a key is an unknown key, ignored, and when a key repeats
// the last one wins. A value of the wrong type reports [ErrInvalidJSON].
func (r *Request) UnmarshalJSON(data []byte) error {
	return unmarshal(data, r, (*jsonReader).request)
}

// UnmarshalJSON decodes an answer from JSON with exact keys ("id", "ok",
// "data", "reason"), as [Request.UnmarshalJSON] does: {"id":"x","OK":true}
// is not a granted answer.
func (a *Answer) UnmarshalJSON(data []byte) error {
	return unmarshal(data, a, (*jsonReader).answer)
}

func (d *jsonReader) toolResult() (ToolResult, error) {
	var r ToolResult
	err := d.members("result", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "output":
			r.Output, err = d.str("output")
		case "isError":
			r.IsError, err = d.boolean("isError")
		case "parts":
			r.Parts, err = d.parts()
		case "metadata":
			r.Metadata, err = d.anyMap("metadata")
		default:
			return false, nil
		}
		return true, err
	})
	return r, err
}

func (d *jsonReader) parts() ([]ContentPart, error) {
	if d.null() {
		return nil, nil
	}
	if err := d.openArray("parts"); err != nil {
		return nil, err
	}
	parts := []ContentPart{}
	for {
		ok, err := d.nextElem()
		if err != nil || !ok {
			return parts, err
		}
		p, err := d.part()
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", len(parts), err)
		}
		parts = append(parts, p)
	}
}

func (d *jsonReader) part() (ContentPart, error) {
	var p ContentPart
	if d.null() {
		return p, nil
	}
	err := d.members("part", func(key []byte) (known bool, err error) {
		var typ string
		switch string(key) {
		case "type":
			typ, err = d.str("type")
			p.Type = PartType(typ)
		case "text":
			p.Text, err = d.str("text")
		case "mimeType":
			p.MIMEType, err = d.str("mimeType")
		case "data":
			p.Data, err = d.str("data")
		case "url":
			p.URL, err = d.str("url")
		case "name":
			p.Name, err = d.str("name")
		default:
			return false, nil
		}
		return true, err
	})
	p.Name = baseName(p.Name)
	return p, err
}

func (d *jsonReader) request() (Request, error) {
	var r Request
	err := d.members("request", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "id":
			r.ID, err = d.str("id")
		case "kind":
			r.Kind, err = d.str("kind")
		case "prompt":
			r.Prompt, err = d.str("prompt")
		case "url":
			r.URL, err = d.str("url")
		case "data":
			r.Data, err = d.anyMap("data")
		case "expiresAt":
			r.ExpiresAt, err = d.str("expiresAt")
		default:
			return false, nil
		}
		return true, err
	})
	return r, err
}

func (d *jsonReader) answer() (Answer, error) {
	var a Answer
	err := d.members("answer", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "id":
			a.ID, err = d.str("id")
		case "ok":
			a.OK, err = d.boolean("ok")
		case "data":
			a.Data, err = d.anyMap("data")
		case "reason":
			a.Reason, err = d.str("reason")
		default:
			return false, nil
		}
		return true, err
	})
	return a, err
}
