package redistasks_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
	"github.com/toolnexus-go/toolnexus/mcptasks/redistasks"
)

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
	s := &redistasks.Store{Client: c}
	require.NoError(t, s.Create(ctx, "t1", []byte(`{"a":1}`), 1500*time.Microsecond))
	assert.Equal(t, map[string]string{"v": "1", "d": `{"a":1}`}, c.HGetAll(ctx, "toolnexus:task:t1").Val())
	ttl := c.PTTL(ctx, "toolnexus:task:t1").Val()
	assert.True(t, ttl > 0 && ttl <= 2*time.Millisecond, "ttl rounded up to 2ms, got %v", ttl)

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
