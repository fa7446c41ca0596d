package claims_test

import (
	"context"
	"fmt"
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

func TestMemoryClaim(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, c.Now, "tests")
	claim := func(id string, until time.Time) bool {
		t.Helper()
		fresh, err := m.Claim(context.Background(), id, until)
		require.NoError(t, err)
		return fresh
	}
	assert.True(t, claim("a", start.Add(time.Minute)))
	assert.False(t, claim("a", start.Add(time.Minute)), "a second claim")
	assert.False(t, claim("a", start.Add(time.Hour)), "a second claim, later expiry")
	assert.True(t, claim("b", start.Add(time.Minute)), "another id")
	c.Add(time.Minute - time.Nanosecond)
	assert.False(t, claim("a", start.Add(2*time.Minute)), "just before the claim's time")
	c.Add(time.Nanosecond)
	assert.True(t, claim("a", start.Add(2*time.Minute)), "once its time has passed, the claim is forgotten")
	assert.False(t, claim("a", start.Add(2*time.Minute)))
	assert.Equal(t, 2, m.Len())
}

// TestMemoryBounded claims many ids that expire: the store forgets them,
// and holds at most about twice the claims still live.
func TestMemoryBounded(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(0, c.Now, "tests")
	m.SetSweep(16)
	for i := range 10000 {
		fresh, err := m.Claim(context.Background(), fmt.Sprint("s", i), c.Now().Add(time.Second))
		require.NoError(t, err)
		require.True(t, fresh)
		c.Add(time.Millisecond) // 1000 claims live at any time
		require.LessOrEqual(t, m.Len(), 2*min(i+1, 1000)+16, "claim %d", i)
	}
	c.Add(time.Hour)
	fresh, err := m.Claim(context.Background(), "last", c.Now().Add(time.Second))
	require.NoError(t, err)
	require.True(t, fresh)
	assert.Equal(t, 1, m.Len(), "the expired claims are forgotten")
}

// TestMemoryCapacity fills a store of 100 claims: a new claim is refused
// while all 100 are live, never by forgetting one, and taken once one of
// them has expired.
func TestMemoryCapacity(t *testing.T) {
	t.Parallel()
	c := &clock{now: start}
	m := claims.NewMemory(100, c.Now, "approvals that may still be used")
	ctx := context.Background()
	for i := range 100 {
		fresh, err := m.Claim(ctx, fmt.Sprint("s", i), start.Add(time.Duration(i+1)*time.Minute))
		require.NoError(t, err)
		require.True(t, fresh)
	}
	for range 3 {
		fresh, err := m.Claim(ctx, "one more", start.Add(time.Hour))
		require.EqualError(t, err, "toolnexus: memory claim store is full: its 100 claims are of approvals that may still be used")
		assert.False(t, fresh)
	}
	for i := range 100 {
		fresh, err := m.Claim(ctx, fmt.Sprint("s", i), start.Add(time.Hour))
		require.NoError(t, err, "a full store still tells a replay")
		assert.False(t, fresh, "s%d is still claimed", i)
	}
	c.Add(time.Minute) // s0 has expired
	fresh, err := m.Claim(ctx, "one more", start.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, fresh)
	assert.Equal(t, 100, m.Len())
	_, err = m.Claim(ctx, "and another", start.Add(time.Hour))
	require.Error(t, err, "s1 expires a minute later")
}

func TestMemoryDefaults(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(-1, nil, "tests")
	fresh, err := m.Claim(context.Background(), "a", time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, fresh, "a nil clock is time.Now, a capacity of -1 DefaultCapacity")
	assert.Equal(t, 1<<20, claims.DefaultCapacity)
}

// TestMemoryConcurrent claims the same ids from many goroutines: each is
// claimed exactly once.
func TestMemoryConcurrent(t *testing.T) {
	t.Parallel()
	m := claims.NewMemory(0, nil, "tests")
	const ids, workers = 50, 8
	var won [ids]atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				fresh, err := m.Claim(context.Background(), fmt.Sprint("id-", i), time.Now().Add(time.Minute))
				if err == nil && fresh {
					won[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		assert.Equal(t, int32(1), won[i].Load(), "id %d", i)
	}
}
