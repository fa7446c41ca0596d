package redisclaims_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/park"
)

// TestGatesShareRedis runs one gated tool on two servers whose gates
// share the request state keys and whose park.Runners share a Redis: the
// approval asked on one runs the tool on the other, once, and its replay
// on either runs nothing.
func TestGatesShareRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	var runs atomic.Int32
	deploy := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		runs.Add(1)
		return toolnexus.Ok("deployed")
	}
	server := func() (park.Runner, map[string]toolnexus.Tool) {
		tool, err := approval.Gate(deploy, approval.Require("Deploy?"), &approval.Options{Keys: keys, Name: "deploy"})
		require.NoError(t, err)
		return park.Runner{Store: newStore(t, srv.client(t), nil), Logger: quiet}, map[string]toolnexus.Tool{"deploy": tool}
	}
	a, aTools := server()
	b, bTools := server()
	ctx := context.Background()
	args := json.RawMessage(`{"env":"prod"}`)

	turn, err := a.RunTurn(ctx, aTools, toolnexus.ToolCall{ID: "call-1", Name: "deploy", Arguments: args})
	require.NoError(t, err)
	waits := turn.Waiting()
	require.Len(t, waits, 1)
	req := waits[0].Request
	assert.Regexp(t, `^gate-[A-Za-z0-9_-]{59}$`, req.ID)
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy?", req.Prompt)
	assert.Zero(t, runs.Load())

	done, err := b.Resume(ctx, bTools, turn, req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, toolnexus.Ok("deployed"), done.Calls[0].Result)
	assert.Empty(t, done.Calls[0].Parked)
	assert.Equal(t, int32(1), runs.Load())

	// The turn resumed again, on either: the parking's kept result.
	for _, s := range []struct {
		r     park.Runner
		tools map[string]toolnexus.Tool
	}{{a, aTools}, {b, bTools}} {
		again, err := s.r.Resume(ctx, s.tools, turn, req.Resolve(nil))
		require.NoError(t, err)
		assert.Equal(t, toolnexus.Ok("deployed"), again.Calls[0].Result)
	}
	// The approval replayed on a carrier that parks nothing: the gate's
	// own claim refuses it.
	used := toolnexus.Error(`toolnexus: approval already used: approval "` + req.ID + `" has run its tool`)
	for _, s := range []struct {
		r     park.Runner
		tools map[string]toolnexus.Tool
	}{{a, aTools}, {b, bTools}} {
		out, err := s.r.Run(ctx, park.Call{ID: "call-1", Tool: "deploy", Arguments: args, Answers: toolnexus.Answers{req.Resolve(nil)}}, s.tools["deploy"])
		require.NoError(t, err)
		assert.Equal(t, park.Outcome{Result: used}, out)
	}
	assert.Equal(t, int32(1), runs.Load())
}
