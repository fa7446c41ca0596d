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
)

// gatedTool returns gate, a gated deploy tool, as an eino tool that checks
// answers at the time at. The tools of one test share one gate, as the
// runners of one process do.
func gatedTool(t *testing.T, gate toolnexus.Tool, at time.Time) *einobridge.Tool {
	t.Helper()
	tl, err := einobridge.New("deploy", "Deploys the service", nil, gate)
	require.NoError(t, err)
	tl.Time = func() time.Time { return at }
	return tl
}

// toolText returns the text of the one tool message m was given.
func toolText(t *testing.T, m *fakeModel) string {
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
// asks for prod) interrupts on its approval: nothing runs until it is approved, a decline runs nothing,
// the approval runs the tool once, and resuming the same checkpoint again
// with the same answer is refused.
func TestGateResume(t *testing.T) {
	ctx := context.Background()
	g := bridgetest.NewGated(t, asked)
	gate := g.Tool
	st := newStore()

	first := newRunner(t, st, &fakeModel{}, gatedTool(t, gate, asked))
	interrupt, _, err := drain(t, first.Query(ctx, "deploy prod", adk.WithCheckPointID("chk-gate")))
	require.NoError(t, err)
	require.NotNil(t, interrupt)
	waits := einobridge.Waiting(interrupt.InterruptContexts)
	require.Len(t, waits, 1)
	req := waits[0].Request
	assert.True(t, strings.HasPrefix(req.ID, "gate-"), req.ID)
	assert.Equal(t, toolnexus.KindApproval, req.Kind)
	assert.Equal(t, "Deploy to production?", req.Prompt)
	assert.Equal(t, asked.Add(toolnexus.DefaultExpiry).Format(time.RFC3339), req.ExpiresAt)
	assert.Zero(t, g.Runs(), "nothing runs until approved")
	saved, _ := st.saved("chk-gate")
	require.NotEmpty(t, saved)

	// resume resumes the checkpoint as it was saved, at the time at, with
	// answer, and returns the model's last text and what the tool said.
	resume := func(at time.Time, answer toolnexus.Answer) (string, string, error) {
		t.Helper()
		require.NoError(t, st.Set(ctx, "chk-gate", saved))
		g.SetNow(at)
		m := &fakeModel{}
		iter, err := newRunner(t, st, m, gatedTool(t, gate, at)).ResumeWithParams(ctx, "chk-gate",
			&adk.ResumeParams{Targets: map[string]any{waits[0].InterruptID: answer}})
		require.NoError(t, err)
		_, text, err := drain(t, iter)
		if err != nil {
			return "", "", err
		}
		return text, toolText(t, m), nil
	}

	_, _, err = resume(asked.Add(toolnexus.DefaultExpiry), req.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrExpired, "a stale approval fails closed")
	assert.Zero(t, g.Runs())

	text, said, err := resume(asked.Add(time.Minute), req.Decline("not on a Friday"))
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, "Error: toolnexus: approval declined: not on a Friday", said, "the bridge heads an error result Error:")
	assert.Zero(t, g.Runs(), "a declined call never runs")

	text, said, err = resume(asked.Add(time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, "deployed to prod", said)
	assert.Equal(t, int32(1), g.Runs())

	text, said, err = resume(asked.Add(2*time.Minute), req.Resolve(nil))
	require.NoError(t, err)
	assert.Equal(t, "done", text)
	assert.Equal(t, `Error: toolnexus: approval already used: approval "`+req.ID+`" has run its tool`, said)
	assert.Equal(t, int32(1), g.Runs(), "a replayed approval runs nothing")

	// The stored wait, read back, names the same approval.
	b, err := json.Marshal(waits[0])
	require.NoError(t, err)
	var wait einobridge.Wait
	require.NoError(t, json.Unmarshal(b, &wait))
	assert.Equal(t, req, wait.Request)
}
