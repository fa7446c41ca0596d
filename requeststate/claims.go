package requeststate

import (
	"context"
	"time"

	claimstore "github.com/toolnexus-go/toolnexus/internal/claims"
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

// DefaultMemoryClaims is the capacity of the store of [NewMemoryClaims]:
// the most claims it holds at once, about 120 MiB of them.
const DefaultMemoryClaims = claimstore.DefaultCapacity

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
	return newMemoryClaims(capacity, time.Now)
}

// newMemoryClaims returns a memory store of capacity claims (zero or less:
// DefaultMemoryClaims) that reads the time from now.
func newMemoryClaims(capacity int, now func() time.Time) *claimstore.Memory {
	return claimstore.NewMemory(capacity, now, "states that may still open")
}
