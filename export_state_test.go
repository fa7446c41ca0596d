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
	raw, k, err := s.decode(state)
	if err != nil {
		return nil, err
	}
	aad := append([]byte(statePrefix), raw[:headerLen]...)
	return k.aead.Open(nil, nil, raw[headerLen:], aad)
}
