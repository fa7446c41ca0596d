package mcptasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
	"github.com/toolnexus-go/toolnexus/park"
)

// once returns a choice of fault that spoils, with fault, the first write
// whose data holds marker.
func once(fault tasktest.Fault, marker string) func(string, []byte) tasktest.Fault {
	var done atomic.Bool
	return func(_ string, data []byte) tasktest.Fault {
		if bytes.Contains(data, []byte(marker)) && done.CompareAndSwap(false, true) {
			return fault
		}
		return tasktest.Pass
	}
}

// TestResultWriteFails fails the one write of a task's result in each way
// a store can: the result is stored all the same, once.
func TestResultWriteFails(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		fault tasktest.Fault
	}{{"refused", tasktest.Refuse}, {"reply lost", tasktest.Lose}, {"sent twice", tasktest.Twice}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &tasktest.Faulty{TaskStore: mcptasks.NewMemoryStore()}
			store.Writes(once(tt.fault, `"status":"completed"`))
			in := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
			c := in.Client()
			id := create(t, c, "wait", nil)
			close(in.Tools.Release)
			task := c.Wait(t, id, "completed")
			assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "released"}}, "isError": false}, task["result"])
		})
	}
}

// TestCancelKeepsDoneWork cancels a task whose tool has returned while its
// result cannot be stored: once the store takes it, the task is completed
// with it, not cancelled.
func TestCancelKeepsDoneWork(t *testing.T) {
	t.Parallel()
	clk := newClock()
	store := &tasktest.Faulty{TaskStore: mcptasks.NewMemoryStore()}
	var stalled atomic.Bool
	stalled.Store(true)
	refused := make(chan struct{}, 1)
	store.Writes(func(_ string, data []byte) tasktest.Fault {
		if stalled.Load() && bytes.Contains(data, []byte(`"status":"completed"`)) {
			select {
			case refused <- struct{}{}:
			default:
			}
			return tasktest.Refuse
		}
		return tasktest.Pass
	})
	in := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Time: clk.Now}}, &mcptasks.Options{Store: store}, nil)
	c := in.Client()
	id := create(t, c, "wait", nil)
	close(in.Tools.Release)
	<-refused
	clk.Add(time.Second)
	c.Call(t, "tasks/cancel", map[string]any{"taskId": id})
	assert.Equal(t, "cancelled", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"], "while the result is not stored")
	stalled.Store(false)
	task := c.Wait(t, id, "completed")
	assert.Equal(t, "released", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
}

// TestUpdateApplied applies the write of a tasks/update and reports it as
// failed, or as a conflict as a resent copy is: the update is known as
// applied, acknowledged, and its run starts.
func TestUpdateApplied(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		fault tasktest.Fault
	}{{"reply lost", tasktest.Lose}, {"sent twice", tasktest.Twice}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &tasktest.Faulty{TaskStore: mcptasks.NewMemoryStore()}
			in := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
			c := in.Client()
			id := create(t, c, "ask", nil)
			c.Wait(t, id, "input_required")
			store.Writes(once(tt.fault, `"answers"`))
			c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
				"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
			task := c.Wait(t, id, "completed")
			assert.Equal(t, "ok=true", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
			assert.Len(t, in.Tools.Answers(), 2, "one run before the answer, one after")
		})
	}
}

// TestCreateApplied applies the create of a task and reports it as failed,
// or as an existing task: the call returns the task all the same.
func TestCreateApplied(t *testing.T) {
	t.Parallel()
	for _, fault := range []tasktest.Fault{tasktest.Lose, tasktest.Twice} {
		store := &tasktest.Faulty{TaskStore: mcptasks.NewMemoryStore()}
		store.Writes(once(fault, `"status":"working"`))
		c := tasktest.Start(t, &mcptasks.Options{Store: store}, nil).Client()
		c.Wait(t, create(t, c, "required", nil), "completed")
	}
}

// leaseOf returns the lease of the task id in store, in Unix milliseconds.
func leaseOf(t *testing.T, store mcptasks.TaskStore, id string) int64 {
	t.Helper()
	st, err := store.Get(context.Background(), id)
	require.NoError(t, err)
	var rec struct {
		Lease int64 `json:"leaseUntil"`
	}
	require.NoError(t, json.Unmarshal(st.Data, &rec))
	return rec.Lease
}

// TestLease runs a task on a, which renews its lease while it can reach
// the store; once a is cut off, as a killed instance is, b fails the task
// when its lease lapses, and a's result, come later, changes nothing.
func TestLease(t *testing.T) {
	t.Parallel()
	clk := newClock()
	shared := mcptasks.NewMemoryStore()
	cut := &tasktest.Faulty{TaskStore: shared}
	opts := mcptasks.Options{Lease: 300 * time.Millisecond, PollInterval: 10 * time.Millisecond}
	optsA, optsB := opts, opts
	optsA.Store, optsB.Store = cut, shared
	config := tasktest.Config{Park: park.Runner{Time: clk.Now}}
	a := tasktest.StartWith(t, config, &optsA, nil)
	cb := tasktest.StartWith(t, config, &optsB, nil).Client()
	id := create(t, a.Client(), "wait", map[string]any{"label": "on a"})
	start := clk.Now().UnixMilli()
	assert.Equal(t, start+300, leaseOf(t, shared, id))

	clk.Add(10 * time.Second)
	require.Eventually(t, func() bool { return leaseOf(t, shared, id) == start+10300 }, 10*time.Second, time.Millisecond, "a renews the lease")
	assert.Equal(t, "working", cb.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])

	cut.Down(true)
	t.Cleanup(func() { cut.Down(false) })
	clk.Add(299 * time.Millisecond)
	assert.Equal(t, "working", cb.Call(t, "tasks/get", map[string]any{"taskId": id})["status"], "within the lease")
	clk.Add(2 * time.Millisecond)
	task := cb.Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, "failed", task["status"])
	assert.Equal(t, mcptasks.LapsedMessage, task["statusMessage"])
	assert.Equal(t, map[string]any{"code": float64(-32603), "message": "Internal error"}, task["error"])
	assert.NotContains(t, task, "result")
}

// TestLeaseOwnRun lets the lease of a task that a runs lapse, as a store
// that stalls for longer than the lease keeps a from renewing it: a
// tasks/get on a, whose run is alive, renews the lease rather than failing
// the task, which b then reads as working, and the run's result is
// stored.
func TestLeaseOwnRun(t *testing.T) {
	t.Parallel()
	clk := newClock()
	shared := mcptasks.NewMemoryStore()
	opts := mcptasks.Options{Store: shared, TTL: 24 * time.Hour, Lease: time.Hour, PollInterval: time.Hour} // no renewal of a's own
	config := tasktest.Config{Park: park.Runner{Time: clk.Now}}
	a := tasktest.StartWith(t, config, &opts, nil)
	ca, cb := a.Client(), tasktest.StartWith(t, config, &opts, nil).Client()
	id := create(t, ca, "wait", map[string]any{"label": "on a"})

	clk.Add(2 * time.Hour)
	assert.Equal(t, "working", ca.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
	assert.Equal(t, clk.Now().Add(time.Hour).UnixMilli(), leaseOf(t, shared, id), "a renewed the lease")
	assert.Equal(t, "working", cb.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
	close(a.Tools.Release)
	task := cb.Wait(t, id, "completed")
	assert.Equal(t, "released", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
}

// TestProgress reports progress in a tight loop: the task's status
// message shows the last report, and the store takes a few writes of it,
// not one a report.
func TestProgress(t *testing.T) {
	t.Parallel()
	store := &tasktest.Faulty{TaskStore: mcptasks.NewMemoryStore()}
	var writes atomic.Int64
	store.Writes(func(_ string, data []byte) tasktest.Fault {
		if bytes.Contains(data, []byte(`"statusMessage":"step `)) {
			writes.Add(1)
		}
		return tasktest.Pass
	})
	in := tasktest.Start(t, &mcptasks.Options{Store: store, InlineWait: -1}, nil)
	c := in.Client()
	id := create(t, c, "progress", nil)
	require.Eventually(t, func() bool {
		return c.Call(t, "tasks/get", map[string]any{"taskId": id})["statusMessage"] == "step 1000 of 1000"
	}, 10*time.Second, 5*time.Millisecond, "the last report, which completes, is always shown")
	assert.Equal(t, "working", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
	assert.LessOrEqual(t, writes.Load(), int64(3), "1,000 reports, a few writes")
	close(in.Tools.Release)
	task := c.Wait(t, id, "completed")
	assert.NotContains(t, task, "statusMessage", "the result replaces the progress")
}

// answer is the tasks/update params that accept the "ask" tool's request
// of the task id with ok.
func answer(id string, ok bool) map[string]any {
	return map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": ok}}}}
}

// text returns the text of the result of a completed task.
func text(task map[string]any) any {
	return task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
}

// TestUpdateRunsOnce sends each task's answer four times at once, to two
// instances that share the task store and the park.Runner's store: the
// tool runs once after the answer.
func TestUpdateRunsOnce(t *testing.T) {
	t.Parallel()
	store := mcptasks.NewMemoryStore()
	config := tasktest.Config{Park: park.Runner{Store: park.NewMemoryStore(0, 0)}}
	ts := &tasktest.Tools{Release: make(chan struct{}), Cancelled: make(chan string, 16)}
	a := tasktest.StartWith(t, config, &mcptasks.Options{Store: store}, ts)
	b := tasktest.StartWith(t, config, &mcptasks.Options{Store: store}, ts)
	ca, cb := a.Client(), b.Client()
	const tasks = 20
	for range tasks {
		id := create(t, ca, "ask", nil)
		ca.Wait(t, id, "input_required")
		var wg sync.WaitGroup
		for _, c := range []*tasktest.Client{ca, cb, ca, cb} {
			wg.Go(func() {
				res := c.Send(t, "tasks/update", answer(id, true), nil)
				assert.Nil(t, res.Error)
			})
		}
		wg.Wait()
		assert.Equal(t, "ok=true", text(cb.Wait(t, id, "completed")))
	}
	assert.Len(t, ts.Answers(), 2*tasks, "each tool ran once before its answer, once after")
}

// TestStoreForgetsAnUpdate answers a task, then puts back the task as it
// was before, as a store that lost its last writes in a failover, and
// answers it again: the task gets the result of the one run, and the tool
// does not run again.
func TestStoreForgetsAnUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := mcptasks.NewMemoryStore()
	in := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
	c := in.Client()
	id := create(t, c, "ask", nil)
	c.Wait(t, id, "input_required")
	parked, err := store.Get(ctx, id)
	require.NoError(t, err)
	c.Call(t, "tasks/update", answer(id, true))
	assert.Equal(t, "ok=true", text(c.Wait(t, id, "completed")))

	now, err := store.Get(ctx, id)
	require.NoError(t, err)
	require.NoError(t, store.Update(ctx, id, now.Version, parked.Data))
	require.Equal(t, "input_required", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
	c.Call(t, "tasks/update", answer(id, false))
	assert.Equal(t, "ok=true", text(c.Wait(t, id, "completed")), "the first run's result")
	assert.Len(t, in.Tools.Answers(), 2, "one run before the answer, one after")
}

// TestResentUpdateRunsALostRun stores a task as an instance that took its
// answers and died before it ran the tool leaves it: the client's update,
// sent again, runs the tool, once.
func TestResentUpdateRunsALostRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := mcptasks.NewMemoryStore()
	in := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
	c := in.Client()
	id := create(t, c, "ask", nil)
	c.Wait(t, id, "input_required")
	st, err := store.Get(ctx, id)
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(st.Data, &rec))
	rec["status"], rec["run"], rec["leaseUntil"] = "working", rec["run"].(float64)+1, time.Now().Add(time.Minute).UnixMilli()
	rec["answers"] = []any{map[string]any{"id": "confirm", "ok": true, "data": map[string]any{"ok": true}}}
	delete(rec, "pending")
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, store.Update(ctx, id, st.Version, data))

	c.Call(t, "tasks/update", answer(id, true))
	assert.Equal(t, "ok=true", text(c.Wait(t, id, "completed")))
	c.Call(t, "tasks/update", answer(id, true))
	assert.Equal(t, "completed", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
	assert.Len(t, in.Tools.Answers(), 2, "one run before the answer, one after")
}
