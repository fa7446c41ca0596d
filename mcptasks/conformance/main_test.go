package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
	"github.com/toolnexus-go/toolnexus/mcptasks/redistasks"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/redisclaims"
)

// start serves the conformance server of the command line args on a free
// port until the test ends.
func start(t *testing.T, args ...string) *tasktest.Client {
	t.Helper()
	_, key, opts, _, err := parse(args)
	require.NoError(t, err)
	server, tasks, err := newServer(key, opts, park.Runner{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	hs := httptest.NewServer(handler(server))
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, tasks.Shutdown(ctx))
	})
	return &tasktest.Client{URL: hs.URL, Caps: tasktest.Caps()}
}

// firstText returns the first text of a tool result.
func firstText(res any) string {
	content, _ := res.(map[string]any)["content"].([]any)
	block, _ := content[0].(map[string]any)
	s, _ := block["text"].(string)
	return s
}

func TestTools(t *testing.T) {
	t.Parallel()
	c := start(t)
	list, _ := c.Call(t, "tools/list", nil)["tools"].([]any)
	var names []string
	for _, tool := range list {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
		"test_tool_with_task", "test_input_required_result_elicitation", "test_input_required_result_capabilities"} {
		assert.True(t, slices.Contains(names, want), "no tool %s in %v", want, names)
	}

	assert.Equal(t, "Hello, sep-2243!", firstText(c.Call(t, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "sep-2243"}})))

	id := c.Call(t, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "a.txt"}})["taskId"].(string)
	c.Wait(t, id, "input_required")
	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	assert.Equal(t, "Deleted a.txt", firstText(c.Wait(t, id, "completed")["result"]))

	r1 := c.Call(t, "tools/call", map[string]any{"name": "test_tool_with_task"})
	r2 := c.Call(t, "tools/call", map[string]any{"name": "test_tool_with_task", "requestState": r1["requestState"],
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}})
	assert.Equal(t, "Hello, Alice! (greeted by a task)", firstText(c.Wait(t, r2["taskId"].(string), "completed")["result"]))

	sync := &tasktest.Client{URL: c.URL, Caps: map[string]any{}}
	res := sync.Call(t, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "now"}})
	assert.Equal(t, "now: computed in 0s", firstText(res), "without the extension, within the call")
}

func TestParse(t *testing.T) {
	t.Parallel()
	addr, key, opts, claims, err := parse(nil)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:0", addr)
	assert.Len(t, key, 32)
	assert.Nil(t, opts.Store, "tasks in memory")
	assert.Nil(t, claims, "claims in the process's memory")
	_, key2, _, _, err := parse(nil)
	require.NoError(t, err)
	assert.NotEqual(t, key, key2, "a random key")

	addr, key, opts, claims, err = parse([]string{"-http", "127.0.0.1:8080", "-key", strings.Repeat("ab", 32), "-redis", "redis://127.0.0.1:1/2"})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", addr)
	assert.Equal(t, bytes.Repeat([]byte{0xab}, 32), key)
	assert.IsType(t, &redistasks.Store{}, opts.Store)
	assert.IsType(t, &redisclaims.Store{}, claims, "claims in the same Redis")

	for _, args := range [][]string{{"-key", "xyz"}, {"-redis", "http://host"}, {"-nope"}} {
		_, _, _, _, err := parse(args)
		assert.Error(t, err, "%v", args)
	}
}

// TestTwoInstances runs two conformance servers on one redis-server with
// one key: a call that asks within the call on one becomes a task on the
// other, and a task created on one is answered and finished on the other.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	r := tasktest.StartRedis(t)
	args := []string{"-redis", "redis://" + r.Addr + "/0", "-key", strings.Repeat("5a", 32)}
	a, b := start(t, args...), start(t, args...)

	r1 := a.Call(t, "tools/call", map[string]any{"name": "test_tool_with_task"})
	r2 := b.Call(t, "tools/call", map[string]any{"name": "test_tool_with_task", "requestState": r1["requestState"],
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	assert.Equal(t, "Hello, Ada! (greeted by a task)", firstText(a.Wait(t, r2["taskId"].(string), "completed")["result"]))

	id := a.Call(t, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "b.txt"}})["taskId"].(string)
	b.Wait(t, id, "input_required")
	b.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}}})
	assert.Equal(t, "Kept b.txt", firstText(a.Wait(t, id, "completed")["result"]))
}
