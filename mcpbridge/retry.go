package mcpbridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
)

// Retry returns the params of the call that retries call once the person
// has answered the suspension parked, the input_required result of call as
// [FromCallToolResult] read it (stored and read back, in this process or
// another): the same tool and arguments, the requestState parked holds
// under [toolnexus.MetadataRequestState], echoed unchanged, and each answer
// as the response MCP takes, keyed by its request's id. The call it
// returns, sent twice or made twice from the same answer, runs the tool
// once: the server answers a state once and sends its retries the reply of
// that run, so a host that lost the reply sends it again safely.
//
// An answer to an elicitation that grants is "accept" with the answer's
// Data as the content; one that refuses is "cancel" when its reason is
// [toolnexus.ReasonCancelled], else "decline". The answer to a
// [toolnexus.KindSampling] request is its Data, the CreateMessageResult,
// and to a [toolnexus.KindRoots] request its Data, {"roots":[…]}; MCP has
// no way to refuse either in a retry, so a refusal of one reports
// [toolnexus.ErrInvalidMCP], as does Data that is not such a result.
//
// A suspension may ask several requests; the answers given may be fewer, and
// the server asks again for what is missing. Each answer is checked with
// [toolnexus.Answer.Check] against the request it names, at the time of the
// call: an answer to a request parked does not ask reports
// [toolnexus.ErrAnswerMismatch], and one to an expired request
// [toolnexus.ErrExpired]. A nil call, a parked result that is not a
// suspension or holds no requestState, or no answer at all reports
// [toolnexus.ErrInvalidMCP]. call is not changed.
func Retry(call *mcp.CallToolParams, parked toolnexus.ToolResult, answers ...toolnexus.Answer) (*mcp.CallToolParams, error) {
	reqs, ok := toolnexus.PendingAllOf(parked)
	if !ok {
		return nil, fmt.Errorf("mcpbridge: %w: the parked result is not a suspension", toolnexus.ErrInvalidMCP)
	}
	state, _ := parked.Metadata[toolnexus.MetadataRequestState].(string)
	switch {
	case call == nil:
		return nil, fmt.Errorf("mcpbridge: %w: no call to retry", toolnexus.ErrInvalidMCP)
	case state == "":
		return nil, fmt.Errorf("mcpbridge: %w: the result holds no requestState", toolnexus.ErrInvalidMCP)
	case len(answers) == 0:
		return nil, fmt.Errorf("mcpbridge: %w: no answer to send", toolnexus.ErrInvalidMCP)
	}
	now := time.Now()
	responses := make(mcp.InputResponseMap, len(answers))
	for _, a := range answers {
		i := slices.IndexFunc(reqs, func(r toolnexus.Request) bool { return r.ID == a.ID })
		if i < 0 {
			return nil, fmt.Errorf("mcpbridge: %w: answer id %q answers none of the result's %d requests", toolnexus.ErrAnswerMismatch, a.ID, len(reqs))
		}
		if err := a.Check(reqs[i], now); err != nil {
			return nil, fmt.Errorf("mcpbridge: %w", err)
		}
		resp, err := inputResponse(reqs[i], a)
		if err != nil {
			return nil, err
		}
		responses[a.ID] = resp
	}
	p := *call
	p.RequestState, p.InputResponses = state, responses
	return &p, nil
}

// RetryCallToolResult returns the params of the call that retries call once
// the person has answered res, the input_required result the SDK's client
// returned for it, as [Retry] builds them from the suspension
// [FromCallToolResult] reads from res.
func RetryCallToolResult(call *mcp.CallToolParams, res *mcp.CallToolResult, answers ...toolnexus.Answer) (*mcp.CallToolParams, error) {
	if res == nil || len(res.InputRequests) == 0 {
		return nil, fmt.Errorf("mcpbridge: %w: the result asks for no input", toolnexus.ErrInvalidMCP)
	}
	parked, err := FromCallToolResult(res)
	if err != nil {
		return nil, err
	}
	return Retry(call, parked, answers...)
}

// inputResponse returns a, the answer to req, as the response MCP takes.
func inputResponse(req toolnexus.Request, a toolnexus.Answer) (mcp.InputResponse, error) {
	var res mcp.InputResponse
	switch req.Kind {
	case toolnexus.KindSampling:
		//lint:ignore SA1019 a server may still ask for sampling, and its retry must answer it
		res = &mcp.CreateMessageWithToolsResult{}
	case toolnexus.KindRoots:
		//lint:ignore SA1019 a server may still ask for roots, and its retry must answer it
		res = &mcp.ListRootsResult{}
	default:
		return elicitResult(a), nil
	}
	if !a.OK {
		return nil, fmt.Errorf("mcpbridge: %w: request %q (%s) cannot be refused in a retry", toolnexus.ErrInvalidMCP, req.ID, req.Kind)
	}
	data, err := json.Marshal(a.Data)
	if err == nil {
		err = json.Unmarshal(data, res)
	}
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: %w: the answer to request %q is not a %s result: %v", toolnexus.ErrInvalidMCP, req.ID, req.Kind, err)
	}
	return res, nil
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
