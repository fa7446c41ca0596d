package toolnexus

import (
	"log/slog"
	"time"
)

// Request is what a suspended tool waits for: a login, an approval, an answer
// from a person. A tool returns it with [Pending]; the host finds it with
// [PendingOf], resolves it out of band, replies with an [Answer] and re-runs
// the tool. ID correlates the request with its answer, Kind says what is
// asked (see the Kind constants; the set is open), Prompt is shown to the
// person, URL is where to act (a login page for [KindAuthorization]), Data
// carries extra fields for the host (never secrets) and ExpiresAt is an
// RFC 3339 time after which an answer is refused.
//
// A Request is a value that survives JSON, processes and restarts.
type Request struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	Prompt    string         `json:"prompt"`
	URL       string         `json:"url,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
	ExpiresAt string         `json:"expiresAt,omitempty"`
}

// Request kinds every port knows. Kind is open: other values are valid.
const (
	KindAuthorization = "authorization" // an OAuth2 or OIDC login at URL
	KindApproval      = "approval"      // a yes or no from a person
	KindInput         = "input"         // a value typed by a person
	KindQuestion      = "question"      // a question to answer in words
)

// Reasons an [Answer] may give for declining. Reason is advisory and open.
const (
	ReasonDeclined  = "declined"
	ReasonCancelled = "cancelled"
	ReasonExpired   = "expired"
)

// Validate reports whether r is a well-formed suspension: it has an ID, a
// Kind and a Prompt, an absolute URL if any, and an ExpiresAt, if any, in
// RFC 3339.
func (r Request) Validate() error {
	switch {
	case r.ID == "":
		return errorf(ErrInvalidRequest, "%s request has no id", quote(r.Kind))
	case r.Kind == "":
		return errorf(ErrInvalidRequest, "request %s has no kind", quote(r.ID))
	case r.Prompt == "":
		return errorf(ErrInvalidRequest, "request %s has no prompt", quote(r.ID))
	}
	if r.URL != "" {
		if err := checkURL(r.URL); err != nil {
			return errorf(ErrInvalidRequest, "request %s: url %s is not an absolute URL", quote(r.ID), quote(r.URL))
		}
	}
	_, err := r.Expiry()
	return err
}

// WithExpiry returns a copy of r that expires at t, written in UTC as
// RFC 3339 (with fractional seconds only when t has them).
func (r Request) WithExpiry(t time.Time) Request {
	r.ExpiresAt = t.UTC().Format(time.RFC3339Nano)
	return r
}

// Expiry returns the time ExpiresAt names, or the zero time when it is
// empty. It reports [ErrInvalidExpiry] when ExpiresAt is not RFC 3339.
func (r Request) Expiry() (time.Time, error) {
	if r.ExpiresAt == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, r.ExpiresAt)
	if err != nil {
		return time.Time{}, errorf(ErrInvalidExpiry, "%s is not RFC 3339", quote(r.ExpiresAt))
	}
	return t, nil
}

// Expired reports whether r has expired at now. A request without ExpiresAt
// never expires; one whose ExpiresAt cannot be read counts as expired.
func (r Request) Expired(now time.Time) bool {
	t, err := r.Expiry()
	return err != nil || !t.IsZero() && !now.Before(t)
}

// Resolve returns the answer that grants r, with optional data for the tool.
func (r Request) Resolve(data map[string]any) Answer {
	return Answer{ID: r.ID, OK: true, Data: data}
}

// Decline returns the answer that refuses r, with an advisory reason such as
// [ReasonDeclined].
func (r Request) Decline(reason string) Answer {
	return Answer{ID: r.ID, Reason: reason}
}

// LogValue implements [slog.LogValuer]: a request logs its id, kind and
// expiry, not its prompt, URL or data.
func (r Request) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("id", r.ID), slog.String("kind", r.Kind)}
	if r.ExpiresAt != "" {
		attrs = append(attrs, slog.String("expiresAt", r.ExpiresAt))
	}
	return slog.GroupValue(attrs...)
}

// Answer is the host's reply to a [Request]: OK says whether it was granted,
// Data carries what the tool needs to go on, Reason why it was not granted.
// ID must echo the Request's.
type Answer struct {
	ID     string         `json:"id"`
	OK     bool           `json:"ok"`
	Data   map[string]any `json:"data,omitempty"`
	Reason string         `json:"reason,omitempty"`
}

// Check reports whether a may be applied to req at now: its ID must be
// non-empty and echo req's ([ErrAnswerMismatch]), and req must not have
// expired ([ErrExpired], or [ErrInvalidExpiry] when its ExpiresAt cannot be
// read).
func (a Answer) Check(req Request, now time.Time) error {
	if a.ID == "" || a.ID != req.ID {
		return errorf(ErrAnswerMismatch, "answer id %s, request id %s", quote(a.ID), quote(req.ID))
	}
	t, err := req.Expiry()
	if err != nil {
		return err
	}
	if !t.IsZero() && !now.Before(t) {
		return errorf(ErrExpired, "request %s expired at %s", quote(req.ID), req.ExpiresAt)
	}
	return nil
}
