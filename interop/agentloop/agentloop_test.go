package agentloop_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/interop/agentloop"
)

// fakeAPI plays a provider's API: it answers each request with the next of
// its replies and records the body of each.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []string
	bodies  []string
}

func newFakeAPI(t *testing.T, replies ...string) *fakeAPI {
	t.Helper()
	a := &fakeAPI{replies: replies}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		a.mu.Lock()
		defer a.mu.Unlock()
		if err != nil || len(a.replies) == 0 {
			http.Error(w, `{"error":{"type":"invalid_request_error","message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		a.bodies = append(a.bodies, string(body))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a.replies[0])
		a.replies = a.replies[1:]
	}))
	t.Cleanup(a.Close)
	return a
}

// sent returns the bodies received so far.
func (a *fakeAPI) sent() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.bodies...)
}

// goldenPNG returns the base64 of testdata/fixture.png as the main module
// keeps it.
func goldenPNG(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/fixture.png.base64")
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// person answers the approval the deploy call waits on.
type person struct {
	name     string
	answer   agentloop.Person
	deployed string // the text of the deploy call's result
	isError  bool
}

// people are the persons each loop is tested with.
var people = []person{
	{"approves", func(r toolnexus.Request) toolnexus.Answer { return r.Resolve(nil) }, "deployed to prod", false},
	{"declines", func(r toolnexus.Request) toolnexus.Answer { return r.Decline(toolnexus.ReasonDeclined) }, "deploy to prod declined", true},
}

// assertCallIDsOnce asserts that each id is answered in exactly one body,
// once.
func assertCallIDsOnce(t *testing.T, bodies []string, key string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		n := 0
		for _, b := range bodies {
			n += strings.Count(b, `"`+key+`":"`+id+`"`)
		}
		assert.Equal(t, 1, n, "answers to %s", id)
	}
}

// loop is one agent loop under test, against an API that first asks for
// the two tools at once, then ends the run with the text "Done.".
type loop struct {
	start   func(ctx context.Context, url, path string) (string, error)
	resume  func(ctx context.Context, url, path string, person agentloop.Person) (string, error)
	replies []string
	idKey   string   // the key of a call id in a tool result
	ids     []string // the ids of the calls
	bodies  func(t *testing.T, p person) []string
}

// checkLoop runs l with each of people: the run parks, a fresh client
// resumes it from the file alone, and the bodies the API receives are
// exactly l's.
func checkLoop(t *testing.T, l loop) {
	for _, p := range people {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := newFakeAPI(t, l.replies...)
			path := filepath.Join(t.TempDir(), "turn.json")

			_, err := l.start(ctx, api.URL, path)
			require.ErrorIs(t, err, agentloop.ErrParked)
			require.FileExists(t, path)
			require.Len(t, api.sent(), 1, "nothing is sent while the turn waits")

			// A fresh client and nothing but the file: another process.
			text, err := l.resume(ctx, api.URL, path, p.answer)
			require.NoError(t, err)
			assert.Equal(t, "Done.", text)
			assert.NoFileExists(t, path)
			bodies := api.sent()
			assert.Equal(t, l.bodies(t, p), bodies)

			_, err = l.resume(ctx, api.URL, path, p.answer)
			assert.Error(t, err, "a sent turn cannot be resumed again")
			assert.Len(t, api.sent(), 2)
			assertCallIDsOnce(t, bodies, l.idKey, l.ids...)
		})
	}
}
