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
		wantOutput string
	}{
		{"prompt only", toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}, "Which environment?"},
		{"prompt and url", toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick"},
			"Pick an environment\nhttps://example.com/pick"},
		{"approval", toolnexus.Request{ID: "req-3", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?",
			Data: map[string]any{"service": "api"}, ExpiresAt: "2026-12-01T00:00:00Z"}, "Deploy to prod?"},
		{"empty prompt", toolnexus.Request{ID: "req-4", Kind: toolnexus.KindQuestion}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.Pending(tt.req)
			assert.Equal(t, toolnexus.ToolResult{
				Output:   tt.wantOutput,
				IsError:  true,
				Metadata: map[string]any{"pending": tt.req},
			}, r)
			got, ok := toolnexus.PendingOf(r)
			require.True(t, ok)
			assert.Equal(t, tt.req, got)
		})
	}
}

func TestPendingFillsID(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	r := toolnexus.Pending(req)
	got, ok := toolnexus.PendingOf(r)
	require.True(t, ok)
	assertPendingID(t, got.ID)
	assert.Equal(t, toolnexus.Request{ID: got.ID, Kind: toolnexus.KindInput, Prompt: "Which environment?"}, got)
	assert.Empty(t, req.ID, "the caller's request is not changed")
	assert.NoError(t, r.Validate())

	again, _ := toolnexus.PendingOf(toolnexus.Pending(req))
	assert.NotEqual(t, got.ID, again.ID, "each suspension gets its own id")
}

// assertPendingID checks that id is "pnd-" followed by a canonical random
// (version 4) UUID.
func assertPendingID(t *testing.T, id string) {
	t.Helper()
	rest, ok := strings.CutPrefix(id, "pnd-")
	require.True(t, ok, "id %q lacks the pnd- prefix", id)
	u, err := uuid.Parse(rest)
	require.NoError(t, err, "id %q", id)
	assert.Equal(t, uuid.Version(4), u.Version(), "id %q", id)
	assert.Equal(t, uuid.RFC4122, u.Variant(), "id %q", id)
	assert.Equal(t, u.String(), rest, "id %q is not in canonical lower-case form", id)
	assert.Len(t, id, len("pnd-")+36)
}

func TestPendingIDsAreUniqueConcurrently(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine = 4, 250
	ids := make([][]string, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perGoroutine {
				req, _ := toolnexus.PendingOf(toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "p"}))
				ids[g] = append(ids[g], req.ID)
			}
		}()
	}
	wg.Wait()
	seen := make(map[string]bool, goroutines*perGoroutine)
	for _, list := range ids {
		for _, id := range list {
			assert.False(t, seen[id], "duplicate id %q", id)
			seen[id] = true
			assertPendingID(t, id)
		}
	}
	assert.Len(t, seen, goroutines*perGoroutine)
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
		{"own prompt", "https://example.com/login", "Sign in to GitHub", "Sign in to GitHub",
			"Sign in to GitHub\nhttps://example.com/login"},
		{"no url", "", "", "Authorization required to continue", "Authorization required to continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.AuthRequired(tt.url, tt.prompt)
			assert.True(t, r.IsError)
			assert.Equal(t, tt.wantOutput, r.Output)
			assert.Nil(t, r.Parts)
			require.Len(t, r.Metadata, 1)
			req, ok := toolnexus.PendingOf(r)
			require.True(t, ok)
			assertPendingID(t, req.ID)
			assert.Equal(t, toolnexus.Request{ID: req.ID, Kind: "authorization", Prompt: tt.wantPrompt, URL: tt.url}, req)
			assert.NoError(t, r.Validate())
		})
	}
}

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
		{"JSON object", withPending(map[string]any{"id": "req-1", "kind": "input", "prompt": "Which environment?"}), req, true},
		{"JSON object with every field", withPending(map[string]any{
			"id": "req-2", "kind": "input", "prompt": "Pick", "url": "https://example.com/pick",
			"data": map[string]any{"choices": []any{"dev", "prod"}}, "expiresAt": "2026-12-01T00:00:00Z", "extra": 1.0,
		}), toolnexus.Request{ID: "req-2", Kind: "input", Prompt: "Pick", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}, true},
		{"JSON object with kind only", withPending(map[string]any{"kind": "approval"}), toolnexus.Request{Kind: "approval"}, true},
		{"JSON object with fields of the wrong type", withPending(map[string]any{"id": 7.0, "kind": "input", "prompt": true, "data": "x"}),
			toolnexus.Request{Kind: "input"}, true},
		{"Request without id or prompt", withPending(toolnexus.Request{Kind: "input"}), toolnexus.Request{Kind: "input"}, true},
		{"among other metadata", toolnexus.Pending(req).WithMetadata("count", 2), req, true},

		{"ok without metadata", toolnexus.Ok("done"), toolnexus.Request{}, false},
		{"zero result", toolnexus.ToolResult{}, toolnexus.Request{}, false},
		{"other metadata", toolnexus.Ok("x").WithMetadata("count", 2), toolnexus.Request{}, false},
		{"string", withPending("req-1"), toolnexus.Request{}, false},
		{"true", withPending(true), toolnexus.Request{}, false},
		{"nil", withPending(nil), toolnexus.Request{}, false},
		{"nil pointer", withPending((*toolnexus.Request)(nil)), toolnexus.Request{}, false},
		{"object without kind", withPending(map[string]any{"id": "req-1", "prompt": "p"}), toolnexus.Request{}, false},
		{"object with empty kind", withPending(map[string]any{"id": "req-1", "kind": "", "prompt": "p"}), toolnexus.Request{}, false},
		{"object with numeric kind", withPending(map[string]any{"id": "req-1", "kind": 1.0, "prompt": "p"}), toolnexus.Request{}, false},
		{"empty object", withPending(map[string]any{}), toolnexus.Request{}, false},
		{"array", withPending([]any{"input"}), toolnexus.Request{}, false},
		{"Request under another key", toolnexus.Ok("x").WithMetadata("request", req), toolnexus.Request{}, false},
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

// TestPendingOfAfterJSON checks that a suspension survives being stored as
// JSON and read back by another process.
func TestPendingOfAfterJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  toolnexus.Request
		want toolnexus.Request // after decoding: JSON numbers and arrays become float64 and []any
	}{
		{"minimal", toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"},
			toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}},
		{"every field", toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []string{"dev", "prod"}, "max": 1}, ExpiresAt: "2026-12-01T00:00:00Z"},
			toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
				Data: map[string]any{"choices": []any{"dev", "prod"}, "max": 1.0}, ExpiresAt: "2026-12-01T00:00:00Z"}},
		{"authorization", toolnexus.Request{ID: "req-3", Kind: toolnexus.KindAuthorization, Prompt: toolnexus.DefaultAuthPrompt, URL: "https://example.com/login"},
			toolnexus.Request{ID: "req-3", Kind: toolnexus.KindAuthorization, Prompt: toolnexus.DefaultAuthPrompt, URL: "https://example.com/login"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			original := toolnexus.Pending(tt.req).WithMetadata("count", 2)
			b, err := json.Marshal(original)
			require.NoError(t, err)

			var decoded toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(b, &decoded))
			require.IsType(t, map[string]any{}, decoded.Metadata["pending"], "a decoded suspension is a JSON object")

			got, ok := toolnexus.PendingOf(decoded)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
			assert.True(t, decoded.IsError)
			assert.Equal(t, original.Output, decoded.Output)
			assert.NoError(t, decoded.Validate())
			assert.Equal(t, original.String(), decoded.String())

			// Stored again, it is the same JSON. (The keys of the decoded
			// request are then written in map order, not id, kind, prompt…)
			again, err := json.Marshal(decoded)
			require.NoError(t, err)
			assert.JSONEq(t, string(b), string(again))
		})
	}
}

func TestPendingOfAfterJSONWithFilledID(t *testing.T) {
	t.Parallel()
	r := toolnexus.AuthRequired("https://example.com/login", "")
	want, ok := toolnexus.PendingOf(r)
	require.True(t, ok)

	b, err := json.Marshal(r)
	require.NoError(t, err)
	var decoded toolnexus.ToolResult
	require.NoError(t, json.Unmarshal(b, &decoded))

	got, ok := toolnexus.PendingOf(decoded)
	require.True(t, ok)
	assert.Equal(t, want, got)
	assertPendingID(t, got.ID)
	assert.NoError(t, decoded.Validate())
}

func TestPendingNotASuspensionAfterJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"output":"x","isError":true,"metadata":{"pending":"req-1"}}`,
		`{"output":"x","isError":true,"metadata":{"pending":true}}`,
		`{"output":"x","isError":true,"metadata":{"pending":null}}`,
		`{"output":"x","isError":true,"metadata":{"pending":{"id":"req-1","prompt":"p"}}}`,
		`{"output":"x","isError":true,"metadata":{"pending":{"id":"req-1","kind":"","prompt":"p"}}}`,
		`{"output":"x","isError":true,"metadata":{"pending":{"id":"req-1","kind":3,"prompt":"p"}}}`,
		`{"output":"x","isError":true,"metadata":{"pending":["input"]}}`,
		`{"output":"x","isError":true,"metadata":{"Pending":{"id":"req-1","kind":"input","prompt":"p"}}}`,
	} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			var r toolnexus.ToolResult
			require.NoError(t, json.Unmarshal([]byte(in), &r))
			got, ok := toolnexus.PendingOf(r)
			assert.False(t, ok)
			assert.Zero(t, got)
		})
	}
}
