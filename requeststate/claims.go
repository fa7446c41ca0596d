package requeststate

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ClaimStore records which request states have finished, so that
// [Sealer.Claim] lets each finish at most once. Every server that may
// receive the retry of a call must share one store: [NewMemoryClaims] for
// one process, a shared database (such as the redisclaims module's Redis
// store) for servers behind a load balancer.
//
// Single use is at most once, and as durable as the store: a claim is
// taken before the tool runs, so a call whose server crashes, or whose tool
// panics, after its claim does not finish, and its retry is refused as a
// state already used; a claim the store forgets early (a restart without
// persistence, an eviction, a failover that loses the last writes) lets a
// state finish once more.
type ClaimStore interface {
	// Claim records id, a state's ID, as claimed until until, when the
	// state cannot open on any server anymore, and reports whether id was
	// not claimed before. It reports an error when it cannot tell, and
	// is safe for concurrent use. A store that sends the claim again
	// after an error must tell its own first attempt from another claim's:
	// a first claim is never reported as claimed before.
	Claim(ctx context.Context, id string, until time.Time) (bool, error)
}

// memoryClaims is the ClaimStore of NewMemoryClaims.
type memoryClaims struct {
	mu       sync.Mutex
	until    map[string]time.Time
	capacity int       // the most claims held
	earliest time.Time // no claim held expires before
	sweep    int       // the size at which expired claims are swept next
	minSweep int       // the size below which the store is never swept
	swept    time.Time // when they were swept last
	now      func() time.Time
}

// DefaultMemoryClaims is the capacity of the store of [NewMemoryClaims]:
// the most claims it holds at once, about 120 MiB of them.
const DefaultMemoryClaims = 1 << 20

// minSweep is the size of a memory store below which it is never swept,
// and sweepEvery how often a larger one is swept, whatever its growth.
const (
	minSweep   = 1024
	sweepEvery = time.Minute
)

// NewMemoryClaims returns a ClaimStore that keeps claims in memory, for
// one process, at most [DefaultMemoryClaims] of them: see
// [NewMemoryClaimsSize].
func NewMemoryClaims() ClaimStore {
	return NewMemoryClaimsSize(DefaultMemoryClaims)
}

// NewMemoryClaimsSize returns a ClaimStore that keeps at most capacity
// claims in memory, for one process (zero or less means
// [DefaultMemoryClaims]; a claim takes about 120 bytes). A claim is kept
// until its state cannot open anymore, then forgotten within a minute, or
// sooner as claims come, and never before: a store whose capacity is held
// by claims of states that may still open refuses new claims with an
// error, and [Sealer.Claim] the call with [ErrClaimStore], rather than
// forget one and let its state finish twice. It is safe for concurrent
// use, and forgets every claim when its process ends.
func NewMemoryClaimsSize(capacity int) ClaimStore {
	m := newMemoryClaims(time.Now)
	if capacity > 0 {
		m.capacity = capacity
	}
	return m
}

// newMemoryClaims returns a memory store of DefaultMemoryClaims that reads
// the time from now.
func newMemoryClaims(now func() time.Time) *memoryClaims {
	return &memoryClaims{until: map[string]time.Time{}, capacity: DefaultMemoryClaims, sweep: minSweep, minSweep: minSweep, now: now}
}

// Claim implements [ClaimStore].
func (m *memoryClaims) Claim(_ context.Context, id string, until time.Time) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	t, held := m.until[id]
	if held && now.Before(t) {
		return false, nil
	}
	if !held && len(m.until) >= m.capacity {
		if !now.Before(m.earliest) { // a claim may have expired since the last sweep
			m.forget(now)
		}
		if len(m.until) >= m.capacity {
			return false, fmt.Errorf("toolnexus: memory claim store is full: its %d claims are of states that may still open", len(m.until))
		}
	}
	m.until[id] = until
	if len(m.until) == 1 || until.Before(m.earliest) {
		m.earliest = until
	}
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
	m.earliest = time.Time{}
	for id, t := range m.until {
		if now.Before(t) {
			live[id] = t
			if len(live) == 1 || t.Before(m.earliest) {
				m.earliest = t
			}
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
