package genkitbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
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

// TestRestartExpiry parks a request asked without ExpiresAt in a real
// genkit generation, on a fake clock: it expires Park.Expiry after it was
// parked (park.DefaultExpiry when zero). Read back from the stored
// history on a fresh genkit instance, a late answer is refused by
// Tool.Resume, a restart made in time but run late fails in the tool, and
// neither runs the tool; an answer in time restarts it once.
func TestRestartExpiry(t *testing.T) {
	ctx := context.Background()
	for _, tc := range bridgetest.Expiries {
		t.Run(tc.Name, func(t *testing.T) {
			var runs atomic.Int32
			var clock bridgetest.Clock
			newTool := func() *genkitbridge.Tool {
				tl, err := genkitbridge.New("deploy", "Deploys", nil, bridgetest.ApprovalTool(&runs))
				require.NoError(t, err)
				tl.Park.Expiry = tc.Expiry
				tl.Park.Time = clock.Now
				return tl
			}

			g, model := newGenkit(&fakeModel{})
			resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("deploy prod"), ai.WithTools(newTool()))
			require.NoError(t, err)
			require.Len(t, resp.Interrupts(), 1)
			reqs, ok := genkitbridge.Requests(resp.Interrupts()[0])
			require.True(t, ok)
			want := bridgetest.Approval
			want.ExpiresAt = tc.ExpiresAt
			assert.Equal(t, []toolnexus.Request{want}, reqs)
			stored, err := json.Marshal(resp.History())
			require.NoError(t, err)

			// restart reads the stored history on a fresh genkit instance
			// and restarts its interrupt with the answer made at resumeAt,
			// the generation running at runAt.
			restart := func(resumeAt, runAt time.Duration) (*ai.ModelResponse, error) {
				var history []*ai.Message
				require.NoError(t, json.Unmarshal(stored, &history))
				g, model := newGenkit(&fakeModel{})
				tl := newTool()
				clock.Set(resumeAt)
				part, err := tl.Resume(history[len(history)-1].Content[0], want.Resolve(nil))
				if err != nil {
					return nil, err
				}
				clock.Set(runAt)
				return genkit.Generate(ctx, g, ai.WithModel(model), ai.WithMessages(history...), ai.WithTools(tl), ai.WithToolRestarts(part))
			}
			refused := `toolnexus: request expired: request "approve" expired at ` + tc.ExpiresAt
			_, err = restart(tc.Late, tc.Late)
			require.ErrorIs(t, err, toolnexus.ErrExpired)
			assert.EqualError(t, err, refused)
			_, err = restart(tc.InTime, tc.Late)
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), refused), err.Error())
			assert.Equal(t, int32(0), runs.Load(), "a late answer does not run the tool")

			resp, err = restart(tc.InTime, tc.InTime)
			require.NoError(t, err)
			assert.Equal(t, "done", resp.Text())
			assert.Equal(t, int32(1), runs.Load())
		})
	}
}
