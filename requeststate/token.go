package requeststate

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// maxStateLen is the longest request state, in bytes, that a [Sealer]
// opens; Seal refuses a state that would be longer.
const maxStateLen = 64 << 10

// statePrefix starts every request state: the format's name and version.
// It is authenticated with the header, so a state cannot be read as another
// version.
const statePrefix = "tn1."

// The layout of a state after its prefix, in URL-safe base64 without
// padding: a header of the key id and the expiry, authenticated with the
// prefix as the associated data, then the random nonce, the ciphertext of
// the claims and the tag of AES-256-GCM.
const (
	keyIDLen     = 8
	headerLen    = keyIDLen + 8 // key id, expiry in Unix milliseconds
	aadLen       = len(statePrefix) + headerLen
	nonceLen     = 12 // AES-GCM's nonce, random
	tagLen       = 16 // AES-GCM's tag
	stateIDLen   = 16 // a state's ID, its nonce in URL-safe base64
	claimsFixed  = 8  // issued-at
	hkdfKeyIDTag = "toolnexus request state tn1 key id"
	hkdfKeyTag   = "toolnexus request state tn1 aes-256-gcm key "
)

// decodeState returns the bytes of state, its prefix followed by the
// base64 decoded, once state is well formed: at most 64 KiB, strict
// URL-safe base64 without padding and without line breaks, long enough for
// a header, a nonce and a tag.
func decodeState(state string) ([]byte, error) {
	if len(state) > maxStateLen {
		return nil, msg.Errorf(ErrInvalidState, "longer than %d bytes", maxStateLen)
	}
	body, ok := strings.CutPrefix(state, statePrefix)
	if !ok {
		return nil, errInvalidState
	}
	buf := make([]byte, len(statePrefix)+base64.RawURLEncoding.DecodedLen(len(body)))
	copy(buf, statePrefix)
	n, ok := b64.DecodeURL(buf[len(statePrefix):], body)
	if !ok || n < headerLen+nonceLen+tagLen {
		return nil, errInvalidState
	}
	return buf, nil
}

// The claims of a state, its plaintext: the issue time in Unix milliseconds (8
// bytes), then as strings (a uvarint length and the bytes) the binding of the
// arguments (see jsonscan.AppendBinding), the tool, the audience and the
// principal, then the requests and the answers, each list a uvarint count and
// its items: a Request as its ID, Kind, Prompt, URL, ExpiresAt and its Data
// (see appendData); an Answer as its ID, a byte for OK, its Reason and its
// Data; then, only when the State has one, its Opaque as a string (a state
// without it ends with its answers, as states did before Opaque). The
// header holds the expiry; the prefix and the header are the associated
// data.

// claims are the fields of a state's plaintext, parts of its bytes.
type claims struct {
	issuedAt                  int64
	args                      []byte
	tool, audience, principal []byte
	state                     []byte // the requests and the answers
}

// readClaims splits the plaintext of a state into the claims c, field by
// field: Open's hot path copies no claims struct.
func readClaims(plain []byte, c *claims) bool {
	if len(plain) < claimsFixed {
		return false
	}
	c.issuedAt = int64(binary.BigEndian.Uint64(plain))
	i := claimsFixed
	for _, f := range [...]*[]byte{&c.args, &c.tool, &c.audience, &c.principal} {
		n, size := binary.Uvarint(plain[i:])
		if size <= 0 || n > uint64(len(plain)-i-size) {
			return false
		}
		i += size
		*f, i = plain[i:i+int(n)], i+int(n)
	}
	c.state = plain[i:]
	return true
}

// stateSizeHint returns about how many bytes appendState writes for st.
func stateSizeHint(st State) int {
	n := 16
	for _, r := range st.Requests {
		n += 16 + len(r.ID) + len(r.Kind) + len(r.Prompt) + len(r.URL) + len(r.ExpiresAt) + 64*len(r.Data)
	}
	for _, a := range st.Answers {
		n += 16 + len(a.ID) + len(a.Reason) + 64*len(a.Data)
	}
	return n + binary.MaxVarintLen64 + len(st.Opaque)
}

// appendState appends st's requests and answers to b.
func appendState(b []byte, st State) ([]byte, error) {
	var err error
	b = binary.AppendUvarint(b, uint64(len(st.Requests)))
	for _, r := range st.Requests {
		b = appendString(appendString(appendString(appendString(appendString(b, r.ID), r.Kind), r.Prompt), r.URL), r.ExpiresAt)
		if b, err = appendData(b, r.Data); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(st.Answers)))
	for _, a := range st.Answers {
		b = appendString(b, a.ID)
		b = append(b, boolByte(a.OK))
		b = appendString(b, a.Reason)
		if b, err = appendData(b, a.Data); err != nil {
			return nil, err
		}
	}
	if st.Opaque != "" {
		b = appendString(b, st.Opaque)
	}
	return b, nil
}

// opaque reads the Opaque that appendState wrote after the answers: ""
// when the state ends there; a value that is empty, or followed by more
// bytes, was not written by appendState, and fails r.
func (r *claimsReader) opaque() string {
	if r.left() == 0 {
		return ""
	}
	v := r.longStr()
	if v == "" || r.left() != 0 {
		r.fail()
		return ""
	}
	return v
}

// requests reads the requests that appendState wrote, and returns them
// when build is set.
func (r *claimsReader) requests(build bool) []toolnexus.Request {
	n := r.count()
	var reqs []toolnexus.Request
	if build {
		reqs = make([]toolnexus.Request, n)
	}
	for i := range n {
		req := toolnexus.Request{ID: r.str(), Kind: r.str(), Prompt: r.str(), URL: r.str(), ExpiresAt: r.str(), Data: r.data(build)}
		if build {
			reqs[i] = req
		}
	}
	return reqs
}

// answers reads the answers that appendState wrote, and returns them
// when build is set; none is nil.
func (r *claimsReader) answers(build bool) toolnexus.Answers {
	n := r.count()
	var answers toolnexus.Answers
	if build && n > 0 {
		answers = make(toolnexus.Answers, n)
	}
	for i := range n {
		a := toolnexus.Answer{ID: r.str(), OK: r.byte() == 1, Reason: r.str(), Data: r.data(build)}
		if answers != nil {
			answers[i] = a
		}
	}
	return answers
}

// appendData appends data behind its length in 4 bytes: nothing for no
// data; otherwise a tag, then the data in the binary form of appendValue
// when it holds only values that JSON decodes to, or else its JSON, which
// decodes to what the wire would carry.
func appendData(b []byte, data map[string]any) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	if len(data) == 0 {
		return b, nil
	}
	out, ok := appendValue(append(b, dataBinary), data, 0)
	if !ok {
		if err := jsonscan.CheckDepth(data); err != nil {
			return nil, fmt.Errorf("data %v", err)
		}
		j, err := json.Marshal(data)
		if err != nil {
			return nil, err
		}
		out = append(append(b, dataJSON), j...)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	return out, nil
}

// The tags of a Data, and of the values of its binary form.
const (
	dataJSON   = 'J'
	dataBinary = 'B'
	valNull    = 'n'
	valTrue    = 't'
	valFalse   = 'f'
	valNumber  = 'd' // the 8 bytes of a float64
	valString  = 's'
	valArray   = 'a' // a count, then the elements
	valObject  = 'o' // a count, then the keys and values
)

// appendValue appends v, at depth, in binary form, and reports false when
// v holds a value that JSON would not give back as it is: a Go type JSON
// does not decode to, a nil slice or map, a string that is not UTF-8, a
// number that is not finite, or a value nested deeper than MaxDataDepth
// (which the JSON form then refuses too).
func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > toolnexus.MaxDataDepth {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, valNull), true
	case bool:
		if v {
			return append(b, valTrue), true
		}
		return append(b, valFalse), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, false
		}
		return binary.BigEndian.AppendUint64(append(b, valNumber), math.Float64bits(v)), true
	case string:
		return appendString(append(b, valString), v), validUTF8(v)
	case []any:
		if v == nil {
			return b, false
		}
		b = binary.AppendUvarint(append(b, valArray), uint64(len(v)))
		for _, e := range v {
			var ok bool
			if b, ok = appendValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		if v == nil {
			return b, false
		}
		b = binary.AppendUvarint(append(b, valObject), uint64(len(v)))
		for k, e := range v {
			if !validUTF8(k) {
				return b, false
			}
			var ok bool
			if b, ok = appendValue(appendString(b, k), e, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

// validUTF8 reports whether s is UTF-8, testing ASCII, the usual key and
// value, without a call.
func validUTF8(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// appendString appends s to b behind its length.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// uint64At returns the big-endian uint64 of the first 8 bytes of s, which
// has at least 8.
func uint64At(s string) uint64 {
	_ = s[7]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

// boolByte returns 1 for true and 0 for false.
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// claimsReader reads the claims that the append functions wrote from s,
// at i; ok turns false at the first read past the end, and stays false. It
// moves an index, not the string, so that a read writes no pointer.
type claimsReader struct {
	s  string
	i  int
	ok bool
}

// fail marks r as read past its end.
func (r *claimsReader) fail() {
	r.ok, r.i = false, len(r.s)
}

// left returns how many bytes are left to read.
func (r *claimsReader) left() uint64 {
	return uint64(len(r.s) - r.i)
}

// uvarint reads a uvarint.
func (r *claimsReader) uvarint() uint64 {
	var n uint64
	for shift := 0; shift < 64 && r.i < len(r.s); shift += 7 {
		c := r.s[r.i]
		r.i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.fail()
	return 0
}

// count reads the length of a list, which has at least one byte per item.
func (r *claimsReader) count() int {
	n := r.uvarint()
	if n > r.left() {
		r.fail()
		return 0
	}
	return int(n)
}

// str reads a string. One shorter than 128 bytes, whose length is one
// byte, is read inline; longer ones by longStr.
func (r *claimsReader) str() string {
	if i := r.i + 1; i <= len(r.s) && r.s[i-1] < 0x80 && int(r.s[i-1]) <= len(r.s)-i {
		r.i = i + int(r.s[i-1])
		return r.s[i:r.i]
	}
	return r.longStr()
}

// longStr reads a string of any length.
func (r *claimsReader) longStr() string {
	n := r.count()
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

// byte reads a byte.
func (r *claimsReader) byte() byte {
	if r.i >= len(r.s) {
		r.fail()
		return 0
	}
	c := r.s[r.i]
	r.i++
	return c
}

// next returns the next n bytes, or "" when fewer are left.
func (r *claimsReader) next(n int) string {
	if uint64(n) > r.left() {
		r.fail()
		return ""
	}
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

// data reads the Data that appendData wrote, and returns it when build is
// set.
func (r *claimsReader) data(build bool) map[string]any {
	size := r.next(4)
	if size == "" {
		return nil
	}
	n := binary.BigEndian.Uint32([]byte(size))
	if n == 0 {
		return nil
	}
	body := r.next(int(n))
	if body == "" {
		return nil
	}
	d := claimsReader{s: body, i: 1, ok: true}
	var data map[string]any
	switch body[0] {
	case dataBinary:
		d.ok = len(body) > 1 && body[1] == valObject
		data, _ = d.value(0, build).(map[string]any)
	case dataJSON:
		data, d.ok = jsonData(body[1:])
		d.ok = d.ok && data != nil
		d.i = len(body)
	default:
		d.ok = false
	}
	if !d.ok || d.left() != 0 {
		r.ok = false
		return nil
	}
	return data
}

// jsonData decodes the JSON form of a Data; apart from data, so that
// data does not escape to the heap when a Data is in binary form.
func jsonData(s string) (map[string]any, bool) {
	var data map[string]any
	err := json.Unmarshal([]byte(s), &data)
	return data, err == nil
}

// value reads a value that appendValue wrote, at depth, and returns it
// when build is set: else it returns nil, and allocates nothing.
func (r *claimsReader) value(depth int, build bool) any {
	if depth > toolnexus.MaxDataDepth {
		r.fail()
		return nil
	}
	switch r.byte() {
	case valNull:
		return nil
	case valTrue:
		return true
	case valFalse:
		return false
	case valNumber:
		bits := r.next(8)
		if bits == "" || !build {
			return nil
		}
		return math.Float64frombits(uint64At(bits))
	case valString:
		s := r.str()
		if !build {
			return nil
		}
		return s
	case valArray:
		n := r.count()
		if !build {
			for range n {
				r.value(depth+1, false)
			}
			return nil
		}
		a := make([]any, n)
		for i := range a {
			a[i] = r.value(depth+1, true)
		}
		return a
	case valObject:
		n := r.count()
		if !build {
			for range n {
				r.str()
				r.value(depth+1, false)
			}
			return nil
		}
		m := make(map[string]any, n)
		for range n {
			k := r.str()
			m[k] = r.value(depth+1, true)
		}
		return m
	}
	r.fail()
	return nil
}
