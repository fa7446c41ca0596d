package requeststate_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// Every ClaimStore of this package is one of the root's Gate too: a
// service can share one store between its request states and its
// approvals.
var (
	_ toolnexus.ClaimStore = requeststate.ClaimStore(nil)
	_ toolnexus.ClaimStore = requeststate.NewMemoryClaims()
)

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

func TestMemoryClaims(t *testing.T) {
	t.Parallel()
	c := &clock{now: stateNow}
	claims, _ := requeststate.NewMemoryClaimsAt(c.Now, 1024)
	ctx := context.Background()
	claim := func(id string, until time.Time) bool {
		t.Helper()
		fresh, err := claims.Claim(ctx, id, until)
		require.NoError(t, err)
		return fresh
	}
	assert.True(t, claim("a", stateNow.Add(time.Minute)))
	assert.False(t, claim("a", stateNow.Add(time.Minute)), "a second claim")
	assert.False(t, claim("a", stateNow.Add(time.Hour)), "a second claim, later expiry")
	assert.True(t, claim("b", stateNow.Add(time.Minute)), "another id")
	c.Add(time.Minute - time.Nanosecond)
	assert.False(t, claim("a", stateNow.Add(2*time.Minute)), "just before the state expires")
	c.Add(time.Nanosecond)
	assert.True(t, claim("a", stateNow.Add(2*time.Minute)), "once the state has expired, it cannot open: the claim is forgotten")
	assert.False(t, claim("a", stateNow.Add(2*time.Minute)))
}

// TestMemoryClaimsBounded claims many states that expire: the store
// forgets them, and holds at most about twice the claims still live.
func TestMemoryClaimsBounded(t *testing.T) {
	t.Parallel()
	c := &clock{now: stateNow}
	claims, size := requeststate.NewMemoryClaimsAt(c.Now, 16)
	ctx := context.Background()
	live := 0
	for i := range 10000 {
		fresh, err := claims.Claim(ctx, fmt.Sprint("s", i), c.Now().Add(time.Second))
		require.NoError(t, err)
		require.True(t, fresh)
		c.Add(time.Millisecond) // 1000 claims live at any time
		live = min(i+1, 1000)
		require.LessOrEqual(t, size(), 2*live+16, "claim %d", i)
	}
	c.Add(time.Hour)
	fresh, err := claims.Claim(ctx, "last", c.Now().Add(time.Second))
	require.NoError(t, err)
	require.True(t, fresh)
	assert.Equal(t, 1, size(), "the expired claims are forgotten within a minute")
}

// TestMemoryClaimsConcurrent claims the same states from many goroutines:
// each is claimed exactly once.
func TestMemoryClaimsConcurrent(t *testing.T) {
	t.Parallel()
	claims := requeststate.NewMemoryClaims()
	const ids, workers = 50, 8
	var won [ids]atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				fresh, err := claims.Claim(context.Background(), fmt.Sprint("state-", i), time.Now().Add(time.Minute))
				if err == nil && fresh {
					won[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		assert.Equal(t, int32(1), won[i].Load(), "state %d", i)
	}
}

// TestSealerClaimAcrossInstances claims a state on one instance and replays
// it on another that shares its memory store and its keys.
func TestSealerClaimAcrossInstances(t *testing.T) {
	t.Parallel()
	claims := requeststate.NewMemoryClaims()
	now := time.Now()
	a := newSealer(t, requeststate.Options{Claims: claims, Keys: [][]byte{newKey, oldKey}})
	b := newSealer(t, requeststate.Options{Claims: claims, Keys: [][]byte{oldKey, newKey}})
	state := seal(t, a, stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "approval", Prompt: "Deploy?"}}}, now)
	first, err := b.Open(state, stagingFor, now)
	require.NoError(t, err)
	require.NoError(t, b.Claim(context.Background(), first))
	replay, err := a.Open(state, stagingFor, now)
	require.NoError(t, err)
	require.ErrorIs(t, a.Claim(context.Background(), replay), requeststate.ErrReplayed)
}

// TestMemoryClaimsCapacity fills a store of 100 claims: a new claim is
// refused while all 100 are of states that may still open, never by
// forgetting one, and taken once one of them has expired.
func TestMemoryClaimsCapacity(t *testing.T) {
	t.Parallel()
	c := &clock{now: stateNow}
	claims, held := requeststate.NewMemoryClaimsCapacity(c.Now, 100)
	ctx := context.Background()
	for i := range 100 {
		fresh, err := claims.Claim(ctx, fmt.Sprint("s", i), stateNow.Add(time.Duration(i+1)*time.Minute))
		require.NoError(t, err)
		require.True(t, fresh)
	}
	for range 3 {
		fresh, err := claims.Claim(ctx, "one more", stateNow.Add(time.Hour))
		require.EqualError(t, err, "toolnexus: memory claim store is full: its 100 claims are of states that may still open")
		assert.False(t, fresh)
	}
	for i := range 100 {
		fresh, err := claims.Claim(ctx, fmt.Sprint("s", i), stateNow.Add(time.Hour))
		require.NoError(t, err, "a full store still tells a replay")
		assert.False(t, fresh, "s%d is still claimed", i)
	}
	assert.Equal(t, 100, held())
	c.Add(time.Minute) // s0 has expired
	fresh, err := claims.Claim(ctx, "one more", stateNow.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, fresh)
	assert.Equal(t, 100, held())
	_, err = claims.Claim(ctx, "and another", stateNow.Add(time.Hour))
	require.Error(t, err, "s1 expires a minute later")

	// Through a Sealer, a full store refuses the call.
	s := newSealer(t, requeststate.Options{Claims: claims})
	st := requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}
	opened, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
	require.NoError(t, err)
	err = s.Claim(ctx, opened)
	require.ErrorIs(t, err, requeststate.ErrClaimStore)
	assert.NotErrorIs(t, err, requeststate.ErrReplayed)
}
