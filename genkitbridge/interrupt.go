package genkitbridge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/toolnexus-go/toolnexus"
)

// Keys of an interrupt's metadata beside those of its first request: the
// other requests of a [toolnexus.PendingAll], the answers the tool was
// given before it asked, the id of its parking, and when that can no
// longer be answered.
const (
	keyPendingMore = toolnexus.MetadataPendingMore
	keyAnswers     = "answers"
	keyParked      = "parked"
	keyUntil       = "until"
)

// interruptMetadata returns the metadata of an interrupt on reqs, asked
// after answers and parked as parking: the JSON object of the first
// request, with the others under "pendingMore", the answers under
// "answers", the parking under "parked" and, when every request expires,
// the latest expiry under "until".
func interruptMetadata(reqs []toolnexus.Request, answers toolnexus.Answers, parking string) (map[string]any, error) {
	var meta map[string]any
	if err := fromJSON(reqs[0], &meta); err != nil {
		return nil, err
	}
	if len(reqs) > 1 {
		more, err := jsonValue(reqs[1:])
		if err != nil {
			return nil, err
		}
		meta[keyPendingMore] = more
	}
	if len(answers) > 0 {
		given, err := jsonValue(answers)
		if err != nil {
			return nil, err
		}
		meta[keyAnswers] = given
	}
	meta[keyParked] = parking
	if until := untilOf(reqs); !until.IsZero() {
		meta[keyUntil] = until.UTC().Format(time.RFC3339Nano)
	}
	return meta, nil
}

// untilOf returns when reqs can no longer be answered: the latest expiry
// of its requests, or the zero time when one never expires.
func untilOf(reqs []toolnexus.Request) time.Time {
	var until time.Time
	for _, r := range reqs {
		at, err := r.Expiry()
		if err != nil || at.IsZero() {
			return time.Time{}
		}
		if at.After(until) {
			until = at
		}
	}
	return until
}

// parkedOf reads v, the metadata of an interrupt of the tool named tool,
// as it is in this process or after JSON, with exact keys: each request
// must pass [toolnexus.Request.Validate]. An interrupt without a parking
// (made by hand, or before interrupts carried one) is parked under a name
// of what it waits on, its requests' ids and expiries, and until when
// they expire, so that it too is answered once.
func parkedOf(tool string, v any) (parked, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return parked{}, fmt.Errorf("%w: the interrupt is not JSON: %v", toolnexus.ErrInvalidRequest, err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil || members == nil {
		return parked{}, fmt.Errorf("%w: the interrupt is not a request", toolnexus.ErrInvalidRequest)
	}
	var p parked
	var first toolnexus.Request
	if err := json.Unmarshal(b, &first); err != nil {
		return parked{}, err
	}
	p.Requests = []toolnexus.Request{first}
	if more, ok := members[keyPendingMore]; ok {
		var rest []toolnexus.Request
		if err := json.Unmarshal(more, &rest); err != nil {
			return parked{}, fmt.Errorf("%w: %s of the interrupt: %v", toolnexus.ErrInvalidRequest, keyPendingMore, err)
		}
		p.Requests = append(p.Requests, rest...)
	}
	for _, r := range p.Requests {
		if err := r.Validate(); err != nil {
			return parked{}, err
		}
	}
	if given, ok := members[keyAnswers]; ok {
		if err := json.Unmarshal(given, &p.Answers); err != nil {
			return parked{}, err
		}
	}
	if raw, ok := members[keyParked]; ok {
		if err := json.Unmarshal(raw, &p.Park); err != nil || p.Park == "" {
			return parked{}, fmt.Errorf("%w: %s of the interrupt is not a parking id", toolnexus.ErrInvalidRequest, keyParked)
		}
	} else {
		p.Park = "genkit:" + strconv.Quote(tool)
		for _, r := range p.Requests {
			p.Park += fmt.Sprintf(":%d:%s:%s", len(r.ID), r.ID, r.ExpiresAt)
		}
	}
	p.Until = untilOf(p.Requests)
	if raw, ok := members[keyUntil]; ok {
		var s string
		err := json.Unmarshal(raw, &s)
		if err == nil {
			p.Until, err = time.Parse(time.RFC3339Nano, s)
		}
		if err != nil {
			return parked{}, fmt.Errorf("%w: %s of the interrupt is not a time", toolnexus.ErrInvalidRequest, keyUntil)
		}
	}
	return p, nil
}

// Requests returns the requests part, an interrupted tool request part of
// a Tool (one of ModelResponse.Interrupts), asks, first to last, and true,
// or false when part is not such an interrupt or its requests do not pass
// [toolnexus.Request.Validate].
func Requests(part *ai.Part) ([]toolnexus.Request, bool) {
	if !part.IsInterrupt() {
		return nil, false
	}
	p, err := parkedOf(part.ToolRequest.Name, part.Metadata["interrupt"])
	if err != nil {
		return nil, false
	}
	return p.Requests, true
}

// jsonValue returns v as JSON decodes it into an any: maps, lists,
// strings, numbers, booleans and nil, which genkit's metadata holds.
func jsonValue(v any) (any, error) {
	var back any
	err := fromJSON(v, &back)
	return back, err
}

// fromJSON decodes the JSON of v into out; a nil v leaves out as it is.
func fromJSON(v, out any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", toolnexus.ErrInvalidJSON, err)
	}
	return nil
}
