package toolnexus

import (
	"context"
	"sync"
	"time"
)

// ClaimStore records which request states have finished, so that
// [Sealer.Claim] lets each finish at most once. Every server that may
// receive the retry of a call must share one store: [NewMemoryClaims] for
// one process, a shared database (such as the redisclaims module's Redis
// store) for servers behind a load balancer.
type ClaimStore interface {
	// Claim records id, a state's ID, as claimed until until, when the
	// state expires and cannot open anymore, and reports whether id was
	// not claimed before. It reports an error when it cannot tell, and
	// is safe for concurrent use.
	Claim(ctx context.Context, id string, until time.Time) (bool, error)
}

// memoryClaims is the ClaimStore of NewMemoryClaims.
type memoryClaims struct {
	mu       sync.Mutex
	until    map[string]time.Time
	sweep    int       // the size at which expired claims are swept next
	minSweep int       // the size below which the store is never swept
	swept    time.Time // when they were swept last
	now      func() time.Time
}

// minSweep is the size of a memory store below which it is never swept,
// and sweepEvery how often a larger one is swept, whatever its growth.
const (
	minSweep   = 1024
	sweepEvery = time.Minute
)

// NewMemoryClaims returns a ClaimStore that keeps claims in memory, for
// one process: a claim is kept until its state expires, then forgotten
// within a minute, or sooner as claims come: the store holds at most about
// twice the claims of the states that may still open. It is safe for
// concurrent use; it never fails.
func NewMemoryClaims() ClaimStore {
	return newMemoryClaims(time.Now)
}

// newMemoryClaims returns a memory store that reads the time from now.
func newMemoryClaims(now func() time.Time) *memoryClaims {
	return &memoryClaims{until: map[string]time.Time{}, sweep: minSweep, minSweep: minSweep, now: now}
}

// Claim implements [ClaimStore].
func (m *memoryClaims) Claim(_ context.Context, id string, until time.Time) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.until[id]; ok && now.Before(t) {
		return false, nil
	}
	m.until[id] = until
	if len(m.until) >= m.sweep || len(m.until) > m.minSweep && now.Sub(m.swept) >= sweepEvery {
		m.forget(now)
	}
	return true, nil
}

// forget drops the claims that have expired at now and sets the next
// sweep at twice the claims left: each sweep is paid for by as many claims
// as it looks at, or by a minute.
func (m *memoryClaims) forget(now time.Time) {
	live := make(map[string]time.Time, len(m.until)/2)
	for id, t := range m.until {
		if now.Before(t) {
			live[id] = t
		}
	}
	m.until = live // a new map: a map's memory does not shrink as it empties
	m.sweep = max(2*len(live), m.minSweep)
	m.swept = now
}

// len returns the number of claims held.
func (m *memoryClaims) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.until)
}
