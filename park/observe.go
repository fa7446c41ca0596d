package park

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/progress"
)

// ProgressInterval is the least time between two reports of progress that
// a [Runner] hands a carrier for one run: a tool that reports in a tight
// loop cannot flood a client. A report of completion (done equal to a
// known total) is always handed on.
const ProgressInterval = 100 * time.Millisecond

// Observer watches the calls a [Runner] runs, for traces and metrics (the
// otelpark module turns it into OpenTelemetry spans, events and metrics).
// It is given what a call is and what happened to it, never a payload: no
// argument, answer or result data. Its methods must be safe for concurrent
// use and return quickly.
type Observer interface {
	// Run is called as a tool starts to run for c, and returns the
	// context the tool runs with (a span's, say) and the function called
	// with its outcome as it ends: its result, and the error of a tool
	// that panicked.
	Run(ctx context.Context, c Call) (context.Context, func(res toolnexus.ToolResult, panicked error))
	// Event is called for each step of a parking's life (see [Event]).
	Event(ctx context.Context, e Event)
}

// The kinds of [Event].
const (
	// EventParked: the call parked, asking Kinds; Park names the parking.
	EventParked = "parked"
	// EventAnswered: a resume of the parking was claimed, and its tool
	// runs again; Waited is how long the parking waited, when known.
	EventAnswered = "answered"
	// EventDeclined: as EventAnswered, with an answer that declines.
	EventDeclined = "declined"
	// EventReplayed: a resume of a parking already answered got the kept
	// result, and the tool did not run.
	EventReplayed = "replayed"
	// EventRefused: a resume was refused, for Reason: "expired",
	// "mismatch", "running", "too_large", "store" or "invalid".
	EventRefused = "refused"
)

// Event is one step in the life of a parking, as a [Runner] hands it to
// its [Observer]: Kind is one of the Event constants, Tool and CallID name
// the call, Park its parking, Kinds the kinds of the requests it asks
// (EventParked), Reason why it was refused (EventRefused), and Waited how
// long it had been parked, when known.
type Event struct {
	Kind   string
	Tool   string
	CallID string
	Park   string
	Kinds  []string
	Reason string
	Waited time.Duration
}

// Refused tells r's Observer that the resume of c was refused with err,
// for a carrier that refuses an answer before the Runner sees it (an
// expired request, a state that does not open): Reason is read from err.
func (r Runner) Refused(ctx context.Context, c Call, err error) {
	r.event(ctx, c, Event{Kind: EventRefused, Reason: reasonOf(err)})
}

// reasonOf returns the Reason of a refusal with err.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, toolnexus.ErrExpired):
		return "expired"
	case errors.Is(err, ErrRunning):
		return "running"
	case errors.Is(err, ErrResultTooLarge):
		return "too_large"
	case errors.Is(err, ErrStore):
		return "store"
	case errors.Is(err, toolnexus.ErrAnswerMismatch):
		return "mismatch"
	}
	return "invalid"
}

// event hands e, for c, to r's Observer.
func (r Runner) event(ctx context.Context, c Call, e Event) {
	if r.Observer == nil {
		return
	}
	e.Tool, e.CallID = c.Tool, c.ID
	if e.Park == "" {
		e.Park = c.Park
	}
	at := c.ParkedAt
	if at.IsZero() {
		at = parkedAt(c.Park)
	}
	if e.Waited == 0 && !at.IsZero() && (e.Kind == EventAnswered || e.Kind == EventDeclined || e.Kind == EventReplayed || e.Kind == EventRefused) {
		e.Waited = r.Now().Sub(at)
	}
	r.Observer.Event(ctx, e)
}

// listener returns what gets the progress of c's run: c's Progress and
// r's, either, or nil for neither.
func (r Runner) listener(c Call) progress.Func {
	switch {
	case r.Progress == nil:
		return c.Progress
	case c.Progress == nil:
		return func(done, total float64, message string) { r.Progress(c.Tool, c.ID, done, total, message) }
	}
	return func(done, total float64, message string) {
		c.Progress(done, total, message)
		r.Progress(c.Tool, c.ID, done, total, message)
	}
}

// LimitProgress returns fn behind the rule by which the Runner hands a
// tool's progress to a carrier, for a carrier that passes on progress it
// did not get from [Runner.Exec], such as an MCP relay's upstream: report
// hands a report on to fn unless it comes closer than [ProgressInterval]
// to the last one handed on, on the Runner's clock, and is not a report
// of completion (done at least a total above zero); flush, called as the
// run ends, hands on the last report held back, if any, so that fn always
// sees the last one. A nil fn returns a nil report and a flush that does
// nothing.
func (r Runner) LimitProgress(fn func(done, total float64, message string)) (report func(done, total float64, message string), flush func()) {
	limited, flush := r.limited(fn)
	return limited, flush
}

// report is one report of progress.
type report struct {
	done, total float64
	message     string
}

// limited returns fn behind r's clock: reports closer than
// ProgressInterval to the last one handed on are held back, but for
// completion, and flush hands on the last report held back, if any, as the
// run ends: a carrier always sees the last report.
func (r Runner) limited(fn progress.Func) (limited progress.Func, flush func()) {
	if fn == nil {
		return nil, func() {}
	}
	var (
		mu      sync.Mutex
		last    time.Time
		sent    bool
		pending *report // the last report held back
	)
	limited = func(done, total float64, message string) {
		now := r.Now()
		mu.Lock()
		if sent && now.Sub(last) < ProgressInterval && (total <= 0 || done < total) {
			pending = &report{done, total, message}
			mu.Unlock()
			return
		}
		last, sent, pending = now, true, nil
		mu.Unlock()
		fn(done, total, message)
	}
	flush = func() {
		mu.Lock()
		p := pending
		pending = nil
		mu.Unlock()
		if p != nil {
			fn(p.done, p.total, p.message)
		}
	}
	return limited, flush
}
