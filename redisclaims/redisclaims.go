// Package redisclaims is a [park.Store] over Redis, for servers behind a
// load balancer, or one server across restarts, that answer each parked
// call once: every instance claims an answered parking in the same Redis
// and keeps the result of its one run there, so that a retry on any
// instance gets that result and the tool does not run again. Give it to
// the park.Runner of every carrier (park.Runner{Store: store}): one store
// for the MCP bridges, tasks, the Turn, the framework adapters and the
// approvals of package approval. It is a module of its own so that users
// of toolnexus without Redis never download a Redis client.
//
// Single use is only as durable as the Redis that keeps the claims. Give
// the claims a Redis, or a database of one, that nothing else fills, with
// maxmemory-policy noeviction (a Redis that evicts keys forgets live
// claims, and their calls run again) and the append-only file on
// (appendonly yes, appendfsync everysec or always: a Redis restarted
// without it has forgotten every claim). FLUSHALL or FLUSHDB forget them
// all. A replica promoted after a failover may lack the last claims the
// primary acknowledged, since Redis replicates them after it answers: a
// call claimed just before a failover may run once more, unless the
// primary waits for its replicas (WAIT), which this store does not ask.
// [Store.Check] reads what it can of this from the server at start.
package redisclaims

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus/park"
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

// Store is a [park.Store] that keeps each record as a Redis key, the
// prefix followed by the record's key, expiring with its parking.
//
// A claim is one command, SET key record NX GET PX ms (Redis 7.0 or newer):
// it sets the key only if it does not exist, and gives back the record it
// holds. Each record the park.Runner writes is unique to its claim, so a
// client that sends the command again, as go-redis does after a read
// timeout, finds its own record when its first attempt was applied, and
// the claim is still the first: a stall of Redis is an error or a
// success, never a replay. Claim and Finish send the command again
// themselves, up to three times in all while the client reports a network
// error. The expiry is sent as a duration, so that the Redis server's
// clock does not matter. A Store is safe for concurrent use, as its client
// is.
//
// A claim is at most once: it is taken before the tool runs, so a call
// whose claim was applied but whose tool did not finish (the server
// crashed) cannot run on a retry, which is told that the call still runs
// until its parking expires.
type Store struct {
	client redis.Cmdable
	prefix string
}

var _ park.Store = (*Store)(nil)

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

// Claim implements [park.Store]: it sets the key of key to rec until
// until, rounded up to the millisecond (at least one; the zero until sets
// no expiry), when the key does not exist, and returns what the key held
// (nil when it did not exist). A record is unique to its claim, so an
// earlier attempt of this claim that landed is returned as rec itself,
// which the park.Runner knows as its own. It reports the client's error,
// such as a Redis that cannot be reached or a read that timed out on every
// attempt, wrapped: the call is refused. A claim that timed out may still
// have landed: its parking is then held as running until it expires, and
// its retries are told so (park.ErrRunning); the tool runs at most once.
func (s *Store) Claim(ctx context.Context, key string, rec []byte, until time.Time) ([]byte, error) {
	args := redis.SetArgs{Mode: "NX", Get: true, TTL: ttl(until)}
	var err error
	for range claimAttempts {
		var held string
		held, err = s.client.SetArgs(ctx, s.prefix+key, rec, args).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return nil, nil // the key did not exist: this claim set it
		case err == nil:
			return []byte(held), nil // this claim's earlier attempt, or another's
		}
		if !transient(ctx, err) {
			break
		}
	}
	return nil, fmt.Errorf("redisclaims: cannot claim %s: %w", key, err)
}

// Finish implements [park.Store]: it sets the key of key to rec until
// until, whatever it held, sending the command again while the client
// reports an error of the network (the same write, so a retry that lands
// twice is one).
func (s *Store) Finish(ctx context.Context, key string, rec []byte, until time.Time) error {
	args := redis.SetArgs{TTL: ttl(until)}
	var err error
	for range claimAttempts {
		if err = s.client.SetArgs(ctx, s.prefix+key, rec, args).Err(); err == nil {
			return nil
		}
		if !transient(ctx, err) {
			break
		}
	}
	return fmt.Errorf("redisclaims: cannot keep the result of %s: %w", key, err)
}

// ttl returns the time to live of a key kept until until: from now,
// rounded up to the millisecond, at least one; zero (no expiry) for the
// zero until.
func ttl(until time.Time) time.Duration {
	if until.IsZero() {
		return 0
	}
	d := max(time.Until(until), 1)
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// transient reports whether err, the error of a command, may pass if the
// command is sent again: not a reply of Redis refusing it, and the caller
// has not given up.
func transient(ctx context.Context, err error) bool {
	var reply redis.Error
	return !errors.As(err, &reply) && ctx.Err() == nil
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
