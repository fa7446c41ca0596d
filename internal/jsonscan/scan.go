// Package jsonscan is the module's one JSON scanner: the exact-key reader
// of the root package reads JSON with it, and the arguments of a tool call
// are canonicalized, bound to a request state and checked for names that
// repeat with it; the stored conversations of the loop modules are split
// into their members with it (internal/loopstore). It checks the syntax of all it crosses, as json.Valid
// would, so that a value read without an error was valid JSON, and says
// where input stops being JSON as encoding/json's scanner would. Users of
// the module never name it.
package jsonscan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// The scanner reads a byte at a time where it must and eight at a time
// where it can. Where it fails, locateSyntaxError says where the input
// stops being JSON, the byte encoding/json's scanner names.

// MaxDepth is how deeply JSON may nest, as encoding/json's scanner allows:
// a value at depth 10 001 is not JSON to it.
const MaxDepth = 10000

// ErrInvalidJSON reports JSON that does not decode into a value of the
// module: a key holds a value of the wrong type, or the input is not JSON.
// The module's root package names it ErrInvalidJSON.
var ErrInvalidJSON = errors.New("toolnexus: invalid JSON")

// ErrDuplicateKey reports a JSON object, at any depth, with two members of
// one name, or of names that are one when case is folded (see
// [CheckNames]). It also matches [ErrInvalidJSON]. The module's root
// package names it ErrDuplicateKey.
var ErrDuplicateKey = msg.Also("toolnexus: duplicate JSON key", ErrInvalidJSON)

// ErrSyntax reports input that is not JSON where the reader expected it.
var ErrSyntax = errors.New("malformed JSON")

// ErrNotUTF8 reports a string that is not UTF-8: bytes that are not, a lone
// surrogate escape such as \ud800, or a surrogate encoded as UTF-8 (CESU-8).
// RFC 8259 requires UTF-8, and encoding/json/v2 refuses such strings too,
// where encoding/json replaces what is not with U+FFFD.
var ErrNotUTF8 = errors.New("is not valid UTF-8")

// ErrBadString and ErrBadKey report a string, and a key, that is not UTF-8.
var (
	ErrBadString = fmt.Errorf("a string %w", ErrNotUTF8)
	ErrBadKey    = fmt.Errorf("a key %w", ErrNotUTF8)
)

// Eight bytes at a time: lanes01 holds 1 in each byte, lanes80 the high bit
// of each.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// Lanes80 holds the high bit of each byte of a word.
const Lanes80 = lanes80

// ASCIILanes has the high bit set in each byte of w, eight bytes of a
// string, that is '"', '\\' or a control byte, and in no byte that is not
// ASCII. The lowest byte so marked is exact; a byte above it may be marked
// wrongly, by a borrow, but only above a byte rightly marked.
func ASCIILanes(w uint64) uint64 {
	q := w ^ lanes01*'"'
	s := w ^ lanes01*'\\'
	return ((q-lanes01)&^q | (s-lanes01)&^s | (w-lanes01*0x20)&^w) & lanes80
}

// TextRun returns the index of the first ASCII byte of b, from i on, that
// ends a run of plain string bytes ('"', '\\' or a control byte), or len(b),
// checking that the bytes before it are UTF-8, or reports false at the
// first that is not. In one pass, it reads ASCII eight bytes at a time, and
// each rune past ASCII on its own.
func TextRun(b []byte, i int) (int, bool) {
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		m := ASCIILanes(w)
		h := w & lanes80
		if h == 0 {
			if m != 0 {
				return i + bits.TrailingZeros64(m)>>3, true
			}
			i += 8
			continue
		}
		// The ASCII before the first byte past it, then that byte's rune.
		k := bits.TrailingZeros64(h) >> 3
		if s := bits.TrailingZeros64(m) >> 3; s < k {
			return i + s, true
		}
		// Runes past ASCII follow each other in most text that has them.
		// Those of two bytes, and those of three whose second byte may be
		// any continuation byte (U+1000 to U+FFFF but for the surrogates),
		// as most of Chinese, Japanese and Korean are, are read at once.
		for i += k; ; {
			if c := b[i]; c-0xe1 < 0xef-0xe1+1 && c != 0xed && i+2 < len(b) &&
				binary.LittleEndian.Uint16(b[i+1:])&0xc0c0 == 0x8080 {
				i += 3
			} else if c-0xc2 < 0xdf-0xc2+1 && i+1 < len(b) && b[i+1]&0xc0 == 0x80 {
				i += 2 // two bytes: U+0080 to U+07FF
			} else if n := runeLen(b, i); n == 0 {
				return i, false
			} else {
				i += n
			}
			if i >= len(b) || b[i] < utf8.RuneSelf {
				break
			}
		}
	}
	for i < len(b) {
		c := b[i]
		if c >= utf8.RuneSelf {
			n := runeLen(b, i)
			if n == 0 {
				return i, false
			}
			i += n
			continue
		}
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	return i, true
}

// ValidUTF8 reports whether p is UTF-8, as utf8.Valid does. Unlike
// utf8.Valid, which reads a byte at a time from the first that is not ASCII
// on, it reads each run of ASCII between runes past it eight bytes at a
// time, as text that is mostly ASCII has.
func ValidUTF8(p []byte) bool {
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i = asciiEnd(p, i)
			continue
		}
		n := runeLen(p, i)
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}

// runeLen returns the length of the UTF-8 sequence of one rune at p[i], a
// byte that is not ASCII, or 0 when none is there: what utf8.Valid refuses
// (bytes that are not UTF-8, overlong forms, surrogates, runes past
// U+10FFFF, a sequence cut short) is no sequence.
func runeLen(p []byte, i int) int {
	lead := utf8Lead[p[i]]
	n := int(lead.n)
	switch {
	case n == 0 || i+n > len(p) || p[i+1] < lead.lo || p[i+1] > lead.hi:
		return 0
	case n > 2 && p[i+2]&0xc0 != 0x80, n > 3 && p[i+3]&0xc0 != 0x80:
		return 0
	}
	return n
}

// asciiEnd returns the index of the first byte of p, from i on, that is not
// ASCII, or len(p).
func asciiEnd(p []byte, i int) int {
	for ; i+8 <= len(p); i += 8 {
		if h := binary.LittleEndian.Uint64(p[i:]) & lanes80; h != 0 {
			return i + bits.TrailingZeros64(h)>>3
		}
	}
	for i < len(p) && p[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// utf8Lead holds, for each byte that leads a UTF-8 sequence, the length of
// the sequence and the range of its second byte, and a length of 0 for
// every other byte: the second byte rules out overlong forms, surrogates
// and runes past U+10FFFF.
var utf8Lead = func() (t [256]struct{ n, lo, hi byte }) {
	for c := 0xc2; c < 0xf5; c++ {
		t[c].n, t[c].lo, t[c].hi = 2, 0x80, 0xbf
		if c >= 0xe0 {
			t[c].n = 3
		}
		if c >= 0xf0 {
			t[c].n = 4
		}
	}
	t[0xe0].lo, t[0xed].hi, t[0xf0].lo, t[0xf4].hi = 0xa0, 0x9f, 0x90, 0x8f
	return t
}()

// PlainRun returns the index of the first ASCII byte of b, from i on, that
// ends a run of plain string bytes ('"', '\\' or a control byte), or len(b),
// and whether every byte of the run is ASCII. It reads sixteen bytes at a
// time whatever they hold.
func PlainRun(b []byte, i int) (int, bool) {
	var high uint64 // the words read, or'ed: is any byte past ASCII?
	for ; i+16 <= len(b); i += 16 {
		w0 := binary.LittleEndian.Uint64(b[i:])
		w1 := binary.LittleEndian.Uint64(b[i+8:])
		m0, m1 := ASCIILanes(w0), ASCIILanes(w1)
		if m0|m1 != 0 {
			k := 8 + bits.TrailingZeros64(m1)>>3
			if m0 != 0 {
				k = bits.TrailingZeros64(m0) >> 3
			}
			// Only the bytes before the end count: the high bits of the
			// first k bytes of the sixteen.
			if k < 8 {
				high |= w0 & lanes80 & (1<<(8*k) - 1)
			} else {
				high |= (w0 | w1&(1<<(8*(k-8))-1)) & lanes80
			}
			return i + k, high == 0
		}
		high |= (w0 | w1) & lanes80
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high |= uint64(c) & 0x80
	}
	return i, high == 0
}

// hexDigit is the value of each hex digit, and 0xff for every other byte.
var hexDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	for i, c := range "ABCDEF" {
		t[c] = byte(10 + i)
	}
	return t
}()

// hexEscape reads the four hex digits of a \u escape at b[i:], and returns -1
// and the index of the first byte that is not one (len(b) when b ends first).
func hexEscape(b []byte, i int) (rune, int) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(b) {
			return -1, len(b)
		}
		v := hexDigit[b[k]]
		if v == 0xff {
			return -1, k
		}
		r = r<<4 | rune(v)
	}
	return r, i + 4
}

// Escape reads the escape at b[i], a backslash. It returns the rune it
// stands for and the index after it; a lone surrogate, or a high one with
// no low one after it, is -2 (not UTF-8, though JSON), and an escape that is
// not JSON is -1 with the index of the first byte that cannot be there.
func Escape(b []byte, i int) (rune, int) {
	if i+1 >= len(b) {
		return -1, len(b)
	}
	switch c := b[i+1]; c {
	case '"', '\\', '/':
		return rune(c), i + 2
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
	default:
		return -1, i + 1
	}
	r, next := hexEscape(b, i+2)
	if r < 0 || !utf16.IsSurrogate(r) {
		return r, next
	}
	if r >= 0xdc00 || next+1 >= len(b) || b[next] != '\\' || b[next+1] != 'u' {
		return -2, next
	}
	lo, after := hexEscape(b, next+2)
	if lo < 0 {
		return -1, after
	}
	if lo < 0xdc00 || lo > 0xdfff {
		return -2, next // the escape after it is read as it is
	}
	return utf16.DecodeRune(r, lo), after
}

// SkipString moves past the string at b[i], a quote, checking it as JSON,
// and returns the index after it, and whether it is UTF-8. When it is not
// JSON, it returns ok false and the index of the first byte that cannot be
// there (len(b) when b ends inside it).
func SkipString(b []byte, i int) (next int, isUTF8, ok bool) {
	isUTF8 = true
	i++
	for {
		var valid bool
		if i, valid = TextRun(b, i); !valid {
			isUTF8 = false
			i++ // past the byte that is not UTF-8
			continue
		}
		if i >= len(b) {
			return len(b), isUTF8, false
		}
		switch b[i] {
		case '"':
			return i + 1, isUTF8, true
		case '\\':
			r, after := Escape(b, i)
			if r == -1 {
				return after, isUTF8, false
			}
			isUTF8 = isUTF8 && r != -2
			i = after
		default: // a control byte
			return i, isUTF8, false
		}
	}
}

// SkipNumber moves past the number at b[i], a '-' or a digit, and returns
// the index after it, or ok false and the index of the first byte that
// cannot be there.
func SkipNumber(b []byte, i int) (next int, ok bool) {
	if b[i] == '-' {
		i++
	}
	digits := func(i int) (int, bool) { // one or more digits
		if i >= len(b) {
			return i, false
		}
		if b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		return i, true
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	default:
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// SkipLiteral moves past lit, true, false or null, at b[i], or returns ok
// false and the index of the first byte that differs.
func SkipLiteral(b []byte, i int, lit string) (next int, ok bool) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) || b[i+k] != lit[k] {
			return min(i+k, len(b)), false
		}
	}
	return i + len(lit), true
}

// SkipSpace returns the index of the first byte of b from i on that is
// not JSON white space, or len(b).
func SkipSpace(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return i
		}
	}
	return i
}

// ScanValue moves past the value at b[i], which is depth levels deep in
// containers, checking it as JSON, and returns the index after it. When it
// is not JSON, it returns ErrSyntax and the index of the first byte that
// cannot be there (len(b) when b ends inside it). With checkUTF8, a string
// or key that is not UTF-8 fails it with ErrNotUTF8, at no index worth
// naming.
func ScanValue(b []byte, i, depth int, checkUTF8 bool) (int, error) {
	if i >= len(b) {
		return i, ErrSyntax
	}
	switch c := b[i]; c {
	case '"':
		return stringAt(b, i, checkUTF8)
	case '{', '[':
		if depth >= MaxDepth {
			return i, ErrSyntax
		}
		return scanContainer(b, i, depth+1, checkUTF8)
	case 't':
		return literalAt(b, i, "true")
	case 'f':
		return literalAt(b, i, "false")
	case 'n':
		return literalAt(b, i, "null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			next, ok := SkipNumber(b, i)
			if !ok {
				return next, ErrSyntax
			}
			return next, nil
		}
		return i, ErrSyntax
	}
}

// stringAt is SkipString with ScanValue's results.
func stringAt(b []byte, i int, checkUTF8 bool) (int, error) {
	next, isUTF8, ok := SkipString(b, i)
	switch {
	case !ok:
		return next, ErrSyntax
	case checkUTF8 && !isUTF8:
		return next, ErrNotUTF8
	}
	return next, nil
}

// literalAt is SkipLiteral with ScanValue's results.
func literalAt(b []byte, i int, lit string) (int, error) {
	next, ok := SkipLiteral(b, i, lit)
	if !ok {
		return next, ErrSyntax
	}
	return next, nil
}

// scanContainer moves past the object or array that opens at b[i], which is
// depth levels deep counting itself, as ScanValue does.
func scanContainer(b []byte, i, depth int, checkUTF8 bool) (int, error) {
	return scanMembers(b, i, depth, checkUTF8, nil)
}

// Split returns the members of b, one JSON value with white space around
// it, when it is the container that open ('{' or '[') opens: for an object
// each name, as its JSON string, and its value, in order; for an array its
// elements, with no names. Each is a slice of b. Every string of b must be
// UTF-8 ([ErrNotUTF8]); b that is not JSON, or another value, is
// [ErrSyntax].
func Split(b []byte, open byte) (names, values [][]byte, err error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return nil, nil, ErrSyntax
	}
	visit := func(name, value []byte) {
		if open == '{' {
			names = append(names, name)
		}
		values = append(values, value)
	}
	if i, err = scanMembers(b, i, 1, true, visit); err != nil {
		return nil, nil, err
	}
	if SkipSpace(b, i) != len(b) {
		return nil, nil, ErrSyntax
	}
	return names, values, nil
}

// scanMembers is scanContainer, calling visit, when it is not nil, with
// each member's name (nil in an array) and value, slices of b.
func scanMembers(b []byte, i, depth int, checkUTF8 bool, visit func(name, value []byte)) (int, error) {
	object := b[i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, nil
	}
	for {
		var err error
		var name []byte
		if object {
			if i >= len(b) || b[i] != '"' {
				return i, ErrSyntax
			}
			start := i
			if i, err = stringAt(b, i, checkUTF8); err != nil {
				return i, err
			}
			name = b[start:i]
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, ErrSyntax
			}
			i = SkipSpace(b, i+1)
		}
		start := i
		if i, err = ScanValue(b, i, depth, checkUTF8); err != nil {
			return i, err
		}
		if visit != nil {
			visit(name, b[start:i])
		}
		i = SkipSpace(b, i)
		switch {
		case i >= len(b):
			return i, ErrSyntax
		case b[i] == closing:
			return i + 1, nil
		case b[i] != ',':
			return i, ErrSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// locateSyntaxError returns the index of the first byte of data that cannot
// be there for data to be JSON, len(data) when data ends inside a value, or
// -1 when data is JSON. It is the byte encoding/json's scanner stops at:
// its SyntaxError's Offset less one.
func locateSyntaxError(data []byte) int {
	i := SkipSpace(data, 0)
	i, err := ScanValue(data, i, 0, false)
	if err != nil {
		return i
	}
	if i = SkipSpace(data, i); i < len(data) {
		return i
	}
	return -1
}

// Valid reports whether data is one JSON value, with white space around
// it or not, as json.Valid does: what it checks is syntax, not UTF-8.
func Valid(data []byte) bool { return locateSyntaxError(data) < 0 }

// nestingAt returns how many objects and arrays are open at data[at], a
// byte of data outside any string, which is JSON up to there.
func nestingAt(data []byte, at int) int {
	depth := 0
	for i := 0; i < at; i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			i, _, _ = SkipString(data, i)
			i--
		}
	}
	return depth
}

// NotJSON says where data, which is not JSON, stops being JSON: the byte
// that cannot be there, counted from 1, or the end that comes inside a
// value, or the byte where it nests deeper than MaxDepth, which JSON may do
// but no reader here follows. It never names a JSON type the input might
// have begun: "nope" is not a null gone wrong.
func NotJSON(data []byte) string {
	if SkipSpace(data, 0) == len(data) {
		return "the input is empty, not JSON"
	}
	switch at := locateSyntaxError(data); {
	case at < 0:
		return "the input is not JSON"
	case at >= len(data):
		return fmt.Sprintf("the input is not JSON: it ends after %d bytes, inside a value", len(data))
	case (data[at] == '{' || data[at] == '[') && nestingAt(data, at) >= MaxDepth:
		return fmt.Sprintf("the input nests more than %d levels deep at byte %d of %d, deeper than JSON is read here", MaxDepth, at+1, len(data))
	default:
		return fmt.Sprintf("the input is not JSON: byte %d of %d, %s, cannot be there", at+1, len(data), msg.Quote(string(data[at:at+1])))
	}
}
