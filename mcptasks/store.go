package mcptasks

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// The errors of a [TaskStore], which its implementations wrap so that
// [errors.Is] matches them.
var (
	// ErrTaskNotFound reports a task the store does not hold: never
	// created, or dropped once its time to live passed.
	ErrTaskNotFound = errors.New("mcptasks: task not found")
	// ErrTaskExists reports a task created under an ID the store holds.
	ErrTaskExists = errors.New("mcptasks: task exists")
	// ErrTaskConflict reports an update of a task that another update
	// changed since it was read.
	ErrTaskConflict = errors.New("mcptasks: task changed since it was read")
)

// StoredTask is a task as a [TaskStore] holds it: its ID, its Version (1
// once created, one more at each update) and Data, the task's state as the
// [Server] encodes it, which the store keeps as it is given. Data holds the
// task's arguments, answers and result: a StoredTask prints and logs it as
// its size.
type StoredTask struct {
	ID      string
	Version uint64
	Data    []byte `toolnexus:"payload"`
}

// String returns t's fields, its Data as its size, for %v.
func (t StoredTask) String() string { return wire.Show(t, false) }

// GoString returns t in Go syntax, its Data as its size, for %#v.
func (t StoredTask) GoString() string { return wire.Show(t, true) }

// Format prints t for every verb without its Data, as [StoredTask.String]
// (%#v: [StoredTask.GoString]).
func (t StoredTask) Format(f fmt.State, verb rune) { wire.Format(f, verb, t) }

// LogValue implements [slog.LogValuer]: t logs as a group of its non-empty
// fields, its Data as its size.
func (t StoredTask) LogValue() slog.Value { return wire.Log(t) }

func init() {
	wire.Register(reflect.TypeFor[StoredTask]())
}

// TaskStore holds the tasks of every [Server] that shares it: the instances
// behind one load balancer share one store, so that a task created on one
// is read, answered and finished on any. [NewMemoryStore] is a store for
// one process; the redistasks package keeps tasks in Redis. A TaskStore is
// safe for concurrent use, and each method reports an error when it cannot
// tell, such as a database that cannot be reached.
type TaskStore interface {
	// Create stores data as the task id, version 1, for ttl, after which
	// the store drops it; it reports ErrTaskExists when it holds id.
	Create(ctx context.Context, id string, data []byte, ttl time.Duration) error
	// Get returns the task id, or an error matching ErrTaskNotFound.
	Get(ctx context.Context, id string) (StoredTask, error)
	// Update replaces the data of the task id if its version is still
	// version, making it version+1, and keeps its time to live. It
	// reports ErrTaskConflict when the task has another version, and
	// ErrTaskNotFound when the store does not hold it.
	Update(ctx context.Context, id string, version uint64, data []byte) error
}

// memoryStore is the TaskStore of NewMemoryStore: the tasks by ID, and
// their expiries in a heap, earliest first, so that each call drops the
// tasks that have expired.
type memoryStore struct {
	mu     sync.Mutex
	tasks  map[string]memoryTask
	expiry expiries
	now    func() time.Time
}

// memoryTask is a task of a memoryStore, held until expires.
type memoryTask struct {
	version uint64
	data    []byte
	expires time.Time
}

// expiry is when the task id expires.
type expiry struct {
	at time.Time
	id string
}

// expiries is a min-heap of expiries by time.
type expiries []expiry

func (e expiries) Len() int           { return len(e) }
func (e expiries) Less(i, j int) bool { return e[i].at.Before(e[j].at) }
func (e expiries) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *expiries) Push(x any)        { *e = append(*e, x.(expiry)) }
func (e *expiries) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// NewMemoryStore returns a TaskStore that keeps tasks in this process's
// memory, for a server without other instances: a task is returned until
// its time to live has passed, and dropped by the first call after that,
// so the store holds no more than the live tasks. It copies the data it
// is given and returns. It is safe for concurrent use; it fails only as
// the interface says.
func NewMemoryStore() TaskStore {
	return newMemoryStore(time.Now)
}

// newMemoryStore returns a memory store that reads the time from now.
func newMemoryStore(now func() time.Time) *memoryStore {
	return &memoryStore{tasks: map[string]memoryTask{}, now: now}
}

// expire drops the tasks that have expired at now; the caller holds m.mu.
func (m *memoryStore) expire(now time.Time) {
	for len(m.expiry) > 0 && !now.Before(m.expiry[0].at) {
		e := heap.Pop(&m.expiry).(expiry)
		if t, ok := m.tasks[e.id]; ok && t.expires.Equal(e.at) {
			delete(m.tasks, e.id)
		}
	}
}

// Create implements [TaskStore].
func (m *memoryStore) Create(_ context.Context, id string, data []byte, ttl time.Duration) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire(now)
	if _, ok := m.tasks[id]; ok {
		return ErrTaskExists
	}
	t := memoryTask{version: 1, data: bytes.Clone(data), expires: now.Add(ttl)}
	m.tasks[id] = t
	heap.Push(&m.expiry, expiry{at: t.expires, id: id})
	return nil
}

// Get implements [TaskStore].
func (m *memoryStore) Get(_ context.Context, id string) (StoredTask, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire(now)
	t, ok := m.tasks[id]
	if !ok {
		return StoredTask{}, ErrTaskNotFound
	}
	return StoredTask{ID: id, Version: t.version, Data: bytes.Clone(t.data)}, nil
}

// Update implements [TaskStore].
func (m *memoryStore) Update(_ context.Context, id string, version uint64, data []byte) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire(now)
	t, ok := m.tasks[id]
	switch {
	case !ok:
		return ErrTaskNotFound
	case t.version != version:
		return ErrTaskConflict
	}
	m.tasks[id] = memoryTask{version: version + 1, data: bytes.Clone(data), expires: t.expires}
	return nil
}

// String describes m by how many tasks it holds, never their data.
func (m *memoryStore) String() string {
	return fmt.Sprintf("mcptasks memory store (%d tasks)", m.held())
}

// GoString describes m as String does, for %#v.
func (m *memoryStore) GoString() string { return m.String() }

// Format prints m for every verb as String does.
func (m *memoryStore) Format(f fmt.State, verb rune) { wire.Format(f, verb, m) }

// LogValue implements [slog.LogValuer]: m logs as how many tasks it holds.
func (m *memoryStore) LogValue() slog.Value { return slog.IntValue(m.held()) }

// held returns how many tasks m holds.
func (m *memoryStore) held() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}
