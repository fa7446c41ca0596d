package bridgetest

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// Expiry is a case of the expiry tests of the framework bridges
// (einobridge, genkitbridge): a bridge's Expiry, the ExpiresAt a request
// parked at [Asked] without one gets, and two times after Asked, Late, at
// which an answer is refused, and InTime, at which one is taken.
type Expiry struct {
	Name         string
	Expiry       time.Duration
	ExpiresAt    string
	Late, InTime time.Duration
}

// Asked is the time at which the tool of the expiry tests parks its call.
var Asked = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// Expiries are the cases of the expiry tests: the default,
// [park.DefaultExpiry], and one set.
var Expiries = []Expiry{
	{"default", 0, "2026-12-01T12:10:00Z", park.DefaultExpiry, park.DefaultExpiry - time.Second},
	{"set", 30 * time.Second, "2026-12-01T12:00:30Z", 31 * time.Second, 29 * time.Second},
}

// Approval is the request the tool of the expiry tests asks, without
// ExpiresAt.
var Approval = toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}

// ApprovalTool returns a tool that asks [Approval] until it is answered,
// then deploys, counting its deploys in runs.
func ApprovalTool(runs *atomic.Int32) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		if _, ok := answers.Get(Approval.ID); !ok {
			return toolnexus.Pending(Approval)
		}
		runs.Add(1)
		return toolnexus.Ok("deployed to prod")
	}
}

// Clock is a fake clock the expiry tests move, safe for concurrent use;
// its zero value reads [Asked].
type Clock struct{ since atomic.Int64 }

// Set sets the clock to Asked plus d.
func (c *Clock) Set(d time.Duration) { c.since.Store(int64(d)) }

// Now returns the time of the clock.
func (c *Clock) Now() time.Time { return Asked.Add(time.Duration(c.since.Load())) }
