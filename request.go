package toolnexus

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
	"github.com/toolnexus-go/toolnexus/internal/wire"
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
// Data says what the answer holds. A list of strings under "choices" asks
// for one of them, and the answer's Data names it under "answer" (the
// choices convention; [Request.MCPElicitParams] asks it as an enum); a
// JSON Schema under "schema" asks for a form of those fields instead. The
// Data of a [KindSampling] request is the params of the MCP
// sampling/createMessage request it stands for.
//
// A Request is a value that survives JSON, processes and restarts; Data goes
// through JSON as any map[string]any does, so a number comes back as a
// float64 and a []string as a []any (see [Answer.DecodeData] to read one
// into a struct of your own). It is not comparable with ==, since Data is a
// map: compare IDs. The zero Request is not a suspension until [Pending]
// gives it an ID and a Kind, and [Request.Validate] refuses it for its
// missing prompt.
type Request struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	Prompt    string         `json:"prompt"`
	URL       string         `json:"url,omitempty"`
	Data      map[string]any `json:"data,omitempty" toolnexus:"payload"`
	ExpiresAt string         `json:"expiresAt,omitempty"`
}

// String returns r's fields, its Data as its size: Data may carry a
// payload, such as the image of a sampling request.
func (r Request) String() string { return showWire(r, false) }

// GoString returns r in Go syntax, its Data as its size, for %#v.
func (r Request) GoString() string { return showWire(r, true) }

// Format prints r for every verb without its Data, as [Request.String] (%#v: [Request.GoString]).
func (r Request) Format(f fmt.State, verb rune) { wire.Format(f, verb, r) }

// Request kinds every port knows. Kind is open: other values are valid.
const (
	KindAuthorization = "authorization" // an OAuth2 or OIDC login at URL
	KindApproval      = "approval"      // a yes or no from a person
	KindInput         = "input"         // a value typed by a person
	KindQuestion      = "question"      // a question to answer in words
	KindSampling      = "sampling"      // a message from the client's model; Data holds the sampling/createMessage params
	KindRoots         = "roots"         // the client's roots; the answer's Data is {"roots":[{"uri":…,"name":…}]}
)

// Reasons an [Answer] may give for declining. Reason is advisory and open.
const (
	ReasonDeclined  = "declined"
	ReasonCancelled = "cancelled"
	ReasonExpired   = "expired"
)

// Validate reports whether r is a well-formed suspension: it has an ID, a
// Kind and a Prompt, an absolute URL if any, an ExpiresAt, if any, in
// RFC 3339, and Data nested at most [MaxDataDepth] levels deep (Data that
// holds itself nests without end).
func (r Request) Validate() error {
	_, err := r.validate()
	return err
}

// validate is Validate, which returns the expiry it reads too.
func (r Request) validate() (time.Time, error) {
	switch {
	case r.ID == "":
		return time.Time{}, msg.Errorf(ErrInvalidRequest, "%s request has no id", msg.Quote(r.Kind))
	case r.Kind == "":
		return time.Time{}, msg.Errorf(ErrInvalidRequest, "request %s has no kind", msg.Quote(r.ID))
	case r.Prompt == "":
		return time.Time{}, msg.Errorf(ErrInvalidRequest, "request %s has no prompt", msg.Quote(r.ID))
	}
	if r.URL != "" {
		if err := checkURL(r.URL); err != nil {
			return time.Time{}, msg.Errorf(ErrInvalidRequest, "request %s: url %s is not an absolute URL", msg.Quote(r.ID), msg.Quote(r.URL))
		}
	}
	if err := jsonscan.CheckDepth(r.Data); err != nil {
		return time.Time{}, msg.Errorf(ErrInvalidRequest, "request %s: data %v", msg.Quote(r.ID), err)
	}
	return r.Expiry()
}

// MaxDataDepth is how deeply the Data of a [Request] or an [Answer] may
// nest, objects and lists in each other (a Go value inside another counts
// as a level, as it does in its JSON): as deeply as JSON is read anywhere
// in this module. Deeper Data, or Data that holds itself, is refused with
// [ErrInvalidRequest] by the readers, sealers and encoders of the module,
// rather than followed without end. It is 10,000 levels.
const MaxDataDepth = jsonscan.MaxDepth

// WithExpiry returns a copy of r that expires at t, written in UTC as
// RFC 3339 (with fractional seconds only when t has them). The zero time
// means no expiry and clears ExpiresAt. A time outside the years 0 to 9999,
// which RFC 3339 cannot write, is written as the nearest time it can: the
// request then expires at the start of year 0 or never in practice.
func (r Request) WithExpiry(t time.Time) Request {
	if t.IsZero() {
		r.ExpiresAt = ""
		return r
	}
	t = t.UTC()
	if first := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(first) {
		t = first
	}
	if last := time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC); t.After(last) {
		t = last
	}
	r.ExpiresAt = t.Format(time.RFC3339Nano)
	return r
}

// Expiry returns the time ExpiresAt names, or the zero time when it is
// empty. It reads RFC 3339 as the RFC has it, with "T" and "Z" in either
// case, and reports [ErrInvalidExpiry] for anything else.
func (r Request) Expiry() (time.Time, error) {
	if r.ExpiresAt == "" {
		return time.Time{}, nil
	}
	t, ok := rfc3339.Parse(r.ExpiresAt)
	if !ok {
		return time.Time{}, msg.Errorf(ErrInvalidExpiry, "%s is not RFC 3339", msg.Quote(r.ExpiresAt))
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
// ID must echo the Request's: [Answer.Check] says whether it does.
//
// The zero Answer grants nothing and matches no request. An Answer is not
// comparable with ==, since Data is a map. Data survives JSON as Request.Data
// does; [Answer.DecodeData] reads it into a struct.
type Answer struct {
	ID     string         `json:"id"`
	OK     bool           `json:"ok"`
	Data   map[string]any `json:"data,omitempty" toolnexus:"payload"`
	Reason string         `json:"reason,omitempty"`
}

// String returns a's fields, its Data as its size: Data may carry a
// payload, such as the image of a client's sampling result.
func (a Answer) String() string { return showWire(a, false) }

// GoString returns a in Go syntax, its Data as its size, for %#v.
func (a Answer) GoString() string { return showWire(a, true) }

// Format prints a for every verb without its Data, as [Answer.String] (%#v: [Answer.GoString]).
func (a Answer) Format(f fmt.State, verb rune) { wire.Format(f, verb, a) }

// LogValue implements [slog.LogValuer]: a logs as a group of its non-empty fields, its Data as its size.
func (a Answer) LogValue() slog.Value { return logWire(a) }

// Check reports whether a may be applied to req at now: its ID must be
// non-empty and echo req's ([ErrAnswerMismatch]), and req must not have
// expired ([ErrExpired], or [ErrInvalidExpiry] when its ExpiresAt cannot be
// read).
func (a Answer) Check(req Request, now time.Time) error {
	if a.ID == "" || a.ID != req.ID {
		return msg.Errorf(ErrAnswerMismatch, "answer id %s, request id %s", msg.Quote(a.ID), msg.Quote(req.ID))
	}
	t, err := req.Expiry()
	if err != nil {
		return err
	}
	if !t.IsZero() && !now.Before(t) {
		return msg.Errorf(ErrExpired, "request %s expired at %s", msg.Quote(req.ID), req.ExpiresAt)
	}
	return nil
}

// DecodeData decodes a.Data into v, a pointer to a struct or map of the
// caller's, as encoding/json decodes the JSON of Data, except that keys are
// matched exactly: a key that differs from a field's JSON name only in case
// (which encoding/json would take for it) is ignored, as an unknown key is.
// A value of the wrong type reports [ErrInvalidJSON], and Data nested
// deeper than [MaxDataDepth], or that holds itself, [ErrInvalidRequest].
func (a Answer) DecodeData(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return msg.Errorf(ErrInvalidJSON, "DecodeData needs a non-nil pointer, not %T", v)
	}
	if err := jsonscan.CheckDepth(a.Data); err != nil {
		return msg.Errorf(ErrInvalidRequest, "answer %s: data %v", msg.Quote(a.ID), err)
	}
	b, err := json.Marshal(exactKeys(a.Data, rv.Type().Elem()))
	if err != nil {
		return msg.Errorf(ErrInvalidJSON, "%v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return msg.Errorf(ErrInvalidJSON, "%v", err)
	}
	return nil
}

// exactKeys returns v, decoded from JSON, without the object keys that
// encoding/json would match to a field of t only by folding case.
func exactKeys(v any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Map:
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = exactKeys(e, t.Elem())
			}
			return out
		case reflect.Struct:
			fields := jsonFields(t)
			out := make(map[string]any, len(v))
			for k, e := range v {
				if ft, ok := fields[k]; ok {
					out[k] = exactKeys(e, ft)
					continue
				}
				if !foldsToField(k, fields) {
					out[k] = e
				}
			}
			return out
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = exactKeys(e, t.Elem())
			}
			return out
		}
	}
	return v
}

// jsonFields maps the JSON names of the fields encoding/json decodes into a
// struct of type t, embedded structs' included, to their types. A struct
// that embeds itself, through a pointer, is followed once.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	return embeddedFields(t, map[reflect.Type]bool{})
}

// embeddedFields is jsonFields, for t and the structs it embeds that are
// not in outer, the structs that embed t.
func embeddedFields(t reflect.Type, outer map[reflect.Type]bool) map[string]reflect.Type {
	outer[t] = true
	defer delete(outer, t)
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			if outer[ft] {
				continue // embedded in itself: its fields are there already
			}
			for n, t := range embeddedFields(ft, outer) {
				if _, ok := fields[n]; !ok {
					fields[n] = t
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		fields[cmp.Or(name, f.Name)] = f.Type
	}
	return fields
}

// foldsToField reports whether key matches the name of one of fields only
// when case is folded.
func foldsToField(key string, fields map[string]reflect.Type) bool {
	for name := range fields {
		if strings.EqualFold(key, name) {
			return true
		}
	}
	return false
}

// Answers are the answers a tool has been given so far, earliest first: a
// tool that asks in several rounds sees the answers of every round.
type Answers []Answer

// String returns the answers as [Answer.String] writes each.
func (as Answers) String() string {
	var w walk
	return w.wireField(reflect.ValueOf([]Answer(as)), false, 0)
}

// GoString returns the answers in Go syntax, each as [Answer.GoString] writes it.
func (as Answers) GoString() string {
	if as == nil {
		return "toolnexus.Answers(nil)"
	}
	var w walk
	return "toolnexus.Answers" + w.wireField(reflect.ValueOf([]Answer(as)), true, 0)
}

// Format prints the answers for every verb without their Data, as [Answers.String] (%#v: [Answers.GoString]).
func (as Answers) Format(f fmt.State, verb rune) { wire.Format(f, verb, as) }

// LogValue implements [slog.LogValuer]: the answers log as a group of each, by index, without their Data.
func (as Answers) LogValue() slog.Value {
	var w walk
	return w.wireLogValue(reflect.ValueOf([]Answer(as)), 0)
}

// Get returns the answer to the request whose ID is id and true, or false
// when there is none (an empty id has none, as it matches no request). When
// id was answered more than once, the latest answer wins.
func (as Answers) Get(id string) (Answer, bool) {
	for i := len(as) - 1; id != "" && i >= 0; i-- {
		if as[i].ID == id {
			return as[i], true
		}
	}
	return Answer{}, false
}

// Latest returns the latest answer, or nil when there is none (the first
// run of a tool): the one answer of a tool that asks once, in the shape
// the README's tools and the bridges' ToolFunc take (func(in, *Answer)).
// It points to a copy: changing it changes nothing in as.
func (as Answers) Latest() *Answer {
	if len(as) == 0 {
		return nil
	}
	a := as[len(as)-1]
	return &a
}
