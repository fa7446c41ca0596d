package toolnexus

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
)

// The claims of a state, its plaintext: the issue time in Unix
// milliseconds (8 bytes), the random state ID (16 bytes), the arguments
// digest (32 bytes), then as strings (a uvarint length and the bytes) the
// tool, the audience and the principal, then the requests and the answers,
// each list a uvarint count and its items: a Request as its ID, Kind,
// Prompt, URL, ExpiresAt and the JSON of its Data (empty for none); an
// Answer as its ID, a byte for OK, its Reason and the JSON of its Data.
// The header holds the expiry; the prefix and the header are the
// associated data.

// claims are the fields of a state's plaintext; every string is a part of
// one string made from the plaintext.
type claims struct {
	issuedAt                  int64
	id                        string // in URL-safe base64
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
		id:       base64.RawURLEncoding.EncodeToString([]byte(plain[8 : 8+stateIDLen])),
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
func readState(s string) ([]Request, []Answer, bool) {
	r := claimsReader{s: s, ok: true}
	reqs := make([]Request, r.count())
	for i := range reqs {
		reqs[i] = Request{ID: r.str(), Kind: r.str(), Prompt: r.str(), URL: r.str(), ExpiresAt: r.str(), Data: r.data()}
	}
	var answers []Answer
	if n := r.count(); n > 0 {
		answers = make([]Answer, n)
		for i := range answers {
			answers[i] = Answer{ID: r.str(), OK: r.byte() == 1, Reason: r.str(), Data: r.data()}
		}
	}
	return reqs, answers, r.ok && r.s == "" && len(reqs) > 0
}

// appendData appends the JSON of data, or nothing for empty data, as a
// string.
func appendData(b []byte, data map[string]any) ([]byte, error) {
	if len(data) == 0 {
		return append(b, 0), nil
	}
	j, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return appendString(b, string(j)), nil
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

// data reads the JSON of a Request's or Answer's Data.
func (r *claimsReader) data() map[string]any {
	j := r.str()
	if j == "" {
		return nil
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(j), &data); err != nil || data == nil {
		r.ok = false
	}
	return data
}
