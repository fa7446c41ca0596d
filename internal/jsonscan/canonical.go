package jsonscan

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// MaxBinding is the longest binding of arguments, the longest canonical
// form a state holds as it is; it holds a longer one as its SHA-256
// digest. Up to this size, comparing the form costs less than digesting
// it.
const MaxBinding = 128

// digestTag starts the binding of arguments held as their digest; no
// canonical form starts with it.
const digestTag = 'h'

// AppendBinding appends to dst what a request state holds of args, so that
// it opens only for the same arguments: their canonical form, with empty
// input and null read as {}, when it is at most [MaxBinding] bytes, else
// digestTag and the SHA-256 of that form. Two arguments bind alike when
// encoding/json decodes them, numbers kept as written, to the same value,
// whatever the order of keys, the spacing and the escapes. Arguments whose
// objects repeat a name, or hold two names that are one when case is
// folded, bind to nothing: AppendBinding reports [ErrDuplicateKey] (see
// [CheckNames]), so that the bytes a state binds and the value a tool reads
// cannot disagree, whatever the tool's decoder; it reports
// [ErrInvalidJSON] for arguments that are not JSON.
//
// The canonical form is JSON text (see canonicalValue). Arguments already
// in that form, as an encoder that sorts keys writes them, are checked and
// taken as they are; others are rewritten by a parser; encoding/json
// decodes what the parser leaves to it (a string that is not valid UTF-8,
// a surrogate escape, a deep nesting, an error to report).
func AppendBinding(dst []byte, args json.RawMessage) ([]byte, error) {
	if isCanonical(args) && string(args) != "null" {
		// Its own form, which the names are checked in: no copy made.
		if err := CheckNames(args); err != nil {
			return dst, err
		}
		c := canonicalizer{out: args}
		return c.appendBinding(dst), nil
	}
	c := newCanonicalizer()
	defer c.free()
	if c.args(args) {
		return c.appendBinding(dst), nil
	}
	if err := CheckNames(args); err != nil {
		return dst, err
	}
	v, err := DecodeNumbers(args)
	if err != nil {
		return dst, err
	}
	c.out = canonicalValue(c.out[:0], v)
	return c.appendBinding(dst), nil
}

// BindObject reads args, a call's arguments, once: when they are one JSON
// object of UTF-8 whose objects repeat no name, even when case is folded,
// as the parser reads them, it returns their binding (see [AppendBinding])
// and true. It returns false for empty arguments, null, and every other
// input, which the caller reads the slow way, with the errors that say
// what is wrong.
func BindObject(args json.RawMessage) ([]byte, bool) {
	c := newCanonicalizer()
	defer c.free()
	if i := SkipSpace(args, 0); i == len(args) || args[i] != '{' || !c.args(args) {
		return nil, false
	}
	return c.appendBinding(nil), true
}

// canonicalizers keeps the canonicalizers that bound arguments, for their
// buffers: a binding keeps none of a form's bytes, and a large form is
// written again at the next call, into memory that need not be cleared.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// newCanonicalizer returns a canonicalizer from canonicalizers.
func newCanonicalizer() *canonicalizer { return canonicalizers.Get().(*canonicalizer) }

// free returns c to canonicalizers, emptied.
func (c *canonicalizer) free() {
	c.out, c.scratch, c.depth = c.out[:0], c.scratch[:0], 0
	canonicalizers.Put(c)
}

// appendBinding appends the binding of c.out, a canonical form, to dst.
func (c *canonicalizer) appendBinding(dst []byte) []byte {
	if len(c.out) <= MaxBinding {
		return append(dst, c.out...)
	}
	sum := sha256.Sum256(c.out)
	return append(append(dst, digestTag), sum[:]...)
}

// DecodeNumbers decodes args, a call's arguments, as encoding/json does,
// numbers kept as [json.Number] as written, with empty input and null read
// as {}. It reports [ErrInvalidJSON] for what is not one JSON value.
func DecodeNumbers(args json.RawMessage) (any, error) {
	var v any = map[string]any{}
	if len(bytes.Trim(args, Space)) == 0 {
		return v, nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var decoded any
	if err := d.Decode(&decoded); err != nil {
		return nil, msg.Errorf(ErrInvalidJSON, "arguments: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, msg.Errorf(ErrInvalidJSON, "arguments: not one JSON value")
	}
	if decoded != nil {
		v = decoded
	}
	return v, nil
}

// Space is the white space of JSON.
const Space = " \t\r\n"

// The canonical form of a JSON value is JSON text without white space, in
// which numbers are as written, an object's members are sorted by the
// bytes of their keys as written here, the last of repeated keys kept, and
// strings are UTF-8 with only the quote, the backslash and the control
// characters escaped: \b, \f, \n, \r and \t, the others as \u00 and two
// lower-case hex digits.

// canonicalValue appends the canonical form of v, a value as encoding/json
// decodes it with UseNumber, to b.
func canonicalValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case json.Number:
		return append(b, v...)
	case string:
		return appendCanonString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonicalValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		type member struct {
			key string // with its quotes, sorted by what is between them
			v   any
		}
		members := make([]member, 0, len(v))
		for k, e := range v {
			members = append(members, member{string(appendCanonString(nil, k)), e})
		}
		slices.SortFunc(members, func(a, b member) int {
			return strings.Compare(a.key[1:len(a.key)-1], b.key[1:len(b.key)-1])
		})
		b = append(b, '{')
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonicalValue(append(append(b, m.key...), ':'), m.v)
		}
		return append(b, '}')
	}
	panic("toolnexus: canonicalValue of a value encoding/json does not decode") // unreachable
}

// appendCanonString appends the canonical form of the string s, valid
// UTF-8 as encoding/json decodes it, to b.
func appendCanonString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		b = appendCanonRune(b, r)
	}
	return append(b, '"')
}

// appendCanonRune appends r as the canonical form of a string writes it.
func appendCanonRune(b []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(b, '\\', byte(r))
	case r >= 0x20:
		return utf8.AppendRune(b, r)
	}
	if e := shortEscape[r]; e != 0 {
		return append(b, '\\', e)
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
}

// shortEscape maps the control characters that the canonical form escapes
// with one letter to that letter.
var shortEscape = [0x20]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// hexDigits are the digits of \u escapes in the canonical form.
const hexDigits = "0123456789abcdef"

// maxCanonDepth is the deepest nesting the canonicalizer parses; deeper
// arguments go through encoding/json.
const maxCanonDepth = 256

// isCanonical reports whether s is a JSON value in canonical form, nested
// at most maxCanonDepth deep: then it is its own canonical form. It accepts
// no string that the parser leaves to encoding/json.
func isCanonical(s []byte) bool {
	end, ok := canonicalEnd(s, 0, 0)
	return ok && end == len(s)
}

// canonicalEnd returns the index after the canonical JSON value at s[i:],
// and false when there is none there.
func canonicalEnd(s []byte, i, depth int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch s[i] {
	case '"':
		_, end, ok := canonicalString(s, i)
		return end, ok
	case 't':
		return i + 4, bytes.HasPrefix(s[i:], []byte("true"))
	case 'f':
		return i + 5, bytes.HasPrefix(s[i:], []byte("false"))
	case 'n':
		return i + 4, bytes.HasPrefix(s[i:], []byte("null"))
	case '[', '{':
		if depth++; depth > maxCanonDepth {
			return i, false
		}
		open := s[i]
		closing := byte(']')
		if open == '{' {
			closing = '}'
		}
		i++
		if i < len(s) && s[i] == closing {
			return i + 1, true
		}
		var prevKey []byte
		for {
			if open == '{' {
				key, end, ok := canonicalString(s, i)
				if !ok || prevKey != nil && bytes.Compare(prevKey, key) >= 0 || end >= len(s) || s[end] != ':' {
					return i, false
				}
				prevKey, i = key, end+1
			}
			var ok bool
			if i, ok = canonicalEnd(s, i, depth); !ok || i >= len(s) {
				return i, false
			}
			switch s[i] {
			case ',':
				i++
			case closing:
				return i + 1, true
			default:
				return i, false
			}
		}
	}
	return SkipNumber(s, i)
}

// canonicalString returns the content, as written, of the string in
// canonical form that starts with the quote at s[i], and the index after
// its closing quote.
func canonicalString(s []byte, i int) (content []byte, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return nil, i, false
	}
	start := i + 1
	for i = start; ; {
		var valid bool
		if i, valid = TextRun(s, i); !valid || i >= len(s) {
			return nil, i, false
		}
		switch b := s[i]; b {
		case '"':
			return s[start:i], i + 1, true
		case '\\':
			var canon [6]byte
			r, n := canonUnescape(s[i:])
			if n == 0 || !bytes.Equal(appendCanonRune(canon[:0], r), s[i:i+n]) {
				return nil, i, false // not as the canonical form writes r
			}
			i += n
		default: // a control character
			return nil, i, false
		}
	}
}

// canonicalizer writes the canonical form of JSON text to out. It checks
// the names of each object as [CheckNames] does, and leaves an object
// that repeats one to the slow path, which says which.
type canonicalizer struct {
	out     []byte
	depth   int
	scratch []byte // the members of an object being sorted
}

// member is the place in out of an object's member, and of its key's
// content.
type member struct {
	start, keyStart, keyEnd, end int
}

// args writes the canonical form of args to c.out, and reports false when
// it leaves args to encoding/json.
func (c *canonicalizer) args(args []byte) bool {
	c.out = c.out[:0]
	i := SkipSpace(args, 0)
	if i == len(args) || bytes.HasPrefix(args[i:], []byte("null")) && SkipSpace(args, i+4) == len(args) {
		c.out = append(c.out, '{', '}')
		return true
	}
	// The canonical form is never longer than the text: it drops white
	// space and writes no escape longer than the one it replaces.
	c.out = slices.Grow(c.out, len(args)-i)
	i, ok := c.value(args, i)
	return ok && SkipSpace(args, i) == len(args)
}

// value writes the canonical form of the value at s[i:] and returns the
// index after it.
func (c *canonicalizer) value(s []byte, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch s[i] {
	case '{', '[':
		if c.depth++; c.depth > maxCanonDepth {
			return i, false
		}
		var ok bool
		if s[i] == '{' {
			i, ok = c.object(s, i+1)
		} else {
			i, ok = c.array(s, i+1)
		}
		c.depth--
		return i, ok
	case '"':
		return c.str(s, i+1)
	case 't':
		return c.literal(s, i, "true")
	case 'f':
		return c.literal(s, i, "false")
	case 'n':
		return c.literal(s, i, "null")
	}
	end, ok := SkipNumber(s, i)
	if !ok {
		return i, false
	}
	c.out = append(c.out, s[i:end]...)
	return end, true
}

// literal writes the literal lit at s[i:].
func (c *canonicalizer) literal(s []byte, i int, lit string) (int, bool) {
	if !bytes.HasPrefix(s[i:], []byte(lit)) {
		return i, false
	}
	c.out = append(c.out, lit...)
	return i + len(lit), true
}

// array writes the canonical form of the array whose elements start at s[i:].
func (c *canonicalizer) array(s []byte, i int) (int, bool) {
	c.out = append(c.out, '[')
	i = SkipSpace(s, i)
	if i < len(s) && s[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(s, SkipSpace(s, i)); !ok {
			return i, false
		}
		i = SkipSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			c.out = append(c.out, ',')
			i++
		case ']':
			c.out = append(c.out, ']')
			return i + 1, true
		default:
			return i, false
		}
	}
}

// object writes the canonical form of the object whose members start at
// s[i:]: its members as they come, then sorted when they are not already.
func (c *canonicalizer) object(s []byte, i int) (int, bool) {
	c.out = append(c.out, '{')
	start := len(c.out)
	var stack [8]member
	members := stack[:0]
	sorted := true
	i = SkipSpace(s, i)
	if i < len(s) && s[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, true
	}
	for {
		i = SkipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		if len(members) > 0 {
			c.out = append(c.out, ',')
		}
		m := member{start: len(c.out), keyStart: len(c.out) + 1}
		var ok bool
		if i, ok = c.str(s, i+1); !ok {
			return i, false
		}
		m.keyEnd = len(c.out) - 1 // before the closing quote
		if i = SkipSpace(s, i); i >= len(s) || s[i] != ':' {
			return i, false
		}
		c.out = append(c.out, ':')
		if i, ok = c.value(s, SkipSpace(s, i+1)); !ok {
			return i, false
		}
		m.end = len(c.out)
		if n := len(members); n > 0 && bytes.Compare(c.key(members[n-1]), c.key(m)) >= 0 {
			sorted = false
		}
		members = append(members, m)
		i = SkipSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		if s[i] == '}' {
			break
		}
		if s[i] != ',' {
			return i, false
		}
		i++
	}
	if c.repeats(members) {
		return i, false
	}
	if !sorted {
		c.sortMembers(start, members)
	}
	c.out = append(c.out, '}')
	return i + 1, true
}

// repeats reports whether two of an object's members have names that are
// one when case is folded, as [CheckNames] compares them. Their keys are
// in canonical form, which escapes no rune that case folding changes, so
// that two keys fold alike exactly when the names they write do.
func (c *canonicalizer) repeats(members []member) bool {
	if len(members) < foldMapAt {
		for j, m := range members {
			for _, prev := range members[:j] {
				if bytes.EqualFold(c.key(prev), c.key(m)) {
					return true
				}
			}
		}
		return false
	}
	folded := make(map[string]struct{}, len(members))
	for _, m := range members {
		f := string(foldName(c.key(m)))
		if _, ok := folded[f]; ok {
			return true
		}
		folded[f] = struct{}{}
	}
	return false
}

// key returns the content of m's key, as written.
func (c *canonicalizer) key(m member) []byte {
	return c.out[m.keyStart:m.keyEnd]
}

// sortMembers rewrites the members of an object, from start in c.out, in
// the order of their keys, keeping the last of members with one key as
// encoding/json does.
func (c *canonicalizer) sortMembers(start int, members []member) {
	slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(c.key(a), c.key(b)) })
	region := append(c.scratch[:0], c.out[start:]...)
	c.scratch = region
	key := func(m member) []byte { return region[m.keyStart-start : m.keyEnd-start] }
	c.out = c.out[:start]
	for j, m := range members {
		if j+1 < len(members) && bytes.Equal(key(m), key(members[j+1])) {
			continue // a later member has this key
		}
		if len(c.out) > start {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, region[m.start-start:m.end-start]...)
	}
}

// str writes the canonical form of the string whose content starts at
// s[i:] and returns the index after its closing quote. It copies at once
// each run of text and of escapes already in canonical form, and leaves to
// encoding/json the strings it would change: invalid UTF-8 and surrogate
// escapes.
func (c *canonicalizer) str(s []byte, i int) (int, bool) {
	out := append(c.out, '"')
	from := i // the start of the run not copied yet
	for i < len(s) {
		run, valid := TextRun(s, i)
		if !valid {
			return run, false
		}
		if i = run; i == len(s) {
			break
		}
		switch b := s[i]; {
		case b == '"':
			c.out = append(append(out, s[from:i]...), '"')
			return i + 1, true
		case b == '\\' && i+1 < len(s) && canonEscape[s[i+1]]:
			i += 2 // as the canonical form writes it
		case b == '\\':
			r, n := canonUnescape(s[i:])
			if n == 0 {
				return i, false
			}
			out = appendCanonRune(append(out, s[from:i]...), r)
			i += n
			from = i
		default: // a control character
			return i, false
		}
	}
	return i, false
}

// canonEscape holds the letters that follow a backslash in an escape of
// two bytes that the canonical form writes as it is.
var canonEscape = [256]bool{'"': true, '\\': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// canonUnescape returns the rune of the escape at the start of s and its
// length, or a length of 0 for an escape it leaves to encoding/json: one that
// is not JSON, and a surrogate, paired or not, which a decoder may read
// otherwise.
func canonUnescape(s []byte) (rune, int) {
	r, next := Escape(s, 0)
	if r < 0 || r > 0xffff { // a rune past the BMP comes from a surrogate pair
		return 0, 0
	}
	return r, next
}

// SameArguments reports whether the arguments a and b bind alike (see
// [AppendBinding]): the same JSON value, whatever the order of keys, the
// spacing and the escapes. It reports the error of either that binds to
// nothing.
func SameArguments(a, b json.RawMessage) (bool, error) {
	var bufA, bufB [MaxBinding]byte
	ba, err := AppendBinding(bufA[:0], a)
	if err != nil {
		return false, err
	}
	bb, err := AppendBinding(bufB[:0], b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ba, bb), nil
}
