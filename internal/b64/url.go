package b64

import (
	"encoding/base64"
	"encoding/binary"
)

// The text of a request state is URL-safe base64 without padding. EncodeURL
// and DecodeURL write and read it as [base64.RawURLEncoding] does, the
// decoder as strictly as its Strict form and stricter on one point: it
// refuses line breaks, which the stdlib skips. Both are fuzzed against the
// stdlib.

// urlValue maps a character of urlAlphabet to its 6-bit value, and every
// other byte to 0xff.
var urlValue = alphabetValues(urlAlphabet)

// urlShifted maps a character of urlAlphabet, at each of the four places
// of a group, to its 6-bit value shifted to that place in 24 bits, and
// every other byte to 0xff in the top 8 bits.
var urlShifted = func() (t [4][256]uint32) {
	for place := range t {
		for c, v := range urlValue {
			if v == 0xff {
				t[place][c] = 0xff << 24
			} else {
				t[place][c] = uint32(v) << (18 - 6*place)
			}
		}
	}
	return t
}()

// EncodeURL writes the URL-safe base64 of src, without padding, to dst,
// which must hold base64.RawURLEncoding.EncodedLen(len(src)) bytes, with
// the scalar encoder of the standard alphabet's data.
func EncodeURL(dst, src []byte) {
	_ = dst[:base64.RawURLEncoding.EncodedLen(len(src))]
	encodeScalar(dst, src, urlPairs, base64.RawURLEncoding)
}

// DecodeURL writes the bytes that src, URL-safe base64 without padding,
// encodes to dst, which must hold base64.RawURLEncoding.DecodedLen(len(src))
// bytes, and returns their number. It reports false for a byte outside the
// alphabet (a line break too), a length that no input encodes and unused
// bits that are not zero, so that every input has one spelling. It decodes
// sixteen characters at a time, with one lookup of a character's value
// already shifted into its place and two 64-bit stores, and checks the
// alphabet once at the end.
func DecodeURL(dst []byte, src string) (int, bool) {
	n := base64.RawURLEncoding.DecodedLen(len(src))
	if len(src)%4 == 1 {
		return 0, false
	}
	_ = dst[:n]
	var groups uint32 // ORs every group: a byte outside the alphabet sets the top 8 bits
	di := 0
	for len(src) >= 16 && n-di >= 14 {
		s, out := src[:16], dst[di:di+14]
		a := urlShifted[0][s[0]] | urlShifted[1][s[1]] | urlShifted[2][s[2]] | urlShifted[3][s[3]]
		b := urlShifted[0][s[4]] | urlShifted[1][s[5]] | urlShifted[2][s[6]] | urlShifted[3][s[7]]
		c := urlShifted[0][s[8]] | urlShifted[1][s[9]] | urlShifted[2][s[10]] | urlShifted[3][s[11]]
		d := urlShifted[0][s[12]] | urlShifted[1][s[13]] | urlShifted[2][s[14]] | urlShifted[3][s[15]]
		groups |= a | b | c | d
		binary.BigEndian.PutUint64(out, uint64(a)<<40|uint64(b)<<16)
		binary.BigEndian.PutUint64(out[6:], uint64(c)<<40|uint64(d)<<16)
		src = src[16:]
		di += 12
	}
	bad := byte(groups >> 24) // ORs every value of the last groups: the top bits
	for len(src) >= 4 {
		c0, c1, c2, c3 := urlValue[src[0]], urlValue[src[1]], urlValue[src[2]], urlValue[src[3]]
		bad |= c0 | c1 | c2 | c3
		v := uint32(c0)<<18 | uint32(c1)<<12 | uint32(c2)<<6 | uint32(c3)
		dst[di], dst[di+1], dst[di+2] = byte(v>>16), byte(v>>8), byte(v)
		src = src[4:]
		di += 3
	}
	switch len(src) {
	case 2:
		c0, c1 := urlValue[src[0]], urlValue[src[1]]
		bad |= c0 | c1
		if c1&0x0f != 0 { // 4 unused bits
			return 0, false
		}
		dst[di] = c0<<2 | c1>>4
	case 3:
		c0, c1, c2 := urlValue[src[0]], urlValue[src[1]], urlValue[src[2]]
		bad |= c0 | c1 | c2
		if c2&0x03 != 0 { // 2 unused bits
			return 0, false
		}
		v := uint32(c0)<<12 | uint32(c1)<<6 | uint32(c2)
		dst[di], dst[di+1] = byte(v>>10), byte(v>>2)
	}
	return n, bad&0xc0 == 0
}
