// Package redisclaims is a [toolnexus.ClaimStore] over Redis, for servers
// behind a load balancer that let each request state finish at most once:
// every instance claims a state in the same Redis, so a state that one
// instance finished is refused on all. It is a module of its own so that
// users of toolnexus without Redis never download a Redis client.
package redisclaims

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus"
)

// DefaultPrefix is the prefix of the keys of a Store when
// [Options].Prefix is empty.
const DefaultPrefix = "toolnexus:claim:"

// ErrNoClient reports a Store made without a Redis client.
var ErrNoClient = errors.New("redisclaims: no Redis client")

// Options configures a [Store].
type Options struct {
	// Prefix starts the key of each claim, so that the claims of several
	// services can share one Redis; empty means DefaultPrefix. Servers
	// that share states must share the prefix.
	Prefix string
}

// Store is a [toolnexus.ClaimStore] that keeps each claim as a Redis key,
// the prefix followed by the state's ID, set only if it does not exist
// (SET with NX) and expiring with its state (PX), so Redis forgets a claim
// once its state can no longer open. The expiry is sent as a duration, so
// that the Redis server's clock does not matter. A Store is safe for
// concurrent use, as its client is.
type Store struct {
	client redis.Cmdable
	prefix string
}

var _ toolnexus.ClaimStore = (*Store)(nil)

// New returns a Store that claims in client's Redis: a *redis.Client, a
// *redis.ClusterClient, a *redis.Ring or any other [redis.Cmdable]. A nil
// opts is the zero [Options]. It reports [ErrNoClient] for a nil client.
func New(client redis.Cmdable, opts *Options) (*Store, error) {
	if client == nil {
		return nil, ErrNoClient
	}
	s := &Store{client: client, prefix: DefaultPrefix}
	if opts != nil && opts.Prefix != "" {
		s.prefix = opts.Prefix
	}
	return s, nil
}

// Claim implements [toolnexus.ClaimStore]: it sets the key of id until
// until, rounded up to the millisecond (at least one), and reports whether
// the key was not set before. It reports the client's error, such as a
// Redis that cannot be reached, wrapped: the caller must refuse the call.
func (s *Store) Claim(ctx context.Context, id string, until time.Time) (bool, error) {
	ttl := max(time.Until(until), 1)
	ttl = (ttl + time.Millisecond - 1).Truncate(time.Millisecond)
	fresh, err := s.client.SetNX(ctx, s.prefix+id, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redisclaims: cannot claim state %s: %w", id, err)
	}
	return fresh, nil
}
