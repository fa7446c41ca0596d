package park

import (
	"context"
	"fmt"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// RunTurn runs calls, a model's new calls, with tools, as the Runner of
// ctx ([NewContext]), or the zero [Runner], runs them (see
// [Runner.RunTurn]).
func RunTurn(ctx context.Context, tools map[string]toolnexus.Tool, calls ...toolnexus.ToolCall) (toolnexus.Turn, error) {
	r, _ := FromContext(ctx)
	return r.RunTurn(ctx, tools, calls...)
}

// Resume records a, a person's answer to a request t waits on, and runs the
// call that waits on it again with tools, as the Runner of ctx
// ([NewContext]), or the zero [Runner], does (see [Runner.Resume]).
func Resume(ctx context.Context, tools map[string]toolnexus.Tool, t toolnexus.Turn, a toolnexus.Answer) (toolnexus.Turn, error) {
	r, _ := FromContext(ctx)
	return r.Resume(ctx, tools, t, a)
}

// RunTurn returns the turn of calls, a model's new calls (ID, Name and
// Arguments set, in the model's order, as [toolnexus.NewTurn] takes them),
// each with the result of running its tool from tools with its arguments,
// as [Runner.Exec] runs it. The calls run one after the other, in order.
// RunTurn never fails because of a tool: what the model reads is each
// call's result.
//
//   - A call of a tool that tools does not hold gets the error result
//     `toolnexus: unknown tool "NAME"`; one whose tool is nil in tools,
//     `toolnexus: nil tool: "NAME"`.
//   - Arguments that are not a JSON object (no arguments, white space and
//     null are read as {}) get an error result naming the tool and what is
//     wrong, such as `toolnexus: arguments of "deploy" are not JSON:
//     invalid character 'x' looking for beginning of value`, and the tool
//     does not run.
//   - A tool that panics gets the error result
//     `toolnexus: tool panicked: "NAME"`; the panic and its stack go to
//     the Logger, never to the model.
//   - A call that parks gets its parking's id in Parked.
//
// Calls that are not a turn report [toolnexus.ErrInvalidTurn], and no tool
// runs. No calls at all give the zero Turn.
func (r Runner) RunTurn(ctx context.Context, tools map[string]toolnexus.Tool, calls ...toolnexus.ToolCall) (toolnexus.Turn, error) {
	t, err := toolnexus.NewTurn(calls...)
	if err != nil || len(calls) == 0 {
		return t, err
	}
	for i, c := range calls {
		tool, ok := tools[c.Name]
		if !ok {
			t.Calls[i].Result = unknownTool(c.Name)
			continue
		}
		// The arguments as the turn keeps them, which a resume runs with
		// too; for arguments kept as a string (they were not JSON, or a
		// string), the call's own, for the error result to say what is
		// wrong with them.
		args := t.Calls[i].Arguments
		if len(args) > 0 && args[0] == '"' {
			args = c.Arguments
		}
		out, _ := r.Run(ctx, Call{ID: c.ID, Tool: c.Name, Arguments: args, Answers: c.Answers}, tool)
		t.Calls[i].Result, t.Calls[i].Parked = out.Result, out.Park
	}
	return t, nil
}

// Resume checks a, a person's answer to a request t waits on, with the
// rules of [toolnexus.Turn.Answer] at the Runner's current time (an unknown
// or finished request reports [toolnexus.ErrAnswerMismatch], an expired
// one [toolnexus.ErrExpired]), runs the call that waits on it again with
// its arguments and every answer so far, and returns t with that call's new
// result, as [toolnexus.Turn.WithCall] records it. t is never changed.
//
// The call's parking is answered once ([Runner]): a turn read back twice
// and resumed twice, one after the other or at once, runs the tool once;
// the second Resume gets the turn with the first run's result, or
// [ErrRunning] while it still runs. A refused answer runs nothing and is
// not spent: nil tools report [ErrNilTool], and the same answer can be
// given again with the tools.
//
// A request that expired can no longer be answered: to finish its call
// all the same, record a result of the host's own, such as an
// [toolnexus.Error] saying the approval expired, with
// [toolnexus.Turn.WithCall].
func (r Runner) Resume(ctx context.Context, tools map[string]toolnexus.Tool, t toolnexus.Turn, a toolnexus.Answer) (toolnexus.Turn, error) {
	if tools == nil {
		return t, msg.Errorf(ErrNilTool, "Resume was given no tools: the answer to %s is not spent", msg.Quote(a.ID))
	}
	prev, err := waitingCall(t, a.ID)
	if err != nil {
		r.Refused(ctx, Call{}, err)
		return t, err
	}
	c, err := t.Answer(a, r.Now())
	if err != nil {
		r.Refused(ctx, Call{ID: prev.ID, Tool: prev.Name, Park: parkOf(prev)}, err)
		return t, err
	}
	tool, ok := tools[c.Name]
	if !ok {
		c.Result, c.Parked = unknownTool(c.Name), ""
		return t.WithCall(c)
	}
	out, err := r.Run(ctx, Call{
		ID: c.ID, Tool: c.Name, Arguments: c.Arguments, Answers: c.Answers,
		Park: parkOf(prev), Until: untilOf(prev),
	}, tool)
	if err != nil {
		return t, err
	}
	c.Result, c.Parked = out.Result, out.Park
	return t.WithCall(c)
}

// unknownTool is the result of a call of the tool name that the tools
// given do not hold.
func unknownTool(name string) toolnexus.ToolResult {
	return toolnexus.Error("toolnexus: unknown tool " + msg.Quote(name))
}

// waitingCall returns the call of t that waits on the request id, as it
// is before the answer.
func waitingCall(t toolnexus.Turn, id string) (toolnexus.ToolCall, error) {
	for _, c := range t.Calls {
		if reqs, ok := toolnexus.PendingAllOf(c.Result); ok {
			for _, req := range reqs {
				if id != "" && req.ID == id {
					return c, nil
				}
			}
		}
	}
	return toolnexus.ToolCall{}, msg.Errorf(toolnexus.ErrAnswerMismatch, "no call of the turn waits on request %s", msg.Quote(id))
}

// parkOf returns the parking of c, a call that waits: its Parked, or for
// a turn stored before calls carried one, a parking named by what it
// waits on (its requests' ids and expiries, which a new parking of the
// same call would not repeat).
func parkOf(c toolnexus.ToolCall) string {
	if c.Parked != "" {
		return c.Parked
	}
	reqs, _ := toolnexus.PendingAllOf(c.Result)
	key := "turn:" + c.ID
	for _, req := range reqs {
		key += fmt.Sprintf(":%d:%s:%s", len(req.ID), req.ID, req.ExpiresAt)
	}
	return key
}

// untilOf returns when the parking of c can no longer be answered: the
// latest expiry of its requests, or the zero time when one never expires.
func untilOf(c toolnexus.ToolCall) time.Time {
	reqs, _ := toolnexus.PendingAllOf(c.Result)
	var until time.Time
	for _, req := range reqs {
		at, err := req.Expiry()
		if err != nil || at.IsZero() {
			return time.Time{}
		}
		if at.After(until) {
			until = at
		}
	}
	return until
}
