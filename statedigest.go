package toolnexus

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// maxVerbatimArgs is the longest canonical form of arguments that a state
// holds as it is; it holds a longer one as its SHA-256 digest. Up to this
// size, comparing the form costs less than digesting it.
const maxVerbatimArgs = 128

// digestTag starts the binding of arguments held as their digest; no
// canonical form starts with it.
const digestTag = 'h'

// argsBinding is what a state holds of its call's arguments (see bind).
type argsBinding struct {
	n int
	b [maxVerbatimArgs]byte
}

// bytes returns the binding's bytes.
func (a *argsBinding) bytes() []byte { return a.b[:a.n] }

// bind sets a to what a state holds of args: their canonical form, with
// empty input and null read as {}, when it is at most maxVerbatimArgs
// bytes, else digestTag and the SHA-256 of that form. Two arguments bind
// alike when encoding/json decodes them, numbers kept as written, to the
// same value, whatever the order of keys, the spacing and the escapes.
// Arguments whose objects repeat a name, or hold two names that are one
// when case is folded, bind to nothing: bind reports [ErrDuplicateKey] (see
// checkNames), so that the bytes a state binds and the value a tool reads
// cannot disagree, whatever the tool's decoder.
//
// The canonical form is JSON text (see canonicalValue). Arguments already
// in that form, as an encoder that sorts keys writes them, are checked and
// taken as they are; others are rewritten by a parser, in the storage of
// *scratch, which keeps it for reuse; encoding/json decodes what the
// parser leaves to it (a string that is not valid UTF-8, a surrogate
// escape, a deep nesting, an error to report).
func (a *argsBinding) bind(scratch *[]byte, args json.RawMessage) error {
	if err := checkNames(args); err != nil {
		return err
	}
	form := []byte(args)
	if !isCanonical(form) || bytes.Equal(form, []byte("null")) {
		c := canonicalizer{out: (*scratch)[:0]}
		if !c.args(args) {
			v, err := decodeArgs(args)
			if err != nil {
				return err
			}
			c.out = canonicalValue(c.out[:0], v)
		}
		keepGrown(scratch, c.out)
		form = c.out
	}
	if len(form) <= maxVerbatimArgs {
		a.n = copy(a.b[:], form)
		return nil
	}
	a.b[0] = digestTag
	sum := sha256.Sum256(form)
	a.n = 1 + copy(a.b[1:], sum[:])
	return nil
}

// decodeArgs decodes args as encoding/json does, numbers kept as written,
// with empty input and null read as {}.
func decodeArgs(args json.RawMessage) (any, error) {
	var v any = map[string]any{}
	if len(bytes.Trim(args, jsonSpace)) == 0 {
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

// jsonSpace is the white space of JSON.
const jsonSpace = " \t\r\n"

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
	return scanNumber(s, i)
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
		i = plainRun(s, i)
		if i >= len(s) {
			return nil, i, false
		}
		switch b := s[i]; {
		case b == '"':
			return s[start:i], i + 1, true
		case b == '\\':
			var canon [6]byte
			r, n := unescape(s[i:])
			if n == 0 || !bytes.Equal(appendCanonRune(canon[:0], r), s[i:i+n]) {
				return nil, i, false // not as the canonical form writes r
			}
			i += n
		case b < utf8.RuneSelf: // a control character
			return nil, i, false
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, i, false
			}
			i += n
		}
	}
}

// canonicalizer writes the canonical form of JSON text to out.
type canonicalizer struct {
	out   []byte
	depth int
}

// member is the place in out of an object's member, and of its key's
// content.
type member struct {
	start, keyStart, keyEnd, end int
}

// args writes the canonical form of args to c.out, and reports false when
// it leaves args to encoding/json.
func (c *canonicalizer) args(args []byte) bool {
	i := skipSpace(args, 0)
	if i == len(args) || bytes.HasPrefix(args[i:], []byte("null")) && skipSpace(args, i+4) == len(args) {
		c.out = append(c.out, '{', '}')
		return true
	}
	i, ok := c.value(args, i)
	return ok && skipSpace(args, i) == len(args)
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
	end, ok := scanNumber(s, i)
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
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(s, skipSpace(s, i)); !ok {
			return i, false
		}
		i = skipSpace(s, i)
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
	i = skipSpace(s, i)
	if i < len(s) && s[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, true
	}
	for {
		i = skipSpace(s, i)
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
		if i = skipSpace(s, i); i >= len(s) || s[i] != ':' {
			return i, false
		}
		c.out = append(c.out, ':')
		if i, ok = c.value(s, skipSpace(s, i+1)); !ok {
			return i, false
		}
		m.end = len(c.out)
		if n := len(members); n > 0 && bytes.Compare(c.key(members[n-1]), c.key(m)) >= 0 {
			sorted = false
		}
		members = append(members, m)
		i = skipSpace(s, i)
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
	if !sorted {
		c.sortMembers(start, members)
	}
	c.out = append(c.out, '}')
	return i + 1, true
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
	region := bytes.Clone(c.out[start:])
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
// s[i:] and returns the index after its closing quote. It copies each run
// of plain ASCII at once, and leaves to encoding/json the strings it would
// change: invalid UTF-8 and surrogate escapes.
func (c *canonicalizer) str(s []byte, i int) (int, bool) {
	out := append(c.out, '"')
	for i < len(s) {
		run := plainRun(s, i)
		out = append(out, s[i:run]...)
		if i = run; i == len(s) {
			break
		}
		switch b := s[i]; {
		case b == '"':
			c.out = append(out, '"')
			return i + 1, true
		case b == '\\':
			r, n := unescape(s[i:])
			if n == 0 {
				return i, false
			}
			out = appendCanonRune(out, r)
			i += n
		case b < utf8.RuneSelf: // a control character
			return i, false
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return i, false
			}
			out = append(out, s[i:i+n]...)
			i += n
		}
	}
	return i, false
}

// plainRun returns the index of the first byte at or after s[i:] that a
// JSON string does not hold as it is (see plainASCII). It tests eight
// bytes at a time: in each test, the lowest byte flagged is a true one, as
// a borrow moves only to the bytes above a flagged one.
func plainRun(s []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		special := ((quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*0x20)&^w | w) & highs
		if special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for i < len(s) && plainASCII[s[i]] {
		i++
	}
	return i
}

// plainASCII marks the bytes a JSON string holds as they are: ASCII but
// the quote, the backslash and the control characters.
var plainASCII = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// unescape returns the rune of the escape at the start of s and its length,
// or a length of 0 for an escape it leaves to encoding/json.
func unescape(s []byte) (rune, int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if len(s) < 6 {
			return 0, 0
		}
		var r rune
		for _, h := range s[2:6] {
			switch {
			case '0' <= h && h <= '9':
				h -= '0'
			case 'a' <= h && h <= 'f':
				h -= 'a' - 10
			case 'A' <= h && h <= 'F':
				h -= 'A' - 10
			default:
				return 0, 0
			}
			r = r<<4 | rune(h)
		}
		if utf16.IsSurrogate(r) {
			return 0, 0
		}
		return r, 6
	}
	return 0, 0
}

// scanNumber returns the index after the JSON number at s[i:].
func scanNumber(s []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// skipSpace returns the index of the first byte at or after s[i:] that is
// not JSON white space.
func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// checkNames reports [ErrDuplicateKey] when an object of data, JSON text,
// has at any depth two members whose names, decoded as encoding/json
// decodes them, are equal, or equal under Unicode simple case folding as
// [strings.EqualFold] compares them. Of two such members a decoder that
// keeps the first, one that keeps the last and one that folds case read
// different values, while the canonical form of the text may be the same:
// no state may bind such arguments, and no tool may read them. It is the
// one check of every place that binds or decodes arguments ([Sealer.Seal],
// [Sealer.Open], [MCPServer.Call], [DecodeArguments]). Text that is not
// JSON, or nests deeper than maxDepth, is left to the parser that reads it:
// checkNames stops there and reports nothing more.
func checkNames(data []byte) error {
	// Storage for the objects and names of arguments nested and wide as
	// most are, so that a check of them allocates nothing. The frames are
	// the objects and arrays open at the place read, outermost first; names
	// holds the names of the members read in each open object.
	var (
		frameBuf [8]nameFrame
		nameBuf  [foldMapAt][]byte
	)
	frames, names := frameBuf[:0], nameBuf[:0]
	s := data
	i := skipSpace(s, 0)
	if i == len(s) {
		return nil
	}
	var err error
	for {
		// A value starts at s[i].
		if i >= len(s) {
			return nil
		}
		switch s[i] {
		case '{', '[':
			if len(frames) >= maxDepth {
				return nil
			}
			object := s[i] == '{'
			frames = append(frames, nameFrame{object: object, start: len(names)})
			i = skipSpace(s, i+1)
			if i < len(s) && (object && s[i] == '}' || !object && s[i] == ']') {
				frames, names = popFrame(frames, names)
				i++
				break
			}
			if object {
				if i, names, err = readMember(s, i, frames, names); err != nil || i < 0 {
					return err
				}
			}
			continue
		case '"':
			end, _, ok := stringEnd(s, i)
			if !ok {
				return nil
			}
			i = end
		case 't', 'f', 'n':
			lit := "null"
			if s[i] == 't' {
				lit = "true"
			} else if s[i] == 'f' {
				lit = "false"
			}
			if !bytes.HasPrefix(s[i:], []byte(lit)) {
				return nil
			}
			i += len(lit)
		default:
			end, ok := scanNumber(s, i)
			if !ok {
				return nil
			}
			i = end
		}
		// A value ended at s[i]: close the objects and arrays it ends.
	closing:
		for {
			i = skipSpace(s, i)
			if len(frames) == 0 || i >= len(s) {
				return nil
			}
			f := &frames[len(frames)-1]
			switch {
			case s[i] == ',':
				i = skipSpace(s, i+1)
				f.n++
				if f.object {
					if i, names, err = readMember(s, i, frames, names); err != nil || i < 0 {
						return err
					}
				}
				break closing
			case f.object && s[i] == '}', !f.object && s[i] == ']':
				frames, names = popFrame(frames, names)
				i++
			default:
				return nil
			}
		}
	}
}

// foldMapAt is the number of members past which an object's names are
// compared through a map of their folded forms rather than pairwise.
const foldMapAt = 16

// nameFrame is an object or array open in the text checkNames reads.
type nameFrame struct {
	object bool
	n      int               // the index of the current element of an array
	start  int               // where the object's names start in the names
	key    []byte            // the name of the current member of an object
	folded map[string]string // past foldMapAt names: each name's folded form
}

// popFrame closes the innermost object or array.
func popFrame(frames []nameFrame, names [][]byte) ([]nameFrame, [][]byte) {
	f := frames[len(frames)-1]
	return frames[:len(frames)-1], names[:f.start]
}

// readMember reads the name of a member at s[i] and its colon, checks the name
// against the others of the innermost of frames, whose names end names,
// and returns the index of its value, or -1 for text that is not JSON, and
// the names with this one.
func readMember(s []byte, i int, frames []nameFrame, names [][]byte) (int, [][]byte, error) {
	if i >= len(s) || s[i] != '"' {
		return -1, names, nil
	}
	end, plain, ok := stringEnd(s, i)
	if !ok {
		return -1, names, nil
	}
	name := s[i+1 : end-1]
	if !plain && (bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name)) {
		var decoded string
		if json.Unmarshal(s[i:end], &decoded) != nil {
			return -1, names, nil
		}
		name = []byte(decoded)
	}
	f := &frames[len(frames)-1]
	f.key = name
	if prev, ok := sameName(f, names[f.start:], name); ok {
		return 0, names, duplicateName(frames, prev, name)
	}
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		return -1, names, nil
	}
	return skipSpace(s, i+1), append(names, name), nil
}

// sameName returns the name of the object f, whose names are names, that
// is name or equal to it when case is folded, if there is one.
func sameName(f *nameFrame, names [][]byte, name []byte) ([]byte, bool) {
	if len(names) < foldMapAt {
		for _, prev := range names {
			if bytes.EqualFold(prev, name) {
				return prev, true
			}
		}
		return nil, false
	}
	if f.folded == nil {
		f.folded = make(map[string]string, 2*len(names))
		for _, prev := range names {
			f.folded[string(foldName(prev))] = string(prev)
		}
	}
	folded := string(foldName(name))
	if prev, ok := f.folded[folded]; ok {
		return []byte(prev), true
	}
	f.folded[folded] = string(name)
	return nil, false
}

// duplicateName returns the error of the names prev and name, which are one
// when case is folded, in the innermost object of frames.
func duplicateName(frames []nameFrame, prev, name []byte) error {
	where := "in the top-level object"
	if len(frames) > 1 {
		var path strings.Builder
		for _, f := range frames[:len(frames)-1] {
			if f.object {
				path.WriteString(msg.KeyPath(string(f.key)))
			} else {
				path.WriteString("[" + strconv.Itoa(f.n) + "]")
			}
		}
		where = "in the object at " + strings.TrimPrefix(path.String(), ".")
	}
	if bytes.Equal(prev, name) {
		return msg.Errorf(ErrDuplicateKey, "key %s appears twice %s", quoteName(name), where)
	}
	return msg.Errorf(ErrDuplicateKey, "keys %s and %s %s are one key when case is folded, as encoding/json folds it",
		quoteName(prev), quoteName(name), where)
}

// quoteName returns name quoted in ASCII for an error message, cut short
// when it is long: a name that looks like another ("K", the Kelvin sign)
// shows its escape.
func quoteName(name []byte) string {
	h, t := msg.Cut(string(name), msg.MaxQuoted)
	return strconv.QuoteToASCII(h) + t
}

// foldName returns name, UTF-8, with each rune replaced by the smallest
// rune of its orbit under Unicode simple case folding: two names are equal
// under strings.EqualFold exactly when their folded forms are equal.
func foldName(name []byte) []byte {
	out := make([]byte, 0, len(name))
	for _, r := range string(name) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		out = utf8.AppendRune(out, least)
	}
	return out
}

// stringEnd returns the index after the JSON string whose opening quote is
// at s[i], and whether it is plain, ASCII without escapes, and so its own
// content; false for a string that is not JSON.
func stringEnd(s []byte, i int) (end int, plain, ok bool) {
	j := plainRun(s, i+1)
	if j < len(s) && s[j] == '"' {
		return j + 1, true, true
	}
	for {
		j = plainRun(s, j)
		if j >= len(s) {
			return j, false, false
		}
		switch c := s[j]; {
		case c == '"':
			return j + 1, false, true
		case c == '\\':
			if j+1 >= len(s) {
				return j, false, false
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if r, _ := hex4(s, j+2); r < 0 {
					return j, false, false
				}
				j += 6
			default:
				return j, false, false
			}
		case c < 0x20:
			return j, false, false
		default: // a byte of a non-ASCII rune, valid or not
			j++
		}
	}
}

// sameArguments reports whether the arguments a and b bind alike (see
// argsBinding.bind): the same JSON value, whatever the order of keys, the
// spacing and the escapes. It reports the error of either that binds to
// nothing.
func sameArguments(a, b json.RawMessage) (bool, error) {
	var ba, bb argsBinding
	var scratch []byte
	if err := ba.bind(&scratch, a); err != nil {
		return false, err
	}
	if err := bb.bind(&scratch, b); err != nil {
		return false, err
	}
	return bytes.Equal(ba.bytes(), bb.bytes()), nil
}
