package redistasks_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
	"github.com/toolnexus-go/toolnexus/mcptasks/redistasks"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// instanceEnv names the environment variable that makes the test binary an
// instance of [TestLoad]: a server of the "counted" tool whose tasks are in
// the Redis at its value.
const instanceEnv = "REDISTASKS_TEST_INSTANCE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(instanceEnv); addr != "" {
		serveInstance(addr)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// client returns a client of the Redis at addr, closed when the test ends.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestStore(t *testing.T) {
	t.Parallel()
	r := tasktest.StartRedis(t)
	tasktest.StoreContract(t, &redistasks.Store{Client: client(t, r.Addr)})
}

func TestStoreKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := client(t, tasktest.StartRedis(t).Addr)
	sent := &lastArgs{}
	c.AddHook(sent)
	s := &redistasks.Store{Client: c}
	require.NoError(t, s.Create(ctx, "t1", []byte(`{"a":1}`), time.Hour+1500*time.Microsecond))
	assert.Equal(t, int64(3600002), sent.last()[len(sent.last())-1], "ttl rounded up to the millisecond")
	assert.Equal(t, map[string]string{"v": "1", "d": `{"a":1}`}, c.HGetAll(ctx, "toolnexus:task:t1").Val())
	ttl := c.PTTL(ctx, "toolnexus:task:t1").Val()
	assert.True(t, ttl > 59*time.Minute && ttl <= time.Hour+2*time.Millisecond, "ttl given to Redis, got %v", ttl)

	require.NoError(t, s.Create(ctx, "t2", nil, time.Hour))
	require.NoError(t, s.Update(ctx, "t2", 1, []byte(`x`)))
	ttl = c.PTTL(ctx, "toolnexus:task:t2").Val()
	assert.True(t, ttl > 59*time.Minute && ttl <= time.Hour, "an update keeps the time to live, got %v", ttl)

	other := &redistasks.Store{Client: c, Prefix: "other:"}
	_, err := other.Get(ctx, "t2")
	assert.ErrorIs(t, err, mcptasks.ErrTaskNotFound, "another prefix is another store")
	require.NoError(t, other.Create(ctx, "t2", []byte(`y`), time.Minute))
	assert.Equal(t, "y", c.HGet(ctx, "other:t2", "d").Val())
}

// lastArgs is a go-redis hook that keeps the arguments of the last command
// a client sent.
type lastArgs struct {
	mu   sync.Mutex
	args []any
}

func (h *lastArgs) last() []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.args
}

func (h *lastArgs) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *lastArgs) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.args = cmd.Args()
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (h *lastArgs) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestStoreExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := &redistasks.Store{Client: client(t, tasktest.StartRedis(t).Addr)}
	require.NoError(t, s.Create(ctx, "short", []byte(`1`), time.Millisecond))
	require.Eventually(t, func() bool {
		_, err := s.Get(ctx, "short")
		return err != nil
	}, 10*time.Second, 5*time.Millisecond, "Redis drops the task after its time to live")
	_, err := s.Get(ctx, "short")
	assert.ErrorIs(t, err, mcptasks.ErrTaskNotFound)
}

func TestStoreErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var none redistasks.Store
	assert.ErrorIs(t, none.Create(ctx, "x", nil, time.Minute), redistasks.ErrNoClient)
	_, err := none.Get(ctx, "x")
	assert.ErrorIs(t, err, redistasks.ErrNoClient)
	assert.ErrorIs(t, none.Update(ctx, "x", 1, nil), redistasks.ErrNoClient)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	never := &redistasks.Store{Client: client(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))}
	err = never.Create(ctx, "x", nil, time.Minute)
	assert.ErrorContains(t, err, "redistasks: cannot create task x")
	assert.NotErrorIs(t, err, mcptasks.ErrTaskExists)
	_, err = never.Get(ctx, "x")
	assert.ErrorContains(t, err, "redistasks: cannot read task x")
	assert.NotErrorIs(t, err, mcptasks.ErrTaskNotFound, "a Redis that cannot be reached is no missing task")
	err = never.Update(ctx, "x", 1, nil)
	assert.ErrorContains(t, err, "redistasks: cannot update task x")
}

// TestTwoInstances runs a task across two servers that share one
// redis-server: created on a, read, answered and finished on b, its result
// read on a; and a run on a cancelled through b.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	r := tasktest.StartRedis(t)
	a := tasktest.Start(t, &mcptasks.Options{Store: &redistasks.Store{Client: client(t, r.Addr)}, PollInterval: 10 * time.Millisecond}, nil)
	b := tasktest.Start(t, &mcptasks.Options{Store: &redistasks.Store{Client: client(t, r.Addr)}, PollInterval: 10 * time.Millisecond}, nil)
	ca, cb := a.Client(), b.Client()

	created := ca.Call(t, "tools/call", map[string]any{"name": "pair"})
	id := created["taskId"].(string)
	task := cb.Wait(t, id, "input_required")
	assert.Len(t, task["inputRequests"], 2)
	cb.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	assert.Equal(t, []string{"name"}, keysOf(ca.Call(t, "tasks/get", map[string]any{"taskId": id})["inputRequests"]), "a sees b's partial answer")
	ca.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	done := cb.Wait(t, id, "completed")
	assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok=true name=Ada"}}, "isError": false}, done["result"])
	assert.Len(t, a.Tools.Answers(), 2, "a ran the tool first, and again with both answers")
	assert.Empty(t, b.Tools.Answers())

	id = ca.Call(t, "tools/call", map[string]any{"name": "ask"})["taskId"].(string)
	ca.Wait(t, id, "input_required")
	cb.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": false}}}})
	done = ca.Wait(t, id, "completed")
	assert.Equal(t, "ok=false", done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	assert.Len(t, b.Tools.Answers(), 1, "b finished the task it was answered")

	running := ca.Call(t, "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"label": "on a"}})["taskId"].(string)
	assert.Equal(t, "working", cb.Call(t, "tasks/get", map[string]any{"taskId": running})["status"])
	cb.Call(t, "tasks/cancel", map[string]any{"taskId": running})
	select {
	case label := <-a.Tools.Cancelled:
		assert.Equal(t, "on a", label)
	case <-time.After(10 * time.Second):
		t.Fatal("the run on a was not cancelled")
	}
	assert.Equal(t, "cancelled", ca.Call(t, "tasks/get", map[string]any{"taskId": running})["status"])
}

// keysOf returns the keys of a JSON object.
func keysOf(v any) []string {
	var ks []string
	for k := range v.(map[string]any) {
		ks = append(ks, k)
	}
	return ks
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := client(t, tasktest.StartRedis(t).Addr) // no persistence, as the tests start it
	s := &redistasks.Store{Client: c}
	err := s.Check(ctx)
	assert.ErrorIs(t, err, redistasks.ErrNotPersistent)
	assert.NotErrorIs(t, err, redistasks.ErrEvicting)

	require.NoError(t, c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err())
	err = s.Check(ctx)
	assert.ErrorIs(t, err, redistasks.ErrEvicting)
	assert.ErrorIs(t, err, redistasks.ErrNotPersistent)
	assert.ErrorContains(t, err, "maxmemory-policy is allkeys-lru, not noeviction")

	require.NoError(t, c.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err())
	require.NoError(t, c.ConfigSet(ctx, "appendonly", "yes").Err())
	assert.NoError(t, s.Check(ctx))

	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "limited", "on", ">pw", "~*", "+@all", "-config").Err())
	limited := redis.NewClient(&redis.Options{Addr: c.Options().Addr, Username: "limited", Password: "pw"})
	t.Cleanup(func() { limited.Close() })
	assert.NoError(t, (&redistasks.Store{Client: limited}).Check(ctx), "a Redis that refuses CONFIG cannot be checked")
	var none redistasks.Store
	assert.ErrorIs(t, none.Check(ctx), redistasks.ErrNoClient)
}

// TestStall stalls Redis (SIGSTOP) for five seconds while 200 tasks store
// their results, through a client whose reads time out after 200 ms and
// which sends a command again after a timeout: once Redis is back, every
// result is stored, each task completed.
func TestStall(t *testing.T) {
	t.Parallel()
	const tasks = 200
	r := tasktest.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	in := tasktest.Start(t, &mcptasks.Options{Store: &redistasks.Store{Client: c}, PollInterval: 50 * time.Millisecond}, nil)
	cl := in.Client()
	ids := make([]string, tasks)
	for i := range ids {
		ids[i] = cl.Call(t, "tools/call", map[string]any{"name": "wait"})["taskId"].(string)
	}
	require.NoError(t, r.Stall())
	close(in.Tools.Release)
	time.Sleep(5 * time.Second)
	require.NoError(t, r.Resume())
	lost := 0
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for {
			task := cl.Call(t, "tasks/get", map[string]any{"taskId": id})
			if task["status"] == "completed" {
				assert.Equal(t, "released", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
				break
			}
			if task["status"] != "working" || time.Now().After(deadline) {
				lost++
				t.Errorf("task %s is %v: %v", id, task["status"], task)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("%d of %d results lost after a 5 s stall", lost, tasks)
}

// loadLease is the lease of the tasks of TestLoad's instances.
const loadLease = 2 * time.Second

// serveInstance serves, as one instance of TestLoad, the tasks of the
// "counted" tool in the Redis at addr, on a free port of 127.0.0.1 whose
// URL it prints first; it returns only when it cannot serve. "counted"
// adds one to load:runs:<key> when it starts, waits the given millis,
// sets load:done:<key> and returns "done <key>". Its store's client reads
// with a short timeout and sends a command again after one, as a client
// that a stalled Redis makes resend its writes.
func serveInstance(addr string) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	store := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond})
	counts := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: time.Minute, WriteTimeout: time.Minute, PoolSize: 1000})
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{tasktest.Key}})
	if err != nil {
		logger.Error("sealer", "err", err)
		return
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: park.Runner{Logger: logger}})
	if err != nil {
		logger.Error("runner", "err", err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "load", Version: "v1"}, nil)
	tasks, err := mcptasks.New(server, runner, &mcptasks.Options{
		Store: &redistasks.Store{Client: store}, Lease: loadLease, PollInterval: 500 * time.Millisecond,
	})
	if err != nil {
		logger.Error("tasks", "err", err)
		return
	}
	err = tasks.AddTool(mcptasks.Tool{Tool: &mcp.Tool{Name: "counted"}, Support: mcptasks.TaskRequired,
		Run: func(ctx context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
			var in struct {
				Key    string `json:"key"`
				Millis int    `json:"millis"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return toolnexus.Error(err.Error())
			}
			if err := counts.Incr(context.WithoutCancel(ctx), "load:runs:"+in.Key).Err(); err != nil {
				return toolnexus.Error(err.Error())
			}
			wait := time.NewTimer(time.Duration(in.Millis) * time.Millisecond)
			defer wait.Stop()
			select {
			case <-wait.C:
			case <-ctx.Done():
				return toolnexus.Error("cancelled")
			}
			if err := counts.Set(context.WithoutCancel(ctx), "load:done:"+in.Key, 1, 0).Err(); err != nil {
				return toolnexus.Error(err.Error())
			}
			return toolnexus.Ok("done " + in.Key)
		}})
	if err != nil {
		logger.Error("tool", "err", err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		logger.Error("listen", "err", err)
		return
	}
	fmt.Printf("http://%s\n", ln.Addr())
	err = http.Serve(ln, mcptasks.RoutingHandler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})))
	logger.Error("serve", "err", err)
}

// instance is a process of the test binary that serves as serveInstance
// does.
type instance struct {
	URL string
	cmd *exec.Cmd
}

// startInstance starts an instance of the tasks in the Redis at addr, its
// logs in the test's log once it ends, and kills it when the test ends.
func startInstance(t *testing.T, addr, name string) *instance {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), instanceEnv+"="+addr)
	logs, err := os.Create(t.TempDir() + "/" + name + ".log")
	require.NoError(t, err)
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	in := &instance{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logs.Close()
		if b, err := os.ReadFile(logs.Name()); err == nil && len(b) > 0 && t.Failed() {
			t.Logf("%s logged:\n%s", name, b[max(0, len(b)-4000):])
		}
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		require.NotEmpty(t, line, "instance %s did not start", name)
		in.URL = line[:len(line)-1]
	case <-time.After(30 * time.Second):
		t.Fatalf("instance %s did not start", name)
	}
	return in
}

// TestLoad runs 1,000 tasks over two instances, separate processes that
// share one redis-server: b is killed (SIGKILL) while its tasks run, and
// Redis stalls (SIGSTOP) for five seconds while a's complete. Then no task
// stays working past its lease, no tool ran twice for one task, every
// task of a is completed with its tool's result, and every task of b is
// completed or, its run killed, failed with [mcptasks.LapsedMessage].
func TestLoad(t *testing.T) {
	t.Parallel()
	const (
		tasks    = 1000
		inFlight = 32
	)
	r := tasktest.StartRedis(t)
	rc := client(t, r.Addr)
	a, b := startInstance(t, r.Addr, "a"), startInstance(t, r.Addr, "b")
	ca, cb := &tasktest.Client{URL: a.URL, Caps: tasktest.Caps()}, &tasktest.Client{URL: b.URL, Caps: tasktest.Caps()}

	key := func(i int) string { return fmt.Sprintf("k%04d", i) }
	ids := make([]string, tasks)
	start := time.Now()
	each(tasks, inFlight, func(i int) {
		c := ca
		if i%2 == 1 {
			c = cb
		}
		res, err := post(c, "tools/call", map[string]any{"name": "counted",
			"arguments": map[string]any{"key": key(i), "millis": 1000 + i*7919%5000}})
		if err != nil {
			t.Errorf("task %d: %v", i, err)
			return
		}
		ids[i], _ = res["taskId"].(string)
	})
	require.False(t, t.Failed(), "every task was created")
	created := time.Since(start)
	doneBefore, _ := rc.Keys(context.Background(), "load:done:*").Result()

	require.NoError(t, b.cmd.Process.Kill(), "b dies while its tasks run")
	require.NoError(t, r.Stall())
	time.Sleep(5 * time.Second)
	require.NoError(t, r.Resume())

	final := make([]map[string]any, tasks)
	deadline := time.Now().Add(30 * time.Second)
	each(tasks, inFlight, func(i int) {
		i = tasks - 1 - i // the last tasks, which may still run, first
		for {
			task, err := post(ca, "tasks/get", map[string]any{"taskId": ids[i]})
			switch {
			case err != nil:
				t.Errorf("task %d: %v", i, err)
				return
			case task["status"] != "working":
				final[i] = task
				return
			case time.Now().After(deadline):
				t.Errorf("task %d of %s is still working, long past its lease", i, map[bool]string{true: "a", false: "b"}[i%2 == 0])
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	keys := make([]string, 0, 2*tasks)
	for i := range tasks {
		keys = append(keys, "load:runs:"+key(i), "load:done:"+key(i))
	}
	counted, err := rc.MGet(context.Background(), keys...).Result()
	require.NoError(t, err)
	var completed, lapsed, runs, most int
	for i, task := range final {
		if task == nil {
			continue
		}
		ran, _ := strconv.Atoi(fmt.Sprint(counted[2*i]))
		done := counted[2*i+1] != nil
		runs += ran
		most = max(most, ran)
		assert.LessOrEqual(t, ran, 1, "task %d ran more than once", i)
		switch {
		case task["status"] == "completed":
			completed++
			assert.True(t, done, "task %d completed without its tool's result", i)
			assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done " + key(i)}}, "isError": false},
				task["result"], "task %d", i)
		case task["status"] == "failed" && task["statusMessage"] == mcptasks.LapsedMessage && i%2 == 1:
			lapsed++
		default:
			t.Errorf("task %d of %s, its tool run %d times and done %v, is %v: %v", i,
				map[bool]string{true: "a", false: "b"}[i%2 == 0], ran, done, task["status"], task)
		}
	}
	t.Logf("created in %v; %d done before the kill", created, len(doneBefore))
	t.Logf("%d tasks: %d completed, %d failed as lapsed; %d runs, at most %d for one task", tasks, completed, lapsed, runs, most)
	assert.Positive(t, lapsed, "b was killed while some of its tasks ran")
}

// post sends method with params through c, within ten seconds, and
// returns its result, or an error for an error response.
func post(c *tasktest.Client, method string, params map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.Post(ctx, method, params, nil)
	switch {
	case err != nil:
		return nil, err
	case res.Error != nil:
		return nil, fmt.Errorf("%s: error %d %s", method, res.Error.Code, res.Error.Message)
	case res.Status != http.StatusOK:
		return nil, fmt.Errorf("%s: HTTP status %d", method, res.Status)
	}
	return res.Result, nil
}

// each calls fn for 0 to n-1, at most limit at once, and returns when
// every call has.
func each(n, limit int, fn func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range limit {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
