package mcpbridge

import (
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
)

// Retry returns the params of the call that retries call once the person
// has answered the suspension parked, the input_required result of call as
// [FromCallToolResult] read it (stored and read back, in this process or
// another): the same tool and arguments, the requestState parked holds
// under [toolnexus.MetadataRequestState], echoed unchanged, and each answer
// as the elicitation result MCP takes, keyed by its request's id. An answer
// that grants is "accept" with the answer's Data as the content; one that
// refuses is "cancel" when its reason is [toolnexus.ReasonCancelled], else
// "decline".
//
// Each answer is checked with [toolnexus.Answer.Check] against the request
// parked waits on, at the time of the call: an answer to another request
// reports [toolnexus.ErrAnswerMismatch] and one to an expired request
// [toolnexus.ErrExpired]. A nil call, a parked result that is not a
// suspension or holds no requestState, or no answer at all reports
// [toolnexus.ErrInvalidMCP]. call is not changed.
func Retry(call *mcp.CallToolParams, parked toolnexus.ToolResult, answers ...toolnexus.Answer) (*mcp.CallToolParams, error) {
	req, ok := toolnexus.PendingOf(parked)
	if !ok {
		return nil, fmt.Errorf("mcpbridge: %w: the parked result is not a suspension", toolnexus.ErrInvalidMCP)
	}
	state, _ := parked.Metadata[toolnexus.MetadataRequestState].(string)
	now := time.Now()
	return retry(call, state, answers, func(a toolnexus.Answer) error {
		return a.Check(req, now)
	})
}

// RetryCallToolResult returns the params of the call that retries call once
// the person has answered res, the input_required result the SDK's client
// returned for it, as [Retry] builds them from a parked result. Each answer
// must answer one of res's elicitations ([toolnexus.ErrAnswerMismatch]); an
// input request of another method cannot be answered here
// ([toolnexus.ErrInvalidMCP]).
func RetryCallToolResult(call *mcp.CallToolParams, res *mcp.CallToolResult, answers ...toolnexus.Answer) (*mcp.CallToolParams, error) {
	if res == nil || len(res.InputRequests) == 0 {
		return nil, fmt.Errorf("mcpbridge: %w: the result asks for no input", toolnexus.ErrInvalidMCP)
	}
	return retry(call, res.RequestState, answers, func(a toolnexus.Answer) error {
		ir, ok := res.InputRequests[a.ID]
		switch {
		case !ok:
			return fmt.Errorf("%w: answer id %q answers none of the result's %d requests", toolnexus.ErrAnswerMismatch, a.ID, len(res.InputRequests))
		case !isElicitation(ir):
			return fmt.Errorf("%w: request %q is not an elicitation", toolnexus.ErrInvalidMCP, a.ID)
		}
		return nil
	})
}

// isElicitation reports whether ir is an elicitation.
func isElicitation(ir mcp.InputRequest) bool {
	p, ok := ir.(*mcp.ElicitParams)
	return ok && p != nil
}

// retry builds the retry of call with state and answers, each of which
// check accepts.
func retry(call *mcp.CallToolParams, state string, answers []toolnexus.Answer, check func(toolnexus.Answer) error) (*mcp.CallToolParams, error) {
	switch {
	case call == nil:
		return nil, fmt.Errorf("mcpbridge: %w: no call to retry", toolnexus.ErrInvalidMCP)
	case state == "":
		return nil, fmt.Errorf("mcpbridge: %w: the result holds no requestState", toolnexus.ErrInvalidMCP)
	case len(answers) == 0:
		return nil, fmt.Errorf("mcpbridge: %w: no answer to send", toolnexus.ErrInvalidMCP)
	}
	responses := make(mcp.InputResponseMap, len(answers))
	for _, a := range answers {
		if err := check(a); err != nil {
			return nil, fmt.Errorf("mcpbridge: %w", err)
		}
		responses[a.ID] = elicitResult(a)
	}
	p := *call
	p.RequestState, p.InputResponses = state, responses
	return &p, nil
}

// elicitResult returns a as the result of an elicitation.
func elicitResult(a toolnexus.Answer) *mcp.ElicitResult {
	switch {
	case a.OK:
		return &mcp.ElicitResult{Action: "accept", Content: a.Data}
	case a.Reason == toolnexus.ReasonCancelled:
		return &mcp.ElicitResult{Action: "cancel"}
	}
	return &mcp.ElicitResult{Action: "decline"}
}
