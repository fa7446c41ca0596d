package bridgetest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var key = []byte("a key of 32 bytes for the tests!")

// TestRunner checks that the runner seals with the key, opens with the
// keys of the Config too, and logs to the Config's logger.
func TestRunner(t *testing.T) {
	t.Parallel()
	var log bridgetest.Log
	old := bridgetest.Runner(t, []byte(strings.Repeat("o", 32)), bridgetest.Config{})
	r := bridgetest.Runner(t, key, bridgetest.Config{State: requeststate.Options{Keys: [][]byte{[]byte(strings.Repeat("o", 32))}},
		Runner: mcpcall.Options{Park: park.Runner{Expiry: time.Minute, Logger: log.Logger()}}})
	tool := func(_ context.Context, _ json.RawMessage, as toolnexus.Answers) toolnexus.ToolResult {
		if len(as) == 0 {
			return toolnexus.Pending(toolnexus.Request{ID: "q", Kind: toolnexus.KindApproval, Prompt: "Go?"})
		}
		return toolnexus.Ok("went")
	}
	client := mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}
	res, err := old.Run(context.Background(), mcpcall.Call{Tool: "t", Client: client}, tool)
	require.NoError(t, err)
	retry := mcpcall.Call{Tool: "t", Client: client, RequestState: res.RequestState,
		InputResponses: map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)}}
	done, err := r.Run(context.Background(), retry, tool)
	require.NoError(t, err)
	assert.Equal(t, "went", done.Content[0].Text)

	_, err = r.Run(context.Background(), mcpcall.Call{Tool: "t", RequestState: "tn1.forged", Client: client}, tool)
	require.ErrorIs(t, err, requeststate.ErrInvalidState)
	assert.Contains(t, log.String(), `msg="toolnexus: MCP request state refused"`)
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(bridgetest.Scenarios[0])
	require.NoError(t, err)
	assert.Equal(t, `{"tool":"deploy","arguments":{"env":"prod"},"action":"accept"}`, string(b))
	assert.Equal(t, "deploy accept", bridgetest.Scenarios[0].Name())
	assert.Equal(t, "url: Sign in https://example.com/login", bridgetest.Question("url", "Sign in", "https://example.com/login"))
	assert.Equal(t, "form: Go?", bridgetest.Question("form", "Go?", ""))
}

func TestParts(t *testing.T) {
	t.Parallel()
	r := toolnexus.Ok("x", bridgetest.Part(t, []byte("%PDF"), "application/pdf"), bridgetest.URLPart(t, "https://example.com/a.png", "image/png"))
	got := bridgetest.ViaJSON[map[string]any](t, r)
	assert.Len(t, (*got)["content"], 3)
}

// TestGated runs the gated deploy tool: dev at once, prod once approved,
// and not again with the same approval, nor once it expired.
func TestGated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	g := bridgetest.NewGated(t, start)
	assert.Equal(t, toolnexus.Ok("deployed to dev"), g.Run(ctx, json.RawMessage(`{"env":"dev"}`), nil))
	prod := json.RawMessage(`{"env":"prod"}`)
	req, ok := toolnexus.PendingOf(g.Run(ctx, prod, nil))
	require.True(t, ok)
	assert.Equal(t, "Deploy to production?", req.Prompt)
	assert.Equal(t, int32(1), g.Runs())
	assert.Equal(t, toolnexus.Ok("deployed to prod"), g.Run(ctx, prod, toolnexus.Answers{req.Resolve(nil)}))
	assert.Equal(t, toolnexus.Error(`toolnexus: approval already used: approval "`+req.ID+`" has run its tool`), g.Run(ctx, prod, toolnexus.Answers{req.Resolve(nil)}))
	assert.Equal(t, int32(2), g.Runs())

	req, _ = toolnexus.PendingOf(g.Run(ctx, prod, nil))
	g.SetNow(start.Add(park.DefaultExpiry))
	assert.Equal(t, start.Add(park.DefaultExpiry), g.Now())
	assert.Equal(t, toolnexus.Error(`toolnexus: request expired: approval "`+req.ID+`" expired at 2026-12-01T09:10:00Z`), g.Run(ctx, prod, toolnexus.Answers{req.Resolve(nil)}))
	assert.Equal(t, int32(2), g.Runs())
}

func TestPanicLogged(t *testing.T) {
	t.Parallel()
	line := func(level, tool, stack string) []byte {
		return []byte(`{"level":"` + level + `","msg":"toolnexus: tool panicked","tool":"` + tool + `","panic":"` + bridgetest.Secret + `","stack":"` + stack + `"}`)
	}
	assert.NoError(t, bridgetest.PanicLogged(line("ERROR", "deploy", `goroutine 1:\nx_test.TestPanic()`), "deploy", "x_test.TestPanic"))
	assert.EqualError(t, bridgetest.PanicLogged(line("WARN", "deploy", "x_test.TestPanic"), "deploy", "x_test.TestPanic"), "the log's level is WARN, not ERROR")
	assert.EqualError(t, bridgetest.PanicLogged(line("ERROR", "other", "x_test.TestPanic"), "deploy", "x_test.TestPanic"), "the log's tool is other, not deploy")
	assert.EqualError(t, bridgetest.PanicLogged(line("ERROR", "deploy", "main.main"), "deploy", "x_test.TestPanic"), "the log's stack does not pass through x_test.TestPanic")
	assert.Error(t, bridgetest.PanicLogged(nil, "deploy", "x_test.TestPanic"))
}
