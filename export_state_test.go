package toolnexus

import "time"

// The internals of the sealer that the external tests need.

// NewMemoryClaimsAt returns a memory claim store that reads the time from
// now and sweeps its expired claims from the size sweep on, and a function
// that reports how many claims it holds.
func NewMemoryClaimsAt(now func() time.Time, sweep int) (ClaimStore, func() int) {
	m := newMemoryClaims(now)
	m.sweep, m.minSweep = sweep, sweep
	return m, m.len
}

// StatePlaintext returns the plaintext that s seals for call and st at
// now, for the benchmark of a bare AES-GCM seal of the same bytes.
func StatePlaintext(s *Sealer, call StateCall, st State, now time.Time) ([]byte, error) {
	state, err := s.Seal(call, st, now)
	if err != nil {
		return nil, err
	}
	buf, err := decodeState(state)
	if err != nil {
		return nil, err
	}
	k := s.key(buf[len(statePrefix) : len(statePrefix)+keyIDLen])
	return k.aead.Open(nil, nil, buf[aadLen:], buf[:aadLen])
}

// ArgsDigest returns the digest of args that a state binds.
func ArgsDigest(args []byte) ([]byte, error) {
	d, err := argsDigest(args)
	if err != nil {
		return nil, err
	}
	return d[:], nil
}

// CanonicalArgs returns the canonical form of args that the parser writes,
// and false when it leaves args to encoding/json.
func CanonicalArgs(args []byte) ([]byte, bool) {
	c := canonicalizer{}
	ok := c.args(args)
	return c.out, ok
}

// CanonicalValue returns the canonical form of the value encoding/json
// decodes from args.
func CanonicalValue(args []byte) ([]byte, error) {
	v, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	return canonicalValue(nil, v), nil
}

// ReadPlaintext reads plain as Open reads the plaintext of a state once
// it is authenticated, and reports whether it is well formed.
func ReadPlaintext(plain []byte) bool {
	c, ok := readClaims(string(plain))
	if !ok {
		return false
	}
	_, _, ok = readState(c.state)
	return ok
}
