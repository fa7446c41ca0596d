package redisclaims_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
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
// the test ends. A machine without redis-server fails the test: install
// the Debian package redis-server.
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

// pause stops the server with SIGSTOP, as a fork, a long command or a
// partition stalls a Redis: the kernel still takes its connections and
// what clients send, and it runs all of that once it is resumed. pause
// returns once the server is stopped.
func (s *redisServer) pause() error {
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	for range 500 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
		if err != nil {
			return err
		}
		// The state follows the command, which is in parentheses.
		if _, state, _ := bytes.Cut(stat, []byte(") ")); bytes.HasPrefix(state, []byte("T")) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return errors.New("redis-server did not stop")
}

// resume lets a paused server go on, with SIGCONT.
func (s *redisServer) resume() error {
	return s.cmd.Process.Signal(syscall.SIGCONT)
}

// client returns a new client of the server, closed when the test ends.
func (s *redisServer) client(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second, DialerRetries: 1})
	t.Cleanup(func() { c.Close() })
	return c
}

// setCalls returns how many SET commands the server has run since it
// started, as INFO commandstats counts them.
func (s *redisServer) setCalls(t *testing.T) int {
	t.Helper()
	info, err := s.client(t).Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^cmdstat_set:calls=(\d+),`).FindStringSubmatch(info)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
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

// quiet is the logger of the Runners of these tests.
var quiet = slog.New(slog.DiscardHandler)

func TestNew(t *testing.T) {
	t.Parallel()
	s, err := redisclaims.New(nil, nil)
	require.ErrorIs(t, err, redisclaims.ErrNoClient)
	assert.EqualError(t, err, "redisclaims: no Redis client")
	assert.Nil(t, s)
}

func TestStore(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.client(t)
	ctx := context.Background()
	s := newStore(t, c, nil)
	until := time.Now().Add(time.Minute)
	binary := []byte("run:\x00\xff\xfe not UTF-8\r\n")

	for _, step := range []struct {
		name   string
		finish bool
		key    string
		rec    []byte
		held   []byte // what Claim returns
	}{
		{"a first claim", false, "p1", []byte("run:tok-1:call"), nil},
		{"another claim of it", false, "p1", []byte("run:tok-2:call"), []byte("run:tok-1:call")},
		{"the first claim sent again", false, "p1", []byte("run:tok-1:call"), []byte("run:tok-1:call")},
		{"its result kept", true, "p1", []byte(`done:call:{"result":"ok"}`), nil},
		{"a retry", false, "p1", []byte("run:tok-3:call"), []byte(`done:call:{"result":"ok"}`)},
		{"its result kept again", true, "p1", []byte(`done:call:{"result":"ok"}`), nil},
		{"a retry after", false, "p1", []byte("run:tok-4:call"), []byte(`done:call:{"result":"ok"}`)},
		{"another parking", false, "p2", []byte("run:tok-5:call"), nil},
		{"bytes that are not text", false, "p3", binary, nil},
		{"read back as they are", false, "p3", []byte("run:tok-6:call"), binary},
	} {
		if step.finish {
			require.NoError(t, s.Finish(ctx, step.key, step.rec, until), step.name)
			continue
		}
		held, err := s.Claim(ctx, step.key, step.rec, until)
		require.NoError(t, err, step.name)
		assert.Equal(t, step.held, held, step.name)
	}
	for key, want := range map[string]string{
		"toolnexus:claim:p1": `done:call:{"result":"ok"}`,
		"toolnexus:claim:p2": "run:tok-5:call",
		"toolnexus:claim:p3": string(binary),
	} {
		assert.Equal(t, want, c.Get(ctx, key).Val(), key)
		ttl, err := c.PTTL(ctx, key).Result()
		require.NoError(t, err)
		assert.Greater(t, ttl, 50*time.Second, "%s lives as long as its parking", key)
		assert.LessOrEqual(t, ttl, time.Minute, key)
	}
	assert.Equal(t, int64(3), c.DBSize(ctx).Val())

	// The zero until keeps a record for as long as Redis lasts, the claim
	// as its result.
	held, err := s.Claim(ctx, "forever", []byte("run:tok-7:call"), time.Time{})
	require.NoError(t, err)
	assert.Nil(t, held)
	assert.Equal(t, time.Duration(-1), c.PTTL(ctx, "toolnexus:claim:forever").Val(), "no expiry")
	require.NoError(t, s.Finish(ctx, "forever", []byte("done:call:{}"), time.Time{}))
	assert.Equal(t, time.Duration(-1), c.PTTL(ctx, "toolnexus:claim:forever").Val(), "no expiry")
	assert.Equal(t, "done:call:{}", c.Get(ctx, "toolnexus:claim:forever").Val())

	other := newStore(t, c, &redisclaims.Options{Prefix: "other:"})
	held, err = other.Claim(ctx, "p1", []byte("run:tok-8:call"), until)
	require.NoError(t, err)
	assert.Nil(t, held, "another prefix, other claims")
	assert.Equal(t, "run:tok-8:call", c.Get(ctx, "other:p1").Val())
}

// TestStoreExpiry claims parkings that expire soon: once Redis has
// forgotten a claim, its parking can be claimed again (it can no longer
// be answered).
func TestStoreExpiry(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.client(t)
	ctx := context.Background()
	s := newStore(t, c, nil)
	held, err := s.Claim(ctx, "soon", []byte("run:a"), time.Now().Add(150*time.Millisecond))
	require.NoError(t, err)
	require.Nil(t, held)
	assert.LessOrEqual(t, c.PTTL(ctx, "toolnexus:claim:soon").Val(), 150*time.Millisecond)
	held, err = s.Claim(ctx, "soon", []byte("run:b"), time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, []byte("run:a"), held)
	require.Eventually(t, func() bool { return c.Exists(ctx, "toolnexus:claim:soon").Val() == 0 }, 5*time.Second, 20*time.Millisecond)
	held, err = s.Claim(ctx, "soon", []byte("run:c"), time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.Nil(t, held)

	// A result kept with an earlier until replaces the claim's expiry.
	require.NoError(t, s.Finish(ctx, "soon", []byte("done:c"), time.Now().Add(150*time.Millisecond)))
	assert.LessOrEqual(t, c.PTTL(ctx, "toolnexus:claim:soon").Val(), 150*time.Millisecond)
	require.Eventually(t, func() bool { return c.Exists(ctx, "toolnexus:claim:soon").Val() == 0 }, 5*time.Second, 20*time.Millisecond)

	// A claim, or a result, whose parking has expired is kept a
	// millisecond.
	held, err = s.Claim(ctx, "past", []byte("run:d"), time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Nil(t, held)
	require.NoError(t, s.Finish(ctx, "late", []byte("done:e"), time.Now().Add(-time.Hour)))
	require.Eventually(t, func() bool {
		return c.Exists(ctx, "toolnexus:claim:past", "toolnexus:claim:late").Val() == 0
	}, 5*time.Second, 20*time.Millisecond)
}

// TestStoreConcurrent claims the same parkings from many goroutines over
// two clients, each with a record of its own: each parking is claimed
// exactly once, and every other claim gets the winner's record.
func TestStoreConcurrent(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	stores := []*redisclaims.Store{newStore(t, srv.client(t), nil), newStore(t, srv.client(t), nil)}
	const parkings, workers = 20, 6
	var (
		mu   sync.Mutex
		won  [parkings][]string          // the records that claimed each parking
		seen [parkings]map[string]string // the record each loser was given, by its own
		errs []error
		wg   sync.WaitGroup
	)
	for i := range parkings {
		seen[i] = map[string]string{}
	}
	for w := range workers {
		wg.Go(func() {
			for i := range parkings {
				rec := fmt.Sprintf("run:worker-%d:%d", w, i)
				held, err := stores[w%2].Claim(context.Background(), fmt.Sprint("park-", i), []byte(rec), time.Now().Add(time.Minute))
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, err)
				case held == nil:
					won[i] = append(won[i], rec)
				default:
					seen[i][rec] = string(held)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	for i := range parkings {
		require.Len(t, won[i], 1, "parking %d", i)
		assert.Len(t, seen[i], workers-1, "parking %d", i)
		for rec, held := range seen[i] {
			assert.Equal(t, won[i][0], held, "parking %d, claim %s", i, rec)
		}
	}
}

// TestRedisUnreachable claims with a Redis that is gone: the claim fails
// with the client's error, and the Runner refuses the call.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	r := park.Runner{Store: newStore(t, srv.client(t), nil), Logger: quiet}
	ctx := context.Background()
	call := park.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Park: "p1", Until: time.Now().Add(time.Minute)}
	cl, held, err := r.Claim(ctx, call)
	require.NoError(t, err)
	require.NotNil(t, cl)
	assert.Nil(t, held)

	srv.stop()
	call.Park = "p2"
	cl, held, err = r.Claim(ctx, call)
	require.ErrorIs(t, err, park.ErrStore)
	require.NotErrorIs(t, err, park.ErrRunning)
	var netErr *net.OpError
	require.ErrorAs(t, err, &netErr, "the cause is wrapped")
	assert.EqualError(t, err, `toolnexus: cannot record the claim of a parked call: call of "deploy": redisclaims: cannot claim park:p2: dial tcp `+
		srv.addr+`: connect: connection refused`)
	assert.Nil(t, cl)
	assert.Nil(t, held)

	never := newStore(t, redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t))), MaxRetries: -1, DialerRetries: 1}), nil)
	_, err = never.Claim(ctx, "x", []byte("run:x"), time.Now().Add(time.Minute))
	require.ErrorAs(t, err, &netErr)
	assert.Contains(t, err.Error(), "redisclaims: cannot claim x: dial tcp 127.0.0.1:")
	err = never.Finish(ctx, "x", []byte("done:x"), time.Now().Add(time.Minute))
	require.ErrorAs(t, err, &netErr)
	assert.Contains(t, err.Error(), "redisclaims: cannot keep the result of x: dial tcp 127.0.0.1:")
}

// stallClient is a client of addr whose reads time out after 100ms and
// that sends a command again after a timeout up to retries times, as
// go-redis does by default (retries 3).
func stallClient(t *testing.T, addr string, retries int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 100 * time.Millisecond, WriteTimeout: time.Second,
		MaxRetries: retries, MinRetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 100 * time.Millisecond, PoolSize: 16})
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.Ping(context.Background()).Err())
	return c
}

// TestStoreStall claims through a Redis stopped with SIGSTOP for longer
// than the client's read timeout: go-redis sends SET again on a new
// connection after its first attempt, which Redis runs first once it goes
// on. The claim gets its own record back, and the Runner knows it as its
// own.
func TestStoreStall(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := stallClient(t, srv.addr, 8)
	s := newStore(t, c, nil)
	rec := []byte("run:token-1:call")
	before := srv.setCalls(t)
	require.NoError(t, srv.pause())
	type claimed struct {
		held []byte
		err  error
	}
	done := make(chan claimed, 1)
	go func() {
		held, err := s.Claim(context.Background(), "stalled", rec, time.Now().Add(time.Minute))
		done <- claimed{held, err}
	}()
	time.Sleep(400 * time.Millisecond) // the first SET has timed out, and is sent again
	require.NoError(t, srv.resume())
	got := <-done
	require.NoError(t, got.err)
	assert.Equal(t, rec, got.held, "the first attempt landed: the second reads its own record")
	assert.Equal(t, 2, srv.setCalls(t)-before, "SET ran twice")
	assert.Equal(t, string(rec), srv.client(t).Get(context.Background(), "toolnexus:claim:stalled").Val())
}

// TestStoreStalls claims 1,000 parkings, each once, through a Runner over a
// Redis stopped for 150ms every 300ms, so that go-redis sends SET again
// after a first attempt that Redis ran: no first claim is refused as
// running. A plain SET NX, which cannot tell its own earlier attempt from
// another's, is measured alongside for the log.
func TestStoreStalls(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := stallClient(t, srv.addr, 8)
	r := park.Runner{Store: newStore(t, c, &redisclaims.Options{Prefix: "store:"}), Logger: quiet}
	const n = 1000
	before := srv.setCalls(t)
	running, failed := claimUnderStalls(t, srv, n, func(i int) (bool, error) {
		cl, held, err := r.Claim(context.Background(), park.Call{Tool: "deploy", Park: fmt.Sprint("stalled-", i), Until: time.Now().Add(time.Minute)})
		switch {
		case errors.Is(err, park.ErrRunning):
			return false, nil
		case err != nil:
			return false, err
		case held != nil || cl == nil:
			return false, fmt.Errorf("a first claim got a claim %v and a record %q", cl, held)
		}
		return true, nil
	})
	sets := srv.setCalls(t) - before
	plainRefused, plainFailed := claimUnderStalls(t, srv, n, func(i int) (bool, error) {
		return c.SetNX(context.Background(), fmt.Sprint("plain:", i), 1, time.Minute).Result()
	})
	t.Logf("of %d first claims under stalls: SET NX GET: %d SETs run, %d refused as running, %d failed; SET NX: %d refused as used, %d failed",
		n, sets, running, failed, plainRefused, plainFailed)
	assert.Zero(t, running, "a first claim refused as running")
	keys, err := srv.client(t).Keys(context.Background(), "store:*").Result()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(keys), n-failed, "every claim that succeeded holds its key")
}

// claimUnderStalls claims n parkings, each once, with claim, from 16
// goroutines, while srv is stopped for 150ms every 300ms, and returns
// how many first claims were refused, and how many failed.
func claimUnderStalls(t *testing.T, srv *redisServer, n int, claim func(i int) (bool, error)) (refused, failed int) {
	t.Helper()
	done := make(chan struct{})
	var stalls sync.WaitGroup
	stalls.Go(func() {
		for {
			_ = srv.pause()
			time.Sleep(150 * time.Millisecond)
			_ = srv.resume()
			select {
			case <-done:
				return
			case <-time.After(150 * time.Millisecond):
			}
		}
	})
	var (
		next        atomic.Int64
		ref, failer atomic.Int64
		wg          sync.WaitGroup
	)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				time.Sleep(2 * time.Millisecond) // claims spread over the stalls
				fresh, err := claim(int(i))
				switch {
				case err != nil:
					if failer.Add(1) == 1 {
						t.Logf("a claim failed: %v", err)
					}
				case !fresh:
					ref.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(done)
	stalls.Wait()
	return int(ref.Load()), int(failer.Load())
}

// TestStoreLongStall claims through a Redis stopped for longer than every
// attempt of the client and of the Store: the claim is an error, for the
// Runner to refuse the call, never a replay. Its first attempt still
// lands once Redis goes on: the claim is held, at most once.
func TestStoreLongStall(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	s := newStore(t, stallClient(t, srv.addr, 2), nil)
	require.NoError(t, srv.pause())
	held, err := s.Claim(context.Background(), "long", []byte("run:token-1:call"), time.Now().Add(time.Minute))
	require.NoError(t, srv.resume())
	require.Error(t, err)
	assert.Nil(t, held)
	assert.True(t, strings.HasPrefix(err.Error(), "redisclaims: cannot claim long: "), err.Error())
	var netErr net.Error
	require.ErrorAs(t, err, &netErr)
	assert.True(t, netErr.Timeout())

	c := srv.client(t)
	require.Eventually(t, func() bool { return c.Get(context.Background(), "toolnexus:claim:long").Val() == "run:token-1:call" },
		5*time.Second, 10*time.Millisecond)
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
	var netErr *net.OpError
	require.ErrorAs(t, err, &netErr, "a Redis that cannot be reached")
	assert.EqualError(t, err, "redisclaims: cannot read the Redis configuration: dial tcp "+srv.addr+": connect: connection refused")
}

// keys are the request state keys that the instances of these tests share.
var keys = func() [][]byte {
	k, err := requeststate.KeysFromHex("0202020202020202020202020202020202020202020202020202020202020202,0101010101010101010101010101010101010101010101010101010101010101")
	if err != nil {
		panic(err)
	}
	return k
}()

// audience is the audience of the instances of these tests.
const audience = "https://mcp.example.com"

// instance returns one server instance: an MCP Runner with its own Sealer
// of keys and audience, whose park.Runner claims in a Store of its own
// over c.
func instance(t *testing.T, c redis.Cmdable) *mcpcall.Runner {
	t.Helper()
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: audience})
	require.NoError(t, err)
	r, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: park.Runner{Store: newStore(t, c, nil), Logger: quiet}})
	require.NoError(t, err)
	return r
}

// counter is a tool that asks for an approval, then, approved, counts its
// run: its result names the call ({"n":N}) and the run's number among the
// runs of the counter, so that a second run of a call would give other
// bytes. Started, when set, gets each call's number as its run begins,
// and the run then waits for release.
type counter struct {
	asks, runs [1000]atomic.Int32
	seq        atomic.Int32
	started    chan int
	release    [1000]chan struct{}
}

func (c *counter) tool(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	var a struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return toolnexus.Error(err.Error())
	}
	if len(answers) == 0 {
		c.asks[a.N].Add(1)
		return toolnexus.Pending(toolnexus.Request{ID: "go", Kind: toolnexus.KindApproval, Prompt: "Run?"})
	}
	if !answers[0].OK {
		return toolnexus.Error("declined")
	}
	seq := c.seq.Add(1)
	c.runs[a.N].Add(1)
	if c.started != nil {
		c.started <- a.N
		<-c.release[a.N]
	}
	return toolnexus.Ok(fmt.Sprintf("call %d: run %d", a.N, seq))
}

// client is the MCP client of these tests: on MultiRoundTrip, taking form
// elicitations.
var client = mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}

// The exact JSON the counter's calls get: the approval it asks, and the
// client's answer.
const (
	askRun = `{"content":null,"isError":false,"resultType":"input_required","inputRequests":{"go":{"method":"elicitation/create","params":{"mode":"form","message":"Run?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"STATE"}`
	accept = `{"action":"accept"}`
)

// callOf returns the n-th call of the counter.
func callOf(n int) mcpcall.Call {
	return mcpcall.Call{Tool: "count", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)), Principal: "alice", Client: client}
}

// answer returns the call that answers res, an input_required result of
// c, with response.
func answer(c mcpcall.Call, res toolnexus.MCPCallToolResult, response string) mcpcall.Call {
	c.RequestState = res.RequestState
	c.InputResponses = map[string]json.RawMessage{"go": json.RawMessage(response)}
	return c
}

// wireOf returns the JSON of res, its requestState replaced by STATE.
func wireOf(t *testing.T, res toolnexus.MCPCallToolResult) string {
	t.Helper()
	if res.RequestState != "" {
		res.RequestState = "STATE"
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b)
}

// TestRunnersShareRedis stands for two server instances behind a load
// balancer: two MCP Runners with the same keys and audience, each with
// its own Redis client and Store, sharing one Redis. A call parked on one
// and answered on the other runs once; its retries on either get the
// same bytes, and its claim lives as long as its state may open.
func TestRunnersShareRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	a, b := instance(t, srv.client(t)), instance(t, srv.client(t))
	var tool counter
	ctx := context.Background()

	call := callOf(7)
	parked, err := a.Run(ctx, call, tool.tool)
	require.NoError(t, err)
	assert.Equal(t, askRun, wireOf(t, parked))
	first, err := b.Run(ctx, answer(call, parked, accept), tool.tool)
	require.NoError(t, err)
	want := `{"content":[{"type":"text","text":"call 7: run 1"}],"isError":false,"resultType":"complete"}`
	assert.Equal(t, want, wireOf(t, first))
	for i, retry := range []struct {
		r        *mcpcall.Runner
		response string
	}{{a, accept}, {b, accept}, {a, `{"action":"decline"}`}, {b, `{"action":"cancel"}`}} {
		again, err := retry.r.Run(ctx, answer(call, parked, retry.response), tool.tool)
		require.NoError(t, err, "retry %d", i)
		assert.Equal(t, want, wireOf(t, again), "retry %d", i)
	}
	assert.Equal(t, int32(1), tool.asks[7].Load())
	assert.Equal(t, int32(1), tool.runs[7].Load())

	opened, err := a.Sealer().Open(parked.RequestState, requeststate.Call{Tool: call.Tool, Arguments: call.Arguments, Principal: call.Principal}, time.Now())
	require.NoError(t, err)
	c := srv.client(t)
	assert.Equal(t, []string{"toolnexus:claim:park:" + opened.ID}, c.Keys(ctx, "*").Val(), "one claim: the answered state's")
	rec := c.Get(ctx, "toolnexus:claim:park:"+opened.ID).Val()
	assert.Regexp(t, `^done:[A-Za-z0-9_-]{24}:`, rec)
	assert.JSONEq(t, `{"result":`+want+`}`, rec[len("done:")+24+1:], "the reply kept")
	// Kept until the state can open nowhere, and park.ClockSkew after:
	// ten minutes (the request's expiry), and five and five.
	ttl := c.PTTL(ctx, "toolnexus:claim:park:"+opened.ID).Val()
	assert.Greater(t, ttl, 19*time.Minute+50*time.Second)
	assert.LessOrEqual(t, ttl, 20*time.Minute)
}

// flaky is a Redis client whose next writes of a kept result (a SET
// without NX), as many as fail says, fail with err before they are sent.
// It counts them.
type flaky struct {
	redis.Cmdable
	err      error
	fail     atomic.Int32
	finishes atomic.Int32
}

func (f *flaky) SetArgs(ctx context.Context, key string, value any, a redis.SetArgs) *redis.StatusCmd {
	if a.Mode == "" {
		f.finishes.Add(1)
		if f.fail.Add(-1) >= 0 {
			cmd := redis.NewStatusCmd(ctx, "set", key, value)
			cmd.SetErr(f.err)
			return cmd
		}
	}
	return f.Cmdable.SetArgs(ctx, key, value, a)
}

// replyError is an error reply of Redis, which the Store does not send again.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

var _ redis.Error = replyError("")

// TestStoreFinishFails keeps the reply of an answered call in a Redis whose
// first writes of it fail: a write sent again lands, and the retry of the
// call gets the first run's bytes. A reply never kept leaves the state
// claimed, so its retries are told the call still runs until it expires:
// the tool runs at most once.
func TestStoreFinishFails(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	netErr := &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}
	readOnly := replyError("READONLY You can't write against a read only replica.")
	for _, tt := range []struct {
		name     string
		err      error
		fail     int32
		finishes int32 // the writes of the reply tried
		kept     bool
	}{
		{"a network error, written again by the Store", netErr, 1, 2, true},
		{"a network error on every attempt of the Store, written again by the Runner", netErr, 3, 4, true},
		{"an error reply, written again by the Runner", readOnly, 1, 2, true},
		{"network errors on every attempt", netErr, 100, 9, false},
		{"error replies on every attempt", readOnly, 100, 3, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &flaky{Cmdable: srv.client(t), err: tt.err}
			f.fail.Store(tt.fail)
			r := instance(t, f)
			var tool counter
			ctx := context.Background()
			call := callOf(1)
			parked, err := r.Run(ctx, call, tool.tool)
			require.NoError(t, err)
			first, err := r.Run(ctx, answer(call, parked, accept), tool.tool)
			require.NoError(t, err)
			want := `{"content":[{"type":"text","text":"call 1: run 1"}],"isError":false,"resultType":"complete"}`
			assert.Equal(t, want, wireOf(t, first), "the first reply is sent, kept or not")
			assert.Equal(t, tt.finishes, f.finishes.Load())

			again, err := r.Run(ctx, answer(call, parked, accept), tool.tool)
			if tt.kept {
				require.NoError(t, err)
				assert.Equal(t, want, wireOf(t, again))
			} else {
				var e *mcpcall.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, mcpcall.CodeInternalError, e.Code)
				assert.Equal(t, "Call still running: retry later", e.Message)
				assert.Equal(t, `{"reason":"call_in_progress"}`, string(e.Data))
				assert.ErrorIs(t, err, park.ErrRunning)
			}
			assert.Equal(t, int32(1), tool.runs[1].Load())
		})
	}
}

// TestRestartReplays answers a call, then restarts the server: a new
// Runner, Sealer, Redis client and Store, on the same Redis. The retry
// gets the kept reply, and the tool does not run again.
func TestRestartReplays(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	ctx := context.Background()
	var tool counter
	want := `{"content":[{"type":"text","text":"call 3: run 1"}],"isError":false,"resultType":"complete"}`

	t.Run("MCP", func(t *testing.T) {
		before := instance(t, srv.client(t))
		call := callOf(3)
		parked, err := before.Run(ctx, call, tool.tool)
		require.NoError(t, err)
		first, err := before.Run(ctx, answer(call, parked, accept), tool.tool)
		require.NoError(t, err)
		require.Equal(t, want, wireOf(t, first))

		after := instance(t, srv.client(t))
		again, err := after.Run(ctx, answer(call, parked, accept), tool.tool)
		require.NoError(t, err)
		assert.Equal(t, want, wireOf(t, again))
		assert.Equal(t, int32(1), tool.runs[3].Load())
	})

	t.Run("Turn", func(t *testing.T) {
		tools := map[string]toolnexus.Tool{"count": tool.tool}
		before := park.Runner{Store: newStore(t, srv.client(t), nil), Logger: quiet}
		turn, err := before.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call-4", Name: "count", Arguments: json.RawMessage(`{"n":4}`)})
		require.NoError(t, err)
		waits := turn.Waiting()
		require.Len(t, waits, 1)
		stored, err := json.Marshal(turn)
		require.NoError(t, err)
		done, err := before.Resume(ctx, tools, turn, waits[0].Request.Resolve(nil))
		require.NoError(t, err)
		require.Equal(t, toolnexus.Ok("call 4: run 2"), done.Calls[0].Result)

		var readBack toolnexus.Turn
		require.NoError(t, json.Unmarshal(stored, &readBack))
		after := park.Runner{Store: newStore(t, srv.client(t), nil), Logger: quiet}
		again, err := after.Resume(ctx, tools, readBack, waits[0].Request.Resolve(nil))
		require.NoError(t, err)
		assert.Equal(t, toolnexus.Ok("call 4: run 2"), again.Calls[0].Result)
		assert.Equal(t, int32(1), tool.runs[4].Load())
	})
}

// TestRunnersLoad parks 1,000 calls on two instances sharing one Redis,
// 8 at a time. Each is answered on one instance and retried three times,
// alternating instances: once while its run goes on, which is told to
// retry later, then twice after, each retry getting the first run's
// bytes. Every call asks once and runs once.
func TestRunnersLoad(t *testing.T) {
	t.Parallel()
	const calls, workers = 1000, 8
	srv := startRedis(t)
	inst := []*mcpcall.Runner{instance(t, srv.client(t)), instance(t, srv.client(t))}
	tool := &counter{started: make(chan int, workers)}
	for i := range calls {
		tool.release[i] = make(chan struct{})
	}
	// The runs that begin, each to its call's worker.
	begun := make([]chan struct{}, calls)
	for i := range begun {
		begun[i] = make(chan struct{})
	}
	go func() {
		for n := range tool.started {
			close(begun[n])
		}
	}()
	defer close(tool.started)

	var (
		running, replayed, otherBytes atomic.Int32
		mu                            sync.Mutex
		failures                      []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	ctx := context.Background()
	one := func(n int) {
		on, other := inst[n%2], inst[(n+1)%2]
		call := callOf(n)
		parked, err := on.Run(ctx, call, tool.tool)
		if err != nil || parked.ResultType != "input_required" {
			fail("call %d: first run: %v %+v", n, err, parked)
			return
		}
		retry := answer(call, parked, accept)
		type reply struct {
			res toolnexus.MCPCallToolResult
			err error
		}
		firstc := make(chan reply, 1)
		go func() {
			res, err := other.Run(ctx, retry, tool.tool)
			firstc <- reply{res, err}
		}()
		var first reply
		select {
		case <-begun[n]:
		case first = <-firstc:
			fail("call %d: the answer did not run: %v %+v", n, first.err, first.res)
			return
		}
		_, err = on.Run(ctx, retry, tool.tool)
		var e *mcpcall.Error
		if errors.As(err, &e) && e.Code == mcpcall.CodeInternalError && e.Message == "Call still running: retry later" &&
			string(e.Data) == `{"reason":"call_in_progress"}` && errors.Is(err, park.ErrRunning) {
			running.Add(1)
		} else {
			fail("call %d: retry while running: %v", n, err)
		}
		close(tool.release[n])
		first = <-firstc
		if first.err != nil {
			fail("call %d: answer: %v", n, first.err)
			return
		}
		want, err := json.Marshal(first.res)
		if err != nil {
			fail("call %d: %v", n, err)
			return
		}
		for _, r := range []*mcpcall.Runner{other, on} {
			res, err := r.Run(ctx, retry, tool.tool)
			if err != nil {
				fail("call %d: retry: %v", n, err)
				continue
			}
			got, _ := json.Marshal(res)
			if bytes.Equal(got, want) {
				replayed.Add(1)
			} else {
				otherBytes.Add(1)
				fail("call %d: retry got %s, not %s", n, got, want)
			}
		}
	}

	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n := range jobs {
				one(n)
			}
		})
	}
	for n := range calls {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)

	var asks, runs, askedOnce, ranOnce int
	for n := range calls {
		a, r := int(tool.asks[n].Load()), int(tool.runs[n].Load())
		asks, runs = asks+a, runs+r
		if a == 1 {
			askedOnce++
		}
		if r == 1 {
			ranOnce++
		}
	}
	claimed, err := srv.client(t).DBSize(ctx).Result()
	require.NoError(t, err)
	t.Logf("%d calls on 2 instances, %d at a time, in %v: %d asks, %d runs (%d calls asked once, %d ran once); "+
		"%d retries while running told -32603 call_in_progress; %d retries after, %d with the first run's bytes, %d with other bytes; %d claims in Redis",
		calls, workers, elapsed.Round(time.Millisecond), asks, runs, askedOnce, ranOnce,
		running.Load(), 2*calls, replayed.Load(), otherBytes.Load(), claimed)
	if len(failures) > 0 {
		t.Errorf("%d failures, the first: %s", len(failures), failures[0])
	}
	assert.Equal(t, calls, askedOnce)
	assert.Equal(t, calls, ranOnce)
	assert.Equal(t, calls, asks)
	assert.Equal(t, calls, runs)
	assert.Equal(t, int32(calls), running.Load())
	assert.Equal(t, int32(2*calls), replayed.Load())
	assert.Zero(t, otherBytes.Load())
	assert.Equal(t, int64(calls), claimed, "one claim an answered call")
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments, a key), that must print and log no part of
// it; a type that can hold none says why instead.
var leakValues = leaktest.Values{
	"redisclaims.Options": nil, // a prefix, which every key shows
	"redisclaims.Store": func(data string) []any {
		s, err := redisclaims.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", Username: "u", Password: data}), &redisclaims.Options{Prefix: "p:"})
		if err != nil {
			panic(err)
		}
		return []any{s, *s}
	},
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "redisclaims", leakValues)
}
