package redisclaims_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/redisclaims"
)

// redisServer is a redis-server that a test started on 127.0.0.1.
type redisServer struct {
	addr string
	cmd  *exec.Cmd
	once sync.Once
}

// startRedis starts a redis-server on a free port of 127.0.0.1, without
// persistence, and stops it when the test ends. A machine without
// redis-server fails the test: install the Debian package redis-server.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is not installed: apt-get install redis-server")
	var out bytes.Buffer
	for range 5 { // a free port may be taken between finding and binding it
		port := freePort(t)
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no")
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		s := &redisServer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd}
		t.Cleanup(s.stop)
		if s.ready() {
			return s
		}
		s.stop()
	}
	t.Fatalf("redis-server did not start:\n%s", out.String())
	return nil
}

// ready reports whether the server answers a PING within a few seconds.
func (s *redisServer) ready() bool {
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	for range 100 {
		if c.Ping(context.Background()).Err() == nil {
			return true
		}
		if s.cmd.ProcessState != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// stop kills the server and waits for it, once.
func (s *redisServer) stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	})
}

// client returns a new client of the server, closed when the test ends.
func (s *redisServer) client(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newStore(t *testing.T, c redis.Cmdable, opts *redisclaims.Options) *redisclaims.Store {
	t.Helper()
	s, err := redisclaims.New(c, opts)
	require.NoError(t, err)
	return s
}

func TestStore(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.client(t)
	ctx := context.Background()
	s := newStore(t, c, nil)
	until := time.Now().Add(time.Minute)

	fresh, err := s.Claim(ctx, "state-1", until)
	require.NoError(t, err)
	assert.True(t, fresh)
	fresh, err = s.Claim(ctx, "state-1", until)
	require.NoError(t, err)
	assert.False(t, fresh, "a second claim")
	fresh, err = s.Claim(ctx, "state-2", until)
	require.NoError(t, err)
	assert.True(t, fresh, "another state")

	ttl, err := c.PTTL(ctx, "toolnexus:claim:state-1").Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 50*time.Second, "the claim lives as long as its state")
	assert.LessOrEqual(t, ttl, time.Minute)

	other := newStore(t, c, &redisclaims.Options{Prefix: "other:"})
	fresh, err = other.Claim(ctx, "state-1", until)
	require.NoError(t, err)
	assert.True(t, fresh, "another prefix, other claims")
	assert.Equal(t, int64(1), c.Exists(ctx, "other:state-1").Val())
}

// TestStoreExpiry claims a state that expires soon: once Redis has
// forgotten the claim, the state could be claimed again (it can no longer
// open).
func TestStoreExpiry(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.client(t)
	ctx := context.Background()
	s := newStore(t, c, nil)
	fresh, err := s.Claim(ctx, "soon", time.Now().Add(150*time.Millisecond))
	require.NoError(t, err)
	require.True(t, fresh)
	fresh, err = s.Claim(ctx, "soon", time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.False(t, fresh)
	require.Eventually(t, func() bool { return c.Exists(ctx, "toolnexus:claim:soon").Val() == 0 }, 5*time.Second, 20*time.Millisecond)
	fresh, err = s.Claim(ctx, "soon", time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, fresh)

	fresh, err = s.Claim(ctx, "past", time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.True(t, fresh, "a claim whose state has expired is kept a millisecond")
}

// TestStoreConcurrent claims the same states from many goroutines over
// two clients: each is claimed exactly once.
func TestStoreConcurrent(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	stores := []*redisclaims.Store{newStore(t, srv.client(t), nil), newStore(t, srv.client(t), nil)}
	const ids, workers = 20, 6
	var won [ids]atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				fresh, err := stores[w%2].Claim(context.Background(), fmt.Sprint("state-", i), time.Now().Add(time.Minute))
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

// TestSealersShareRedis stands for two server instances behind a load
// balancer: two Sealers with the same keys, each with its own Redis
// client, sharing one Redis. A state finished on one is refused on the
// other.
func TestSealersShareRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	keys, err := toolnexus.KeysFromHex("0202020202020202020202020202020202020202020202020202020202020202,0101010101010101010101010101010101010101010101010101010101010101")
	require.NoError(t, err)
	instance := func() *toolnexus.Sealer {
		s, err := toolnexus.NewSealer(toolnexus.SealerOptions{Keys: keys, Audience: "https://mcp.example.com", Claims: newStore(t, srv.client(t), nil)})
		require.NoError(t, err)
		return s
	}
	a, b := instance(), instance()
	call := toolnexus.StateCall{Tool: "deploy", Arguments: []byte(`{"env":"prod"}`), Principal: "alice"}
	now := time.Now()
	state, err := a.Seal(call, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}, now)
	require.NoError(t, err)

	first, err := b.Open(state, call, now)
	require.NoError(t, err)
	require.NoError(t, b.Claim(context.Background(), first), "the retry finishes on b")

	replay, err := a.Open(state, call, now)
	require.NoError(t, err)
	err = a.Claim(context.Background(), replay)
	require.ErrorIs(t, err, toolnexus.ErrStateReplayed, "the replay on a is refused")
	assert.EqualError(t, err, "toolnexus: request state already used: state "+first.ID+" has already been used")
	require.ErrorIs(t, b.Claim(context.Background(), replay), toolnexus.ErrStateReplayed, "and on b")
}

// TestRedisUnreachable claims with a Redis that is gone: the claim fails
// with the client's error, and the Sealer refuses the call.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	s := newStore(t, srv.client(t), nil)
	sealer, err := toolnexus.NewSealer(toolnexus.SealerOptions{Keys: [][]byte{bytes.Repeat([]byte{7}, 32)}, Claims: s})
	require.NoError(t, err)
	call := toolnexus.StateCall{Tool: "deploy"}
	open := func() toolnexus.OpenedState {
		now := time.Now()
		state, err := sealer.Seal(call, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}, now)
		require.NoError(t, err)
		st, err := sealer.Open(state, call, now)
		require.NoError(t, err)
		return st
	}
	require.NoError(t, sealer.Claim(context.Background(), open()))

	srv.stop()
	st := open()
	err = sealer.Claim(context.Background(), st)
	require.ErrorIs(t, err, toolnexus.ErrClaimStore)
	require.NotErrorIs(t, err, toolnexus.ErrStateReplayed)
	var netErr *net.OpError
	assert.True(t, errors.As(err, &netErr), "the cause is wrapped: %v", err)
	assert.Contains(t, err.Error(), "toolnexus: cannot claim request state: state "+st.ID+": redisclaims: cannot claim state "+st.ID+": ")

	never := newStore(t, redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t))), MaxRetries: -1}), nil)
	_, err = never.Claim(context.Background(), "x", time.Now().Add(time.Minute))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redisclaims: cannot claim state x: ")
}

func TestNew(t *testing.T) {
	t.Parallel()
	s, err := redisclaims.New(nil, nil)
	require.ErrorIs(t, err, redisclaims.ErrNoClient)
	assert.EqualError(t, err, "redisclaims: no Redis client")
	assert.Nil(t, s)
}
