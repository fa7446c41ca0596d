// Package claims is the module's in-memory store of claims: the default
// store of package park, which lets each parking of a tool call be
// answered once and keeps the result of its one run for a retry. Users of
// the module never name it; park.NewMemoryStore returns one.
package claims

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The default bounds of a [Memory] given none: the most records it holds
// at once, and the most bytes of records.
const (
	DefaultCapacity = 1 << 20
	DefaultBytes    = 256 << 20
)

// minSweep is the size of a memory store below which it is never swept,
// and sweepEvery how often a larger one is swept, whatever its growth.
const (
	minSweep   = 1024
	sweepEvery = time.Minute
)

// entryOverhead is what a record costs besides its key and bytes, counted
// against the byte bound.
const entryOverhead = 64

// entry is one record and until when it is kept; the zero until keeps it
// for as long as the process runs.
type entry struct {
	rec   []byte
	until time.Time
}

// Memory keeps records in memory, for one process: each until the time it
// was stored until, then forgotten within a minute, or sooner as records
// come, and never before. It is safe for concurrent use.
type Memory struct {
	mu       sync.Mutex
	entries  map[string]entry
	capacity int       // the most records held
	maxBytes int       // the most bytes held
	bytes    int       // the bytes held
	earliest time.Time // no record held with an until expires before
	sweep    int       // the size at which expired records are swept next
	minSweep int       // the size below which the store is never swept
	swept    time.Time // when they were swept last
	now      func() time.Time
}

// NewMemory returns a Memory of at most capacity records and maxBytes
// bytes of them (zero or less means [DefaultCapacity] and
// [DefaultBytes]), which reads the time from now (nil means time.Now).
func NewMemory(capacity, maxBytes int, now func() time.Time) *Memory {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	if maxBytes <= 0 {
		maxBytes = DefaultBytes
	}
	if now == nil {
		now = time.Now
	}
	return &Memory{entries: map[string]entry{}, capacity: capacity, maxBytes: maxBytes, sweep: minSweep, minSweep: minSweep, now: now}
}

// SetSweep makes m sweep its expired records from the size sweep on, for
// the tests that watch it forget them.
func (m *Memory) SetSweep(sweep int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep, m.minSweep = sweep, sweep
}

// Claim stores rec under key until until (the zero time: as long as the
// process runs) when m holds nothing live under key, and returns nil;
// otherwise it returns a copy of what m holds, and stores nothing. A store
// whose bounds are held by live records refuses a new one with an error,
// rather than forget one and let it be claimed twice.
func (m *Memory) Claim(_ context.Context, key string, rec []byte, until time.Time) ([]byte, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	old, held := m.entries[key]
	if held && live(old, now) {
		return slices.Clone(old.rec), nil
	}
	if err := m.putOver(key, rec, until, now, old, held); err != nil {
		return nil, err
	}
	return nil, nil
}

// Finish replaces what m holds under key with rec, until until, whether
// or not m holds anything under key.
func (m *Memory) Finish(_ context.Context, key string, rec []byte, until time.Time) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.put(key, rec, until, now)
}

// live reports whether e has not expired at now.
func live(e entry, now time.Time) bool {
	return e.until.IsZero() || now.Before(e.until)
}

// put stores rec under key until until, within m's bounds.
func (m *Memory) put(key string, rec []byte, until time.Time, now time.Time) error {
	old, held := m.entries[key]
	return m.putOver(key, rec, until, now, old, held)
}

// putOver is put, given what m holds under key, if it holds anything.
func (m *Memory) putOver(key string, rec []byte, until time.Time, now time.Time, old entry, held bool) error {
	size := len(key) + len(rec) + entryOverhead
	freed := 0
	if held {
		freed = len(key) + len(old.rec) + entryOverhead
	}
	if !held && len(m.entries) >= m.capacity || m.bytes-freed+size > m.maxBytes {
		if !now.Before(m.earliest) { // a record may have expired since the last sweep
			m.forget(now)
			old, held = m.entries[key]
			freed = 0
			if held {
				freed = len(key) + len(old.rec) + entryOverhead
			}
		}
		if !held && len(m.entries) >= m.capacity {
			return fmt.Errorf("toolnexus: memory claim store is full: it holds %d live claims, its capacity", len(m.entries))
		}
		if m.bytes-freed+size > m.maxBytes {
			return fmt.Errorf("toolnexus: memory claim store is full: a record of %d bytes would pass its %d bytes", len(rec), m.maxBytes)
		}
	}
	m.entries[key] = entry{rec: slices.Clone(rec), until: until}
	m.bytes += size - freed
	if !until.IsZero() && (m.earliest.IsZero() || until.Before(m.earliest)) {
		m.earliest = until
	}
	if len(m.entries) >= m.sweep || len(m.entries) > m.minSweep && now.Sub(m.swept) >= sweepEvery {
		m.forget(now)
	}
	return nil
}

// forget drops the records that have expired at now and sets the next
// sweep at twice the records left: each sweep is paid for by as many
// records as it looks at, or by a minute. When at least half of the
// records expired, the rest move to a new map, since a map's memory does
// not shrink as it empties; otherwise the expired ones are deleted in
// place, and a sweep that finds none writes nothing.
func (m *Memory) forget(now time.Time) {
	expired := 0
	for _, e := range m.entries {
		if !live(e, now) {
			expired++
		}
	}
	if expired > 0 {
		if 2*expired >= len(m.entries) {
			m.entries = liveOf(m.entries, now, len(m.entries)-expired)
		} else {
			for key, e := range m.entries {
				if !live(e, now) {
					delete(m.entries, key)
				}
			}
		}
	}
	m.earliest, m.bytes = time.Time{}, 0
	for key, e := range m.entries {
		m.bytes += len(key) + len(e.rec) + entryOverhead
		if !e.until.IsZero() && (m.earliest.IsZero() || e.until.Before(m.earliest)) {
			m.earliest = e.until
		}
	}
	m.sweep = max(2*len(m.entries), m.minSweep)
	m.swept = now
}

// liveOf returns a new map of the n records of entries that have not
// expired at now.
func liveOf(entries map[string]entry, now time.Time, n int) map[string]entry {
	kept := make(map[string]entry, n)
	for key, e := range entries {
		if live(e, now) {
			kept[key] = e
		}
	}
	return kept
}

// Len returns the number of records held.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
