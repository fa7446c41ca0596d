package mcptasks_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
)

// clock is a time that a test moves, from a fixed start.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

func TestMemoryStore(t *testing.T) {
	t.Parallel()
	tasktest.StoreContract(t, mcptasks.NewMemoryStore())
}

func TestMemoryStoreExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClock()
	s, _ := mcptasks.NewMemoryStoreAt(c.Now)
	require.NoError(t, s.Create(ctx, "t", []byte(`1`), time.Minute))
	c.Add(time.Minute - time.Millisecond)
	_, err := s.Get(ctx, "t")
	require.NoError(t, err, "a task lives its whole time to live")
	c.Add(time.Millisecond)
	_, err = s.Get(ctx, "t")
	assert.ErrorIs(t, err, mcptasks.ErrTaskNotFound)
	assert.ErrorIs(t, s.Update(ctx, "t", 1, []byte(`2`)), mcptasks.ErrTaskNotFound)
	require.NoError(t, s.Create(ctx, "t", []byte(`3`), time.Minute), "an expired task's ID is free")
}

// TestMemoryStoreDrops shows that a store that keeps getting tasks holds
// only the live ones.
func TestMemoryStoreDrops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClock()
	s, held := mcptasks.NewMemoryStoreAt(c.Now)
	for i := range 5000 {
		require.NoError(t, s.Create(ctx, fmt.Sprint(i), nil, time.Second))
		c.Add(time.Millisecond)
	}
	assert.Equal(t, 1000, held(), "a second's worth of tasks")
	require.NoError(t, s.Create(ctx, "long", nil, time.Hour))
	require.NoError(t, s.Update(ctx, "long", 1, []byte(`2`)))
	c.Add(time.Minute)
	_, err := s.Get(ctx, "long")
	require.NoError(t, err, "an update keeps the time to live")
	assert.Equal(t, 1, held())
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in stored
// arguments), that must print and log no part of it; a type that can hold
// none says why instead.
var leakValues = leaktest.Values{
	"mcptasks.StoredTask": func(data string) []any {
		return []any{mcptasks.StoredTask{ID: "t", Version: 2, Data: []byte(`{"arguments":"` + data + `"}`)}}
	},
	"mcptasks.TaskStore": func(data string) []any {
		s := mcptasks.NewMemoryStore()
		if err := s.Create(context.Background(), "t", []byte(data), time.Minute); err != nil {
			panic(err)
		}
		return []any{s}
	},
	"mcptasks.Tool":                       nil, // an MCP tool and functions
	"mcptasks.Options":                    nil, // durations, a store (above), a logger and functions
	"mcptasks.Server":                     nil, // no exported fields; its tasks live in its store
	"mcptasks.TaskSupport":                nil, // a number
	"mcptasks/redistasks.Store":           nil, // a Redis client and a prefix
	"mcptasks/internal/tasktest.Fault":    nil, // a test helper: a number
	"mcptasks/internal/tasktest.Faulty":   nil, // a test helper: a store (above) and a function
	"mcptasks/internal/tasktest.Client":   nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Response": nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Error":    nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Tools":    nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Instance": nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Config":   nil, // a test helper, never run by a host
	"mcptasks/internal/tasktest.Redis":    nil, // a test helper, never run by a host
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "mcptasks", leakValues)
}
