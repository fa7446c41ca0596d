package park

import (
	"context"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/claims"
)

// Store keeps the claims of a [Runner]: one record for each parking of a
// tool call that has been answered, first that its run has begun, then
// what it returned, so that the parking is answered once and a retry gets
// the result of its one run. A Store keeps records as the Runner writes
// them, opaque bytes, and is safe for concurrent use.
//
// Every process that may receive the answer to a call another parked
// (servers behind a load balancer, one server across a restart) must share
// one Store: [NewMemoryStore] keeps records in one process, the redisclaims
// module's store in Redis. A record the store forgets early (a restart
// without persistence, an eviction, a failover that loses the last
// writes) lets its parking be answered once more.
type Store interface {
	// Claim stores rec under key until until, when the store holds no
	// record under key, and returns nil; otherwise it returns the record
	// held, and stores nothing. The zero until keeps the record for as
	// long as the store lasts. A store that sends a claim again after an
	// error returns rec itself when its first attempt landed: each rec is
	// unique, so the Runner knows it as its own.
	Claim(ctx context.Context, key string, rec []byte, until time.Time) (held []byte, err error)
	// Finish replaces the record under key, which the caller claimed,
	// with rec, until until. It may be sent again after an error: it
	// writes the same record.
	Finish(ctx context.Context, key string, rec []byte, until time.Time) error
}

// The bounds of [NewMemoryStore]'s store when it is given none.
const (
	// DefaultMemoryClaims is the most records it holds at once: 1<<20,
	// 1,048,576.
	DefaultMemoryClaims = claims.DefaultCapacity
	// DefaultMemoryBytes is the most bytes of records it holds at once,
	// the results kept for retries included: 256 MiB.
	DefaultMemoryBytes = claims.DefaultBytes
)

// NewMemoryStore returns a Store that keeps at most capacity records and
// maxBytes bytes of them in memory, for one process (zero or less means
// [DefaultMemoryClaims] and [DefaultMemoryBytes]). A record is kept until
// its parking cannot be answered anymore, then forgotten within a minute,
// and never before: a store whose bounds are held by live records refuses
// a new claim with an error, and its call does not run, rather than forget
// one and let a parking be answered twice. A result that does not fit is
// kept as its digest, and its retry is told so ([ErrResultTooLarge]).
func NewMemoryStore(capacity, maxBytes int) Store {
	return claims.NewMemory(capacity, maxBytes, time.Now)
}

// processStore is the store of every Runner without one: one for the
// whole process, so that two Runners, or two carriers, never answer one
// parking twice.
var processStore = sync.OnceValue(func() Store { return NewMemoryStore(0, 0) })
