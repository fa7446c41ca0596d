package tasktest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
)

// StoreContract tests what every TaskStore does, on s, which holds no
// task whose ID starts with "contract-".
func StoreContract(t *testing.T, s mcptasks.TaskStore) {
	ctx := context.Background()
	t.Run("create and get", func(t *testing.T) {
		require.NoError(t, s.Create(ctx, "contract-a", []byte(`{"n":1}`), time.Minute))
		got, err := s.Get(ctx, "contract-a")
		require.NoError(t, err)
		assert.Equal(t, mcptasks.StoredTask{ID: "contract-a", Version: 1, Data: []byte(`{"n":1}`)}, got)
		err = s.Create(ctx, "contract-a", []byte(`{"n":2}`), time.Minute)
		assert.ErrorIs(t, err, mcptasks.ErrTaskExists)
		got, err = s.Get(ctx, "contract-a")
		require.NoError(t, err)
		assert.Equal(t, `{"n":1}`, string(got.Data), "a second create changes nothing")
	})
	t.Run("unknown", func(t *testing.T) {
		_, err := s.Get(ctx, "contract-none")
		assert.ErrorIs(t, err, mcptasks.ErrTaskNotFound)
		err = s.Update(ctx, "contract-none", 1, []byte(`{}`))
		assert.ErrorIs(t, err, mcptasks.ErrTaskNotFound)
	})
	t.Run("update", func(t *testing.T) {
		require.NoError(t, s.Create(ctx, "contract-u", []byte(`1`), time.Minute))
		require.NoError(t, s.Update(ctx, "contract-u", 1, []byte(`2`)))
		assert.ErrorIs(t, s.Update(ctx, "contract-u", 1, []byte(`3`)), mcptasks.ErrTaskConflict, "a stale version")
		require.NoError(t, s.Update(ctx, "contract-u", 2, []byte(`4`)))
		got, err := s.Get(ctx, "contract-u")
		require.NoError(t, err)
		assert.Equal(t, mcptasks.StoredTask{ID: "contract-u", Version: 3, Data: []byte(`4`)}, got)
	})
	t.Run("the data is the store's", func(t *testing.T) {
		data := []byte(`"kept"`)
		require.NoError(t, s.Create(ctx, "contract-c", data, time.Minute))
		data[1] = 'X'
		got, err := s.Get(ctx, "contract-c")
		require.NoError(t, err)
		got.Data[1] = 'Y'
		again, err := s.Get(ctx, "contract-c")
		require.NoError(t, err)
		assert.Equal(t, `"kept"`, string(again.Data))
	})
	t.Run("one of concurrent updates wins", func(t *testing.T) {
		require.NoError(t, s.Create(ctx, "contract-race", []byte(`0`), time.Minute))
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			won      int
			conflict int
		)
		for i := range 8 {
			wg.Go(func() {
				err := s.Update(ctx, "contract-race", 1, []byte{'1' + byte(i)})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, mcptasks.ErrTaskConflict):
					conflict++
				default:
					t.Errorf("update: %v", err)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, 1, won)
		assert.Equal(t, 7, conflict)
		got, err := s.Get(ctx, "contract-race")
		require.NoError(t, err)
		assert.Equal(t, uint64(2), got.Version)
	})
}

// Fault is what a [Faulty] store does to a write.
type Fault int

const (
	// Pass passes the write on.
	Pass Fault = iota
	// Refuse fails the write without applying it, as a store that times
	// out before the write reached it.
	Refuse
	// Lose applies the write, then reports an error, as a store whose
	// reply was lost.
	Lose
	// Twice applies the write, then reports it as a conflict
	// (ErrTaskExists for a create), as a client that sent the write again
	// after a read timed out and got the answer to the second copy.
	Twice
)

// ErrFault is the error of a write that a Faulty store spoiled.
var ErrFault = errors.New("tasktest: the store failed")

// Faulty is a TaskStore that passes each call to the store it holds but
// for the writes that Writes spoils, and every call while it is Down.
type Faulty struct {
	mcptasks.TaskStore
	mu     sync.Mutex
	writes func(op string, data []byte) Fault
	down   bool
}

// Writes sets fn to choose the fault of each write: op is "create" or
// "update", data what the write stores.
func (f *Faulty) Writes(fn func(op string, data []byte) Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = fn
}

// Down makes every call fail (down) or pass again, as an instance cut
// off from its store or killed.
func (f *Faulty) Down(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// fault returns the fault of a write op of data.
func (f *Faulty) fault(op string, data []byte) Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.down:
		return Refuse
	case f.writes == nil:
		return Pass
	}
	return f.writes(op, data)
}

// Create implements [mcptasks.TaskStore].
func (f *Faulty) Create(ctx context.Context, id string, data []byte, ttl time.Duration) error {
	fault := f.fault("create", data)
	if fault == Refuse {
		return ErrFault
	}
	return spoil(fault, f.TaskStore.Create(ctx, id, data, ttl), mcptasks.ErrTaskExists)
}

// spoil returns what a write with fault reports once the store answered
// it with err: conflict, what a second copy gets, for Twice.
func spoil(fault Fault, err, conflict error) error {
	switch {
	case err != nil || fault == Pass:
		return err
	case fault == Twice:
		return conflict
	}
	return ErrFault
}

// Get implements [mcptasks.TaskStore].
func (f *Faulty) Get(ctx context.Context, id string) (mcptasks.StoredTask, error) {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		return mcptasks.StoredTask{}, ErrFault
	}
	return f.TaskStore.Get(ctx, id)
}

// Update implements [mcptasks.TaskStore].
func (f *Faulty) Update(ctx context.Context, id string, version uint64, data []byte) error {
	fault := f.fault("update", data)
	if fault == Refuse {
		return ErrFault
	}
	return spoil(fault, f.TaskStore.Update(ctx, id, version, data), mcptasks.ErrTaskConflict)
}
