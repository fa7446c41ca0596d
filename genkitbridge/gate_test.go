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
	"github.com/toolnexus-go/toolnexus/park"
)

// newGatedTool returns g's gated deploy tool as a genkit tool run by the
// gate's Runner (its clock), with the other Runner settings of park.
func newGatedTool(t *testing.T, g *bridgetest.Gated, r park.Runner) *genkitbridge.Tool {
	t.Helper()
	tl, err := genkitbridge.New("deploy", "Deploys the service", nil, g.Tool)
	require.NoError(t, err)
	r.Time, r.Logger = g.Park().Time, g.Park().Logger
	tl.Park = r
	return tl
}

// TestGateRestart runs generations whose gated tool interrupts on its
// approval, and restarts the stored interrupt with answers: nothing runs
// until it is approved, a stale approval runs nothing, the approval runs
// the tool once, and restarting or answering the same interrupt again
// gets the first run's result, a decline included. A tool marked
// Repeatable is restarted again, and its gate refuses the used approval.
func TestGateRestart(t *testing.T) {
	ctx := context.Background()
	g := bridgetest.NewGated(t, asked)

	// interrupted runs a generation of tl, and returns its stored history
	// and the request its interrupt asks.
	interrupted := func(tl *genkitbridge.Tool) ([]byte, toolnexus.Request) {
		t.Helper()
		gk, model := newGenkit(&fakeModel{})
		resp, err := genkit.Generate(ctx, gk, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(tl))
		require.NoError(t, err)
		require.Equal(t, ai.FinishReasonInterrupted, resp.FinishReason)
		require.Len(t, resp.Interrupts(), 1)
		reqs, ok := genkitbridge.Requests(resp.Interrupts()[0])
		require.True(t, ok)
		require.Len(t, reqs, 1)
		stored, err := json.Marshal(resp.History())
		require.NoError(t, err)
		return stored, reqs[0]
	}
	// restart reads stored in a fresh genkit instance and restarts its
	// interrupt on tl with answer at the time at; it returns what the
	// model read of the tool.
	restart := func(tl *genkitbridge.Tool, stored []byte, at time.Time, answer toolnexus.Answer) (map[string]any, error) {
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
	// answer reads stored and answers its interrupt on tl with Answer.
	answer := func(tl *genkitbridge.Tool, stored []byte, a toolnexus.Answer) any {
		t.Helper()
		var history []*ai.Message
		require.NoError(t, json.Unmarshal(stored, &history))
		res, err := tl.Answer(ctx, history[len(history)-1].Content[0], a)
		require.NoError(t, err)
		return res.ToolResponse.Output
	}
	deployed := map[string]any{"output": "deployed to prod"}

	tl := newGatedTool(t, g, park.Runner{})
	stored, req := interrupted(tl)
	assert.True(t, strings.HasPrefix(req.ID, "gate-"), req.ID)
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy to production?", req.Prompt)
	assert.Zero(t, g.Runs(), "nothing runs until approved")

	_, err := restart(tl, stored, asked.Add(park.DefaultExpiry), req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrExpired, "a stale approval fails closed")
	assert.Zero(t, g.Runs())

	out, err := restart(tl, stored, asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, deployed, out)
	assert.Equal(t, int32(1), g.Runs())

	out, err = restart(tl, stored, asked.Add(2*time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, deployed, out, "a restart sent again gets the first run's result")
	assert.Equal(t, deployed, answer(tl, stored, req.Resolve(nil)))
	assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")

	// A decline answers the interrupt too: the approval that follows gets
	// the decline.
	stored, req = interrupted(tl)
	declined := map[string]any{"error": "toolnexus: approval declined: not on a Friday"}
	out, err = restart(tl, stored, asked.Add(time.Minute), req.Decline("not on a Friday"))
	require.NoError(t, err)
	assert.Equal(t, declined, out)
	out, err = restart(tl, stored, asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, declined, out)
	assert.Equal(t, int32(1), g.Runs(), "a declined call never runs")

	// Repeatable: each restart runs the gate again, which runs its tool
	// once per approval.
	tl = newGatedTool(t, g, park.Runner{Repeatable: []string{"deploy"}})
	stored, req = interrupted(tl)
	out, err = restart(tl, stored, asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, deployed, out)
	out, err = restart(tl, stored, asked.Add(2*time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	used := map[string]any{"error": `toolnexus: approval already used: approval "` + req.ID + `" has run its tool`}
	assert.Equal(t, used, out)
	assert.Equal(t, used, answer(tl, stored, req.Resolve(nil)))
	assert.Equal(t, int32(2), g.Runs())
}
