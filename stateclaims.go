package toolnexus

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"unicode/utf8"
)

// The claims of a state, its plaintext: the issue time in Unix
// milliseconds (8 bytes), the state ID (16 random bytes in URL-safe base64,
// 22 bytes), the arguments digest (32 bytes), then as strings (a uvarint
// length and the bytes) the tool, the audience and the principal, then the
// requests and the answers, each list a uvarint count and its items: a
// Request as its ID, Kind, Prompt, URL, ExpiresAt and its Data (see
// appendData); an Answer as its ID, a byte for OK, its Reason and its
// Data. The header holds the expiry; the prefix and the header are the
// associated data.

// claims are the fields of a state's plaintext; every string is a part of
// one string made from the plaintext.
type claims struct {
	issuedAt                  int64
	id                        string
	digest                    string
	tool, audience, principal string
	state                     string // the requests and the answers
}

// readClaims splits the plaintext of a state into its claims.
func readClaims(plain string) (claims, bool) {
	if len(plain) < claimsFixed {
		return claims{}, false
	}
	c := claims{
		issuedAt: int64(binary.BigEndian.Uint64([]byte(plain[:8]))),
		id:       plain[8 : 8+stateIDLen],
		digest:   plain[8+stateIDLen : claimsFixed],
	}
	r := claimsReader{s: plain[claimsFixed:], ok: true}
	c.tool, c.audience, c.principal = r.str(), r.str(), r.str()
	c.state = r.s
	return c, r.ok
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
	return n
}

// appendState appends st's requests and answers to b.
func appendState(b []byte, st State) ([]byte, error) {
	var err error
	b = binary.AppendUvarint(b, uint64(len(st.Requests)))
	for _, r := range st.Requests {
		for _, f := range [...]string{r.ID, r.Kind, r.Prompt, r.URL, r.ExpiresAt} {
			b = appendString(b, f)
		}
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
	return b, nil
}

// readState reads the requests and answers that appendState wrote.
func readState(s string) ([]Request, Answers, bool) {
	r := claimsReader{s: s, ok: true}
	reqs := make([]Request, r.count())
	for i := range reqs {
		reqs[i] = Request{ID: r.str(), Kind: r.str(), Prompt: r.str(), URL: r.str(), ExpiresAt: r.str(), Data: r.data()}
	}
	var answers Answers
	if n := r.count(); n > 0 {
		answers = make(Answers, n)
		for i := range answers {
			answers[i] = Answer{ID: r.str(), OK: r.byte() == 1, Reason: r.str(), Data: r.data()}
		}
	}
	return reqs, answers, r.ok && r.s == "" && len(reqs) > 0
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
	out, ok := appendValue(append(b, dataBinary), data)
	if !ok {
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

// appendValue appends v in binary form, and reports false when v holds a
// value that JSON would not give back as it is: a Go type JSON does not
// decode to, a nil slice or map, a string that is not UTF-8, a number that
// is not finite.
func appendValue(b []byte, v any) ([]byte, bool) {
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
		return appendString(append(b, valString), v), utf8.ValidString(v)
	case []any:
		if v == nil {
			return b, false
		}
		b = binary.AppendUvarint(append(b, valArray), uint64(len(v)))
		for _, e := range v {
			var ok bool
			if b, ok = appendValue(b, e); !ok {
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
			if !utf8.ValidString(k) {
				return b, false
			}
			var ok bool
			if b, ok = appendValue(appendString(b, k), e); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

// appendString appends s to b behind its length.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// boolByte returns 1 for true and 0 for false.
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// claimsReader reads the claims that the append functions wrote; ok turns
// false at the first read past the end, and stays false.
type claimsReader struct {
	s  string
	ok bool
}

// uvarint reads a uvarint.
func (r *claimsReader) uvarint() uint64 {
	var n uint64
	for shift := 0; shift < 64 && len(r.s) > 0; shift += 7 {
		c := r.s[0]
		r.s = r.s[1:]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.ok, r.s = false, ""
	return 0
}

// count reads the length of a list, which has at least one byte per item.
func (r *claimsReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.ok, r.s = false, ""
		return 0
	}
	return int(n)
}

// str reads a string.
func (r *claimsReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.ok, r.s = false, ""
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// byte reads a byte.
func (r *claimsReader) byte() byte {
	if r.s == "" {
		r.ok = false
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// data reads the Data that appendData wrote.
func (r *claimsReader) data() map[string]any {
	if len(r.s) < 4 {
		r.ok, r.s = false, ""
		return nil
	}
	n := binary.BigEndian.Uint32([]byte(r.s[:4]))
	r.s = r.s[4:]
	if n == 0 {
		return nil
	}
	if uint64(n) > uint64(len(r.s)) {
		r.ok, r.s = false, ""
		return nil
	}
	d := claimsReader{s: r.s[1:n], ok: true}
	tag := r.s[0]
	r.s = r.s[n:]
	var data map[string]any
	switch tag {
	case dataBinary:
		data, _ = d.value(0).(map[string]any)
	case dataJSON:
		d.ok = json.Unmarshal([]byte(d.s), &data) == nil
		d.s = ""
	}
	if !d.ok || d.s != "" || data == nil {
		r.ok = false
		return nil
	}
	return data
}

// maxValueDepth bounds the nesting of a Data's binary form.
const maxValueDepth = 10000

// value reads a value that appendValue wrote, at depth.
func (r *claimsReader) value(depth int) any {
	if depth > maxValueDepth {
		r.ok, r.s = false, ""
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
		if len(r.s) < 8 {
			r.ok, r.s = false, ""
			return nil
		}
		f := math.Float64frombits(binary.BigEndian.Uint64([]byte(r.s[:8])))
		r.s = r.s[8:]
		return f
	case valString:
		return r.str()
	case valArray:
		a := make([]any, r.count())
		for i := range a {
			a[i] = r.value(depth + 1)
		}
		return a
	case valObject:
		n := r.count()
		m := make(map[string]any, n)
		for range n {
			k := r.str()
			m[k] = r.value(depth + 1)
		}
		return m
	}
	r.ok, r.s = false, ""
	return nil
}
