package toolnexus_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

func TestPending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		req        toolnexus.Request
		want       toolnexus.Request // the request under "pending"; ID "*" for a fresh id
		wantOutput string
	}{
		{"prompt only", toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"},
			toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}, "Which environment?"},
		{"prompt and url", toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick"},
			toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick"},
			"Pick an environment\nhttps://example.com/pick"},
		{"every field", toolnexus.Request{ID: "req-3", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?", Data: map[string]any{"service": "api"}, ExpiresAt: "2026-12-01T00:00:00Z"},
			toolnexus.Request{ID: "req-3", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?", Data: map[string]any{"service": "api"}, ExpiresAt: "2026-12-01T00:00:00Z"},
			"Deploy to prod?"},
		{"empty prompt", toolnexus.Request{ID: "req-4", Kind: toolnexus.KindQuestion}, toolnexus.Request{ID: "req-4", Kind: toolnexus.KindQuestion}, ""},
		{"no kind is an input", toolnexus.Request{ID: "req-5", Prompt: "Approve?"}, toolnexus.Request{ID: "req-5", Kind: toolnexus.KindInput, Prompt: "Approve?"}, "Approve?"},
		{"no id gets a fresh one", toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
			toolnexus.Request{ID: "*", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}, "Deploy?"},
		{"zero request", toolnexus.Request{}, toolnexus.Request{ID: "*", Kind: toolnexus.KindInput}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.Pending(tt.req)
			got, ok := r.Metadata[toolnexus.MetadataPending].(toolnexus.Request)
			require.True(t, ok, "the metadata holds a Request")
			if tt.want.ID == "*" {
				assertPendingID(t, got.ID)
				tt.want.ID = got.ID
			}
			assert.Equal(t, toolnexus.ToolResult{Output: tt.wantOutput, IsError: true, Metadata: map[string]any{"pending": tt.want}}, r)
			found, ok := toolnexus.PendingOf(r)
			assert.True(t, ok)
			assert.Equal(t, tt.want, found)
		})
	}
}

// assertPendingID checks that id is "pnd-" followed by a canonical random
// (version 4) UUID.
func assertPendingID(t testing.TB, id string) {
	t.Helper()
	rest, ok := strings.CutPrefix(id, "pnd-")
	require.True(t, ok, "id %q lacks the pnd- prefix", id)
	u, err := uuid.Parse(rest)
	require.NoError(t, err, "id %q", id)
	assert.Equal(t, uuid.Version(4), u.Version(), "id %q", id)
	assert.Equal(t, uuid.RFC4122, u.Variant(), "id %q", id)
	assert.Equal(t, u.String(), rest, "id %q is not in canonical lower-case form", id)
}

// TestPendingIDs is a cheap guard that ids are random: a repeated or
// guessable id would let an answer to one request resolve another. The
// randomness itself is crypto/rand's.
func TestPendingIDs(t *testing.T) {
	t.Parallel()
	const goroutines, each = 4, 16
	ids := make(chan string, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids <- toolnexus.Pending(toolnexus.Request{Prompt: "p"}).Metadata[toolnexus.MetadataPending].(toolnexus.Request).ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	prefixes := map[string]bool{}
	for id := range ids {
		assertPendingID(t, id)
		// A counter shares its leading digits from one id to the next; 64
		// random ids share their first 32 bits with odds under 1 in 10^6.
		prefix := id[:len("pnd-")+8]
		assert.False(t, prefixes[prefix], "two ids start %s", prefix)
		prefixes[prefix] = true
	}
	assert.Len(t, prefixes, goroutines*each)
}

// TestPendingAll checks a suspension of several requests: the first under
// "pending", as Pending writes it, the others under "pendingMore", byte for
// byte in JSON, and every request back from PendingAllOf, before and after
// JSON.
func TestPendingAll(t *testing.T) {
	t.Parallel()
	approve := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}
	login := toolnexus.Request{ID: "b", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	roots := toolnexus.Request{ID: "c", Kind: toolnexus.KindRoots, Prompt: "Your roots"}
	tests := []struct {
		name string
		reqs []toolnexus.Request
		want string
	}{
		{"one is Pending", []toolnexus.Request{approve},
			`{"output":"Deploy?","isError":true,"metadata":{"pending":{"id":"a","kind":"approval","prompt":"Deploy?"}}}`},
		{"three", []toolnexus.Request{approve, login, roots},
			`{"output":"Deploy?\nSign in\nhttps://example.com/login\nYour roots","isError":true,"metadata":{"pending":{"id":"a","kind":"approval","prompt":"Deploy?"},` +
				`"pendingMore":[{"id":"b","kind":"authorization","prompt":"Sign in","url":"https://example.com/login"},{"id":"c","kind":"roots","prompt":"Your roots"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.PendingAll(tt.reqs...)
			require.NoError(t, r.Validate())
			assert.Equal(t, tt.want, mustJSON(t, r))
			if len(tt.reqs) == 1 {
				assert.Equal(t, toolnexus.Pending(tt.reqs[0]), r)
			}
			first, ok := toolnexus.PendingOf(r)
			require.True(t, ok)
			assert.Equal(t, tt.reqs[0], first)
			all, ok := toolnexus.PendingAllOf(r)
			require.True(t, ok)
			assert.Equal(t, tt.reqs, all)

			back, err := toolnexus.ParseToolResult([]byte(mustJSON(t, r)), 0)
			require.NoError(t, err)
			all, ok = toolnexus.PendingAllOf(back)
			require.True(t, ok)
			assert.Equal(t, tt.reqs, all, "after JSON")
		})
	}
	t.Run("fills ids and kinds", func(t *testing.T) {
		t.Parallel()
		r := toolnexus.PendingAll(toolnexus.Request{Prompt: "A?"}, toolnexus.Request{Prompt: "B?", Kind: toolnexus.KindQuestion})
		require.NoError(t, r.Validate())
		all, ok := toolnexus.PendingAllOf(r)
		require.True(t, ok)
		require.Len(t, all, 2)
		assertPendingID(t, all[0].ID)
		assertPendingID(t, all[1].ID)
		assert.NotEqual(t, all[0].ID, all[1].ID)
		assert.Equal(t, []string{toolnexus.KindInput, toolnexus.KindQuestion}, []string{all[0].Kind, all[1].Kind})
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		r := toolnexus.PendingAll()
		assert.Equal(t, toolnexus.Error("[the tool suspended without a request; nothing to answer]"), r)
		assert.False(t, r.IsPending())
	})
}

// TestPendingAllOf reads the requests of results a caller or a peer built.
func TestPendingAllOf(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "a", Kind: toolnexus.KindInput, Prompt: "A?"}
	other := toolnexus.Request{ID: "b", Kind: toolnexus.KindInput, Prompt: "B?"}
	tests := []struct {
		name   string
		r      toolnexus.ToolResult
		want   []toolnexus.Request
		wantOK bool
	}{
		{"Pending", toolnexus.Pending(req), []toolnexus.Request{req}, true},
		{"a list of maps", toolnexus.Pending(req).WithMetadata("pendingMore", []any{map[string]any{"id": "b", "kind": "input", "prompt": "B?"}}),
			[]toolnexus.Request{req, other}, true},
		{"a list of pointers", toolnexus.Pending(req).WithMetadata("pendingMore", []*toolnexus.Request{&other}), []toolnexus.Request{req, other}, true},
		{"what is not a request is left out", toolnexus.Pending(req).WithMetadata("pendingMore", []any{"b", other, map[string]any{"id": "c"}}),
			[]toolnexus.Request{req, other}, true},
		{"not a list", toolnexus.Pending(req).WithMetadata("pendingMore", other), []toolnexus.Request{req}, true},
		{"null", toolnexus.Pending(req).WithMetadata("pendingMore", nil), []toolnexus.Request{req}, true},
		{"more without a first", toolnexus.Ok("x").WithMetadata("pendingMore", []toolnexus.Request{other}), nil, false},
		{"not a suspension", toolnexus.Ok("x"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := toolnexus.PendingAllOf(tt.r)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestValidatePendingMore checks what Validate refuses under "pendingMore".
func TestValidatePendingMore(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "a", Kind: toolnexus.KindInput, Prompt: "A?"}
	tests := []struct {
		name    string
		r       toolnexus.ToolResult
		wantMsg string
	}{
		{"a repeated id", toolnexus.PendingAll(req, toolnexus.Request{ID: "b", Kind: "input", Prompt: "B?"}, toolnexus.Request{ID: "a", Kind: "input", Prompt: "A again?"}),
			`toolnexus: invalid request: request id "a" repeats (pendingMore 1)`},
		{"an invalid request", toolnexus.PendingAll(req, toolnexus.Request{ID: "b", Kind: "input"}),
			`toolnexus: invalid request: request "b" has no prompt (pendingMore 0)`},
		{"not a request", toolnexus.Pending(req).WithMetadata("pendingMore", []any{"b"}),
			`toolnexus: invalid request: metadata "pendingMore" holds string at 0, not a request`},
		{"not a list", toolnexus.Pending(req).WithMetadata("pendingMore", "b"),
			`toolnexus: invalid request: metadata "pendingMore" holds string, not a list of requests`},
		{"without a first", toolnexus.Ok("x").WithMetadata("pendingMore", []toolnexus.Request{req}),
			`toolnexus: invalid request: metadata "pendingMore" without a request under "pending"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.r.Validate(), toolnexus.ErrInvalidRequest, tt.wantMsg)
		})
	}
}

func TestAuthRequired(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		url        string
		prompt     string
		wantPrompt string
		wantOutput string
	}{
		{"default prompt", "https://example.com/login", "", "Authorization required to continue",
			"Authorization required to continue\nhttps://example.com/login"},
		{"own prompt", "https://example.com/login", "Sign in to GitHub", "Sign in to GitHub", "Sign in to GitHub\nhttps://example.com/login"},
		{"no url", "", "", "Authorization required to continue", "Authorization required to continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.AuthRequired(tt.url, tt.prompt)
			req, ok := toolnexus.PendingOf(r)
			require.True(t, ok)
			assertPendingID(t, req.ID)
			want := toolnexus.Request{ID: req.ID, Kind: "authorization", Prompt: tt.wantPrompt, URL: tt.url}
			assert.Equal(t, toolnexus.ToolResult{Output: tt.wantOutput, IsError: true, Metadata: map[string]any{"pending": want}}, r)
			assert.NoError(t, r.Validate())
		})
	}
}

// TestPendingOf covers the values a caller may put under "pending" in
// this process; TestPendingOfSameAfterJSON and TestPendingOfDecoded cover
// JSON.
func TestPendingOf(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	withPending := func(v any) toolnexus.ToolResult { return toolnexus.Error("x").WithMetadata("pending", v) }
	tests := []struct {
		name   string
		r      toolnexus.ToolResult
		want   toolnexus.Request
		wantOK bool
	}{
		{"built by Pending", toolnexus.Pending(req), req, true},
		{"set with WithMetadata", withPending(req), req, true},
		{"pointer to a Request", withPending(&req), req, true},
		{"among other metadata", toolnexus.Pending(req).WithMetadata("count", 2), req, true},
		{"JSON object", withPending(map[string]any{"id": "req-1", "kind": "input", "prompt": "Which environment?"}), req, true},
		{"JSON object with every field", withPending(map[string]any{
			"id": "req-2", "kind": "input", "prompt": "Pick", "url": "https://example.com/pick",
			"data": map[string]any{"choices": []any{"dev", "prod"}}, "expiresAt": "2026-12-01T00:00:00Z", "extra": 1.0,
		}), toolnexus.Request{ID: "req-2", Kind: "input", Prompt: "Pick", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}, true},
		{"JSON object with kind only", withPending(map[string]any{"kind": "approval"}), toolnexus.Request{Kind: "approval"}, true},
		{"JSON object with fields of the wrong type", withPending(map[string]any{"id": 7.0, "kind": "input", "prompt": true, "data": "x"}),
			toolnexus.Request{Kind: "input"}, true},
		{"map of strings", withPending(map[string]string{"id": "req-1", "kind": "input", "prompt": "Which environment?"}), req, true},
		{"Request without id or prompt", withPending(toolnexus.Request{Kind: "input"}), toolnexus.Request{Kind: "input"}, true},

		{"ok without metadata", toolnexus.Ok("done"), toolnexus.Request{}, false},
		{"zero result", toolnexus.ToolResult{}, toolnexus.Request{}, false},
		{"other metadata", toolnexus.Ok("x").WithMetadata("count", 2), toolnexus.Request{}, false},
		{"Request under another key", toolnexus.Ok("x").WithMetadata("request", req), toolnexus.Request{}, false},
		{"Request without kind", withPending(toolnexus.Request{ID: "req-1", Prompt: "p"}), toolnexus.Request{}, false},
		{"zero Request", withPending(toolnexus.Request{}), toolnexus.Request{}, false},
		{"string", withPending("req-1"), toolnexus.Request{}, false},
		{"true", withPending(true), toolnexus.Request{}, false},
		{"nil", withPending(nil), toolnexus.Request{}, false},
		{"nil pointer", withPending((*toolnexus.Request)(nil)), toolnexus.Request{}, false},
		{"object without kind", withPending(map[string]any{"id": "req-1", "prompt": "p"}), toolnexus.Request{}, false},
		{"object with empty kind", withPending(map[string]any{"id": "req-1", "kind": "", "prompt": "p"}), toolnexus.Request{}, false},
		{"object with numeric kind", withPending(map[string]any{"id": "req-1", "kind": 1.0, "prompt": "p"}), toolnexus.Request{}, false},
		{"array", withPending([]any{"input"}), toolnexus.Request{}, false},
		{"func", withPending(func() {}), toolnexus.Request{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := toolnexus.PendingOf(tt.r)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantOK, tt.r.IsPending())
		})
	}
}

// callerRequest is a type of the caller's that has the JSON of a Request.
type callerRequest struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Prompt string `json:"prompt"`
}

// TestPendingOfSameAfterJSON checks the promise that a suspension survives
// storage: for every value a caller may put under "pending", PendingOf
// answers the same before and after json.Marshal and json.Unmarshal.
func TestPendingOfSameAfterJSON(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p"}
	tests := []struct {
		name   string
		v      any
		wantOK bool
	}{
		{"Request", req, true},
		{"Request with data", toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p", Data: map[string]any{"n": 1, "ids": []string{"a"}}}, true},
		{"Request without kind", toolnexus.Request{ID: "req-1", Prompt: "Approve?"}, false},
		{"pointer to a Request", &req, true},
		{"nil pointer to a Request", (*toolnexus.Request)(nil), false},
		{"map with kind", map[string]any{"id": "req-1", "kind": "input", "prompt": "p", "data": map[string]any{"n": 1}}, true},
		{"map with kind and odd types", map[string]any{"kind": "input", "id": 7, "data": []int{1}}, true},
		{"map of strings with kind", map[string]string{"id": "req-1", "kind": "input", "prompt": "p"}, true},
		{"map of strings without kind", map[string]string{"id": "req-1"}, false},
		{"struct with a kind field", callerRequest{ID: "req-1", Kind: "approval", Prompt: "p"}, true},
		{"struct with an empty kind", callerRequest{ID: "req-1"}, false},
		{"string", "req-1", false},
		{"true", true, false},
		{"nil", nil, false},
		{"object without kind", map[string]any{"id": "req-1", "prompt": "p"}, false},
		{"object with a numeric kind", map[string]any{"kind": 1}, false},
		{"array", []any{map[string]any{"kind": "input"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := toolnexus.Error("x").WithMetadata(toolnexus.MetadataPending, tt.v)
			b, err := json.Marshal(before)
			require.NoError(t, err)
			var after toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(b, &after))

			reqBefore, okBefore := toolnexus.PendingOf(before)
			reqAfter, okAfter := toolnexus.PendingOf(after)
			assert.Equal(t, tt.wantOK, okBefore, "before JSON")
			assert.Equal(t, tt.wantOK, okAfter, "after JSON")
			jsonBefore, err := json.Marshal(reqBefore)
			require.NoError(t, err)
			jsonAfter, err := json.Marshal(reqAfter)
			require.NoError(t, err)
			assert.JSONEq(t, string(jsonBefore), string(jsonAfter), "the request found")
			assert.Equal(t, before.String(), after.String())
		})
	}
}

// TestPendingOfDecoded reads "pending" values as they arrive in JSON from
// another process.
func TestPendingOfDecoded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pending string
		found   bool
		req     toolnexus.Request
	}{
		{"every field", `{"id":"req-2","kind":"input","prompt":"Pick","url":"https://example.com/pick","data":{"choices":["dev","prod"]},"expiresAt":"2026-12-01T00:00:00Z"}`,
			true, toolnexus.Request{ID: "req-2", Kind: "input", Prompt: "Pick", URL: "https://example.com/pick",
				Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}},
		{"extra keys are ignored", `{"id":"r","kind":"input","prompt":"p","__proto__":{"admin":true},"secret":"x"}`, true,
			toolnexus.Request{ID: "r", Kind: "input", Prompt: "p"}},
		{"without id", `{"kind":"input","prompt":"p"}`, true, toolnexus.Request{Kind: "input", Prompt: "p"}},
		{"id of the wrong type", `{"id":7,"kind":"input","prompt":"p"}`, true, toolnexus.Request{Kind: "input", Prompt: "p"}},
		{"kind in another case is no kind", `{"id":"r","KIND":"input","prompt":"p"}`, false, toolnexus.Request{}},
		{"string", `"req-1"`, false, toolnexus.Request{}},
		{"number", `42`, false, toolnexus.Request{}},
		{"null", `null`, false, toolnexus.Request{}},
		{"array", `[{"id":"r","kind":"input","prompt":"p"}]`, false, toolnexus.Request{}},
		{"object without kind", `{"id":"r","prompt":"p"}`, false, toolnexus.Request{}},
		{"kind not a string", `{"id":"r","kind":["input"],"prompt":"p"}`, false, toolnexus.Request{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r toolnexus.ToolResult
			require.NoError(t, json.Unmarshal([]byte(`{"output":"","isError":true,"metadata":{"pending":`+tt.pending+`}}`), &r))
			req, ok := toolnexus.PendingOf(r)
			assert.Equal(t, tt.found, ok)
			assert.Equal(t, tt.req, req)
		})
	}
	var r toolnexus.ToolResult
	require.NoError(t, json.Unmarshal([]byte(`{"output":"x","isError":true,"metadata":{"Pending":{"id":"r","kind":"input","prompt":"p"}}}`), &r))
	assert.False(t, r.IsPending(), "the metadata key is exact")
}

// TestPendingAfterJSON checks that a suspension built in this process is
// found, valid and described the same after it is stored as JSON.
func TestPendingAfterJSON(t *testing.T) {
	t.Parallel()
	for _, original := range []toolnexus.ToolResult{
		toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}).WithMetadata("count", 2),
		toolnexus.Pending(toolnexus.Request{Prompt: "Approve?", URL: "https://example.com/approve",
			Data: map[string]any{"choices": []string{"dev", "prod"}, "max": 1}, ExpiresAt: "2026-12-01T00:00:00Z"}),
		toolnexus.AuthRequired("https://example.com/login", ""),
	} {
		b, err := json.Marshal(original)
		require.NoError(t, err)
		var decoded toolnexus.ToolResult
		require.NoError(t, json.Unmarshal(b, &decoded))
		require.IsType(t, map[string]any{}, decoded.Metadata["pending"], "a decoded suspension is a JSON object")

		want, ok := toolnexus.PendingOf(original)
		require.True(t, ok)
		got, ok := toolnexus.PendingOf(decoded)
		require.True(t, ok)
		wantJSON, err := json.Marshal(want)
		require.NoError(t, err)
		gotJSON, err := json.Marshal(got)
		require.NoError(t, err)
		assert.Equal(t, string(wantJSON), string(gotJSON))
		assert.NoError(t, decoded.Validate())
		assert.Equal(t, original.String(), decoded.String())

		again, err := json.Marshal(decoded)
		require.NoError(t, err)
		assert.JSONEq(t, string(b), string(again), "stored again, it is the same JSON")
	}
}

// TestValidatePending covers what ToolResult.Validate checks of the value
// under "pending".
func TestValidatePending(t *testing.T) {
	t.Parallel()
	valid := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	withPending := func(v any) toolnexus.ToolResult { return toolnexus.Error("x").WithMetadata("pending", v) }
	decoded := func(pending string) toolnexus.ToolResult {
		var r toolnexus.ToolResult
		require.NoError(t, json.Unmarshal([]byte(`{"output":"","isError":true,"metadata":{"pending":`+pending+`}}`), &r))
		return r
	}
	tests := []struct {
		name    string
		r       toolnexus.ToolResult
		wantErr error
		wantMsg string
	}{
		{"Request", withPending(valid), nil, ""},
		{"pointer to a Request", withPending(&valid), nil, ""},
		{"JSON object", decoded(`{"id":"req-1","kind":"input","prompt":"p","data":null}`), nil, ""},
		{"auth suspension", toolnexus.AuthRequired("https://example.com/login", ""), nil, ""},

		{"string", withPending("soon"), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds string, not a request`},
		{"true", withPending(true), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds bool, not a request`},
		{"nil", withPending(nil), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds <nil>, not a request`},
		{"decoded number", decoded(`1`), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: metadata "pending" holds float64, not a request`},
		{"decoded array", decoded(`[{"id":"r","kind":"input","prompt":"p"}]`), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds []interface {}, not a request`},
		{"nil pointer", withPending((*toolnexus.Request)(nil)), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds *toolnexus.Request, not a request`},
		{"Request without kind", withPending(toolnexus.Request{ID: "req-1", Prompt: "p"}), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds a request without kind, not a request`},
		{"object without kind", decoded(`{"id":"r","prompt":"p"}`), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds an object without kind, not a request`},
		{"object with an empty kind", decoded(`{"id":"r","kind":"","prompt":"p"}`), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds an object whose kind is not a non-empty string, not a request`},
		{"object with a numeric kind", decoded(`{"id":"r","kind":7,"prompt":"p"}`), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: metadata "pending" holds an object whose kind is not a non-empty string, not a request`},
		{"object with a numeric id", decoded(`{"id":1,"kind":"input","prompt":"p"}`), toolnexus.ErrInvalidRequest,
			"toolnexus: invalid request: pending id is float64, not a string"},
		{"object with string data", decoded(`{"id":"r","kind":"input","prompt":"p","data":"x"}`), toolnexus.ErrInvalidRequest,
			"toolnexus: invalid request: pending data is string, not an object"},
		{"map of strings without id", withPending(map[string]string{"kind": "input", "prompt": "p"}), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: "input" request has no id`},
		{"without id", withPending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "p"}), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: "input" request has no id`},
		{"without prompt", toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval}), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "req-1" has no prompt`},
		{"relative url", decoded(`{"id":"r","kind":"authorization","prompt":"p","url":"/login"}`), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "r": url "/login" is not an absolute URL`},
		{"bad expiry", decoded(`{"id":"r","kind":"input","prompt":"p","expiresAt":"next week"}`), toolnexus.ErrInvalidExpiry,
			`toolnexus: invalid expiresAt: "next week" is not RFC 3339`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.r.Validate(), tt.wantErr, tt.wantMsg)
		})
	}
}
