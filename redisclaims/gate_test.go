package redisclaims_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/redisclaims"
)

// A Store is the single-use store of the root's Gate as it is.
var _ toolnexus.ClaimStore = (*redisclaims.Store)(nil)

// TestGatesShareRedis runs one gated tool on two servers that share a
// gate key and a Redis: the approval asked on one runs the tool on the
// other, once, and its replay on either runs nothing.
func TestGatesShareRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	key := []byte("a gate key of 32 bytes for tests")
	var runs atomic.Int32
	deploy := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok("deployed")
	}
	server := func() toolnexus.Tool {
		tool, err := toolnexus.Gate(deploy, toolnexus.RequireApproval("Deploy?"),
			&toolnexus.GateOptions{Key: key, Claims: newStore(t, srv.client(t), nil), Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		return tool
	}
	a, b := server(), server()
	ctx := context.Background()
	args := json.RawMessage(`{"env":"prod"}`)

	req, ok := toolnexus.PendingOf(a(ctx, args, nil))
	require.True(t, ok)
	assert.Zero(t, runs.Load())
	assert.Equal(t, toolnexus.Ok("deployed"), b(ctx, args, toolnexus.Answers{req.Resolve(nil)}))
	assert.Equal(t, int32(1), runs.Load())
	for _, tool := range []toolnexus.Tool{a, b} {
		replay := tool(ctx, args, toolnexus.Answers{req.Resolve(nil)})
		assert.Equal(t, toolnexus.Error(`toolnexus: approval already used: approval "`+req.ID+`" has run its tool`), replay)
	}
	assert.Equal(t, int32(1), runs.Load())
}
