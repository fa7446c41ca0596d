package toolnexus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader reads JSON with exact keys: "isError" matches only "isError",
// never "ISERROR" or "iſError", which encoding/json folds onto the same
// struct field. Every decoder of JSON from a peer reads through it
// (ParseToolResult, FromMCPCallToolResult, Request and Answer), so that a
// key means what the other toolnexus ports and the MCP SDKs take it to mean;
// when a key repeats, the last one wins, as in JavaScript. A string or key
// that is not UTF-8 is refused, where encoding/json would replace what is
// not with U+FFFD.
//
// It reads input that encoding/json has already found valid (json.Valid, or
// the bytes encoding/json hands to an UnmarshalJSON method), so it checks
// the structure only as far as it needs to find its way; it still checks
// every index, and fails with an error, never a panic, on any input.
type jsonReader struct {
	data []byte
	pos  int
	// reread says that skip need not check that the strings it crosses are
	// UTF-8, for they are read again.
	reread bool
	// pythonFlag says that the result read has a key "is_error" and no
	// "isError".
	pythonFlag bool
}

// errSyntax reports input that is not JSON where the reader expected it.
var errSyntax = errors.New("malformed JSON")

// typeError reports a value of the wrong JSON type.
type typeError struct {
	key       string
	want, got string
}

func (e *typeError) Error() string {
	return quote(e.key) + " is " + e.got + ", not " + e.want
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
	raw, escaped, err := d.rawString()
	if err != nil {
		return nil, false, err
	}
	if escaped || !utf8.Valid(raw) {
		s, err := unquote(raw)
		if err != nil {
			return nil, false, &pathError{err: fmt.Errorf("a key %w", err)}
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

// str reads a string value, or null as "". Its bytes are copied once; a
// string with escapes is decoded, and one that is not UTF-8 is refused
// (encoding/json would replace what is not with U+FFFD) with a
// [*pathError], whose place the callers name.
func (d *jsonReader) str(key string) (string, error) {
	if d.null() {
		return "", nil
	}
	if d.peek() != '"' {
		return "", &typeError{key: key, want: "a string", got: d.kind()}
	}
	raw, escaped, err := d.rawString()
	if err != nil {
		return "", err
	}
	if !escaped && utf8.Valid(raw) {
		return string(raw), nil
	}
	s, err := unquote(raw)
	if err != nil {
		return "", &pathError{err: fmt.Errorf("a string %w", err)}
	}
	return s, nil
}

// errNotUTF8 reports a string that is not UTF-8: bytes that are not, a lone
// surrogate escape such as \ud800, or a surrogate encoded as UTF-8 (CESU-8).
// RFC 8259 requires UTF-8, and encoding/json/v2 refuses such strings too.
var errNotUTF8 = errors.New("is not valid UTF-8")

// unquote decodes raw, the bytes between the quotes of a JSON string that
// encoding/json found valid, and refuses what is not UTF-8.
func unquote(raw []byte) (string, error) {
	if !utf8.Valid(raw) { // escapes are ASCII: this checks the raw bytes
		return "", errNotUTF8
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		n := bytes.IndexByte(raw[i:], '\\')
		if n < 0 {
			b = append(b, raw[i:]...)
			break
		}
		b = append(b, raw[i:i+n]...)
		i += n
		if i+1 >= len(raw) {
			return "", errSyntax
		}
		c := raw[i+1]
		i += 2
		switch c {
		case '"', '\\', '/':
			b = append(b, c)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(raw[i:])
			if !ok {
				return "", errSyntax
			}
			i += 4
			if utf16.IsSurrogate(r) {
				lo, ok := rune(0), false
				if r < 0xdc00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					lo, ok = hex4(raw[i+2:])
				}
				if !ok || lo < 0xdc00 || lo > 0xdfff {
					return "", errNotUTF8
				}
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", errSyntax
		}
	}
	return string(b), nil
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// pathError is an error at a place in the input: the keys and indices that
// lead there, innermost first, as each level of the reader adds its own.
type pathError struct {
	path []string
	err  error
}

// maxPath is the most bytes of a place an error names, outermost first.
const maxPath = 128

func (e *pathError) Error() string {
	var b strings.Builder
	n := len(e.path)
	for i := n - 1; i >= 0; i-- {
		if b.Len()+len(e.path[i]) > maxPath {
			b.WriteString("…")
			break
		}
		b.WriteString(e.path[i])
	}
	if n > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.err.Error())
	return strings.TrimPrefix(b.String(), ".")
}

func (e *pathError) Unwrap() error { return e.err }

// at adds a level to the place an error names, when it names one.
func at(err error, level string) error {
	if e, ok := err.(*pathError); ok {
		e.path = append(e.path, level)
	}
	return err
}

// keyPath is the level of a place that key names: ".key", or, for a key
// that is not a plain name, ["key"] quoted and cut short.
func keyPath(key string) string {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') || i >= maxQuoted {
			return "[" + quote(key) + "]"
		}
	}
	if key == "" {
		return `[""]`
	}
	return "." + key
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
			raw, escaped, err := d.rawString()
			if err != nil {
				return nil, err
			}
			if !d.reread && (escaped || !utf8.Valid(raw)) {
				if _, err := unquote(raw); err != nil {
					return nil, &pathError{err: fmt.Errorf("a string %w", err)}
				}
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
				return nil, at(err, keyPath(string(key)))
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
				return nil, at(err, "["+strconv.Itoa(len(a))+"]")
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
		return nil, &pathError{err: errors.New("a number is out of range")}
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
			return at(err, keyPath(string(key)))
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
// [*PartTooLargeError] (its Document set) before any of it is decoded (zero or less means no
// limit), a part's name is cut to its base name, and the result must pass
// [ToolResult.Validate]. A value of the wrong type, a string that is not
// UTF-8, or input that is not JSON, reports [ErrInvalidJSON] naming where.
// Missing keys and null leave their fields zero, "parts":[] is no parts,
// and unknown keys are ignored, as json.Unmarshal does, but for "is_error"
// without "isError" (Python's dataclasses.asdict writes it): such a result
// does not say whether it failed, and reports ErrInvalidJSON.
func ParseToolResult(data []byte, maxBytes int64) (ToolResult, error) {
	d, err := openPeerJSON(data, maxBytes, ErrInvalidJSON)
	if err != nil {
		return ToolResult{}, err
	}
	r, err := d.toolResult()
	if err != nil {
		return ToolResult{}, errorf(ErrInvalidJSON, "%v", err)
	}
	if d.pythonFlag {
		// Keys are exact, so the flag would read as false, and a failed
		// call as a success.
		return ToolResult{}, errorf(ErrInvalidJSON, `the result has "is_error" (as Python's dataclasses.asdict writes it), not "isError": whether it failed is unknown`)
	}
	if err := r.Validate(); err != nil {
		return ToolResult{}, err
	}
	return r, nil
}

// UnmarshalJSON decodes a request from JSON with exact keys ("id", "kind",
// "prompt", "url", "data", "expiresAt"), as every other port reads them: a
// case variant of a key is an unknown key, ignored, and when a key repeats
// the last one wins. A null member is an absent one. A value of the wrong
// type, or a string that is not UTF-8, reports [ErrInvalidJSON].
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
	var isError, isUnderscore bool
	err := d.members("result", func(key []byte) (known bool, err error) {
		switch string(key) {
		case "output":
			r.Output, err = d.str("output")
		case "isError":
			isError = true
			r.IsError, err = d.boolean("isError")
		case "parts":
			r.Parts, err = d.parts()
		case "metadata":
			r.Metadata, err = d.anyMap("metadata")
		default:
			isUnderscore = isUnderscore || string(key) == "is_error"
			return false, nil
		}
		return true, err
	})
	d.pythonFlag = isUnderscore && !isError
	return r, err
}

func (d *jsonReader) parts() ([]ContentPart, error) {
	if d.null() {
		return nil, nil
	}
	if err := d.openArray("parts"); err != nil {
		return nil, err
	}
	var parts []ContentPart // "parts":[], as other ports write it, is no parts
	for {
		ok, err := d.nextElem()
		if err != nil || !ok {
			return parts, err
		}
		if c := d.peek(); c != '{' && c != 'n' {
			return nil, fmt.Errorf("part %d is %s, not an object", len(parts), d.kind())
		}
		p, err := d.part()
		if err != nil {
			if _, ok := err.(*pathError); ok {
				return nil, at(err, "["+strconv.Itoa(len(parts))+"]")
			}
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
