package toolnexus

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// jsonReader reads JSON with exact keys: "isError" matches only "isError",
// never "ISERROR" or "iſError", which encoding/json folds onto the same
// struct field. Every decoder of JSON from a peer reads through it
// (ParseToolResult, FromMCPCallToolResult, Request and Answer), so that a
// key means what the other toolnexus ports and the MCP SDKs take it to mean;
// when a key repeats, the last one wins, as in JavaScript. A string or key
// that is not UTF-8 is refused, where encoding/json would replace what is
// not with U+FFFD. Objects of any keys, such as metadata, are decoded as
// encoding/json decodes them into a map[string]any (see anyMap).
//
// It reads its input once, checking the syntax of all it reads and all it
// skips with the scanner of jsonscan.go, and each string as it decodes it:
// what it reads without an error was valid JSON. It fails with an error,
// never a panic, on any input; an error on input that is not JSON may be
// any error, and the callers then say where the input stops being JSON
// (notJSON), as encoding/json's scanner would have before any of it was
// read.
type jsonReader struct {
	data []byte
	pos  int
	// depth is how many containers are open around pos.
	depth int
	// reread says that skip need not check that the strings it crosses are
	// UTF-8, for they are read again.
	reread bool
	// pythonFlag says that the result read has a key "is_error" and no
	// "isError".
	pythonFlag bool
	// canonical says, for each part the last "parts" held, whether its data
	// was found to be canonical base64 as it was read (see base64Str).
	canonical []bool
	// dataCanonical says the same of the data or blob of the last content
	// block or resource read.
	dataCanonical bool
	// numbers says that anyValue reads a number as a [json.Number], as
	// written, not as a float64.
	numbers bool
}

// typeError reports a value of the wrong JSON type.
type typeError struct {
	key       string
	want, got string
}

func (e *typeError) Error() string {
	return msg.Quote(e.key) + " is " + e.got + ", not " + e.want
}

// skipSpace moves past JSON white space.
func (d *jsonReader) skipSpace() { d.pos = jsonscan.SkipSpace(d.data, d.pos) }

// peek returns the first byte of the next token, or 0 at the end of input
// (a NUL byte in the input is no token either: callers that must tell the
// two apart compare d.pos with len(d.data)).
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
	case d.pos == len(d.data):
		return "empty input"
	}
	return "no JSON value"
}

// literal consumes lit if it comes next.
func (d *jsonReader) literal(lit string) bool {
	if d.peek() != lit[0] {
		return false
	}
	next, ok := jsonscan.SkipLiteral(d.data, d.pos, lit)
	if ok {
		d.pos = next
	}
	return ok
}

// null consumes a null if it comes next.
func (d *jsonReader) null() bool { return d.literal("null") }

// open consumes the '{' or '[' that opens a container; key names the value
// in the error when something else comes.
func (d *jsonReader) open(c byte, key string) error {
	if d.peek() != c {
		want := "an object"
		if c == '[' {
			want = "an array"
		}
		return &typeError{key: key, want: want, got: d.kind()}
	}
	if d.depth >= jsonscan.MaxDepth {
		return jsonscan.ErrSyntax
	}
	d.pos++
	d.depth++
	return nil
}

// next moves to the next member or element of the container being read, i
// of them read so far, or consumes its closing byte and reports false.
func (d *jsonReader) next(i int, closing byte) (bool, error) {
	switch c := d.peek(); {
	case c == closing:
		d.pos++
		d.depth--
		return false, nil
	case i == 0:
		return true, nil
	case c == ',':
		d.pos++
		return true, nil
	}
	return false, jsonscan.ErrSyntax
}

// openArray consumes the '[' of an array.
func (d *jsonReader) openArray(key string) error { return d.open('[', key) }

// nextElem moves to the next element of the array being read, i of them
// read so far, or reports false after the closing ']'.
func (d *jsonReader) nextElem(i int) (bool, error) { return d.next(i, ']') }

// key reads the key of a member and the colon after it, and returns the
// key, unescaped: it aliases the input when it has no escapes.
func (d *jsonReader) key() ([]byte, error) {
	if d.peek() != '"' {
		return nil, jsonscan.ErrSyntax
	}
	b := d.data
	start := d.pos + 1
	i, ok := jsonscan.TextRun(b, start)
	if !ok {
		return nil, &pathError{err: jsonscan.ErrBadKey}
	}
	if i >= len(b) {
		return nil, jsonscan.ErrSyntax
	}
	var key []byte
	switch b[i] {
	case '"':
		key = b[start:i]
		d.pos = i + 1
	case '\\':
		s, err := d.unescape(start, i)
		if err != nil {
			if _, ok := err.(*pathError); ok {
				return nil, &pathError{err: jsonscan.ErrBadKey}
			}
			return nil, err
		}
		key = []byte(s)
	default:
		return nil, jsonscan.ErrSyntax
	}
	if d.peek() != ':' {
		return nil, jsonscan.ErrSyntax
	}
	d.pos++
	return key, nil
}

// str reads a string value, or null as "", copied once; one that is not
// UTF-8 is refused with a [*pathError], whose place the callers name.
func (d *jsonReader) str(key string) (string, error) {
	switch d.peek() {
	case '"':
		return d.stringValue()
	case 'n':
		if d.null() {
			return "", nil
		}
	}
	return "", &typeError{key: key, want: "a string", got: d.kind()}
}

// stringValue reads the string at pos, a quote: the bytes up to its first
// escape are checked and copied as they are, the rest by unescape.
func (d *jsonReader) stringValue() (string, error) {
	b := d.data
	start := d.pos + 1
	i, ok := jsonscan.TextRun(b, start)
	switch {
	case !ok:
		return "", &pathError{err: jsonscan.ErrBadString}
	case i >= len(b) || b[i] < 0x20:
		return "", jsonscan.ErrSyntax
	case b[i] == '\\':
		return d.unescape(start, i)
	}
	d.pos = i + 1
	return copyString(b[start:i]), nil
}

// copyChunk is how much copyLong copies at a time.
const copyChunk = 256 << 10

// copyLong copies src into dst as copy does, a chunk at a time: the garbage
// collector cannot stop a goroutine inside one copy, which for megabytes
// takes milliseconds, and while it tries, it interrupts the goroutine again
// and again (in a paired run of 16 MiB of Japanese, readers copying at once
// took two to five times as long as readers copying in chunks).
func copyLong(dst, src []byte) int {
	n := min(len(dst), len(src))
	for i := 0; i < n; i += copyChunk {
		copy(dst[i:n], src[i:min(i+copyChunk, n)])
	}
	return n
}

// copyString returns a string of the bytes of p. It is string(p): copying
// a long string in chunks into memory made writable with unsafe was worth
// less than 1.3x in a paired benchmark from 1 KiB to 1 MiB.
func copyString(p []byte) string {
	return string(p)
}

// unescapeBuffers holds the buffers unescape decodes strings into while
// they are short, so that such a string allocates only itself, at its size.
var unescapeBuffers = sync.Pool{New: func() any { return new([maxPooledUnescape]byte) }}

// maxPooledUnescape is the size of a buffer of unescapeBuffers.
const maxPooledUnescape = 64 << 10

// unescape decodes the string that starts at data[start] and has its first
// escape at data[i], in one pass that checks it, and moves past it. It is
// written into a pooled buffer while it fits, then into one of its own,
// which each time it fills is replaced by one four times as large, or by
// one as large as the rest of the input could make the string, when that
// is not eight times as large, so that a long string is copied less than a
// third of its length more as it grows: a string is never longer than its
// escaped form. The string returned is a copy, at its size.
func (d *jsonReader) unescape(start, i int) (string, error) {
	pooled := unescapeBuffers.Get().(*[maxPooledUnescape]byte)
	defer unescapeBuffers.Put(pooled)
	u := unescaper{buf: pooled[:]}
	n, err := u.decode(d.data, start, i)
	if err != nil {
		return "", err
	}
	d.pos = u.end
	return copyString(u.buf[:n]), nil
}

// unescaper is where unescape writes a string.
type unescaper struct {
	buf []byte // a pooled buffer, or, once the string outgrows it, its own
	end int    // the index after the closing quote
}

// unescapeSlack is the room the decoder keeps after what it has written: it
// copies sixteen bytes at a time, and looks where the run they hold ends
// after, and a rune takes four.
const unescapeSlack = 16

// grow makes room for need bytes more after the n written, of a string
// whose input goes on at b[i].
func (u *unescaper) grow(b []byte, i, n, need int) {
	size := 4 * len(u.buf)
	if bound := n + len(b) - i + unescapeSlack; 8*size >= bound {
		size = bound
	}
	next := make([]byte, max(size, n+need))
	copyLong(next, u.buf[:n])
	u.buf = next
}

// decode decodes the string that starts at b[start] and has its first
// escape at b[i], and returns how many bytes of u.buf it holds. Each run of
// bytes between escapes is copied sixteen bytes at a time, and checked as
// UTF-8 only when a byte of it is not ASCII.
func (u *unescaper) decode(b []byte, start, i int) (int, error) {
	if i-start+unescapeSlack > len(u.buf) {
		u.grow(b, start, 0, i-start+unescapeSlack)
	}
	buf := u.buf
	n := copy(buf, b[start:i])
	for {
		// b[i] is a backslash.
		if len(buf)-n < unescapeSlack {
			u.grow(b, i, n, unescapeSlack)
			buf = u.buf
		}
		if i+1 >= len(b) {
			return 0, jsonscan.ErrSyntax
		}
		if c := simpleEscapes[b[i+1]]; c != 0 {
			buf[n] = c
			n++
			i += 2
		} else {
			r, next := jsonscan.Escape(b, i)
			switch {
			case r == -1:
				return 0, jsonscan.ErrSyntax
			case r == -2:
				return 0, &pathError{err: jsonscan.ErrBadString}
			}
			n += utf8.EncodeRune(buf[n:], r)
			i = next
		}
		// The run after the escape, sixteen bytes at a time while they
		// and the room for them last, then the rest of it at once.
		run := i
		var high uint64 // the bytes copied, or'ed: is all of it ASCII?
		found := false
		for !found && i+16 <= len(b) && n+16 <= len(buf) {
			w0 := binary.LittleEndian.Uint64(b[i:])
			w1 := binary.LittleEndian.Uint64(b[i+8:])
			binary.LittleEndian.PutUint64(buf[n:], w0)
			binary.LittleEndian.PutUint64(buf[n+8:], w1)
			high |= (w0 | w1) & jsonscan.Lanes80
			k := 16
			if m0, m1 := jsonscan.ASCIILanes(w0), jsonscan.ASCIILanes(w1); m0 != 0 {
				k, found = bits.TrailingZeros64(m0)>>3, true
			} else if m1 != 0 {
				k, found = 8+bits.TrailingZeros64(m1)>>3, true
			}
			i, n = i+k, n+k
		}
		if !found {
			// i may be inside a rune: the run is checked whole below.
			j, ascii := jsonscan.PlainRun(b, i)
			if !ascii {
				high = jsonscan.Lanes80
			}
			if len(buf)-n < j-i+unescapeSlack {
				u.grow(b, i, n, j-i+unescapeSlack)
				buf = u.buf
			}
			n += copyLong(buf[n:], b[i:j])
			i = j
		}
		if high != 0 && !jsonscan.ValidUTF8(b[run:i]) {
			return 0, &pathError{err: jsonscan.ErrBadString}
		}
		if i >= len(b) {
			return 0, jsonscan.ErrSyntax
		}
		switch c := b[i]; {
		case c == '"':
			u.end = i + 1
			return n, nil
		case c < 0x20:
			return 0, jsonscan.ErrSyntax
		}
	}
}

// simpleEscapes maps the byte after a backslash to what the escape stands
// for, for each escape of two bytes, and every other byte to 0.
var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// base64Str reads a string value that should hold base64, or null, as str
// does, and reports whether it is canonical base64, as checkBase64 would:
// a string of the base64 alphabet, checked for it at once and copied as it
// is, may be; one that is not is read by stringValue, and is not.
func (d *jsonReader) base64Str(key string) (s string, canonical bool, err error) {
	if d.peek() != '"' {
		s, err = d.str(key)
		return s, false, err
	}
	b := d.data
	start := d.pos + 1
	var buf []byte // the string's own buffer, when copyRuns makes one
	body := start + b64.Run(b[start:min(len(b), start+maxScanFirst)])
	if body == start+maxScanFirst && !b64.VectorRuns {
		// A long string, read from here on as it is copied: see copyRuns.
		buf = b64.Uninitialized(len(b) - start)
		copy(buf, b[start:body])
		body += b64.CopyRun(buf[body-start:], b[body:])
	} else if body == start+maxScanFirst {
		body += b64.Run(b[body:])
	}
	end := body
	for end < len(b) && b[end] == '=' && end-body < 2 {
		end++
	}
	if end >= len(b) || b[end] != '"' {
		s, err = d.stringValue()
		return s, false, err
	}
	d.pos = end + 1
	if buf == nil {
		s = copyString(b[start:end])
	} else {
		copy(buf[body-start:], b[body:end])
		s = unsafe.String(unsafe.SliceData(buf), end-start)
		if len(buf)-len(s) > len(s)/8 {
			s = copyString(buf[:len(s)])
		}
	}
	return s, b64.CanonicalPadding(s, end-body), nil
}

// maxScanFirst is how many bytes of a part's data base64Str checks before
// it copies any: a string longer than that is copied as it is checked,
// into a buffer as large as the rest of the input, which a part's data,
// the last long value of its JSON, most often nearly fills; when it fills
// less than seven eighths of it, the string is copied once more, to its
// size. With a vector kernel, which checks many times faster than it
// copies, data is checked, then copied. The string made over that buffer
// with unsafe, without a second copy, read a part's data 1.3x (1 MiB) to
// 1.76x (64 KiB) faster than a zeroed buffer copied to a string did, in a
// paired benchmark of ParseToolResult.
const maxScanFirst = 64 << 10

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

// withPathStep adds a level to the place an error names, when it names
// one.
func withPathStep(err error, level string) error {
	if e, ok := err.(*pathError); ok {
		e.path = append(e.path, level)
	}
	return err
}

// indexPath is the level of a place that the index i names.
func indexPath(i int) string { return "[" + strconv.Itoa(i) + "]" }

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

// skip moves past the next value, checking it, and returns its bytes. A
// string in it that is not UTF-8 is refused with a [*pathError] naming no
// place in it, unless d.reread.
func (d *jsonReader) skip() ([]byte, error) {
	d.skipSpace()
	start := d.pos
	end, err := jsonscan.ScanValue(d.data, start, d.depth, !d.reread)
	switch {
	case err == jsonscan.ErrNotUTF8:
		return nil, &pathError{err: jsonscan.ErrBadString}
	case err != nil:
		return nil, err
	}
	d.pos = end
	return d.data[start:end], nil
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
	v, err := d.anyValue()
	m, _ := v.(map[string]any)
	return m, err
}

// readRawJSON reads b, raw JSON held in a value (metadata, a Data), as one
// value: with exact keys (the last of two equal keys wins), a string or key
// that is not UTF-8 refused, numbers kept as written ([json.Number]), and
// no deeper than [jsonscan.MaxDepth]. It reports false for what is not one
// JSON value.
func readRawJSON(b []byte) (any, bool) {
	d := jsonReader{data: b, numbers: true}
	v, err := d.anyValue()
	if err == nil {
		err = d.end()
	}
	return v, err == nil
}

// jsonOf returns the JSON of v, a value a caller gave, as json.Marshal
// writes it, with an error in words that are the same in both builds of
// encoding/json (the one GOEXPERIMENT=jsonv2 builds names other Go types,
// json.RawMessage as *jsontext.Value, in other words): raw JSON that is not
// JSON says where, as [ParseToolResult] says it; a value of a type JSON
// cannot hold is encoding/json's error, the same in both; any other
// failure (a MarshalJSON that fails) names v's type.
func jsonOf(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err == nil {
		return b, nil
	}
	var unsupportedType *json.UnsupportedTypeError
	var unsupportedValue *json.UnsupportedValueError
	switch raw, ok := v.(json.RawMessage); {
	case ok && !jsonscan.Valid(raw):
		return nil, errors.New(jsonscan.NotJSON(raw))
	case errors.As(err, &unsupportedType), errors.As(err, &unsupportedValue):
		return nil, err // "json: unsupported type: func()" in both builds
	}
	return nil, fmt.Errorf("a %s does not marshal to JSON", typeName(reflect.TypeOf(v)))
}

// marshalString returns the JSON string of s as encoding/json writes it,
// in both of its builds: a byte that is not UTF-8 is the escape \ufffd,
// which encoding/json/v2 (GOEXPERIMENT=jsonv2) would write as U+FFFD itself.
// The rest, with <, > and & escaped, is what json.Marshal writes.
func marshalString(s string) json.RawMessage {
	b := []byte{'"'}
	for len(s) > 0 {
		i := 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		if i > 0 {
			q, _ := json.Marshal(s[:i]) // valid UTF-8: it cannot fail
			b = append(b, q[1:len(q)-1]...)
		}
		if i < len(s) {
			b = append(b, `\ufffd`...)
			i++
		}
		s = s[i:]
	}
	return append(b, '"')
}

// readObject reads b, JSON from a peer, as anyMap does, but for null; key
// names it in errors. Input that is not JSON is jsonscan.ErrSyntax.
func readObject(b []byte, key string) (map[string]any, error) {
	d := jsonReader{data: b}
	var m map[string]any
	var err error
	if d.peek() != '{' {
		err = &typeError{key: key, want: "an object", got: d.kind()}
	} else if m, err = d.anyMap(key); err == nil {
		err = d.end()
	}
	if err != nil && !jsonscan.Valid(b) {
		return nil, jsonscan.ErrSyntax
	}
	return m, err
}

// anyValue reads the next value as json.Unmarshal reads one into an any:
// objects as map[string]any (the last of two equal keys wins), arrays as
// []any, numbers as float64, and strings, booleans and null. A string or key
// that is not UTF-8, or a number out of the range of a float64, is a
// [*pathError] naming where.
func (d *jsonReader) anyValue() (any, error) {
	switch c := d.peek(); c {
	case '"':
		return d.stringValue()
	case '{':
		if err := d.open('{', ""); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for i := 0; ; i++ {
			more, err := d.next(i, '}')
			if err != nil || !more {
				return m, err
			}
			key, err := d.key()
			if err != nil {
				return nil, err
			}
			v, err := d.anyValue()
			if err != nil {
				return nil, withPathStep(err, msg.KeyPath(string(key)))
			}
			m[string(key)] = v
		}
	case '[':
		if err := d.open('[', ""); err != nil {
			return nil, err
		}
		list := []any{}
		for i := 0; ; i++ {
			more, err := d.nextElem(i)
			if err != nil || !more {
				return list, err
			}
			v, err := d.anyValue()
			if err != nil {
				return nil, withPathStep(err, indexPath(i))
			}
			list = append(list, v)
		}
	case 't', 'f', 'n':
		switch {
		case d.literal("true"):
			return true, nil
		case d.literal("false"):
			return false, nil
		case d.literal("null"):
			return nil, nil
		}
		return nil, jsonscan.ErrSyntax
	case 0:
		return nil, jsonscan.ErrSyntax
	}
	start := d.pos
	end, ok := jsonscan.SkipNumber(d.data, start)
	if !ok {
		return nil, jsonscan.ErrSyntax
	}
	d.pos = end
	if d.numbers {
		return json.Number(d.data[start:end]), nil
	}
	f, err := strconv.ParseFloat(unsafe.String(&d.data[start], end-start), 64)
	if err != nil { // of a JSON number, only one out of range
		return nil, &pathError{err: errors.New("a number is out of range")}
	}
	return f, nil
}

// members reads the members of an object, after its '{' is checked under
// the name what. member is called with each key, the reader at its value;
// it reads the value of a key it knows and reports false for any other,
// whose value is then skipped.
func (d *jsonReader) members(what string, member func(key []byte) (known bool, err error)) error {
	if err := d.open('{', what); err != nil {
		return err
	}
	for i := 0; ; i++ {
		more, err := d.next(i, '}')
		if err != nil || !more {
			return err
		}
		key, err := d.key()
		if err != nil {
			return err
		}
		known, err := member(key)
		if err == nil && !known {
			_, err = d.skip()
		}
		if err != nil {
			return withPathStep(err, msg.KeyPath(string(key)))
		}
	}
}

// end reports an error unless only white space is left: a NUL byte, which
// peek also returns at the end, is not.
func (d *jsonReader) end() error {
	if d.skipSpace(); d.pos < len(d.data) {
		return jsonscan.ErrSyntax
	}
	return nil
}

// unmarshalExact decodes data into v with read, for the UnmarshalJSON methods:
// null leaves v as it is, and an error leaves v unchanged.
func unmarshalExact[T any](data []byte, v *T, read func(*jsonReader) (T, error)) error {
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
	if err != nil && !jsonscan.Valid(data) {
		// Called directly, not by encoding/json: what is wrong is the
		// syntax, whatever the reader made of it.
		return msg.Errorf(ErrInvalidJSON, "%s", jsonscan.NotJSON(data))
	}
	if err != nil {
		return msg.Errorf(ErrInvalidJSON, "%v", err)
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
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return ToolResult{}, peerError(data, err, ErrInvalidJSON)
	}
	if d.pythonFlag {
		// Keys are exact, so the flag would read as false, and a failed
		// call as a success.
		return ToolResult{}, msg.Errorf(ErrInvalidJSON, `the result has "is_error" (as Python's dataclasses.asdict writes it), not "isError": whether it failed is unknown`)
	}
	// The data of each part was checked as it was read.
	if err := r.validate(d.canonical); err != nil {
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
	return unmarshalExact(data, r, (*jsonReader).request)
}

// UnmarshalJSON decodes an answer from JSON with exact keys ("id", "ok",
// "data", "reason"), as [Request.UnmarshalJSON] does: {"id":"x","OK":true}
// is not a granted answer.
func (a *Answer) UnmarshalJSON(data []byte) error {
	return unmarshalExact(data, a, (*jsonReader).answer)
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
	d.canonical = d.canonical[:0]
	if d.null() {
		return nil, nil
	}
	if err := d.openArray("parts"); err != nil {
		return nil, err
	}
	var parts []ContentPart // "parts":[], as other ports write it, is no parts
	for {
		ok, err := d.nextElem(len(parts))
		if err != nil || !ok {
			return parts, err
		}
		if c := d.peek(); c != '{' && c != 'n' {
			return nil, fmt.Errorf("part %d is %s, not an object", len(parts), d.kind())
		}
		p, err := d.part()
		if err != nil {
			if _, ok := err.(*pathError); ok {
				return nil, withPathStep(err, indexPath(len(parts)))
			}
			return nil, fmt.Errorf("part %d: %w", len(parts), err)
		}
		parts = append(parts, p)
		d.canonical = append(d.canonical, d.dataCanonical)
	}
}

func (d *jsonReader) part() (ContentPart, error) {
	var p ContentPart
	d.dataCanonical = false
	if d.null() {
		return p, nil
	}
	canonical := false
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
			p.Data, canonical, err = d.base64Str("data")
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
	d.dataCanonical = canonical
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
