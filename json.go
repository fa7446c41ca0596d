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
// not with U+FFFD. Objects of any keys, such as metadata, are decoded by
// encoding/json, whose maps keep keys as they are, once they are found to
// be UTF-8 (see anyMap).
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
	raw, err := d.rawString()
	if err != nil {
		return nil, false, err
	}
	key = raw[1 : len(raw)-1]
	if !plain(raw) {
		s, err := unquote(raw)
		if err != nil {
			return nil, false, &pathError{err: fmt.Errorf("a key %w", err)}
		}
		key = []byte(s)
	}
	if d.peek() != ':' {
		return nil, false, errSyntax
	}
	d.pos++
	return key, true, nil
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

// rawString reads a string and returns it as it is in the input, quotes
// included. It ends at the first quote after an even number of
// backslashes.
func (d *jsonReader) rawString() ([]byte, error) {
	if d.peek() != '"' {
		return nil, errSyntax
	}
	start := d.pos
	for i := start + 1; ; i++ {
		n := bytes.IndexByte(d.data[i:], '"')
		if n < 0 {
			return nil, errSyntax
		}
		i += n
		b := i
		for d.data[b-1] == '\\' {
			b--
		}
		if (i-b)%2 == 0 {
			d.pos = i + 1
			return d.data[start:d.pos], nil
		}
	}
}

// str reads a string value, or null as "", copied once when it has no
// escapes; one that is not UTF-8 is refused with a [*pathError], whose
// place the callers name.
func (d *jsonReader) str(key string) (string, error) {
	if d.null() {
		return "", nil
	}
	if d.peek() != '"' {
		return "", &typeError{key: key, want: "a string", got: d.kind()}
	}
	raw, err := d.rawString()
	if err != nil {
		return "", err
	}
	s, err := unquote(raw)
	if err != nil {
		return "", &pathError{err: fmt.Errorf("a string %w", err)}
	}
	return s, nil
}

// errNotUTF8 reports a string that is not UTF-8: bytes that are not, a lone
// surrogate escape such as \ud800, or a surrogate encoded as UTF-8 (CESU-8).
// RFC 8259 requires UTF-8, and encoding/json/v2 refuses such strings too,
// where encoding/json replaces what is not with U+FFFD.
var errNotUTF8 = errors.New("is not valid UTF-8")

// plain reports whether raw, a string with its quotes, is the string itself
// between them: UTF-8 without escapes.
func plain(raw []byte) bool { return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) }

// unquote decodes raw, a string with its quotes, as encoding/json does, and
// refuses what is not UTF-8.
func unquote(raw []byte) (string, error) {
	if plain(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	if !validText(raw) {
		return "", errNotUTF8
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", errSyntax
	}
	return s, nil
}

// validText reports whether b, JSON, holds only UTF-8: no bytes that are
// not, and no \u escape of a surrogate without its pair.
func validText(b []byte) bool {
	if !utf8.Valid(b) { // escapes are ASCII: this checks the raw bytes
		return false
	}
	for i := 0; ; {
		n := bytes.IndexByte(b[i:], '\\')
		if n < 0 {
			return true
		}
		i += n + 2 // the backslash and the byte it escapes
		if i > len(b) {
			return false
		}
		if b[i-1] != 'u' {
			continue
		}
		r, ok := hex4(b[i:])
		if !ok { // not JSON
			return false
		}
		i += 4
		if utf16.IsSurrogate(r) {
			lo := rune(0)
			if r < 0xdc00 && i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				lo, _ = hex4(b[i+2:])
			}
			if lo < 0xdc00 || lo > 0xdfff {
				return false
			}
			i += 6
		}
	}
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
			raw, err := d.rawString()
			if err != nil {
				return nil, err
			}
			if !d.reread && !validText(raw) {
				return nil, &pathError{err: errBadString}
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
// keys exact as they are in any map, but for what is not UTF-8, which it
// refuses naming where; null is a nil map.
func (d *jsonReader) anyMap(key string) (map[string]any, error) {
	if d.null() {
		return nil, nil
	}
	if d.peek() != '{' {
		return nil, &typeError{key: key, want: "an object", got: d.kind()}
	}
	reread := d.reread
	d.reread = true // decodeObject checks the strings, and says where
	raw, err := d.skip()
	d.reread = reread
	if err != nil {
		return nil, err
	}
	return decodeObject(raw)
}

// readObject reads b, JSON from a peer, as anyMap does, but for null; key
// names it in errors.
func readObject(b []byte, key string) (map[string]any, error) {
	d := jsonReader{data: b}
	if d.peek() != '{' {
		return nil, &typeError{key: key, want: "an object", got: d.kind()}
	}
	return decodeObject(b)
}

// decodeObject decodes b, a JSON object, with json.Unmarshal, once its
// strings are found to be UTF-8; when they are not, or a number is out of
// range, it walks b to name where.
func decodeObject(b []byte) (map[string]any, error) {
	var v any
	if validText(b) && json.Unmarshal(b, &v) == nil {
		m, _ := v.(map[string]any)
		return m, nil
	}
	if !json.Valid(b) { // which bounds how deeply badValue walks
		return nil, errSyntax
	}
	if err := badValue(json.NewDecoder(bytes.NewReader(b)), b); err != nil {
		return nil, err
	}
	return nil, errSyntax // not reached: json.Unmarshal refused b for a reason
}

// maxDepth is how deeply encoding/json nests values, and so the values the
// readers return.
const maxDepth = 10000

// errBadString reports a string that is not UTF-8.
var errBadString = fmt.Errorf("a string %w", errNotUTF8)

// badValue walks the next value dec reads from b, valid JSON, to the first
// string or key that is not UTF-8, or number out of range, and returns a
// [*pathError] saying where, or nil when there is none.
func badValue(dec *json.Decoder, b []byte) error {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil { // of valid JSON, only a number too large for a float64
		return &pathError{err: errors.New("a number is out of range")}
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			start := dec.InputOffset()
			key, _ := dec.Token()
			name, _ := key.(string)
			if !validText(b[start:dec.InputOffset()]) {
				return &pathError{err: fmt.Errorf("a key %w", errNotUTF8)}
			}
			if err := badValue(dec, b); err != nil {
				return at(err, keyPath(name))
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := badValue(dec, b); err != nil {
				return at(err, "["+strconv.Itoa(i)+"]")
			}
		}
	default:
		if !validText(b[start:dec.InputOffset()]) {
			return &pathError{err: errBadString}
		}
		return nil
	}
	dec.Token() // the closing delimiter
	return nil
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
// [*PartTooLargeError] (its Document set) before any of it is decoded (zero
// or less means no limit), a part's name is cut to its base name, and the
// result must pass [ToolResult.Validate]. A value of the wrong type, a
// string that is not UTF-8, or input that is not JSON, reports
// [ErrInvalidJSON] naming where. Missing keys and null leave their fields
// zero, "parts":[] is no parts, and unknown keys are ignored, as
// json.Unmarshal does.
//
// It reads what the JS, Python and Elixir ports write but for what they
// write that no reader can trust: "is_error" without "isError" (Python's
// dataclasses.asdict), which does not say whether the call failed
// ([ErrInvalidJSON]); a pending request without a kind, or with an empty
// id, which no answer can match ([ErrInvalidRequest]); and an image part
// whose MIME type is not image/* ([ErrInvalidMIMEType]).
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
