package mcptasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
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
	in := tasktest.Start(t, &mcptasks.Options{Store: store, Time: clk.Now}, nil)
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
	opts := mcptasks.Options{Time: clk.Now, Lease: 300 * time.Millisecond, PollInterval: 10 * time.Millisecond}
	optsA, optsB := opts, opts
	optsA.Store, optsB.Store = cut, shared
	a := tasktest.Start(t, &optsA, nil)
	cb := tasktest.Start(t, &optsB, nil).Client()
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
