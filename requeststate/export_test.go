package requeststate

import (
	"bytes"
	"time"
)

// The internals of the package that its external tests need.

// StatePlaintext returns the plaintext and the associated data that s
// seals for call and st at now, for the benchmark of a bare AES-GCM seal
// of the same bytes.
func StatePlaintext(s *Sealer, call Call, st State, now time.Time) (plain, aad []byte, err error) {
	state, err := s.Seal(call, st, now)
	if err != nil {
		return nil, nil, err
	}
	buf, err := decodeState(state)
	if err != nil {
		return nil, nil, err
	}
	k := s.key(buf[len(statePrefix) : len(statePrefix)+keyIDLen])
	aad = bytes.Clone(buf[:aadLen])
	plain, err = k.aead.Open(nil, nil, buf[aadLen:], aad)
	return plain, aad, err
}

// ReadPlaintext reads plain as Open and Opened read the plaintext of
// a state once it is authenticated, and reports whether it holds claims,
// at least one request, the answers and an opaque value if any, and
// nothing more.
func ReadPlaintext(plain []byte) bool {
	var c claims
	if !readClaims(plain, &c) {
		return false
	}
	r := claimsReader{s: string(c.state), ok: true}
	n := len(r.requests(true))
	r.answers(true)
	r.opaque()
	return r.ok && r.left() == 0 && n > 0
}
