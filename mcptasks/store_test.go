package mcptasks_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// secret is a payload that no printed or logged value may show.
const secret = "c2VjcmV0IHBheWxvYWQgb2YgYSB0YXNr"

// leakValues holds, for every exported type of the module's packages, the
// values that must print and log no payload; a type that holds none says
// why instead. tasktest is left out: its helpers run in tests only.
var leakValues = map[string]func() []any{
	"mcptasks.StoredTask": func() []any {
		return []any{mcptasks.StoredTask{ID: "t", Version: 2, Data: []byte(`{"arguments":"` + secret + `"}`)}}
	},
	"mcptasks.TaskStore": func() []any {
		s := mcptasks.NewMemoryStore()
		s.Create(context.Background(), "t", []byte(secret), time.Minute)
		return []any{s}
	},
	"mcptasks.Tool":        nil, // an MCP tool and functions
	"mcptasks.Options":     nil, // durations, a store (above), a logger and functions
	"mcptasks.Server":      nil, // no exported fields; its tasks live in its store
	"mcptasks.TaskSupport": nil, // a number
	"redistasks.Store":     nil, // a Redis client and a prefix
}

// TestNoTypePrintsPayload finds the exported types of the module's
// packages with go/parser, requires an entry in leakValues for each, and
// checks that fmt's verbs and both handlers of log/slog print no payload
// of the values there.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "tasktest" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		//lint:ignore SA1019 only the names of types are read, which build tags do not change
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, decl := range f.Decls {
					if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
						for _, spec := range g.Specs {
							if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
								found = append(found, pkg.Name+"."+ts.Name.Name)
							}
						}
					}
				}
			}
		}
		return err
	})
	require.NoError(t, err)
	require.Contains(t, found, "mcptasks.StoredTask")
	require.Contains(t, found, "redistasks.Store")
	for _, name := range found {
		values, ok := leakValues[name]
		if !assert.True(t, ok, "%s has no entry in leakValues", name) || values == nil {
			continue
		}
		for _, v := range values() {
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
				assert.NotContains(t, fmt.Sprintf(verb, v), secret[:12], "%s %s", name, verb)
			}
			var text, js bytes.Buffer
			slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
			slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
			assert.NotContains(t, text.String(), secret[:12], name)
			assert.NotContains(t, js.String(), secret[:12], name)
		}
	}
}
