package adkbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
	"github.com/toolnexus-go/toolnexus/internal/wire"
	"github.com/toolnexus-go/toolnexus/park"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

// stateKeyPrefix begins the session state key of a parked call, which ends
// in its park id.
const stateKeyPrefix = "toolnexus.adk.park."

// parkIDLen is the length of a park id, as park.Runner mints it.
const parkIDLen = 22

// parked is a parked call as the session's state keeps it, as a JSON
// string: the call, the arguments the tool ran with, the requests it waits
// on, the answers so far, and whether a confirmation has resumed it.
type parked struct {
	ParkID   string              `json:"parkId"`
	Tool     string              `json:"tool"`
	CallID   string              `json:"callId"`
	Args     json.RawMessage     `json:"args"`
	Requests []toolnexus.Request `json:"requests"`
	Answers  toolnexus.Answers   `json:"answers,omitempty"`
	Done     bool                `json:"done,omitempty"`
}

// asked is the payload of the confirmation a parked call asks for: its park
// id and its requests. A call that parks again once resumed also holds the
// ID of the confirmation that resumed it, which a reply answers again, and
// its arguments: ADK emits no new confirmation call for it.
type asked struct {
	ParkID         string              `json:"parkId"`
	Requests       []toolnexus.Request `json:"requests"`
	ConfirmationID string              `json:"confirmationId,omitempty"`
	Args           json.RawMessage     `json:"args,omitempty"`
}

// answered is the payload of a confirmation that answers a parked call:
// its park id, the answers, and the ID of the confirmation call it
// answers.
type answered struct {
	ParkID         string            `json:"parkId"`
	Answers        toolnexus.Answers `json:"answers,omitempty"`
	ConfirmationID string            `json:"confirmationId,omitempty"`
}

// save writes p into state.
func (p *parked) save(state session.State) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("%w: %v", toolnexus.ErrInvalidRequest, err)
	}
	return state.Set(stateKeyPrefix+p.ParkID, string(b))
}

// loadParked reads the parked call id from state.
func loadParked(state session.State, tool, id string) (*parked, error) {
	v, err := state.Get(stateKeyPrefix + id)
	if errors.Is(err, session.ErrStateKeyNotExist) {
		return nil, fmt.Errorf("%w: no call of tool %s is parked as %s", toolnexus.ErrAnswerMismatch, strconv.Quote(tool), strconv.Quote(id))
	}
	if err != nil {
		return nil, err
	}
	s, ok := v.(string)
	var p parked
	if ok {
		err = toolnexus.DecodeArguments(json.RawMessage(s), &p)
	}
	if !ok || err != nil || p.ParkID != id {
		return nil, fmt.Errorf("%w: the session's record of the call parked as %s is not one", toolnexus.ErrInvalidRequest, strconv.Quote(id))
	}
	return &p, nil
}

// park records the call of ctx, run with args and answers, as parked by
// out, and asks ADK for the confirmation that answers the requests of its
// result; resumedBy is the ID of the confirmation that resumed the call, if
// one did. A replayed outcome was recorded by the run that made it, and
// is asked again as it was. It returns what the model reads meanwhile.
func (t *Tool) park(ctx agent.Context, out park.Outcome, args json.RawMessage, answers toolnexus.Answers, resumedBy string) (map[string]any, error) {
	reqs, _ := toolnexus.PendingAllOf(out.Result)
	if !out.Replayed {
		p := &parked{ParkID: out.Park, Tool: t.name, CallID: ctx.FunctionCallID(), Args: args, Requests: reqs, Answers: answers}
		if err := p.save(ctx.State()); err != nil {
			return nil, err
		}
	}
	a := asked{ParkID: out.Park, Requests: reqs}
	if resumedBy != "" {
		a.ConfirmationID, a.Args = resumedBy, args
	}
	if err := ctx.RequestConfirmation(out.Result.Output, a); err != nil {
		return nil, err
	}
	return map[string]any{"output": out.Result.Output, "status": "waiting for a person's answer"}, nil
}

// resume checks payload, the payload of the confirmation that resumes the
// call of ctx, whose arguments are args, against the call it names, and
// returns that call, the answers to run the tool with and the reply itself
// (on a refusal, as far as it was read). A refusal leaves the call as it
// was.
func (t *Tool) resume(ctx agent.Context, payload any, args json.RawMessage) (*parked, answered, error) {
	var a answered
	b, err := json.Marshal(payload)
	if err == nil {
		err = toolnexus.DecodeArguments(b, &a)
	}
	if err != nil || len(a.ParkID) != parkIDLen {
		return nil, answered{}, fmt.Errorf("%w: tool %s was resumed by a confirmation that names no parked call", toolnexus.ErrAnswerMismatch, strconv.Quote(t.name))
	}
	p, err := loadParked(ctx.State(), t.name, a.ParkID)
	if err != nil {
		return nil, a, err
	}
	switch {
	case p.Tool != t.name || p.CallID != ctx.FunctionCallID():
		return nil, a, fmt.Errorf("%w: the call parked as %s is not this call of tool %s", toolnexus.ErrAnswerMismatch, strconv.Quote(a.ParkID), strconv.Quote(t.name))
	case !sameJSON(args, p.Args):
		return nil, a, fmt.Errorf("%w: tool %s was resumed with arguments other than those it was parked with", toolnexus.ErrAnswerMismatch, strconv.Quote(t.name))
	}
	if a.Answers, err = resume.Answers(t.name, p.Requests, p.Answers, a.Answers, t.Park.Now()); err != nil {
		return nil, a, err
	}
	return p, a, nil
}

// until returns when a call waiting on reqs can no longer be answered: the
// latest of their expiries, or the zero time when one never expires.
func until(reqs []toolnexus.Request) time.Time {
	var at time.Time
	for _, r := range reqs {
		t, err := r.Expiry()
		if err != nil || t.IsZero() {
			return time.Time{}
		}
		if t.After(at) {
			at = t
		}
	}
	return at
}

// sameJSON reports whether a and b are one JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// Wait is a parked call of a [Tool], as an event of ADK's asks a person to
// answer it: ConfirmationID is the ID of the adk_request_confirmation call
// to reply to, Tool, CallID and Args the call of the model that was parked
// (Args are the arguments the tool runs with once answered), ParkID the
// call's park id, and Requests what to put to the person. It survives
// JSON, for a host to keep until the answers come.
type Wait struct {
	ConfirmationID string              `json:"confirmationId"`
	Tool           string              `json:"tool"`
	CallID         string              `json:"callId"`
	Args           json.RawMessage     `json:"args"`
	ParkID         string              `json:"parkId"`
	Requests       []toolnexus.Request `json:"requests"`
}

// String returns w without its arguments and requests, only their sizes.
func (w Wait) String() string {
	return fmt.Sprintf("Wait{tool %s, call %s, park %s, %d requests, %d bytes of arguments}",
		strconv.Quote(w.Tool), strconv.Quote(w.CallID), strconv.Quote(w.ParkID), len(w.Requests), len(w.Args))
}

// GoString returns w in Go syntax without its arguments and requests,
// only their sizes, for %#v.
func (w Wait) GoString() string {
	return fmt.Sprintf("adkbridge.Wait{ConfirmationID:%s, Tool:%s, CallID:%s, Args:json.RawMessage(%d bytes), ParkID:%s, Requests:[]toolnexus.Request(len %d)}",
		strconv.Quote(w.ConfirmationID), strconv.Quote(w.Tool), strconv.Quote(w.CallID), len(w.Args), strconv.Quote(w.ParkID), len(w.Requests))
}

// Format prints w for every verb without its arguments and requests, as
// [Wait.String] (%#v: [Wait.GoString]).
func (w Wait) Format(f fmt.State, verb rune) { wire.Format(f, verb, w) }

// LogValue implements [slog.LogValuer]: w logs without its arguments and
// requests, only their sizes.
func (w Wait) LogValue() slog.Value {
	return slog.GroupValue(slog.String("tool", w.Tool), slog.String("callId", w.CallID),
		slog.String("parkId", w.ParkID), slog.Int("requests", len(w.Requests)), slog.Int("argsBytes", len(w.Args)))
}

// Waiting returns the parked calls of [Tool]s that events ask a person to
// answer, in order: the adk_request_confirmation calls whose payload a
// Tool wrote, and the function responses of calls that a confirmation
// resumed and that parked again, for which ADK emits no new confirmation
// call (their Wait answers the confirmation that resumed them).
// Confirmations asked by anything else are left out.
func Waiting(events ...*session.Event) []Wait {
	var waits []Wait
	for _, ev := range events {
		if ev == nil || ev.Content == nil {
			continue
		}
		for _, part := range ev.Content.Parts {
			var w Wait
			var ok bool
			switch {
			case part == nil:
			case part.FunctionCall != nil && part.FunctionCall.Name == toolconfirmation.FunctionCallName:
				w, ok = waitOf(part.FunctionCall)
			case part.FunctionResponse != nil:
				w, ok = parkedAgain(part.FunctionResponse, ev.Actions.RequestedToolConfirmations)
			}
			if ok {
				waits = append(waits, w)
			}
		}
	}
	return waits
}

// parkedAgain reads the Wait of fr, the function response of a call, when
// the call parked again once resumed: confirmations, the confirmations its
// event requested, hold one for fr's call whose payload names the
// confirmation that resumed it.
func parkedAgain(fr *genai.FunctionResponse, confirmations map[string]toolconfirmation.ToolConfirmation) (Wait, bool) {
	c, ok := confirmations[fr.ID]
	if !ok {
		return Wait{}, false
	}
	a, ok := askedOf(c.Payload)
	if !ok || a.ConfirmationID == "" {
		return Wait{}, false
	}
	return Wait{ConfirmationID: a.ConfirmationID, Tool: fr.Name, CallID: fr.ID, Args: a.Args,
		ParkID: a.ParkID, Requests: a.Requests}, true
}

// askedOf reads the payload a Tool gives a confirmation it asks for, and
// reports whether payload is one.
func askedOf(payload any) (asked, bool) {
	var a asked
	b, err := json.Marshal(map[string]any{"payload": payload})
	if err == nil {
		var c struct {
			Payload asked `json:"payload"`
		}
		err = toolnexus.DecodeArguments(b, &c)
		a = c.Payload
	}
	return a, err == nil && len(a.ParkID) == parkIDLen && len(a.Requests) > 0
}

// waitOf reads the Wait of fc, an adk_request_confirmation call, and
// reports whether a Tool asked it.
func waitOf(fc *genai.FunctionCall) (Wait, bool) {
	orig, err := toolconfirmation.OriginalCallFrom(fc)
	if err != nil {
		return Wait{}, false
	}
	var c struct {
		Payload any            `json:"payload"`
		ADK     map[string]any `json:",unknown"` // hint, confirmed
	}
	b, err := json.Marshal(fc.Args["toolConfirmation"])
	if err == nil {
		err = toolnexus.DecodeArguments(b, &c)
	}
	a, ok := askedOf(c.Payload)
	if err != nil || !ok {
		return Wait{}, false
	}
	args, err := json.Marshal(orig.Args)
	if err != nil {
		return Wait{}, false
	}
	return Wait{ConfirmationID: fc.ID, Tool: orig.Name, CallID: orig.ID, Args: args,
		ParkID: a.ParkID, Requests: a.Requests}, true
}

// Reply returns the user content that answers w: the function response to
// its adk_request_confirmation call, which a run of the session's agent
// takes as its message (runner.Runner.Run). Its payload holds w's park id
// and answers; "confirmed" is true when every answer resolves its request,
// for clients that read it, while the tool reads the answers themselves.
func (w Wait) Reply(answers ...toolnexus.Answer) *genai.Content {
	ok := len(answers) > 0
	for _, a := range answers {
		ok = ok && a.OK
	}
	fr := &genai.FunctionResponse{
		ID:   w.ConfirmationID,
		Name: toolconfirmation.FunctionCallName,
		Response: map[string]any{
			"confirmed": ok,
			"payload":   answered{ParkID: w.ParkID, Answers: answers, ConfirmationID: w.ConfirmationID},
		},
	}
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: fr}}}
}
