package einobridge_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/park"
)

// TestRunnerExpiry parks a request asked without ExpiresAt in a real adk
// runner with a checkpoint store, on a fake clock: it expires the Runner's Expiry
// after it was parked (park.DefaultExpiry when zero), a fresh runner
// resuming it later is refused with ErrExpired and the tool does not run,
// and one resuming it in time runs it once.
func TestRunnerExpiry(t *testing.T) {
	ctx := context.Background()
	for _, tc := range bridgetest.Expiries {
		t.Run(tc.Name, func(t *testing.T) {
			st := newStore()
			var runs atomic.Int32
			var clock bridgetest.Clock
			newTool := func() *einobridge.Tool {
				tl, err := einobridge.New("deploy", "Deploys", nil, bridgetest.ApprovalTool(&runs))
				require.NoError(t, err)
				tl.Park = park.Runner{Expiry: tc.Expiry, Time: clock.Now, Logger: slog.New(slog.DiscardHandler)}
				return tl
			}

			interrupt, _, err := drain(t, newRunner(t, st, &scriptedModel{}, newTool()).Query(ctx, "deploy prod", adk.WithCheckPointID("exp")))
			require.NoError(t, err)
			require.NotNil(t, interrupt)
			waits := einobridge.Waiting(interrupt.InterruptContexts)
			require.Len(t, waits, 1)
			req := waits[0].Request
			want := bridgetest.Approval
			want.ExpiresAt = tc.ExpiresAt
			assert.Equal(t, want, req)
			saved, _ := st.saved("exp")

			resume := func(after time.Duration) (string, error) {
				clock.Set(after)
				iter, err := newRunner(t, st, &scriptedModel{}, newTool()).ResumeWithParams(ctx, "exp",
					&adk.ResumeParams{Targets: map[string]any{waits[0].InterruptID: req.Resolve(nil)}})
				require.NoError(t, err)
				_, text, err := drain(t, iter)
				return text, err
			}
			_, err = resume(tc.Late)
			require.ErrorIs(t, err, toolnexus.ErrExpired)
			assert.Contains(t, err.Error(), `toolnexus: request expired: request "approve" expired at `+tc.ExpiresAt)
			assert.Equal(t, int32(0), runs.Load(), "a late answer does not run the tool")
			after, _ := st.saved("exp")
			assert.Equal(t, saved, after, "the checkpoint stays as it was")

			text, err := resume(tc.InTime)
			require.NoError(t, err)
			assert.Equal(t, "done", text)
			assert.Equal(t, int32(1), runs.Load())
		})
	}
}
