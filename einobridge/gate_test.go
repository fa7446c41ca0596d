package einobridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/park"
)

// gatedTool returns g's gated deploy tool as an eino tool run with g's
// Runner, whose clock is the gate's. The tools of one test share the
// process's Store, as the runners of one process do.
func gatedTool(t *testing.T, g *bridgetest.Gated) *einobridge.Tool {
	t.Helper()
	tl, err := einobridge.New("deploy", "Deploys the service", nil, g.Tool)
	require.NoError(t, err)
	tl.Park = g.Park()
	return tl
}

// toolText returns the text of the one tool message m was given.
func toolText(t *testing.T, m *scriptedModel) string {
	t.Helper()
	msgs := m.toolMessages()
	require.Len(t, msgs, 1)
	var texts []string
	for _, p := range msgs[0].UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(append(texts, msgs[0].Content), "")
}

// TestGateResume runs an adk runner whose gated tool (bridgetest's, which
// asks for prod) interrupts on its approval: nothing runs until it is
// approved, a stale approval runs nothing, the approval runs the tool once,
// and resuming the same checkpoint again, with the approval or a decline,
// gives the model the one run's result. A decline, on a checkpoint of its
// own, runs nothing.
func TestGateResume(t *testing.T) {
	ctx := context.Background()
	g := bridgetest.NewGated(t, asked)
	st := newStore()

	// parkAt runs the agent on a new checkpoint id and returns what it waits on.
	parkAt := func(id string) einobridge.Wait {
		t.Helper()
		g.SetNow(asked)
		interrupt, _, err := drain(t, newRunner(t, st, &scriptedModel{}, gatedTool(t, g)).Query(ctx, "deploy prod", adk.WithCheckPointID(id)))
		require.NoError(t, err)
		require.NotNil(t, interrupt)
		waits := einobridge.Waiting(interrupt.InterruptContexts)
		require.Len(t, waits, 1)
		return waits[0]
	}
	// resume resumes the checkpoint id at the time at with answer, and
	// returns the model's last text and what the tool said.
	resume := func(id string, wait einobridge.Wait, at time.Time, answer toolnexus.Answer) (string, string, error) {
		t.Helper()
		g.SetNow(at)
		m := &scriptedModel{}
		iter, err := newRunner(t, st, m, gatedTool(t, g)).ResumeWithParams(ctx, id,
			&adk.ResumeParams{Targets: map[string]any{wait.InterruptID: answer}})
		require.NoError(t, err)
		_, text, err := drain(t, iter)
		if err != nil {
			return "", "", err
		}
		return text, toolText(t, m), nil
	}

	wait := parkAt("chk-gate")
	req := wait.Request
	assert.True(t, strings.HasPrefix(req.ID, "gate-"), req.ID)
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy to production?", req.Prompt)
	assert.Equal(t, asked.Add(park.DefaultExpiry).Format(time.RFC3339), req.ExpiresAt)
	assert.Zero(t, g.Runs(), "nothing runs until approved")

	_, _, err := resume("chk-gate", wait, asked.Add(park.DefaultExpiry), req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrExpired, "a stale approval fails closed")
	assert.Zero(t, g.Runs())

	text, said, err := resume("chk-gate", wait, asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, "deployed to prod", said)
	assert.Equal(t, int32(1), g.Runs())

	for _, answer := range []toolnexus.Answer{req.Resolve(nil), req.Decline("not on a Friday")} {
		text, said, err = resume("chk-gate", wait, asked.Add(2*time.Minute), answer)
		require.NoError(t, err)
		assert.Equal(t, "done", text)
		assert.Equal(t, "deployed to prod", said, "the one run's result")
		assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")
	}

	declined := parkAt("chk-gate-declined")
	text, said, err = resume("chk-gate-declined", declined, asked.Add(time.Minute), declined.Request.Decline("not on a Friday"))
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, "Error: toolnexus: approval declined: not on a Friday", said, "the bridge heads an error result Error:")
	assert.Equal(t, int32(1), g.Runs(), "a declined call never runs")

	// The stored wait, read back, names the same approval.
	b, err := json.Marshal(wait)
	require.NoError(t, err)
	var back einobridge.Wait
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, req, back.Request)
}
