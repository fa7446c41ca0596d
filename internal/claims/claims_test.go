package claims_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/claims"
)

var start = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// clock is a time that a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// claim claims key for rec until until in m and returns what m held.
func claim(t *testing.T, m *claims.Memory, key, rec string, until time.Time) string {
	t.Helper()
	held, err := m.Claim(context.Background(), key, []byte(rec), until)
	require.NoError(t, err)
	return string(held)
}

func TestMemoryClaim(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 0, c.Now)
	assert.Empty(t, claim(t, m, "a", "first", start.Add(time.Minute)), "a new claim holds nothing")
	assert.Equal(t, "first", claim(t, m, "a", "second", start.Add(time.Minute)), "a second claim gets the record held")
	assert.Equal(t, "first", claim(t, m, "a", "third", start.Add(time.Hour)), "and stores nothing, whatever its time")
	assert.Empty(t, claim(t, m, "b", "other", start.Add(time.Minute)), "another key")
	c.Add(time.Minute - time.Nanosecond)
	assert.Equal(t, "first", claim(t, m, "a", "late", start.Add(2*time.Minute)), "just before the record's time")
	c.Add(time.Nanosecond)
	assert.Empty(t, claim(t, m, "a", "new", start.Add(2*time.Minute)), "once its time has passed, the record is forgotten")
	assert.Equal(t, "new", claim(t, m, "a", "again", start.Add(2*time.Minute)))
	assert.Equal(t, 2, m.Len())
}

// TestMemoryForever keeps a record with the zero until for as long as the
// store lasts, through sweeps.
func TestMemoryForever(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 0, c.Now)
	m.SetSweep(4)
	assert.Empty(t, claim(t, m, "forever", "kept", time.Time{}))
	for i := range 20 {
		claim(t, m, fmt.Sprint("s", i), "gone", c.Now().Add(time.Second))
		c.Add(time.Hour)
	}
	c.Add(100 * 365 * 24 * time.Hour)
	claim(t, m, "last", "x", time.Time{})
	assert.Equal(t, "kept", claim(t, m, "forever", "other", time.Time{}))
	assert.Equal(t, 2, m.Len(), "the expired records are swept, the ones kept forever are not")
}

func TestMemoryFinish(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 0, c.Now)
	ctx := context.Background()
	assert.Empty(t, claim(t, m, "a", "running", start.Add(time.Minute)))
	require.NoError(t, m.Finish(ctx, "a", []byte("done"), start.Add(time.Hour)))
	assert.Equal(t, "done", claim(t, m, "a", "again", start.Add(time.Hour)), "Finish replaces the record")
	require.NoError(t, m.Finish(ctx, "a", []byte("done"), start.Add(time.Hour)), "and may be sent again")
	assert.Equal(t, 1, m.Len())

	c.Add(time.Minute)
	assert.Equal(t, "done", claim(t, m, "a", "again", start.Add(time.Hour)), "with its own until")

	require.NoError(t, m.Finish(ctx, "b", []byte("unclaimed"), start.Add(time.Hour)), "a key never claimed")
	assert.Equal(t, "unclaimed", claim(t, m, "b", "x", start.Add(time.Hour)))
}

// TestMemoryCopies checks that the store keeps its own copy of a record,
// and hands out copies.
func TestMemoryCopies(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(0, 0, nil)
	ctx := context.Background()
	rec := []byte("record")
	_, err := m.Claim(ctx, "a", rec, time.Time{})
	require.NoError(t, err)
	rec[0] = 'X'
	held, err := m.Claim(ctx, "a", []byte("other"), time.Time{})
	require.NoError(t, err)
	assert.Equal(t, "record", string(held))
	held[0] = 'Y'
	assert.Equal(t, "record", claim(t, m, "a", "other", time.Time{}))
}

// TestMemoryBounded claims many keys that expire: the store forgets them,
// and holds at most about twice the records still live.
func TestMemoryBounded(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 0, c.Now)
	m.SetSweep(16)
	for i := range 10000 {
		require.Empty(t, claim(t, m, fmt.Sprint("s", i), "r", c.Now().Add(time.Second)))
		c.Add(time.Millisecond) // 1000 records live at any time
		require.LessOrEqual(t, m.Len(), 2*min(i+1, 1000)+16, "claim %d", i)
	}
	c.Add(time.Hour)
	require.Empty(t, claim(t, m, "last", "r", c.Now().Add(time.Second)))
	assert.Equal(t, 1, m.Len(), "the expired records are forgotten")
}

// TestMemorySweepsEveryMinute checks that a store above its least size to
// sweep forgets its expired records once a minute, however slowly it
// grows.
func TestMemorySweepsEveryMinute(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 0, c.Now)
	m.SetSweep(8)
	for i := range 9 {
		claim(t, m, fmt.Sprint("s", i), "r", start.Add(time.Second))
	}
	assert.Equal(t, 9, m.Len(), "none had expired at the sweep")
	c.Add(30 * time.Second)
	claim(t, m, "x", "r", time.Time{})
	assert.Equal(t, 10, m.Len(), "the next sweep is at 18, or a minute after the last")
	c.Add(30 * time.Second)
	claim(t, m, "y", "r", time.Time{})
	assert.Equal(t, 2, m.Len(), "a minute after the last sweep")
}

// TestMemoryCapacity fills a store of 100 records: a new claim is refused
// while all 100 are live, never by forgetting one, and taken once one of
// them has expired.
func TestMemoryCapacity(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(100, 0, c.Now)
	ctx := context.Background()
	for i := range 100 {
		require.Empty(t, claim(t, m, fmt.Sprint("s", i), "r", start.Add(time.Duration(i+1)*time.Minute)))
	}
	for range 3 {
		held, err := m.Claim(ctx, "one more", []byte("r"), start.Add(time.Hour))
		require.EqualError(t, err, "toolnexus: memory claim store is full: it holds 100 live claims, its capacity")
		assert.Nil(t, held)
	}
	for i := range 100 {
		assert.Equal(t, "r", claim(t, m, fmt.Sprint("s", i), "other", start.Add(time.Hour)), "a full store still tells a replay: s%d", i)
	}
	require.NoError(t, m.Finish(ctx, "s5", []byte("done"), start.Add(time.Hour)), "a full store still finishes a claim it holds")
	c.Add(time.Minute) // s0 has expired
	assert.Empty(t, claim(t, m, "one more", "r", start.Add(time.Hour)))
	assert.Equal(t, 100, m.Len())
	_, err := m.Claim(ctx, "and another", []byte("r"), start.Add(time.Hour))
	require.Error(t, err, "s1 expires a minute later")
}

// TestMemoryBytes fills a store of 400 bytes: a record counts its key,
// its bytes and 64 more.
func TestMemoryBytes(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(0, 400, nil)
	ctx := context.Background()
	rec := strings.Repeat("r", 100)
	assert.Empty(t, claim(t, m, "a", rec, time.Time{}))      // 165 bytes
	assert.Empty(t, claim(t, m, "b", rec, time.Time{}))      // 330 bytes
	held, err := m.Claim(ctx, "c", []byte("r"), time.Time{}) // 66 bytes more: 396
	require.NoError(t, err)
	assert.Nil(t, held)
	_, err = m.Claim(ctx, "d", []byte("rr"), time.Time{}) // 67 bytes more: 463
	require.EqualError(t, err, "toolnexus: memory claim store is full: a record of 2 bytes would pass its 400 bytes")
	assert.Equal(t, rec, claim(t, m, "a", "x", time.Time{}), "a full store still tells a replay")

	// Finish counts what it replaces.
	require.NoError(t, m.Finish(ctx, "c", []byte("rrrr"), time.Time{}), "399 bytes")
	err = m.Finish(ctx, "c", []byte("rrrrrr"), time.Time{})
	require.EqualError(t, err, "toolnexus: memory claim store is full: a record of 6 bytes would pass its 400 bytes")
	assert.Equal(t, "rrrr", claim(t, m, "c", "x", time.Time{}), "a refused Finish keeps the record")
	require.NoError(t, m.Finish(ctx, "a", []byte("short"), time.Time{}), "a smaller record frees bytes")
	assert.Empty(t, claim(t, m, "d", "rr", time.Time{}))

	// A record larger than the store never fits.
	_, err = claims.NewMemory(0, 100, nil).Claim(ctx, "k", []byte(strings.Repeat("r", 40)), time.Time{})
	require.EqualError(t, err, "toolnexus: memory claim store is full: a record of 40 bytes would pass its 100 bytes")
}

// TestMemoryBytesFreedByExpiry checks that the bytes of expired records
// are given back to a new claim.
func TestMemoryBytesFreedByExpiry(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, 200, c.Now)
	rec := strings.Repeat("r", 100)
	assert.Empty(t, claim(t, m, "a", rec, start.Add(time.Minute)))
	_, err := m.Claim(context.Background(), "b", []byte(rec), start.Add(time.Minute))
	require.Error(t, err)
	c.Add(time.Minute)
	assert.Empty(t, claim(t, m, "b", rec, start.Add(2*time.Minute)))
	assert.Equal(t, 1, m.Len())
}

func TestMemoryDefaults(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(-1, -1, nil)
	assert.Empty(t, claim(t, m, "a", "r", time.Now().Add(time.Minute)), "a nil clock is time.Now, bounds of -1 the defaults")
	assert.Equal(t, "r", claim(t, m, "a", "x", time.Now().Add(time.Minute)))
	assert.Equal(t, 1<<20, claims.DefaultCapacity)
	assert.Equal(t, 256<<20, claims.DefaultBytes)
}

// TestMemoryConcurrent claims the same keys from many goroutines, and
// finishes the claims won: each key is claimed exactly once, and a later
// claim gets the record the winner finished with or its claim.
func TestMemoryConcurrent(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(0, 0, nil)
	ctx := context.Background()
	const keys, workers = 50, 8
	var won [keys]atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				key := fmt.Sprint("key-", i)
				held, err := m.Claim(ctx, key, []byte(fmt.Sprint("run-", w)), time.Now().Add(time.Minute))
				if err != nil {
					continue
				}
				if held == nil {
					won[i].Add(1)
					_ = m.Finish(ctx, key, []byte(fmt.Sprint("done-", w)), time.Now().Add(time.Minute))
					continue
				}
				if !strings.HasPrefix(string(held), "run-") && !strings.HasPrefix(string(held), "done-") {
					t.Errorf("key %d holds %q", i, held)
				}
			}
		}()
	}
	wg.Wait()
	for i := range keys {
		assert.Equal(t, int32(1), won[i].Load(), "key %d", i)
		assert.True(t, strings.HasPrefix(claim(t, m, fmt.Sprint("key-", i), "x", time.Now().Add(time.Minute)), "done-"))
	}
	assert.Equal(t, keys, m.Len())
}

// TestMemorySweepsFewInPlace checks a sweep that finds only a few records
// expired, which it deletes in place: the live ones are kept, and the
// bytes of the expired ones are given back.
func TestMemorySweepsFewInPlace(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	// Each record is a one-byte key, one byte and the overhead: 66 bytes.
	m := claims.NewMemory(0, 10*66, c.Now)
	m.SetSweep(10)
	for i := range 2 {
		assert.Empty(t, claim(t, m, fmt.Sprint(i), "x", start.Add(time.Second)))
	}
	for i := 2; i < 9; i++ {
		assert.Empty(t, claim(t, m, fmt.Sprint(i), "x", time.Time{}))
	}
	c.Add(time.Hour)
	assert.Empty(t, claim(t, m, "9", "x", time.Time{}))
	assert.Equal(t, 8, m.Len(), "the sweep at 10 records deletes the 2 expired ones")
	for i := 2; i < 10; i++ {
		assert.Equal(t, "x", claim(t, m, fmt.Sprint(i), "y", time.Time{}), "record %d is kept", i)
	}
	assert.Empty(t, claim(t, m, "a", "x", time.Time{}))
	assert.Empty(t, claim(t, m, "b", "x", time.Time{}), "the bytes of the expired records are free again")
	_, err := m.Claim(context.Background(), "c", []byte("x"), time.Time{})
	require.EqualError(t, err, "toolnexus: memory claim store is full: a record of 1 bytes would pass its 660 bytes")
}
