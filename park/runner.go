package park

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/progress"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// DefaultExpiry is how long a request that a tool asks without ExpiresAt
// can be answered, from the run that asked it, when [Runner].Expiry is
// zero: ten minutes.
const DefaultExpiry = 10 * time.Minute

// DefaultResultLimit is the largest result, in bytes of JSON, that a
// [Runner] keeps for a retry when [Runner].ResultLimit is zero: 1 MiB. A
// larger one is kept as its digest.
const DefaultResultLimit = 1 << 20

// ClockSkew is how long after its parking can no longer be answered a
// claim is kept: the most by which the clocks of the processes that share
// a [Store] may disagree.
const ClockSkew = 5 * time.Minute

// The reasons a [Runner] does not run a call.
var (
	// ErrRunning reports a parking whose answer is being run by another
	// call right now: retry later, and get its result.
	ErrRunning = errors.New("toolnexus: the call is still running: retry later")
	// ErrResultTooLarge reports a parking whose call has run, but whose
	// result was larger than [Runner].ResultLimit and was not kept: the
	// tool does not run again.
	ErrResultTooLarge = errors.New("toolnexus: the call has run, and its result is too large to replay")
	// ErrStore reports a [Store] that could not record a claim; the error
	// also wraps the store's, and the tool does not run.
	ErrStore = errors.New("toolnexus: cannot record the claim of a parked call")
	// ErrOtherCall reports a parking that was answered for another call
	// (another tool, other arguments or another principal) than the one
	// resumed now. It also matches [toolnexus.ErrAnswerMismatch].
	ErrOtherCall = msg.Also("toolnexus: the parking was answered for another call", toolnexus.ErrAnswerMismatch)
	// ErrNilTool reports a tool that is nil where it is named: in a map of
	// tools, or given to a Runner.
	ErrNilTool = errors.New("toolnexus: nil tool")
)

// Runner is how a parked tool call runs, on every carrier: a [toolnexus.Turn], the
// MCP runner of package mcpcall (and so both MCP bridges, the relay and
// tasks), the framework adapters and the SDK loops all run a tool through
// one. It holds the clock, the expiry of a request asked without one, the
// logger and the [Store] of claims; each run reads and checks the call's
// arguments once, turns a panic into an error result, stamps the expiry
// of what the tool asks and logs.
//
// A parking is answered once, by default: before a resumed call runs
// again, its parking (an id minted when the call parked, bound to the
// call's tool, arguments and principal) is claimed in the Store, and the
// result of that one run is kept with the claim. A second resume of the
// same parking, in this process or any other that shares the Store, gets
// that result and the tool does not run again; one that comes while the
// first still runs gets [ErrRunning]. A tool that is safe to repeat opts
// out by name, in Repeatable. Once is at most once: a run whose process
// died, or whose claim landed in a Store that then timed out, holds its
// parking until the parking expires, and its retries are told it still
// runs; the tool does not run again.
//
// The zero Runner is ready to use: requests expire after ten minutes, the
// time is time.Now, logs go to slog.Default and claims to a store in
// memory shared by the whole process. A Runner is safe for concurrent use
// once set up; a carrier takes one by value and adds only what is its own.
type Runner struct {
	// Expiry is how long a request that a tool asks without ExpiresAt can
	// be answered, from the run that asked it: each such request gets
	// that ExpiresAt. Zero means [DefaultExpiry]; a negative Expiry sets
	// none, and such a request can be answered at any time (its claim is
	// then kept for as long as the Store lasts).
	Expiry time.Duration
	// Time, when set, returns the current time, as in crypto/tls.Config;
	// nil means time.Now.
	Time func() time.Time
	// Logger gets what the model is never shown: the panic and stack of a
	// tool that panicked, a refused resume; nil means [slog.Default].
	Logger *slog.Logger
	// Store keeps the claims of answered parkings and the results of
	// their runs; nil means a store in memory shared by every Runner of
	// the process ([NewMemoryStore]'s bounds). Processes that may resume
	// each other's calls share one, such as the redisclaims module's.
	Store Store
	// ResultLimit is the largest result, in bytes of JSON, kept for a
	// retry; zero means [DefaultResultLimit]. A larger result is kept as
	// its digest: its retry gets [ErrResultTooLarge], and the tool does
	// not run again.
	ResultLimit int
	// Repeatable names the tools whose parked calls may be resumed any
	// number of times, each resume running the tool again: tools that are
	// safe to repeat, and only those. It is the one way out of "once".
	Repeatable []string
	// Observer, when set, watches every run and every step of a
	// parking's life, for traces and metrics; nil watches nothing.
	Observer Observer
	// Progress, when set, gets the progress every tool the Runner runs
	// reports ([toolnexus.ReportProgress]), with the call's tool and id,
	// rate-limited as [Call].Progress is: the callback of a host that
	// runs a Turn, or watches any carrier. The carrier's own delivery
	// ([Call].Progress) goes on beside it.
	Progress func(tool, callID string, done, total float64, message string)
}

// Call is one run of a tool call, as a carrier hands it to a [Runner].
type Call struct {
	// ID is the call's id, as the model or the client named it; it is
	// only logged.
	ID string
	// Tool is the name of the tool called.
	Tool string
	// Arguments are the call's arguments as the model sent them: a JSON
	// object; empty arguments and null are {}.
	Arguments json.RawMessage `toolnexus:"payload"`
	// Answers are every answer a person has given to what the tool asked
	// in this call so far, earliest first; none on a first run.
	Answers toolnexus.Answers
	// Park is the parking this run answers: the id the Runner minted (or
	// the carrier's own, such as a sealed state's) when the call parked;
	// empty on a first run, which claims nothing.
	Park string
	// Until is when the parking can no longer be answered anywhere, by
	// the Runner's clock; its claim is kept until then and [ClockSkew]
	// after. The zero Until keeps it for as long as the Store lasts.
	Until time.Time
	// Principal is the user the call is made for, if any: a parking is
	// bound to it.
	Principal string
	// ParkedAt is when the parking was made, when the carrier knows it
	// (a sealed state's issue time), for the [Observer]'s time waited.
	ParkedAt time.Time
	// Progress, when set, gets the progress the tool reports
	// ([toolnexus.ReportProgress]), at most one report every
	// [ProgressInterval], every report of completion, and the last report
	// held back, as the tool returns.
	Progress func(done, total float64, message string)
}

// Outcome is what one run of a [Runner] gave: the tool's result and, when
// the result parks the call, the id of its parking, which the carrier
// keeps with the call and hands back as [Call].Park to resume it. Replayed
// says that the result is that of an earlier run of the same parking,
// kept in the Store, and the tool did not run now.
type Outcome struct {
	Result   toolnexus.ToolResult `json:"result"`
	Park     string               `json:"park,omitempty"`
	Replayed bool                 `json:"-"`
}

// Run runs tool for c, as the Runner says: it claims c's parking, when c
// resumes one, runs the tool with its arguments and answers ([Runner.Exec])
// and keeps its result with the claim. A parking already answered gives
// the result of its one run (Replayed); one whose run has not finished
// reports [ErrRunning], one answered for another call [ErrOtherCall], one
// whose result was too large [ErrResultTooLarge], and a Store that fails
// [ErrStore]: the tool does not run. A tool that panics gives an error
// result, never a Go error.
func (r Runner) Run(ctx context.Context, c Call, tool toolnexus.Tool) (Outcome, error) {
	cl, held, err := r.Claim(ctx, c)
	if err != nil {
		return Outcome{}, err
	}
	if held != nil {
		var out Outcome
		if err := json.Unmarshal(held, &out); err != nil {
			return Outcome{}, fmt.Errorf("%w: the kept result of %s does not read: %v", ErrStore, msg.Quote(c.Tool), err)
		}
		out.Replayed = true
		return out, nil
	}
	if cl != nil && len(c.Arguments) > 0 {
		ctx = argmemo.With(ctx, c.Tool, c.Arguments, cl.binding)
	}
	res, _ := r.Exec(ctx, c, tool)
	out := Outcome{Result: res}
	if res.IsPending() {
		out.Park = r.NewPark()
		r.Parked(ctx, c, out.Park, res)
	}
	if cl != nil {
		b, err := json.Marshal(out)
		if err == nil {
			err = cl.Finish(ctx, b)
		}
		if err != nil {
			r.Log().ErrorContext(ctx, "toolnexus: the result of a resumed call was not kept", "tool", c.Tool, "err", err)
		}
	}
	return out, nil
}

// Parked tells r's Observer that c parked with res, a suspension, under
// the parking park: for a carrier that mints its own parking ids (a sealed
// state's), as [Runner.Run] does for its own.
func (r Runner) Parked(ctx context.Context, c Call, park string, res toolnexus.ToolResult) {
	if r.Observer == nil {
		return
	}
	reqs, _ := toolnexus.PendingAllOf(res)
	kinds := make([]string, len(reqs))
	for i, req := range reqs {
		kinds[i] = req.Kind
	}
	r.event(ctx, c, Event{Kind: EventParked, Park: park, Kinds: kinds})
}

// NewPark returns a new parking id, for a carrier that parks a call
// itself: 22 characters of URL-safe base64 holding when it was made, in
// Unix milliseconds by r's clock (6 bytes), and 10 random bytes, unique
// to one parking of one call.
func (r Runner) NewPark() string {
	var b [16]byte
	ms := r.Now().UnixMilli()
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	rand.Read(b[6:]) // never fails, as crypto/rand documents
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// parkedAt returns when the parking id was made, for an id NewPark made;
// the zero time for any other.
func parkedAt(id string) time.Time {
	b, err := base64.RawURLEncoding.Strict().DecodeString(id)
	if len(id) != 22 || err != nil || len(b) != 16 {
		return time.Time{}
	}
	var ms int64
	for _, c := range b[:6] {
		ms = ms<<8 | int64(c)
	}
	return time.UnixMilli(ms).UTC()
}

// token returns a token unique to one claim: 16 random bytes in URL-safe
// base64.
func token() string {
	var b [16]byte
	rand.Read(b[:]) // never fails, as crypto/rand documents
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// A Claim is a parking claimed by a [Runner]: its run may go on, and
// [Claim.Finish] keeps what it gave for the retries.
type Claim struct {
	r       Runner
	binding []byte // of the call's arguments
	key     string
	call    string // the digest of the call the parking was answered for
	until   time.Time
}

// Claim claims the parking c resumes, before its tool runs again, for a
// carrier that runs the tool itself ([Runner.Exec]) and keeps what it
// sends in its own form: it returns the claim, to finish when the run is
// done, or the payload that the first run's [Claim.Finish] kept, to send
// again as it is. A first run (no Park) and a Repeatable tool claim
// nothing: both are nil. The errors are those of [Runner.Run].
func (r Runner) Claim(ctx context.Context, c Call) (_ *Claim, held []byte, err error) {
	if c.Park == "" || slices.Contains(r.Repeatable, c.Tool) {
		return nil, nil, nil
	}
	// Bound once for the call when its carrier read it (argmemo).
	binding, err := argmemo.Binding(ctx, argsOrEmpty(c.Arguments))
	if err != nil {
		return nil, nil, err
	}
	call := callDigest(c, binding)
	cl := &Claim{r: r, binding: binding, key: "park:" + c.Park, call: call}
	defer func() {
		switch {
		case err != nil:
			r.Refused(ctx, c, err)
		case held != nil:
			r.event(ctx, c, Event{Kind: EventReplayed})
		case len(c.Answers) > 0 && !c.Answers[len(c.Answers)-1].OK:
			r.event(ctx, c, Event{Kind: EventDeclined})
		default:
			r.event(ctx, c, Event{Kind: EventAnswered})
		}
	}()
	if !c.Until.IsZero() {
		// Until is read by r's clock, and a Store keeps time by the
		// machine's: it is given the same span from now.
		cl.until = time.Now().Add(c.Until.Add(ClockSkew).Sub(r.Now()))
	}
	rec := []byte(recRunning + token() + ":" + call)
	held, err = r.store().Claim(ctx, cl.key, rec, cl.until)
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("%w: call of %s: %w", ErrStore, msg.Quote(c.Tool), err)
	case held == nil || bytes.Equal(held, rec):
		return cl, nil, nil
	}
	kind, body, _ := strings.Cut(string(held), ":")
	var heldCall string
	switch kind + ":" {
	case recRunning:
		_, heldCall, _ = strings.Cut(body, ":")
	case recDone, recTooLarge:
		heldCall, body, _ = strings.Cut(body, ":")
	default:
		return nil, nil, fmt.Errorf("%w: call of %s: the store holds a record that is not a claim", ErrStore, msg.Quote(c.Tool))
	}
	if heldCall != call {
		r.refused(ctx, c, ErrOtherCall)
		return nil, nil, msg.Errorf(ErrOtherCall, "parking of %s", msg.Quote(c.Tool))
	}
	switch kind + ":" {
	case recRunning:
		return nil, nil, msg.Errorf(ErrRunning, "call of %s", msg.Quote(c.Tool))
	case recTooLarge:
		return nil, nil, msg.Errorf(ErrResultTooLarge, "call of %s: its result's SHA-256 is %s", msg.Quote(c.Tool), body)
	}
	return nil, []byte(body), nil
}

// The kinds of record a Runner keeps: a run begun (a token unique to the
// attempt, then the call's digest), a run done (the call's digest, then
// the payload kept), and a run done whose payload was too large (the
// call's digest, then the payload's SHA-256 in hex).
const (
	recRunning  = "run:"
	recDone     = "done:"
	recTooLarge = "large:"
)

// Finish keeps payload, what the claimed run gave in the carrier's form,
// for the retries of its parking; a payload over the Runner's
// ResultLimit is kept as its digest. A store that fails is tried three
// times in all.
func (cl *Claim) Finish(ctx context.Context, payload []byte) error {
	limit := cmp.Or(cl.r.ResultLimit, DefaultResultLimit)
	rec := slices.Concat([]byte(recDone+cl.call+":"), payload)
	if len(payload) > limit {
		sum := sha256.Sum256(payload)
		rec = fmt.Appendf(nil, "%s%s:%x", recTooLarge, cl.call, sum)
	}
	var err error
	for range 3 {
		if err = cl.r.store().Finish(ctx, cl.key, rec, cl.until); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("%w: keeping a result: %w", ErrStore, err)
}

// callDigest returns the digest of what a parking is bound to: c's tool,
// principal and arguments, by their value (args, their binding).
func callDigest(c Call, args []byte) string {
	h := sha256.New()
	var n []byte
	for _, s := range [][]byte{[]byte("toolnexus park v1"), []byte(c.Tool), []byte(c.Principal), args} {
		n = append(strconv.AppendInt(n[:0], int64(len(s)), 10), ':')
		h.Write(n)
		h.Write(s)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// argsOrEmpty returns args, or {} for none.
func argsOrEmpty(args json.RawMessage) json.RawMessage {
	if len(bytes.Trim(args, jsonscan.Space)) == 0 {
		return json.RawMessage("{}")
	}
	return args
}

// Exec runs tool once for c, without a claim: it checks c's arguments
// (an object; empty arguments and null are {}) and gives the model an
// error result naming what is wrong when they are not, runs the tool with
// them and c's answers, turns a panic into the error result
// `toolnexus: tool panicked: "NAME"` (the panic and its stack logged, and
// the panic returned in the error, which wraps [toolnexus.ErrToolPanicked],
// never in the result), replaces a result that fails
// [toolnexus.ToolResult.Validate] with an error result saying why (logged), and gives each request of a suspension asked without
// ExpiresAt one, Expiry from now. A nil tool is the error result naming
// [ErrNilTool]. The tool's context carries r ([FromContext]).
func (r Runner) Exec(ctx context.Context, c Call, tool toolnexus.Tool) (toolnexus.ToolResult, error) {
	if tool == nil {
		return toolnexus.Error(fmt.Sprintf("%v: %s", ErrNilTool, msg.Quote(c.Tool))), nil
	}
	args := c.Arguments
	if !argmemo.Checked(ctx, args) {
		// Not checked yet by the carrier that read the call.
		var err error
		if args, err = toolnexus.CheckArguments(c.Tool, args); err != nil {
			return toolnexus.Error(err.Error()), nil
		}
	}
	report, flush := r.limited(r.listener(c))
	ctx = progress.With(context.WithValue(ctx, runnerKey{}, r), report)
	if !argmemo.Checked(ctx, args) {
		ctx = argmemo.With(ctx, c.Tool, args, nil)
	}
	end := func(toolnexus.ToolResult, error) {}
	if r.Observer != nil {
		ctx, end = r.Observer.Run(ctx, c)
	}
	res, err := r.safely(ctx, c, tool, args)
	flush()
	if err != nil {
		end(res, err)
		return res, err
	}
	if err := res.Validate(); err != nil {
		r.Log().WarnContext(ctx, "toolnexus: tool returned an invalid result", "tool", c.Tool, "call", c.ID, "err", err)
		res = toolnexus.Errorf("toolnexus: tool %s returned an invalid result: %s", msg.Quote(c.Tool), msg.Unprefixed(err))
	}
	res = r.withExpiry(res)
	end(res, nil)
	return res, nil
}

// safely runs tool, recovering its panic as an error result.
func (r Runner) safely(ctx context.Context, c Call, tool toolnexus.Tool, args json.RawMessage) (res toolnexus.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.Log().ErrorContext(ctx, "toolnexus: tool panicked",
				"tool", c.Tool, "call", c.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res = toolnexus.Error(fmt.Sprintf("%v: %s", toolnexus.ErrToolPanicked, msg.Quote(c.Tool)))
			err = fmt.Errorf("%w: %s: %v", toolnexus.ErrToolPanicked, msg.Quote(c.Tool), p)
		}
	}()
	return tool(ctx, args, c.Answers), nil
}

// withExpiry returns res with ExpiresAt set on each request it asks
// without one, Expiry from now.
func (r Runner) withExpiry(res toolnexus.ToolResult) toolnexus.ToolResult {
	reqs, ok := toolnexus.PendingAllOf(res)
	if !ok {
		return res
	}
	stamped := r.Stamp(reqs)
	if slices.EqualFunc(stamped, reqs, func(a, b toolnexus.Request) bool { return a.ExpiresAt == b.ExpiresAt }) {
		return res
	}
	res.Metadata = maps.Clone(res.Metadata)
	res.Metadata[toolnexus.MetadataPending] = stamped[0]
	if len(stamped) > 1 {
		res.Metadata[toolnexus.MetadataPendingMore] = stamped[1:]
	} else {
		delete(res.Metadata, toolnexus.MetadataPendingMore)
	}
	return res
}

// Stamp returns reqs with ExpiresAt set, Expiry from now, on each that
// has none; reqs is not changed. A negative Expiry sets none.
func (r Runner) Stamp(reqs []toolnexus.Request) []toolnexus.Request {
	if r.Expiry < 0 {
		return reqs
	}
	at := r.Now().Add(cmp.Or(r.Expiry, DefaultExpiry))
	out := slices.Clone(reqs)
	for i, req := range out {
		if req.ExpiresAt == "" {
			out[i] = req.WithExpiry(at)
		}
	}
	return out
}

// Now returns the current time by r's clock.
func (r Runner) Now() time.Time {
	if r.Time != nil {
		return r.Time()
	}
	return time.Now()
}

// Log returns r's logger: Logger, or [slog.Default].
func (r Runner) Log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// refused logs a resume r refused.
func (r Runner) refused(ctx context.Context, c Call, err error) {
	r.Log().WarnContext(ctx, "toolnexus: resume refused", "tool", c.Tool, "call", c.ID, "err", err)
}

// store returns r's Store, or the process's.
func (r Runner) store() Store {
	if r.Store != nil {
		return r.Store
	}
	return processStore()
}

// runnerKey is the context key of the Runner that runs a tool.
type runnerKey struct{}

// NewContext returns ctx carrying r, for the carriers that take no Runner
// of their own: [RunTurn], [Resume] and the SDK loops (the anthropicloop
// and openailoop modules) run with the Runner of their context, or the
// zero Runner. It is how a host that runs several processes gives them
// one Store: ctx = park.NewContext(ctx, park.Runner{Store: shared}).
func NewContext(ctx context.Context, r Runner) context.Context {
	return context.WithValue(ctx, runnerKey{}, r)
}

// FromContext returns the Runner that ctx carries: the one that runs the
// tool whose context ctx is, so that what a tool wraps (such as a gate of
// package approval) reads the same clock, logger and Store, or one given
// with [NewContext]; false for neither.
func FromContext(ctx context.Context) (Runner, bool) {
	r, ok := ctx.Value(runnerKey{}).(Runner)
	return r, ok
}

// String returns c's fields, its arguments as their size and its answers
// without their data, for %v.
func (c Call) String() string { return wire.Show(c, false) }

// GoString returns c in Go syntax without payload, for %#v.
func (c Call) GoString() string { return wire.Show(c, true) }

// Format prints c for every verb without payload, as [Call.String] (%#v: [Call.GoString]).
func (c Call) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as a group of its non-empty fields, without payload.
func (c Call) LogValue() slog.Value { return wire.Log(c) }

// String returns o's fields, its result as [toolnexus.ToolResult.String]
// writes it, for %v.
func (o Outcome) String() string { return wire.Show(o, false) }

// GoString returns o in Go syntax without payload, for %#v.
func (o Outcome) GoString() string { return wire.Show(o, true) }

// Format prints o for every verb without payload, as [Outcome.String] (%#v: [Outcome.GoString]).
func (o Outcome) Format(f fmt.State, verb rune) { wire.Format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its non-empty fields, without payload.
func (o Outcome) LogValue() slog.Value { return wire.Log(o) }

func init() {
	wire.Register(reflect.TypeFor[Call]())
	wire.Register(reflect.TypeFor[Outcome]())
}
