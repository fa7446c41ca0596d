package mcptasks_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// without returns m less its _meta, which the SDK fills with its server's
// info.
func without(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "_meta" {
			out[k] = v
		}
	}
	return out
}

// create calls tool with args and returns the task it became.
func create(t *testing.T, c *tasktest.Client, tool string, args map[string]any) string {
	t.Helper()
	res := c.Call(t, "tools/call", map[string]any{"name": tool, "arguments": args})
	require.Equal(t, "task", res["resultType"], "%s: %v", tool, res)
	id, _ := res["taskId"].(string)
	require.NotEmpty(t, id)
	return id
}

// rpcError sends method with params and returns its JSON-RPC error.
func rpcError(t *testing.T, c *tasktest.Client, method string, params map[string]any) *tasktest.Error {
	t.Helper()
	res := c.Send(t, method, params, nil)
	require.NotNil(t, res.Error, "%s returned %s", method, res.Raw)
	return res.Error
}

func TestDiscoverAdvertisesTheExtension(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, nil, nil).Client()
	caps, _ := c.Call(t, "server/discover", nil)["capabilities"].(map[string]any)
	assert.Equal(t, map[string]any{mcptasks.ExtensionID: map[string]any{}}, caps["extensions"])
	assert.NotContains(t, caps, "tasks", "the 2025-11-25 capability is gone")
}

func TestCreateTaskResult(t *testing.T) {
	t.Parallel()
	in := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Time: newClock().Now}}, nil, nil)
	c := in.Client()
	res := c.Call(t, "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{"label": "create"}})
	assert.Equal(t, []string{"_meta", "createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "taskId", "ttlMs"}, keys(res),
		"flat: no task wrapper, no result, no inputRequests, no requestState")
	assert.Equal(t, "task", res["resultType"])
	assert.Equal(t, "working", res["status"])
	assert.Equal(t, float64(time.Hour.Milliseconds()), res["ttlMs"])
	assert.Equal(t, float64(mcptasks.FirstPollInterval.Milliseconds()), res["pollIntervalMs"], "a new task is polled soon")
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, res["createdAt"])
	assert.Equal(t, res["createdAt"], res["lastUpdatedAt"])
	id := res["taskId"].(string)
	raw, err := base64.RawURLEncoding.DecodeString(id)
	require.NoError(t, err, "a task ID is base64url")
	assert.Len(t, raw, 18, "144 random bits")

	got := c.Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, map[string]any{"resultType": "complete", "taskId": id, "status": "working",
		"createdAt": res["createdAt"], "lastUpdatedAt": res["lastUpdatedAt"], "ttlMs": res["ttlMs"], "pollIntervalMs": res["pollIntervalMs"]},
		without(got), "durable before the response: the next get finds it")
	close(in.Tools.Release)
	done := c.Wait(t, id, "completed")
	assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "released"}}, "isError": false}, done["result"])
}

func TestTaskIDsAreUnguessable(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := in.Client()
	seen := map[string]bool{}
	for range 50 {
		id := create(t, c, "required", nil)
		assert.Regexp(t, regexp.MustCompile(`^[A-Za-z0-9_-]{24}$`), id)
		assert.False(t, seen[id], "ID %s twice", id)
		seen[id] = true
	}
}

func TestToolErrorCompletes(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, &mcptasks.Options{InlineWait: -1}, nil).Client()
	task := c.Wait(t, create(t, c, "fail", nil), "completed")
	assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "it failed"}}, "isError": true}, task["result"])
	assert.NotContains(t, task, "error")
}

func TestPanicFails(t *testing.T) {
	t.Parallel()
	var log bridgetest.Log
	c := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Logger: slog.New(slog.NewTextHandler(&log, nil))}}, nil, nil).Client()
	task := c.Wait(t, create(t, c, "panic", nil), "failed")
	assert.Equal(t, map[string]any{"code": float64(-32603), "message": "Internal error"}, task["error"])
	assert.Equal(t, "The tool failed.", task["statusMessage"])
	assert.NotContains(t, task, "result")
	assert.Regexp(t, `msg="toolnexus: tool panicked" tool=panic call="" panic="the tool panics" stack="goroutine`, log.String(), "the park.Runner logs the stack")
}

func TestInputRequired(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := in.Client()
	id := create(t, c, "ask", nil)
	task := c.Wait(t, id, "input_required")
	assert.Equal(t, map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": map[string]any{
		"mode": "form", "message": "Go on?", "requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"}}}}},
		task["inputRequests"], "the request as the multi round trip asks it")
	assert.NotContains(t, task, "requestState")

	ack := c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"unknown": map[string]any{"ignored": true}}})
	assert.Equal(t, map[string]any{"resultType": "complete"}, without(ack), "an unknown key is ignored")
	assert.Equal(t, "input_required", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])

	bad := rpcError(t, c, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": "yes"}}}})
	assert.Equal(t, -32602, bad.Code)
	assert.Equal(t, `Invalid inputResponses: invalid answer: request "confirm": property "ok" is a string, not a boolean`, bad.Message)
	assert.Equal(t, "input_required", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"], "an answer off its schema is not taken")

	ack = c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	assert.Equal(t, map[string]any{"resultType": "complete"}, without(ack))
	task = c.Wait(t, id, "completed")
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "ok=true"}}, task["result"].(map[string]any)["content"])
	assert.Equal(t, []toolnexus.Answers{nil, {{ID: "confirm", OK: true, Data: map[string]any{"ok": true}}}}, in.Tools.Answers())

	ack = c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "decline"}}})
	assert.Equal(t, map[string]any{"resultType": "complete"}, without(ack), "an answered key is ignored")
	assert.Equal(t, "completed", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
}

func TestPartialAnswers(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := in.Client()
	id := create(t, c, "pair", nil)
	task := c.Wait(t, id, "input_required")
	assert.Equal(t, []string{"confirm", "name"}, keys(task["inputRequests"].(map[string]any)))

	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	task = c.Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, "input_required", task["status"], "one of two answered")
	assert.Equal(t, []string{"confirm"}, keys(task["inputRequests"].(map[string]any)), "the answered key is gone")
	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"name":    map[string]any{"action": "accept", "content": map[string]any{"name": "Bob"}},
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": false}}}})
	task = c.Wait(t, id, "completed")
	assert.Equal(t, "ok=false name=Ada", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"],
		"the second answer to name is ignored")
	assert.Len(t, in.Tools.Answers(), 2, "the tool ran again once, with both answers")
}

// TestKeysAreNeverReused asks the same request again after it was
// answered: the task asks it under a new key, and the old key is ignored.
func TestKeysAreNeverReused(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := in.Client()
	id := create(t, c, "twice", nil)
	c.Wait(t, id, "input_required")
	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "decline"}}})
	task := c.Wait(t, id, "input_required")
	for task["inputRequests"].(map[string]any)["confirm~2"] == nil {
		task = c.Wait(t, id, "input_required") // still the first round
	}
	assert.Equal(t, []string{"confirm~2"}, keys(task["inputRequests"].(map[string]any)))
	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	assert.Equal(t, "input_required", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"], "the used key is ignored")
	c.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm~2": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	task = c.Wait(t, id, "completed")
	assert.Equal(t, "confirmed after 2 answers", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	answers := in.Tools.Answers()
	assert.Equal(t, toolnexus.Answers{{ID: "confirm", Reason: toolnexus.ReasonDeclined}, {ID: "confirm", OK: true, Data: map[string]any{"ok": true}}},
		answers[len(answers)-1], "the tool sees its own request ID on both answers")
}

func TestCancel(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, &mcptasks.Options{InlineWait: -1}, nil)
	c := in.Client()
	id := create(t, c, "wait", map[string]any{"label": "cancel-me"})
	ack := c.Call(t, "tasks/cancel", map[string]any{"taskId": id})
	assert.Equal(t, map[string]any{"resultType": "complete"}, without(ack))
	select {
	case label := <-in.Tools.Cancelled:
		assert.Equal(t, "cancel-me", label)
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	task := c.Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, "cancelled", task["status"])
	assert.Equal(t, "Cancelled by the client.", task["statusMessage"])
	assert.NotContains(t, task, "result", "the cancelled run's result is not kept")
	ack = c.Call(t, "tasks/cancel", map[string]any{"taskId": id})
	assert.Equal(t, map[string]any{"resultType": "complete"}, without(ack), "cancel is idempotent")

	done := c.Wait(t, create(t, c, "fail", nil), "completed")
	c.Call(t, "tasks/cancel", map[string]any{"taskId": done["taskId"]})
	assert.Equal(t, "completed", c.Call(t, "tasks/get", map[string]any{"taskId": done["taskId"]})["status"], "an ended task stays as it is")

	parked := create(t, c, "ask", nil)
	c.Wait(t, parked, "input_required")
	c.Call(t, "tasks/cancel", map[string]any{"taskId": parked})
	task = c.Call(t, "tasks/get", map[string]any{"taskId": parked})
	assert.Equal(t, "cancelled", task["status"])
	assert.NotContains(t, task, "inputRequests")
}

func TestUnknownTask(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, nil, nil).Client()
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		for _, id := range []string{"nonexistent-12345", strings.Repeat("x", 200)} {
			e := rpcError(t, c, method, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
			assert.Equal(t, tasktest.Error{Code: -32602, Message: "Failed to retrieve task: Task not found"}, *e, "%s %q", method, id)
		}
	}
}

func TestRemovedMethods(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, nil, nil).Client()
	for _, method := range []string{"tasks/result", "tasks/list"} {
		res := c.Send(t, method, map[string]any{"taskId": "x"}, nil)
		require.NotNil(t, res.Error, method)
		assert.Equal(t, -32601, res.Error.Code, method)
	}
}

func TestWithoutTheExtension(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := &tasktest.Client{URL: in.URL, Caps: map[string]any{"elicitation": map[string]any{}}}
	wantData := `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		e := rpcError(t, c, method, map[string]any{"taskId": "gate-test", "inputResponses": map[string]any{}})
		assert.Equal(t, -32021, e.Code, method)
		assert.JSONEq(t, wantData, string(e.Data), method)
	}
	e := rpcError(t, c, "tools/call", map[string]any{"name": "required"})
	assert.Equal(t, -32021, e.Code)
	assert.JSONEq(t, wantData, string(e.Data))

	res := c.Call(t, "tools/call", map[string]any{"name": "fail"})
	assert.Equal(t, map[string]any{"resultType": "complete", "isError": true,
		"content": []any{map[string]any{"type": "text", "text": "it failed"}}}, without(res), "an optional task runs within the call")
	res = c.Call(t, "tools/call", map[string]any{"name": "ask"})
	assert.Equal(t, "input_required", res["resultType"], "and asks as a multi round trip")
	assert.NotContains(t, res, "taskId")

	opted := c.Call(t, "tools/call", map[string]any{"name": "required", "_meta": map[string]any{
		"io.modelcontextprotocol/clientCapabilities": tasktest.Caps()}})
	assert.Equal(t, "task", opted["resultType"], "a per-request declaration is what counts")
}

func TestPrincipal(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, &mcptasks.Options{Principal: func(extra *mcp.RequestExtra) string {
		return extra.Header.Get("X-User")
	}}, nil)
	alice := in.Client()
	alice.Header = http.Header{"X-User": {"alice"}}
	bob := in.Client()
	bob.Header = http.Header{"X-User": {"bob"}}
	id := create(t, alice, "ask", nil)
	alice.Wait(t, id, "input_required")
	unknown := rpcError(t, bob, "tasks/get", map[string]any{"taskId": "never-made"})
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		e := rpcError(t, bob, method, map[string]any{"taskId": id, "inputResponses": map[string]any{
			"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
		assert.Equal(t, *unknown, *e, "%s: another user's task is as an unknown one", method)
	}
	assert.Equal(t, "input_required", alice.Call(t, "tasks/get", map[string]any{"taskId": id})["status"], "bob changed nothing")
	alice.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	alice.Wait(t, id, "completed")
}

func TestMcpNameHeader(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, nil, nil).Client()
	id := create(t, c, "wait", nil)
	for _, tt := range []struct {
		name, header string
		want         int
	}{
		{"another task", "sep-2663-wrong-task-id", http.StatusBadRequest},
		{"none", "", http.StatusBadRequest},
		{"the task, in base64", "=?base64?" + base64.StdEncoding.EncodeToString([]byte(id)) + "?=", http.StatusOK},
		{"the task", id, http.StatusOK},
	} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			res := c.Send(t, method, map[string]any{"taskId": id, "inputResponses": map[string]any{}}, map[string]string{"Mcp-Name": tt.header})
			assert.Equal(t, tt.want, res.Status, "%s: %s", tt.name, method)
			if tt.want == http.StatusBadRequest {
				require.NotNil(t, res.Error, "%s: %s", tt.name, method)
				assert.Equal(t, -32020, res.Error.Code, "%s: %s", tt.name, method)
			}
		}
	}
	res := c.Send(t, "tools/call", map[string]any{"name": "required"}, map[string]string{"Mcp-Method": "tasks/get"})
	require.NotNil(t, res.Error)
	assert.Equal(t, -32020, res.Error.Code, "the SDK checks Mcp-Method")
}

// TestMultiRoundTripThenTask asks within the call, then becomes a task
// whose tool sees the answer; the task carries no requestState.
func TestMultiRoundTripThenTask(t *testing.T) {
	t.Parallel()
	c := tasktest.Start(t, nil, nil).Client()
	r1 := c.Call(t, "tools/call", map[string]any{"name": "prepare"})
	assert.Equal(t, "input_required", r1["resultType"])
	assert.NotContains(t, r1, "taskId")
	require.NotEmpty(t, r1["requestState"])
	assert.Equal(t, []string{"name"}, keys(r1["inputRequests"].(map[string]any)))

	r2 := c.Call(t, "tools/call", map[string]any{"name": "prepare", "requestState": r1["requestState"],
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}})
	assert.Equal(t, "task", r2["resultType"])
	assert.NotContains(t, r2, "requestState")
	assert.NotContains(t, r2, "inputRequests")
	task := c.Wait(t, r2["taskId"].(string), "completed")
	assert.NotContains(t, task, "requestState")
	assert.Equal(t, "Hello, Alice, from a task after 1 answer(s)", task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])

	r3 := c.Call(t, "tools/call", map[string]any{"name": "prepare",
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "nobody"}}}})
	assert.Equal(t, map[string]any{"resultType": "complete", "isError": true,
		"content": []any{map[string]any{"type": "text", "text": "nobody is no name"}}}, without(r3), "a refusal before the task is no task")
}

func TestTTL(t *testing.T) {
	t.Parallel()
	clk := newClock()
	store, _ := mcptasks.NewMemoryStoreAt(clk.Now)
	c := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Time: clk.Now}}, &mcptasks.Options{Store: store, TTL: time.Minute}, nil).Client()
	id := create(t, c, "ask", nil)
	c.Wait(t, id, "input_required")
	clk.Add(time.Minute - time.Millisecond)
	task := c.Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, float64(60000), task["ttlMs"])
	assert.Equal(t, "input_required", task["status"], "a task lives its whole ttlMs")
	clk.Add(time.Millisecond)
	e := rpcError(t, c, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, -32602, e.Code, "then it is gone")
}

func TestMissingCapabilityFailsTheTask(t *testing.T) {
	t.Parallel()
	in := tasktest.Start(t, nil, nil)
	c := &tasktest.Client{URL: in.URL, Caps: map[string]any{"extensions": map[string]any{mcptasks.ExtensionID: map[string]any{}}}}
	task := c.Wait(t, create(t, c, "ask", nil), "failed")
	e, _ := task["error"].(map[string]any)
	assert.Equal(t, float64(-32021), e["code"])
	assert.Equal(t, map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}, e["data"])
}

// TestTwoInstances creates a task on one instance and reads, answers,
// finishes and cancels it on another that shares its store.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	store := mcptasks.NewMemoryStore()
	opts := &mcptasks.Options{Store: store, PollInterval: 10 * time.Millisecond}
	a := tasktest.Start(t, opts, nil)
	b := tasktest.Start(t, opts, nil)
	ca, cb := a.Client(), b.Client()

	id := create(t, ca, "ask", nil)
	cb.Wait(t, id, "input_required")
	cb.Call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	done := ca.Wait(t, id, "completed")
	assert.Equal(t, "ok=true", done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	assert.Len(t, a.Tools.Answers(), 1, "a ran the tool first")
	assert.Len(t, b.Tools.Answers(), 1, "b ran it with the answer")

	running := create(t, ca, "wait", map[string]any{"label": "on a"})
	cb.Call(t, "tasks/cancel", map[string]any{"taskId": running})
	select {
	case label := <-a.Tools.Cancelled:
		assert.Equal(t, "on a", label, "a saw b's cancel")
	case <-time.After(10 * time.Second):
		t.Fatal("the run on a was not cancelled")
	}
	assert.Equal(t, "cancelled", ca.Call(t, "tasks/get", map[string]any{"taskId": running})["status"])
}

func TestShutdownFailsRunningTasks(t *testing.T) {
	t.Parallel()
	store := mcptasks.NewMemoryStore()
	a := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
	b := tasktest.Start(t, &mcptasks.Options{Store: store}, nil)
	id := create(t, a.Client(), "wait", map[string]any{"label": "shutdown"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, a.Tasks.Shutdown(ctx))
	assert.Equal(t, "shutdown", <-a.Tools.Cancelled)
	task := b.Client().Call(t, "tasks/get", map[string]any{"taskId": id})
	assert.Equal(t, "failed", task["status"])
	assert.Equal(t, "The server stopped while the task ran.", task["statusMessage"])
}

func TestNew(t *testing.T) {
	t.Parallel()
	server := func() *mcp.Server { return mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil) }
	for _, tt := range []struct {
		name   string
		server *mcp.Server
		opts   *mcptasks.Options
	}{
		{"no server", nil, nil},
		{"negative TTL", server(), &mcptasks.Options{TTL: -time.Second}},
		{"negative poll interval", server(), &mcptasks.Options{PollInterval: -time.Second}},
		{"a TTL under a millisecond", server(), &mcptasks.Options{TTL: time.Microsecond}},
	} {
		_, err := mcptasks.New(tt.server, bridgetest.Runner(t, tasktest.Key, bridgetest.Config{}), tt.opts)
		assert.ErrorIs(t, err, mcptasks.ErrInvalidOptions, tt.name)
	}
	_, err := mcptasks.New(server(), nil, nil)
	assert.ErrorIs(t, err, mcptasks.ErrInvalidOptions)
}

func TestAddTool(t *testing.T) {
	t.Parallel()
	s, err := mcptasks.New(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), bridgetest.Runner(t, tasktest.Key, bridgetest.Config{}), nil)
	require.NoError(t, err)
	run := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("")
	}
	require.NoError(t, s.AddTool(mcptasks.Tool{Tool: &mcp.Tool{Name: "ok"}, Run: run}))
	for _, tt := range []struct {
		name string
		tool mcptasks.Tool
	}{
		{"no MCP tool", mcptasks.Tool{Run: run}},
		{"no name", mcptasks.Tool{Tool: &mcp.Tool{}, Run: run}},
		{"no run", mcptasks.Tool{Tool: &mcp.Tool{Name: "x"}}},
		{"unknown support", mcptasks.Tool{Tool: &mcp.Tool{Name: "x"}, Run: run, Support: 7}},
		{"a schema of a string", mcptasks.Tool{Tool: &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)}, Run: run}},
		{"a schema that is no object", mcptasks.Tool{Tool: &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`[]`)}, Run: run}},
		{"a schema the SDK cannot resolve", mcptasks.Tool{Tool: &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","$ref":"#/nowhere"}`)}, Run: run}},
		{"a name served already", mcptasks.Tool{Tool: &mcp.Tool{Name: "ok"}, Run: run}},
	} {
		assert.ErrorIs(t, s.AddTool(tt.tool), mcptasks.ErrInvalidTool, tt.name)
	}
}

// TestOlderProtocol calls the tools from a 2025-11-25 session of the
// go-sdk's client, where the extension is not defined: an optional task
// runs within the call, asking on the session, and a required one is an
// error result that says why.
func TestOlderProtocol(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	tasks, err := mcptasks.New(server, bridgetest.Runner(t, tasktest.Key, bridgetest.Config{}), nil)
	require.NoError(t, err)
	ask := func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		if a, ok := as.Get("confirm"); ok {
			return toolnexus.Ok("ok=" + strconv.FormatBool(a.Data["ok"] == true))
		}
		return toolnexus.Pending(tasktest.Confirm)
	}
	require.NoError(t, tasks.AddTool(mcptasks.Tool{Tool: &mcp.Tool{Name: "ask"}, Run: ask}))
	require.NoError(t, tasks.AddTool(mcptasks.Tool{Tool: &mcp.Tool{Name: "required"}, Run: ask, Support: mcptasks.TaskRequired}))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		}})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	require.NoError(t, err)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "ok=true"}}, res.Content)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "required"})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "Tool required runs only as an MCP task, which needs protocol 2026-07-28 and the io.modelcontextprotocol/tasks extension."}}, res.Content)
}

func TestExpiredRequest(t *testing.T) {
	t.Parallel()
	clk := newClock() // 10:00, a minute before tasktest.Expiry
	c := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Time: clk.Now}}, nil, nil).Client()
	id := create(t, c, "expiring", nil)
	c.Wait(t, id, "input_required")
	clk.Add(time.Minute)
	e := rpcError(t, c, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}})
	assert.Equal(t, tasktest.Error{Code: -32602, Message: `Invalid inputResponses: request expired: request "confirm" expired at 2026-12-01T10:01:00Z`}, *e)
	assert.Equal(t, "input_required", c.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
}

// TestRunnerSealer shows that the runner's Sealer seals the multi round
// trips: a state sealed for one audience does not open on another.
func TestRunnerSealer(t *testing.T) {
	t.Parallel()
	a := tasktest.StartWith(t, tasktest.Config{State: requeststate.Options{Audience: "a"}}, nil, nil).Client()
	b := tasktest.StartWith(t, tasktest.Config{State: requeststate.Options{Audience: "b"}}, nil, nil).Client()
	r1 := a.Call(t, "tools/call", map[string]any{"name": "prepare"})
	retry := map[string]any{"name": "prepare", "requestState": r1["requestState"],
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}
	e := rpcError(t, b, "tools/call", retry)
	assert.Equal(t, -32602, e.Code)
	assert.Equal(t, "Invalid or expired requestState", e.Message)
	assert.Equal(t, "task", a.Call(t, "tools/call", retry)["resultType"])
}

// tokens verifies the bearer tokens of TestDefaultPrincipal: "alice" and
// "bob" name a user of one issuer, "alice-elsewhere" the same subject of
// another issuer, and "nobody" no user.
func tokens(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	info := &auth.TokenInfo{Expiration: time.Now().Add(time.Hour), Extra: map[string]any{"iss": "https://issuer.example"}}
	switch token {
	case "alice", "bob":
		info.UserID = token
	case "alice-elsewhere":
		info.UserID, info.Extra["iss"] = "alice", "https://other.example"
	case "nobody":
	default:
		return nil, auth.ErrInvalidToken
	}
	return info, nil
}

// TestDefaultPrincipal binds a task to its token's issuer and subject, as
// the bridges bind a call, and refuses a token that names no subject.
func TestDefaultPrincipal(t *testing.T) {
	t.Parallel()
	in := tasktest.StartWith(t, tasktest.Config{Wrap: auth.RequireBearerToken(tokens, nil)}, nil, nil)
	as := func(token string) *tasktest.Client {
		c := in.Client()
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
		return c
	}
	alice := as("alice")
	id := create(t, alice, "ask", nil)
	alice.Wait(t, id, "input_required")
	for _, other := range []string{"bob", "alice-elsewhere"} {
		e := rpcError(t, as(other), "tasks/get", map[string]any{"taskId": id})
		assert.Equal(t, tasktest.Error{Code: -32602, Message: "Failed to retrieve task: Task not found"}, *e, other)
	}
	nobody := as("nobody")
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		e := rpcError(t, nobody, method, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
		assert.Equal(t, tasktest.Error{Code: -32603, Message: "Internal error"}, *e, method)
	}
	for _, tool := range []string{"required", "fail"} {
		e := rpcError(t, nobody, "tools/call", map[string]any{"name": tool})
		assert.Equal(t, -32603, e.Code, tool)
	}
	assert.Equal(t, "input_required", alice.Call(t, "tasks/get", map[string]any{"taskId": id})["status"])
}

// TestQuickTool answers a task tool that returns within InlineWait within
// the call, and asks a client to poll a task soon after it changed, then
// ever less often, up to PollInterval. An InlineWait of a minute makes the
// first part independent of how fast the machine runs the tool: a tool
// that returns at once is answered within the call, and one that suspends
// or panics at once is a task all the same.
func TestQuickTool(t *testing.T) {
	t.Parallel()
	quick := tasktest.Start(t, &mcptasks.Options{InlineWait: time.Minute}, nil).Client()
	res := quick.Call(t, "tools/call", map[string]any{"name": "fail"})
	assert.Equal(t, map[string]any{"resultType": "complete", "isError": true,
		"content": []any{map[string]any{"type": "text", "text": "it failed"}}}, without(res), "a result within the call, no task")
	for _, tool := range []string{"ask", "panic", "required"} {
		assert.Equal(t, "task", quick.Call(t, "tools/call", map[string]any{"name": tool})["resultType"],
			"%s: a suspension, a panic and a required task are tasks", tool)
	}

	// A tool that has not returned within the (default) InlineWait is a
	// task; it returns only once released.
	clk := newClock()
	in := tasktest.StartWith(t, tasktest.Config{Park: park.Runner{Time: clk.Now}}, nil, nil)
	c := in.Client()
	id := create(t, c, "wait", nil)
	for _, tt := range []struct {
		after time.Duration
		want  float64
	}{{0, 25}, {40 * time.Millisecond, 25}, {60 * time.Millisecond, 50}, {400 * time.Millisecond, 250}, {time.Second, 750}, {time.Second, 1000}, {10 * time.Second, 1000}} {
		clk.Add(tt.after)
		assert.Equal(t, tt.want, c.Call(t, "tasks/get", map[string]any{"taskId": id})["pollIntervalMs"], "after %v more", tt.after)
	}
	close(in.Tools.Release)
	task := c.Wait(t, id, "completed")
	assert.Equal(t, float64(25), task["pollIntervalMs"], "it changed just now")
}
