package genkitbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/genkitbridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
)

// newGatedTool returns g's gated deploy tool as a genkit tool that checks
// answers by the gate's clock.
func newGatedTool(t *testing.T, g *bridgetest.Gated) *genkitbridge.Tool {
	t.Helper()
	tl, err := genkitbridge.New("deploy", "Deploys the service", nil, g.Tool)
	require.NoError(t, err)
	tl.Time = g.Now
	return tl
}

// TestGateRestart runs a generation whose gated tool interrupts on its
// approval, and restarts the stored interrupt with answers: nothing runs
// until it is approved, a decline runs nothing, the approval runs the
// tool once, and restarting the same interrupt again with the same answer
// is refused.
func TestGateRestart(t *testing.T) {
	ctx := context.Background()
	g := bridgetest.NewGated(t, asked)
	tl := newGatedTool(t, g)
	gk, model := newGenkit(&fakeModel{})
	resp, err := genkit.Generate(ctx, gk, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl))
	require.NoError(t, err)
	require.Equal(t, ai.FinishReasonInterrupted, resp.FinishReason)
	require.Len(t, resp.Interrupts(), 1)
	reqs, ok := genkitbridge.Requests(resp.Interrupts()[0])
	require.True(t, ok)
	require.Len(t, reqs, 1)
	req := reqs[0]
	assert.True(t, strings.HasPrefix(req.ID, "gate-"), req.ID)
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy to production?", req.Prompt)
	assert.Zero(t, g.Runs(), "nothing runs until approved")
	stored, err := json.Marshal(resp.History())
	require.NoError(t, err)

	// restart reads the stored history in a fresh genkit instance and
	// restarts its interrupt with answer at the time at; it returns what
	// the model read of the tool.
	restart := func(at time.Time, answer toolnexus.Answer) (map[string]any, error) {
		t.Helper()
		g.SetNow(at)
		var history []*ai.Message
		require.NoError(t, json.Unmarshal(stored, &history))
		m := &fakeModel{}
		gk, model := newGenkit(m)
		part, err := tl.Resume(history[len(history)-1].Content[0], answer)
		if err != nil {
			return nil, err
		}
		resp, err := genkit.Generate(ctx, gk, ai.WithModel(model), ai.WithMessages(history...), ai.WithTools(tl), ai.WithToolRestarts(part))
		require.NoError(t, err)
		assert.Equal(t, "done", resp.Text())
		msgs := m.toolMessages()
		require.Len(t, msgs, 1)
		require.Len(t, msgs[0].Content, 1)
		require.NotNil(t, msgs[0].Content[0].ToolResponse)
		out, _ := msgs[0].Content[0].ToolResponse.Output.(map[string]any)
		return out, nil
	}

	_, err = restart(asked.Add(toolnexus.DefaultExpiry), req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrExpired, "a stale approval fails closed")
	assert.Zero(t, g.Runs())

	out, err := restart(asked.Add(time.Minute), req.Decline("not on a Friday"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": "toolnexus: approval declined: not on a Friday"}, out)
	assert.Zero(t, g.Runs(), "a declined call never runs")

	out, err = restart(asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"output": "deployed to prod"}, out)
	assert.Equal(t, int32(1), g.Runs())

	out, err = restart(asked.Add(2*time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": `toolnexus: approval already used: approval "` + req.ID + `" has run its tool`}, out)
	assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")

	// Answer, which runs the tool at once, is refused the used approval too.
	var history []*ai.Message
	require.NoError(t, json.Unmarshal(stored, &history))
	res, err := tl.Answer(ctx, history[len(history)-1].Content[0], req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": `toolnexus: approval already used: approval "` + req.ID + `" has run its tool`}, res.ToolResponse.Output)
	assert.Equal(t, int32(1), g.Runs())
}
