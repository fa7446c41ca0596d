package redisclaims_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// redisServer is a redis-server that a test started on 127.0.0.1.
type redisServer struct {
	addr string
	cmd  *exec.Cmd
	once sync.Once
}

// startRedis starts a redis-server on a free port of 127.0.0.1, without
// persistence unless args, more options, say otherwise, and stops it when
// the test ends. A machine without
// redis-server fails the test: install the Debian package redis-server.
func startRedis(t *testing.T, args ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is not installed: apt-get install redis-server")
	var out bytes.Buffer
	for range 5 { // a free port may be taken between finding and binding it
		port := freePort(t)
		cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--dir", t.TempDir()}, args...)...)
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
	keys, err := requeststate.KeysFromHex("0202020202020202020202020202020202020202020202020202020202020202,0101010101010101010101010101010101010101010101010101010101010101")
	require.NoError(t, err)
	instance := func() *requeststate.Sealer {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: "https://mcp.example.com", Claims: newStore(t, srv.client(t), nil)})
		require.NoError(t, err)
		return s
	}
	a, b := instance(), instance()
	call := requeststate.Call{Tool: "deploy", Arguments: []byte(`{"env":"prod"}`), Principal: "alice"}
	now := time.Now()
	state, err := a.Seal(call, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}, now)
	require.NoError(t, err)

	first, err := b.Open(state, call, now)
	require.NoError(t, err)
	require.NoError(t, b.Claim(context.Background(), first), "the retry finishes on b")

	replay, err := a.Open(state, call, now)
	require.NoError(t, err)
	err = a.Claim(context.Background(), replay)
	require.ErrorIs(t, err, requeststate.ErrReplayed, "the replay on a is refused")
	assert.EqualError(t, err, "toolnexus: request state already used: state "+first.ID+" has already been used")
	require.ErrorIs(t, b.Claim(context.Background(), replay), requeststate.ErrReplayed, "and on b")
}

// TestRedisUnreachable claims with a Redis that is gone: the claim fails
// with the client's error, and the Sealer refuses the call.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	s := newStore(t, srv.client(t), nil)
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{bytes.Repeat([]byte{7}, 32)}, Claims: s})
	require.NoError(t, err)
	call := requeststate.Call{Tool: "deploy"}
	open := func() requeststate.Opened {
		now := time.Now()
		state, err := sealer.Seal(call, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}, now)
		require.NoError(t, err)
		st, err := sealer.Open(state, call, now)
		require.NoError(t, err)
		return st
	}
	require.NoError(t, sealer.Claim(context.Background(), open()))

	srv.stop()
	st := open()
	err = sealer.Claim(context.Background(), st)
	require.ErrorIs(t, err, requeststate.ErrClaimStore)
	require.NotErrorIs(t, err, requeststate.ErrReplayed)
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

// stallProxy forwards TCP connections to a Redis, and holds Redis's
// replies while it is stalled: a Redis that stops answering for a while,
// as one does under a long command, a fork or a network partition.
type stallProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	until  time.Time // replies are held until then
}

// startStallProxy starts a proxy to target on a free port of 127.0.0.1,
// closed when the test ends.
func startStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &stallProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

// stall holds every reply for d from now.
func (p *stallProxy) stall(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = time.Now().Add(d)
}

// held returns how long replies are still held.
func (p *stallProxy) held() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Until(p.until)
}

func (p *stallProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward copies c's requests to Redis at once, and Redis's replies to c
// once no stall holds them; a reply to a connection the client has
// closed meanwhile is lost, as it is on the network.
func (p *stallProxy) forward(c net.Conn) {
	defer c.Close()
	r, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer r.Close()
	go func() {
		_, _ = io.Copy(r, c)
		r.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if err != nil {
			return
		}
		if d := p.held(); d > 0 {
			time.Sleep(d)
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

// stallClient is a client of addr whose reads time out after 100ms and
// that retries a command up to 8 times, as go-redis does by default after
// a read timeout.
func stallClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 100 * time.Millisecond, WriteTimeout: time.Second,
		MaxRetries: 8, MinRetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 100 * time.Millisecond, PoolSize: 16})
	t.Cleanup(func() { c.Close() })
	return c
}

// claimUnderStalls claims n states, each once, with claim, from 16
// goroutines, while the proxy stalls Redis for 150ms every 300ms, and
// returns how many first claims were told the state was used already,
// and how many failed.
func claimUnderStalls(t *testing.T, p *stallProxy, n int, claim func(id string) (bool, error)) (replayed, failed int) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for {
			p.stall(150 * time.Millisecond)
			select {
			case <-done:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	defer close(done)
	var (
		next        atomic.Int64
		rep, failer atomic.Int64
		wg          sync.WaitGroup
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				time.Sleep(2 * time.Millisecond) // claims spread over the stalls
				fresh, err := claim(fmt.Sprint("stalled-", i))
				switch {
				case err != nil:
					if failer.Add(1) == 1 {
						t.Logf("a claim failed: %v", err)
					}
				case !fresh:
					rep.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(rep.Load()), int(failer.Load())
}

// TestStoreStall claims 2,000 states, each once, through a proxy that stalls
// Redis for longer than the client's read timeout, so that go-redis sends
// SET again on a new connection after its first attempt was applied: no
// first claim is refused as a replay. A plain SET NX, which cannot tell its
// own earlier attempt from another's, is measured alongside for the log.
func TestStoreStall(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	p := startStallProxy(t, srv.addr)
	c := stallClient(t, p.ln.Addr().String())
	s := newStore(t, c, &redisclaims.Options{Prefix: "store:"})
	const n = 2000
	replayed, failed := claimUnderStalls(t, p, n, func(id string) (bool, error) {
		return s.Claim(context.Background(), id, time.Now().Add(time.Minute))
	})
	plainReplayed, plainFailed := claimUnderStalls(t, p, n, func(id string) (bool, error) {
		return c.SetNX(context.Background(), "plain:"+id, 1, time.Minute).Result()
	})
	t.Logf("of %d first claims under stalls: SET NX GET: %d refused as replays, %d failed; SET NX: %d refused as replays, %d failed",
		n, replayed, failed, plainReplayed, plainFailed)
	assert.Zero(t, replayed, "a first claim refused as a replay")
	keys, err := srv.client(t).Keys(context.Background(), "store:*").Result()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(keys), n-failed, "every claim that succeeded holds its key")
}

// TestStoreLongStall claims through a Redis that stalls for longer than
// every attempt of the client and of the Store: the claim is an error, for
// the caller to refuse the call (-32603), never a replay.
func TestStoreLongStall(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	p := startStallProxy(t, srv.addr)
	s := newStore(t, stallClient(t, p.ln.Addr().String()), nil)
	p.stall(3 * time.Second)
	fresh, err := s.Claim(context.Background(), "long", time.Now().Add(time.Minute))
	require.Error(t, err)
	assert.False(t, fresh)
	assert.Contains(t, err.Error(), "redisclaims: cannot claim state long: ")
	var netErr net.Error
	require.ErrorAs(t, err, &netErr)
	assert.True(t, netErr.Timeout())
}

// TestStoreCheck reads the configuration of Redis servers started with the
// options single use needs, and with each of those it warns of.
func TestStoreCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want []error
		msg  string
	}{
		{"durable", []string{"--appendonly", "yes", "--maxmemory-policy", "noeviction"}, nil, ""},
		{"evicting", []string{"--appendonly", "yes", "--maxmemory-policy", "allkeys-lru"}, []error{redisclaims.ErrEvicting},
			"redisclaims: Redis may evict claims: maxmemory-policy is allkeys-lru, not noeviction"},
		{"evicting keys with a TTL", []string{"--appendonly", "yes", "--maxmemory-policy", "volatile-ttl"}, []error{redisclaims.ErrEvicting},
			"redisclaims: Redis may evict claims: maxmemory-policy is volatile-ttl, not noeviction"},
		{"no append-only file", nil, []error{redisclaims.ErrNotPersistent},
			"redisclaims: Redis does not persist every claim: appendonly is no, so a restart forgets claims"},
		{"both", []string{"--maxmemory-policy", "allkeys-random"}, []error{redisclaims.ErrEvicting, redisclaims.ErrNotPersistent},
			"redisclaims: Redis may evict claims: maxmemory-policy is allkeys-random, not noeviction\n" +
				"redisclaims: Redis does not persist every claim: appendonly is no, so a restart forgets claims"},
		{"CONFIG disabled", []string{"--rename-command", "CONFIG", ""}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t, tt.args...)
			err := newStore(t, srv.client(t), nil).Check(context.Background())
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			for _, want := range tt.want {
				assert.ErrorIs(t, err, want)
			}
			assert.EqualError(t, err, tt.msg)
		})
	}
	srv := startRedis(t)
	srv.stop()
	err := newStore(t, srv.client(t), nil).Check(context.Background())
	require.Error(t, err, "a Redis that cannot be reached")
	assert.Contains(t, err.Error(), "redisclaims: cannot read the Redis configuration: ")
}
