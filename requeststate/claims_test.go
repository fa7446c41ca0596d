package requeststate_test

import (
	"context"
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

// TestMemoryClaimsFull fills a store of one claim (internal/claims tests
// the store itself): through a Sealer, a full store refuses the call with
// ErrClaimStore, not as a replay.
func TestMemoryClaimsFull(t *testing.T) {
	t.Parallel()
	claims, held := requeststate.NewMemoryClaimsCapacity(func() time.Time { return stateNow }, 1)
	ctx := context.Background()
	fresh, err := claims.Claim(ctx, "s0", stateNow.Add(time.Hour))
	require.NoError(t, err)
	require.True(t, fresh)
	assert.Equal(t, 1, held())

	// Through a Sealer, a full store refuses the call.
	s := newSealer(t, requeststate.Options{Claims: claims})
	st := requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}
	opened, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
	require.NoError(t, err)
	err = s.Claim(ctx, opened)
	require.ErrorIs(t, err, requeststate.ErrClaimStore)
	assert.NotErrorIs(t, err, requeststate.ErrReplayed)
}
