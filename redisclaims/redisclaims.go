// Package redisclaims is a [requeststate.ClaimStore] over Redis, for servers
// behind a load balancer that let each request state finish at most once:
// every instance claims a state in the same Redis, so a state that one
// instance finished is refused on all. It is a module of its own so that
// users of toolnexus without Redis never download a Redis client.
//
// Single use is only as durable as the Redis that keeps the claims. Give
// the claims a Redis, or a database of one, that nothing else fills, with
// maxmemory-policy noeviction (a Redis that evicts keys forgets live
// claims, and their states finish again) and the append-only file on
// (appendonly yes, appendfsync everysec or always: a Redis restarted
// without it has forgotten every claim). FLUSHALL or FLUSHDB forget them
// all. A replica promoted after a failover may lack the last claims the
// primary acknowledged, since Redis replicates them after it answers: a
// state claimed just before a failover may finish once more, unless the
// primary waits for its replicas (WAIT), which this store does not ask.
// [Store.Check] reads what it can of this from the server at start.
package redisclaims

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// DefaultPrefix is the prefix of the keys of a Store when
// [Options].Prefix is empty.
const DefaultPrefix = "toolnexus:claim:"

// ErrNoClient reports a Store made without a Redis client.
var ErrNoClient = errors.New("redisclaims: no Redis client")

// The errors of [Store.Check]: what makes single use less durable than the
// Redis's word.
var (
	// ErrEvicting reports a Redis whose maxmemory-policy is not
	// noeviction: under memory pressure it may delete a live claim, and
	// its state may then finish again.
	ErrEvicting = errors.New("redisclaims: Redis may evict claims")
	// ErrNotPersistent reports a Redis without its append-only file: a
	// restart forgets the claims made since its last snapshot, or all.
	ErrNotPersistent = errors.New("redisclaims: Redis does not persist every claim")
)

// Options configures a [Store].
type Options struct {
	// Prefix starts the key of each claim, so that the claims of several
	// services can share one Redis; empty means DefaultPrefix. Servers
	// that share states must share the prefix.
	Prefix string
}

// Store is a [requeststate.ClaimStore] that keeps each claim as a Redis key,
// the prefix followed by the state's ID, expiring with its state.
//
// A claim is one command, SET key token NX GET PX ms (Redis 7.0 or newer),
// with a token drawn for each claim: it sets the key only if it does not
// exist, and gives back the token it holds. A client that sends the
// command again, as go-redis does after a read timeout, finds its own
// token when its first attempt was applied, and the claim is still the
// first: a stall of Redis is an error or a success, never a replay. Claim
// sends the command again itself, with the same token, up to three times in
// all while the client reports a network error. The
// expiry is sent as a duration, so that the Redis server's clock does not
// matter. A Store is safe for concurrent use, as its client is.
//
// A claim is at most once: it is taken before the tool runs, so a call
// whose claim was applied but whose tool did not finish (the server
// crashed, or the claim's answer never came back and the call was refused)
// cannot finish on a retry, which is refused as a state already used.
type Store struct {
	client redis.Cmdable
	prefix string
}

var _ requeststate.ClaimStore = (*Store)(nil)

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

// Claim implements [requeststate.ClaimStore]: it sets the key of id until
// until, rounded up to the millisecond (at least one), and reports whether
// the key was not set before, or was set by this claim's own earlier
// attempt. It reports the client's error, such as a Redis that cannot be
// reached or a read that timed out on every attempt, wrapped: the caller
// must refuse the call, and a client may retry it (its claim may have been
// applied, and the retry then refused as a state already used).
func (s *Store) Claim(ctx context.Context, id string, until time.Time) (bool, error) {
	ttl := max(time.Until(until), 1)
	ttl = (ttl + time.Millisecond - 1).Truncate(time.Millisecond)
	var b [16]byte
	rand.Read(b[:]) // never fails
	token := hex.EncodeToString(b[:])
	var err error
	for range claimAttempts {
		var held string
		held, err = s.client.SetArgs(ctx, s.prefix+id, token, redis.SetArgs{Mode: "NX", Get: true, TTL: ttl}).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return true, nil // the key did not exist: this claim set it
		case err == nil:
			return held == token, nil // held by this claim's earlier attempt, or another's
		}
		var reply redis.Error
		if errors.As(err, &reply) || ctx.Err() != nil {
			break // Redis refused the command, or the caller gave up
		}
	}
	return false, fmt.Errorf("redisclaims: cannot claim state %s: %w", id, err)
}

// claimAttempts is how many times a claim sends its command, with its one
// token, while the client reports an error of the network, such as a read
// that timed out: each time after the client's own retries.
const claimAttempts = 3

// Check reads, with CONFIG GET, whether the Redis of s keeps claims as
// single use needs (see the package's doc): it reports [ErrEvicting] for a
// maxmemory-policy other than noeviction and [ErrNotPersistent] for
// appendonly no, joined when both hold, and the client's error when Redis
// cannot be reached. A Redis that refuses CONFIG (a managed service, a
// user without the permission) cannot be checked: Check reports nil. Call
// it at start, and warn: Redis may change its configuration later.
func (s *Store) Check(ctx context.Context) error {
	policy, err := s.config(ctx, "maxmemory-policy")
	if err != nil || policy == "" {
		return err
	}
	var errs []error
	if policy != "noeviction" {
		errs = append(errs, fmt.Errorf("%w: maxmemory-policy is %s, not noeviction", ErrEvicting, policy))
	}
	aof, err := s.config(ctx, "appendonly")
	if err != nil {
		return err
	}
	if aof == "no" {
		errs = append(errs, fmt.Errorf("%w: appendonly is no, so a restart forgets claims", ErrNotPersistent))
	}
	return errors.Join(errs...)
}

// config returns the value of the Redis configuration parameter name, or
// "" when Redis refuses CONFIG.
func (s *Store) config(ctx context.Context, name string) (string, error) {
	values, err := s.client.ConfigGet(ctx, name).Result()
	if err != nil {
		var rerr redis.Error
		if errors.As(err, &rerr) && !isTransient(rerr.Error()) {
			return "", nil // CONFIG is renamed, disabled or not permitted
		}
		return "", fmt.Errorf("redisclaims: cannot read the Redis configuration: %w", err)
	}
	return values[name], nil
}

// isTransient reports whether a Redis error reply says the server cannot
// answer now, rather than that it refuses the command.
func isTransient(msg string) bool {
	for _, p := range []string{"LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
