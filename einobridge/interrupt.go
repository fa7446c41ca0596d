package einobridge

import (
	"encoding/gob"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
)

// The types a Tool puts in a checkpoint, registered with eino's serializers
// (schema.RegisterName registers with encoding/gob, which adk's Runner
// uses, and with the serializer compose uses by default), and the JSON
// values a request's Data holds, which encoding/gob needs registered
// inside an interface.
func init() {
	schema.RegisterName[toolnexus.Request]("toolnexus_request")
	schema.RegisterName[[]toolnexus.Request]("toolnexus_requests")
	schema.RegisterName[*parked]("toolnexus_einobridge_parked")
	gob.Register(map[string]any(nil))
	gob.Register([]any(nil))
}

// parked is the state of a Tool's interrupt, kept in the checkpoint: the
// requests the tool waits on, the answers it has been given so far, the
// parking the Runner minted when the call parked and when that parking can
// no longer be answered (the zero time when a request never expires). It
// goes through either serializer as its JSON.
type parked struct {
	Requests []toolnexus.Request `json:"requests"`
	Answers  toolnexus.Answers   `json:"answers,omitempty"`
	Park     string              `json:"park,omitempty"`
	Until    time.Time           `json:"until,omitzero"`
}

// park returns the parking p resumes, of the call callID: its Park, or
// for a checkpoint made before the state kept one, a parking named by the
// call and what it waits on (its requests' ids and expiries, which a new
// parking of the call would not repeat), so that it too is answered once.
func (p *parked) park(callID string) string {
	if p.Park != "" {
		return p.Park
	}
	key := fmt.Sprintf("eino:%d:%s", len(callID), callID)
	for _, r := range p.Requests {
		key += fmt.Sprintf(":%d:%s:%s", len(r.ID), r.ID, r.ExpiresAt)
	}
	return key
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

// parkedFields is parked without its methods.
type parkedFields parked

// MarshalJSON returns the JSON of p.
func (p parked) MarshalJSON() ([]byte, error) { return json.Marshal(parkedFields(p)) }

// UnmarshalJSON decodes p from JSON with exact keys.
func (p *parked) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*parkedFields)(p)) }

// GobEncode returns the JSON of p, for encoding/gob.
func (p parked) GobEncode() ([]byte, error) { return p.MarshalJSON() }

// GobDecode decodes p from its JSON, for encoding/gob.
func (p *parked) GobDecode(b []byte) error { return p.UnmarshalJSON(b) }

// answer checks data, the resume data of p's interrupt, and returns the
// answers to run the tool named tool with: those of p and the new ones,
// each replacing an earlier answer to the same request.
func (p *parked) answer(tool string, data any, now time.Time) (toolnexus.Answers, error) {
	given, err := answersOf(tool, data)
	if err != nil {
		return nil, err
	}
	answers, err := resume.Answers(tool, p.Requests, p.Answers, given, now)
	if err != nil {
		return nil, err
	}
	return jsonSafe(answers)
}

// answersOf returns the answers data holds: an Answer, an *Answer, or an
// Answers; nil holds none.
func answersOf(tool string, data any) (toolnexus.Answers, error) {
	switch d := data.(type) {
	case toolnexus.Answer:
		return toolnexus.Answers{d}, nil
	case *toolnexus.Answer:
		if d != nil {
			return toolnexus.Answers{*d}, nil
		}
	case toolnexus.Answers:
		return d, nil
	case []toolnexus.Answer:
		return d, nil
	}
	if data == nil {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: tool %s was resumed with %T, not a toolnexus.Answer", toolnexus.ErrAnswerMismatch, strconv.Quote(tool), data)
}

// jsonSafe returns v as it reads back from its JSON, so that the maps of
// its Data hold only the values JSON decodes into, which both of eino's
// serializers take.
func jsonSafe[T any](v T) (T, error) {
	var back T
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &back)
	}
	if err != nil {
		return back, fmt.Errorf("%w: %v", toolnexus.ErrInvalidRequest, err)
	}
	return back, nil
}

// interruptInfo returns the info of an interrupt on reqs: the request
// itself, or the list of them when there are several.
func interruptInfo(reqs []toolnexus.Request) any {
	if len(reqs) == 1 {
		return reqs[0]
	}
	return reqs
}

// Requests returns the requests of info, the Info of an interrupt a [Tool]
// raised (a [toolnexus.Request] or a []toolnexus.Request), and true, or
// false when info is neither.
func Requests(info any) ([]toolnexus.Request, bool) {
	switch v := info.(type) {
	case toolnexus.Request:
		return []toolnexus.Request{v}, true
	case []toolnexus.Request:
		return v, len(v) > 0
	}
	return nil, false
}

// Wait is one request an interrupted eino run waits on: InterruptID is the
// ID to resume with its answer (the key of adk.ResumeParams.Targets, or
// compose.ResumeWithData's interruptID), Tool and CallID name the call of
// the tool that asked it, and Request is what to put to a person. It
// survives JSON, for a host to store until the answer comes.
type Wait struct {
	InterruptID string            `json:"interruptId"`
	Tool        string            `json:"tool"`
	CallID      string            `json:"callId"`
	Request     toolnexus.Request `json:"request"`
}

// Waiting returns the requests of the interrupts of [Tool]s among
// interrupts, the InterruptContexts of an adk.InterruptInfo or of a
// compose.InterruptInfo (compose.ExtractInterruptInfo), in order.
// Interrupts raised by anything else are left out.
func Waiting(interrupts []*compose.InterruptCtx) []Wait {
	var waits []Wait
	for _, ic := range interrupts {
		if ic == nil || !ic.IsRootCause {
			continue
		}
		reqs, ok := Requests(ic.Info)
		if !ok {
			continue
		}
		var name, callID string
		for _, seg := range ic.Address {
			if seg.Type == compose.AddressSegmentTool {
				name, callID = seg.ID, seg.SubID
			}
		}
		for _, r := range reqs {
			waits = append(waits, Wait{InterruptID: ic.ID, Tool: name, CallID: callID, Request: r})
		}
	}
	return waits
}
