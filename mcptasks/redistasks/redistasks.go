// Package redistasks is an [mcptasks.TaskStore] over Redis, for MCP
// servers behind a load balancer: every instance keeps its tasks in the
// same Redis, so that a task created on one is read, answered and finished
// on any other.
//
// The tasks are only as durable as the Redis that keeps them. Give them a
// Redis that nothing else fills, with maxmemory-policy noeviction (a Redis
// that evicts keys drops live tasks, and their clients are told they do
// not exist) and the append-only file on (appendonly yes, appendfsync
// everysec or always: a Redis restarted without it has forgotten every
// task, those whose tools ran among them). FLUSHALL or FLUSHDB drop them
// all. A replica promoted after a failover may lack the last writes the
// primary acknowledged, since Redis replicates them after it answers: a
// task created just before may be gone, and a result stored just before
// may be lost, the task then working until its lease lapses and failed
// (see [mcptasks.Options].Lease), unless the primary waits for its
// replicas (WAIT), which this store does not ask. A task whose answer was
// lost so and is answered again gets the result of the run its first
// answer made, and its tool does not run twice, as long as the claim of
// that answer, kept in the Store of the servers' park.Runner (the
// redisclaims module's), was not lost with it. [Store.Check] reads what it
// can of this from the server at start.
package redistasks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus/mcptasks"
)

// DefaultPrefix starts the key of each task of a Store whose Prefix is
// empty.
const DefaultPrefix = "toolnexus:task:"

// ErrNoClient reports a Store without a Redis client.
var ErrNoClient = errors.New("redistasks: no Redis client")

// The errors of [Store.Check]: what makes the tasks less durable than the
// Redis's word.
var (
	// ErrEvicting reports a Redis whose maxmemory-policy is not
	// noeviction: under memory pressure it may drop a live task.
	ErrEvicting = errors.New("redistasks: Redis may evict tasks")
	// ErrNotPersistent reports a Redis without its append-only file: a
	// restart forgets the tasks written since its last snapshot, or all.
	ErrNotPersistent = errors.New("redistasks: Redis does not persist every task")
)

// Check reads, with CONFIG GET, whether the Redis of s keeps tasks as the
// package's doc says they need: it reports [ErrEvicting] for a
// maxmemory-policy other than noeviction and [ErrNotPersistent] for
// appendonly no, joined when both hold, [ErrNoClient] without a client, and
// the client's error when Redis cannot be reached. A Redis that refuses
// CONFIG (a managed service, a user without the permission) cannot be
// checked: Check reports nil. Call it at start, and warn: Redis may change
// its configuration later.
func (s *Store) Check(ctx context.Context) error {
	if s.Client == nil {
		return ErrNoClient
	}
	values := map[string]string{}
	for _, name := range []string{"maxmemory-policy", "appendonly"} {
		got, err := s.Client.ConfigGet(ctx, name).Result()
		var reply redis.Error
		switch {
		case errors.As(err, &reply) && !transient(reply.Error()):
			return nil // CONFIG is renamed, disabled or not permitted
		case err != nil:
			return fmt.Errorf("redistasks: cannot read the Redis configuration: %w", err)
		}
		values[name] = got[name]
	}
	var errs []error
	if p := values["maxmemory-policy"]; p != "noeviction" {
		errs = append(errs, fmt.Errorf("%w: maxmemory-policy is %s, not noeviction", ErrEvicting, p))
	}
	if values["appendonly"] == "no" {
		errs = append(errs, fmt.Errorf("%w: appendonly is no, so a restart forgets tasks", ErrNotPersistent))
	}
	return errors.Join(errs...)
}

// transient reports whether a Redis error reply says that the server
// cannot answer now, rather than that it refuses the command.
func transient(msg string) bool {
	for _, p := range []string{"LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Store is an [mcptasks.TaskStore] in Redis. Each task is a hash under
// Prefix (empty: DefaultPrefix) followed by the task's ID, holding its
// version ("v") and data ("d"), and expiring with the task's time to live,
// given to Redis as a duration so that its clock does not matter. Each
// change is one Lua script: of two instances that change a task at once,
// one wins and the other is told so. Client is a *redis.Client, a
// *redis.ClusterClient, a *redis.Ring or any other [redis.Cmdable]; a
// Store without one reports [ErrNoClient]. Instances that share tasks
// share the Redis and the prefix; services that share a Redis use
// prefixes of their own. A task's arguments, answers and result are held
// as they are, in the clear. A Store is safe for concurrent use, as its
// client is, and is not changed once in use.
type Store struct {
	Client redis.Cmdable
	Prefix string
}

var _ mcptasks.TaskStore = (*Store)(nil)

// key returns the Redis key of the task id, or ErrNoClient.
func (s *Store) key(id string) (string, error) {
	if s.Client == nil {
		return "", ErrNoClient
	}
	if s.Prefix == "" {
		return DefaultPrefix + id, nil
	}
	return s.Prefix + id, nil
}

// create sets a task's hash unless it exists, with its time to live.
var create = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

// update replaces a task's data if its version is ARGV[1], keeping its
// time to live: -1 when the task is gone, 0 when it has another version.
var update = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
return 1`)

// Create implements [mcptasks.TaskStore]: ttl is rounded up to the
// millisecond, at least one.
func (s *Store) Create(ctx context.Context, id string, data []byte, ttl time.Duration) error {
	key, err := s.key(id)
	if err != nil {
		return err
	}
	ms := max((ttl+time.Millisecond-1)/time.Millisecond, 1)
	n, err := create.Run(ctx, s.Client, []string{key}, data, int64(ms)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redistasks: cannot create task %s: %w", id, err)
	case n == 0:
		return fmt.Errorf("redistasks: task %s: %w", id, mcptasks.ErrTaskExists)
	}
	return nil
}

// Get implements [mcptasks.TaskStore].
func (s *Store) Get(ctx context.Context, id string) (mcptasks.StoredTask, error) {
	key, err := s.key(id)
	if err != nil {
		return mcptasks.StoredTask{}, err
	}
	vals, err := s.Client.HMGet(ctx, key, "v", "d").Result()
	if err != nil {
		return mcptasks.StoredTask{}, fmt.Errorf("redistasks: cannot read task %s: %w", id, err)
	}
	v, okV := vals[0].(string)
	d, okD := vals[1].(string)
	if !okV || !okD {
		return mcptasks.StoredTask{}, fmt.Errorf("redistasks: task %s: %w", id, mcptasks.ErrTaskNotFound)
	}
	version, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return mcptasks.StoredTask{}, fmt.Errorf("redistasks: task %s has version %q: %w", id, v, err)
	}
	return mcptasks.StoredTask{ID: id, Version: version, Data: []byte(d)}, nil
}

// Update implements [mcptasks.TaskStore].
func (s *Store) Update(ctx context.Context, id string, version uint64, data []byte) error {
	key, err := s.key(id)
	if err != nil {
		return err
	}
	n, err := update.Run(ctx, s.Client, []string{key},
		strconv.FormatUint(version, 10), strconv.FormatUint(version+1, 10), data).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redistasks: cannot update task %s: %w", id, err)
	case n == -1:
		return fmt.Errorf("redistasks: task %s: %w", id, mcptasks.ErrTaskNotFound)
	case n == 0:
		return fmt.Errorf("redistasks: task %s: %w", id, mcptasks.ErrTaskConflict)
	}
	return nil
}
