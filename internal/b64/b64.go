// Package b64 is the module's one base64 codec: the standard alphabet,
// padded, that a part's data is written in, and the URL-safe alphabet
// without padding of a request state's text. [Check] holds a part's data
// to its only canonical form, where encoding/base64 skips line breaks, and
// the encoders write both alphabets from one set of tables, with the
// vector kernels of GOEXPERIMENT=simd on amd64 for the standard one. Every
// function is fuzzed against encoding/base64; users of the module never
// name this package.
package b64

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// ErrInvalid reports data that is not canonical standard base64: padded,
// in the standard alphabet, without whitespace or line breaks. The module's
// root package names it ErrInvalidBase64.
var ErrInvalid = errors.New("toolnexus: invalid base64")

// Eight bytes at a time: lanes01 holds 1 in each byte, lanes80 the high bit
// of each.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// stdAlphabet and urlAlphabet are the standard and the URL-safe base64
// alphabets.
const (
	stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// b64Value maps a byte of the standard base64 alphabet to its 6-bit value,
// and every other byte to 0xff.
var b64Value = alphabetValues(stdAlphabet)

// alphabetValues maps each byte of alphabet to its 6-bit value, and every other
// byte to 0xff.
func alphabetValues(alphabet string) (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}

// Check reports whether data is canonical standard base64, the only
// form a part holds: a length that is a multiple of four, only the standard
// alphabet, at most two '=' of padding at the end and zero bits in the unused
// low bits of the last character, and [ErrInvalid] naming the first byte
// that is not. It does not decode, and unlike [base64.StdEncoding], it
// does not skip '\r' and '\n'.
func Check(data string) error {
	return checkWith(data, checkVector)
}

// checkWith is Check with the vector kernel check, which checks
// what it can of the data before its padding.
func checkWith(data string, check func(s string) (checked int, ok bool)) error {
	body := data
	pad := 0
	for pad < 2 && strings.HasSuffix(body, "=") {
		body = body[:len(body)-1]
		pad++
	}
	start, ok := check(body)
	if !ok {
		return badByte(data, 0)
	}
	// OR the table values together: any byte outside the alphabet sets the
	// high bits. Checking once per block keeps the loop free of branches.
	const block = 256
	for i := start; i < len(body); i += block {
		var acc byte
		for _, c := range []byte(body[i:min(i+block, len(body))]) {
			acc |= b64Value[c]
		}
		if acc&0xc0 != 0 {
			return badByte(data, i)
		}
	}
	if !CanonicalPadding(data, pad) {
		return paddingError(data, pad)
	}
	return nil
}

// CanonicalPadding reports whether data, pad '=' after base64 characters,
// has the length and padding of canonical base64: a multiple of four, and
// zero bits in the unused low bits of the last character.
func CanonicalPadding(data string, pad int) bool {
	if len(data)%4 != 0 {
		return false
	}
	// One '=' leaves 2 unused bits in the last character, two leave 4.
	return pad == 0 || b64Value[data[len(data)-pad-1]]&(byte(1)<<(2*pad)-1) == 0
}

// paddingError reports data, pad '=' after base64 characters, whose
// length or padding CanonicalPadding refuses.
func paddingError(data string, pad int) error {
	if len(data)%4 != 0 {
		return msg.Errorf(ErrInvalid, "length %d of %s is not a multiple of 4 (missing padding?)", len(data), msg.Quote(data))
	}
	return msg.Errorf(ErrInvalid, "%s has non-zero padding bits", msg.Quote(data))
}

// badByte names the first byte of data, from offset from on, outside the
// alphabet.
func badByte(data string, from int) error {
	for i := from; i < len(data); i++ {
		if c := data[i]; b64Value[c] == 0xff {
			if c == '=' {
				return msg.Errorf(ErrInvalid, "padding at offset %d of %s is not at the end", i, msg.Quote(data))
			}
			return msg.Errorf(ErrInvalid, "byte %s at offset %d of %s", quoteByte(c), i, msg.Quote(data))
		}
	}
	return msg.Errorf(ErrInvalid, "%s", msg.Quote(data))
}

// Run returns the length of the longest run of bytes of the standard
// alphabet at the start of b: the vector kernel of the build and CPU, if
// any, reads what it can (see simd.go), and eight bytes at a time the
// rest.
func Run(b []byte) int { return runFrom(b, runVector(b)) }

// runFrom is Run once the first i bytes of b are known to be in
// the alphabet.
func runFrom(b []byte, i int) int {
	// Four words a turn, which the CPU checks side by side.
	for ; i+32 <= len(b); i += 32 {
		q := b[i : i+32]
		m0 := nonAlphabetLanes(binary.LittleEndian.Uint64(q[0:8]))
		m1 := nonAlphabetLanes(binary.LittleEndian.Uint64(q[8:16]))
		m2 := nonAlphabetLanes(binary.LittleEndian.Uint64(q[16:24]))
		m3 := nonAlphabetLanes(binary.LittleEndian.Uint64(q[24:32]))
		if m0|m1|m2|m3 != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if m := nonAlphabetLanes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b) && b64Value[b[i]] != 0xff; i++ {
	}
	return i
}

// CopyRun copies the longest run of bytes of the standard alphabet at the
// start of src to dst, which must hold it, eight bytes at a time as it
// checks them, and returns its length: [Run] and a copy in one pass.
func CopyRun(dst, src []byte) int {
	i := 0
	for ; i+32 <= len(src) && i+32 <= len(dst); i += 32 {
		q := src[i : i+32]
		w0 := binary.LittleEndian.Uint64(q[0:8])
		w1 := binary.LittleEndian.Uint64(q[8:16])
		w2 := binary.LittleEndian.Uint64(q[16:24])
		w3 := binary.LittleEndian.Uint64(q[24:32])
		if nonAlphabetLanes(w0)|nonAlphabetLanes(w1)|nonAlphabetLanes(w2)|nonAlphabetLanes(w3) != 0 {
			break
		}
		o := dst[i : i+32]
		binary.LittleEndian.PutUint64(o[0:8], w0)
		binary.LittleEndian.PutUint64(o[8:16], w1)
		binary.LittleEndian.PutUint64(o[16:24], w2)
		binary.LittleEndian.PutUint64(o[24:32], w3)
	}
	n := runFrom(src, i)
	copy(dst[i:], src[i:n])
	return n
}

// nonAlphabetLanes has the high bit set in each byte of w, eight bytes,
// that is not in the standard alphabet. For the ASCII bytes, x+(0x80-lo)
// has its high bit set when the byte is lo or more, without carrying into
// the next byte; letters are checked in lower case, y, which maps no other
// byte into a-z.
func nonAlphabetLanes(w uint64) uint64 {
	x := w &^ lanes80
	y := x | lanes01*0x20
	letters := (y + lanes01*(0x80-'a')) &^ (y + lanes01*(0x80-'z'-1))
	digits := (x + lanes01*(0x80-'/')) &^ (x + lanes01*(0x80-'9'-1)) // '/' and 0-9
	plus := (x + lanes01*(0x80-'+')) &^ (x + lanes01*(0x80-'+'-1))
	return (^(letters | digits | plus) | w) & lanes80
}

// quoteByte quotes c as a Go byte literal: '!', or '\xff' outside ASCII.
func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf(`'\x%02x'`, c)
}

// encodeChunk is the input length EncodeTo encodes at a time: a multiple of 3,
// so that only the last piece of a payload is padded.
const encodeChunk = 3 * 512

// EncodeTo appends the standard base64 encoding of src to sb, through a
// buffer on the stack. Only the last call for a payload may pass a length
// that is not a multiple of 3.
func EncodeTo(sb *strings.Builder, src []byte) {
	var buf [encodeChunk / 3 * 4]byte
	for len(src) > 0 {
		n := min(len(src), encodeChunk)
		m := Encode(buf[:], src[:n])
		sb.Write(buf[:m])
		src = src[n:]
	}
}

// Uninitialized returns a buffer of n bytes, n > 0, not zeroed first, for
// code that writes every byte of it that it reads or makes a string of,
// such as an encoding: the buffer of a strings.Builder grown once to n,
// which nothing else holds once the Builder is gone (its one string, of
// the first byte, is dropped).
func Uninitialized(n int) []byte {
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(sb.String()), n)
}

// pairTable maps 12 bits of input to the two base64 characters they
// encode, the first in the low byte.
type pairTable [1 << 12]uint16

// stdPairs and urlPairs are the pairs of the standard and URL-safe
// alphabets.
var stdPairs, urlPairs = pairsOf(stdAlphabet), pairsOf(urlAlphabet)

// pairsOf returns the pairs of alphabet.
func pairsOf(alphabet string) *pairTable {
	var t pairTable
	for i := range t {
		t[i] = uint16(alphabet[i>>6]) | uint16(alphabet[i&63])<<8
	}
	return &t
}

// Encode writes the padded standard base64 encoding of src to dst, which
// must hold base64.StdEncoding.EncodedLen(len(src)) bytes, and returns that
// length. The vector kernel of the build and CPU, if any, encodes what it
// can (see simd.go), and the scalar encoder the rest.
func Encode(dst, src []byte) int {
	n := base64.StdEncoding.EncodedLen(len(src))
	_ = dst[:n]
	read, written := encodeVector(dst, src)
	encodeScalar(dst[written:], src[read:], stdPairs, base64.StdEncoding)
	return n
}

// encodeScalar writes the encoding of src in the alphabet of pairs to dst,
// without vector instructions, and leaves the last few bytes to tail, the
// stdlib's encoding of that alphabet. It encodes six bytes at a time with
// one 64-bit load, four lookups of two characters each and one 64-bit
// store, four times per turn of its main loop, about twice the speed of
// [base64.Encoding.Encode].
func encodeScalar(dst, src []byte, pairs *pairTable, tail *base64.Encoding) {
	di := 0
	for len(src) >= 26 {
		v0 := binary.BigEndian.Uint64(src)
		v1 := binary.BigEndian.Uint64(src[6:])
		v2 := binary.BigEndian.Uint64(src[12:])
		v3 := binary.BigEndian.Uint64(src[18:])
		binary.LittleEndian.PutUint64(dst[di:], encodeSixBytes(pairs, v0))
		binary.LittleEndian.PutUint64(dst[di+8:], encodeSixBytes(pairs, v1))
		binary.LittleEndian.PutUint64(dst[di+16:], encodeSixBytes(pairs, v2))
		binary.LittleEndian.PutUint64(dst[di+24:], encodeSixBytes(pairs, v3))
		src = src[24:]
		di += 32
	}
	for len(src) >= 8 {
		binary.LittleEndian.PutUint64(dst[di:], encodeSixBytes(pairs, binary.BigEndian.Uint64(src)))
		src = src[6:]
		di += 8
	}
	tail.Encode(dst[di:], src)
}

// encodeSixBytes returns the eight characters that encode the top six bytes of
// v in the alphabet of pairs, the first in the low byte.
func encodeSixBytes(pairs *pairTable, v uint64) uint64 {
	return uint64(pairs[v>>52&0xfff]) |
		uint64(pairs[v>>40&0xfff])<<16 |
		uint64(pairs[v>>28&0xfff])<<32 |
		uint64(pairs[v>>16&0xfff])<<48
}

// vectorKernel encodes and checks base64 with a CPU's vector instructions,
// in blocks: encode encodes the longest run of whole blocks at the start of
// src that it can, and returns how many bytes it read and wrote; check
// reports how many bytes the longest run of whole blocks at the start of s
// holds, and whether they are all in the standard alphabet; run returns how
// many bytes the whole blocks at the start of b hold before the first that
// holds a byte outside it. encodeVector, checkVector and runVector call the
// fastest of vectorKernels directly, so that EncodeTo's buffer stays on the
// stack.
type vectorKernel struct {
	name   string
	encode func(dst, src []byte) (read, written int)
	check  func(s string) (checked int, ok bool)
	run    func(b []byte) int
}
