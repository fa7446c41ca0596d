// Package claims is the module's in-memory store of single-use claims: the
// store of requeststate.NewMemoryClaims, which lets a request state finish
// once, and the default store of the root's Gate, which lets an approval
// run its tool once. Users of the module never name it.
package claims

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultCapacity is the most claims a [Memory] holds at once when it is
// given no capacity, about 120 MiB of them.
const DefaultCapacity = 1 << 20

// minSweep is the size of a memory store below which it is never swept,
// and sweepEvery how often a larger one is swept, whatever its growth.
const (
	minSweep   = 1024
	sweepEvery = time.Minute
)

// Memory keeps claims in memory, for one process: each until the time it
// was claimed until, then forgotten within a minute, or sooner as claims
// come, and never before. It is safe for concurrent use.
type Memory struct {
	mu       sync.Mutex
	until    map[string]time.Time
	capacity int       // the most claims held
	earliest time.Time // no claim held expires before
	sweep    int       // the size at which expired claims are swept next
	minSweep int       // the size below which the store is never swept
	swept    time.Time // when they were swept last
	now      func() time.Time
	of       string // what the claims are of, for the error of a full store
}

// NewMemory returns a Memory of capacity claims (zero or less means
// [DefaultCapacity]) that reads the time from now (nil means time.Now).
// of says what its claims are of, such as "states that may still open",
// in the error of a full store.
func NewMemory(capacity int, now func() time.Time, of string) *Memory {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	if now == nil {
		now = time.Now
	}
	return &Memory{until: map[string]time.Time{}, capacity: capacity, sweep: minSweep, minSweep: minSweep, now: now, of: of}
}

// SetSweep makes m sweep its expired claims from the size sweep on, for
// the tests that watch it forget them.
func (m *Memory) SetSweep(sweep int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep, m.minSweep = sweep, sweep
}

// Claim records id as claimed until until, and reports whether id was not
// claimed before: a claim whose time has passed is forgotten. A store whose
// capacity is held by claims that have not expired refuses a new one with
// an error, rather than forget one and let it be claimed twice.
func (m *Memory) Claim(_ context.Context, id string, until time.Time) (bool, error) {
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
			return false, fmt.Errorf("toolnexus: memory claim store is full: its %d claims are of %s", len(m.until), m.of)
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
func (m *Memory) forget(now time.Time) {
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

// Len returns the number of claims held.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.until)
}
