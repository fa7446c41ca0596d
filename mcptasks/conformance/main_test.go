package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
)

// start serves the conformance server on a free port until the test ends.
func start(t *testing.T) *tasktest.Client {
	t.Helper()
	server, tasks, err := newServer(bytes.Repeat([]byte{1}, 32), &mcptasks.Options{Logger: slog.New(slog.DiscardHandler)})
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
