//lint:file-ignore SA1019 sampling and roots, which SEP-2577 deprecates, are input kinds a task may still ask for.

package mcptasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// clientCaps is what a client declared it can be asked: form and url
// elicitations, sampling, roots.
type clientCaps struct {
	form, url, sampling, roots bool
}

// capsOf returns what caps declares, as the go-sdk reads it: a client that
// declares elicitation without a mode takes forms.
func capsOf(caps *mcp.ClientCapabilities) clientCaps {
	var c clientCaps
	if caps == nil {
		return c
	}
	if e := caps.Elicitation; e != nil {
		c.form = e.Form != nil || e.URL == nil
		c.url = e.URL != nil
	}
	c.sampling = caps.Sampling != nil
	c.roots = caps.RootsV2 != nil || caps.Roots.ListChanged
	return c
}

// lacks returns the name of the capability a client must have declared to
// be asked req, and its members in a ClientCapabilities object, or "" when
// c has it.
func (c clientCaps) lacks(req toolnexus.Request) (string, map[string]any) {
	switch {
	case req.Kind == toolnexus.KindAuthorization && req.URL != "":
		if !c.url {
			return "elicitation.url", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
		}
	case req.Kind == toolnexus.KindSampling:
		if !c.sampling {
			return "sampling", map[string]any{"sampling": map[string]any{}}
		}
	case req.Kind == toolnexus.KindRoots:
		if !c.roots {
			return "roots", map[string]any{"roots": map[string]any{}}
		}
	default:
		if !c.form {
			return "elicitation.form", map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
		}
	}
	return "", nil
}

// missingCapability returns the JSON-RPC error -32021 naming the
// capabilities in required, as SEP-2575's
// MissingRequiredClientCapabilityError carries them.
func missingCapability(names []string, required map[string]any) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": required})
	return &jsonrpc.Error{
		Code:    codeMissingCapability,
		Message: "Missing required client capability: " + strings.Join(names, ", "),
		Data:    data,
	}
}

// codeMissingCapability is the code of MCP's
// MissingRequiredClientCapabilityError.
const codeMissingCapability = -32021

// missingExtension returns the -32021 error of a call that needs a task
// from a client that did not declare the tasks extension.
func missingExtension() *jsonrpc.Error {
	return missingCapability([]string{"extensions." + ExtensionID},
		map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}})
}

// outcome is how one run of a task's tool ended: its result and, for a
// suspension, the parking the task's answers will claim, or Panicked for a
// tool that panicked. It is also what a run keeps with its claim, so that
// a second resume of the same parking gets it and the tool does not run
// again. refused, never kept, is why a resume did not run the tool.
type outcome struct {
	Result   toolnexus.ToolResult `json:"result"`
	Park     string               `json:"park,omitempty"`
	Panicked bool                 `json:"panicked,omitempty"`
	refused  error
}

// run is a run of a task's tool on this instance: its generation, the
// cancel of its context, and the status message its last progress report
// gave, until the watch of the run stores it.
type run struct {
	gen      int64
	cancel   context.CancelFunc
	reported chan struct{} // signalled when message changes

	mu      sync.Mutex
	message string
	fresh   bool // message is not stored yet
}

// newRun returns the run of generation gen of a task.
func newRun(gen int64) *run {
	return &run{gen: gen, cancel: func() {}, reported: make(chan struct{}, 1)}
}

// report keeps the progress the tool reports, as the park.Runner hands it
// on (a few reports a second at most), as the run's status message, and
// tells the run's watch, which stores it: the tool never waits for the
// store, and reports that come faster than the store takes them are
// merged into the last.
func (r *run) report(done, total float64, message string) {
	if message == "" {
		message = strconv.FormatFloat(done, 'g', -1, 64)
		if total > 0 {
			message += " of " + strconv.FormatFloat(total, 'g', -1, 64)
		}
	}
	r.mu.Lock()
	r.message, r.fresh = message, true
	r.mu.Unlock()
	select {
	case r.reported <- struct{}{}:
	default:
	}
}

// take returns the status message reported and not stored yet, if any.
func (r *run) take() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fresh := r.fresh
	r.fresh = false
	return r.message, fresh
}

// call returns the park.Call of a run of the task in state rec: it
// answers the task's parking, bound to its tool, arguments and principal,
// and can be claimed until the task expires.
func (s *Server) call(rec record) park.Call {
	return park.Call{
		Tool: rec.Tool, Arguments: rec.Arguments, Answers: rec.Answers, Principal: rec.Principal,
		Park: rec.Park, Until: time.UnixMilli(rec.Created + rec.TTL),
	}
}

// execute runs t's work for c through s's park.Runner (a panic is logged
// and ends the run as Panicked), mints a parking for a suspension, and
// keeps the outcome with claim, if any, for the resumes of the same
// parking.
func (s *Server) execute(ctx context.Context, t *Tool, c park.Call, claim *park.Claim) outcome {
	res, err := s.park.Exec(ctx, c, t.Run)
	out := outcome{Result: res, Panicked: err != nil}
	if err == nil && res.IsPending() {
		out.Park = s.park.NewPark()
		s.park.Parked(ctx, c, out.Park, res)
	}
	if claim != nil {
		kept, err := json.Marshal(out)
		if err == nil {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			err = claim.Finish(fctx, kept)
			cancel()
		}
		if err != nil {
			s.log().Error("mcptasks: the outcome of a resumed task was not kept with its claim", "tool", c.Tool, "err", err)
		}
	}
	return out
}

// settle sets rec, a working task whose run has ended with out at now, to
// the status out gives it: failed for a panic or a claim refused,
// input_required for a suspension the client can be asked (waiting on the
// parking out minted), failed with -32021 for one it cannot, else
// completed with the tool's result.
func (s *Server) settle(rec *record, out outcome, now time.Time) {
	rec.Updated, rec.Park = now.UnixMilli(), out.Park
	switch {
	case errors.Is(out.refused, park.ErrResultTooLarge):
		fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool ran with these answers, and its result is too large to read again.")
		return
	case out.refused != nil:
		s.log().Error("mcptasks: the answers of a task were not claimed: the tool did not run", "tool", rec.Tool, "err", out.refused)
		fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The answers could not be recorded, and the tool did not run.")
		return
	case out.Panicked:
		fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool failed.")
		return
	}
	reqs, asks := toolnexus.PendingAllOf(out.Result)
	if !asks {
		res, err := json.Marshal(out.Result.MCPCallToolResult())
		if err != nil { // not reached: a result is plain data
			fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool's result does not encode.")
			return
		}
		rec.Status, rec.Message, rec.Result = StatusCompleted, "", res
		return
	}
	pending, err := s.ask(rec, reqs)
	if err != nil {
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			fail(rec, &rpcError{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}, "The tool asks for what the client did not declare it can answer.")
			return
		}
		s.log().Error("mcptasks: task tool asked a request that cannot be sent", "tool", rec.Tool, "err", err)
		fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool asked a request that cannot be sent.")
		return
	}
	rec.Status, rec.Message, rec.Pending = StatusInputRequired, "", pending
	for _, a := range pending {
		rec.Keys = append(rec.Keys, a.Key)
	}
}

// ask returns reqs, what a task's tool asked, as the requests the task
// waits on, each under a key that the task has never used: a request's
// ID, or the ID with a suffix when the task asked that ID before. It
// reports a -32021 [*jsonrpc.Error] for a request the client cannot be
// asked, and an error for requests that share an ID or cannot be sent.
func (s *Server) ask(rec *record, reqs []toolnexus.Request) ([]asked, error) {
	caps := rec.client()
	var (
		names    []string
		required = map[string]any{}
		pending  = make([]asked, 0, len(reqs))
	)
	for i, req := range reqs {
		if slices.ContainsFunc(reqs[:i], func(r toolnexus.Request) bool { return r.ID == req.ID }) {
			return nil, fmt.Errorf("mcptasks: tool %q asks two requests with the ID %q", rec.Tool, req.ID)
		}
		if name, members := caps.lacks(req); name != "" {
			if !slices.Contains(names, name) {
				names = append(names, name)
				merge(required, members)
			}
			continue
		}
		in, err := req.MCPInputRequestFor(rec.Protocol)
		if err != nil {
			return nil, err
		}
		key := req.ID
		for n := 2; slices.Contains(rec.Keys, key); n++ {
			key = req.ID + "~" + strconv.Itoa(n)
		}
		pending = append(pending, asked{Key: key, Request: req, Input: in})
	}
	if len(names) > 0 {
		return nil, missingCapability(names, required)
	}
	return pending, nil
}

// merge adds the members of src to dst, merging the objects both hold.
func merge(dst, src map[string]any) {
	for k, v := range src {
		d, ok1 := dst[k].(map[string]any)
		m, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			merge(d, m)
			continue
		}
		dst[k] = v
	}
}

// fail sets rec to failed with err and message.
func fail(rec *record, err *rpcError, message string) {
	rec.Status, rec.Message, rec.Error, rec.Pending = StatusFailed, message, err, nil
}

// launch starts t's work for c on this instance as the run r, in a
// context that ends at Shutdown or with r's cancel, its progress reported
// to r; claim, if any, keeps its outcome, which comes on the returned
// channel.
func (s *Server) launch(t *Tool, c park.Call, claim *park.Claim, r *run) <-chan outcome {
	ctx, cancel := context.WithCancel(s.base)
	r.cancel = cancel
	c.Progress = r.report
	done := make(chan outcome, 1)
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		done <- s.execute(ctx, t, c, claim)
	}()
	return done
}

// resume runs the tool of the task id, in state rec (working, with every
// answer), again on this instance, once: it claims the parking that the
// answers answer in the park.Runner's store before the tool runs. A
// parking that another run holds (a tasks/update sent twice, to one
// instance or two, or answered again after the task store lost a write)
// is left to that run, which ends the task, or whose lease lapses. One
// that has run gives the outcome it kept, and the tool does not run
// again. owner says that the caller moved the task to working: a claim
// refused then fails the task, which no other run will end; else the
// task is left as it is.
func (s *Server) resume(ctx context.Context, id string, rec record, owner bool) {
	t := s.tool(rec.Tool)
	if t == nil {
		if owner {
			s.orphan(ctx, id, rec)
		}
		return
	}
	c := s.call(rec)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	claim, held, err := s.park.Claim(cctx, c)
	cancel()
	var out outcome
	switch {
	case errors.Is(err, park.ErrRunning):
		return
	case err != nil:
		if !owner {
			return
		}
		out.refused = err
	case held != nil:
		if err := json.Unmarshal(held, &out); err != nil {
			out = outcome{refused: fmt.Errorf("%w: the kept outcome of a task does not read: %v", park.ErrStore, err)}
		}
	case claim == nil && !owner:
		return // a tool that may repeat runs for the update that answered it
	default:
		r := newRun(rec.Run)
		s.watch(id, rec, s.launch(t, c, claim, r), r)
		return
	}
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		s.finish(id, rec, out, s.now())
	}()
}

// watch sees the run r of the task id, in state rec, through on this
// instance, its outcome to come on done: every poll interval, and every
// third of the lease, it checks that the task is still in that run, ending
// the run's context when another instance cancelled the task or it
// expired, and renews the run's lease; the progress the tool reports it
// stores as the task's status message. Once the run has ended, the task
// takes the status it ended with (see finish). Until that is stored, the
// run is this instance's: a tasks/get here renews its lease rather than
// failing it, once a store that stalled for longer than the lease is back.
func (s *Server) watch(id string, rec record, done <-chan outcome, r *run) {
	s.mu.Lock()
	if old := s.running[id]; old != nil {
		old.cancel()
	}
	s.running[id] = r
	s.mu.Unlock()
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		defer r.cancel()
		tick := time.NewTicker(min(s.poll, s.lease/3))
		var out outcome
	wait:
		for {
			select {
			case out = <-done:
				break wait
			case <-tick.C:
				if !s.keep(id, rec) {
					r.cancel()
				}
			case <-r.reported:
				s.progress(id, rec, r)
			}
		}
		tick.Stop()
		s.finish(id, rec, out, s.now())
		s.mu.Lock()
		if s.running[id] == r {
			delete(s.running, id)
		}
		s.mu.Unlock()
	}()
}

// holds reports whether this instance runs the run gen of the task id, or
// has yet to store how it ended: the run is alive, whatever its lease
// says.
func (s *Server) holds(id string, gen int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.running[id]
	return r != nil && r.gen == gen
}

// keep reports whether the task id is still in the run of rec: not
// changed, cancelled, expired or dropped by a request another instance
// served; and renews the run's lease once a third of it has passed. It
// reports true when the store cannot tell.
func (s *Server) keep(id string, rec record) bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	gone := false
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run {
			gone = true
			return false, nil
		}
		at, lease := s.now().UnixMilli(), s.lease.Milliseconds()
		if now.Lease-at > lease*2/3 {
			return false, nil
		}
		now.Lease = at + lease
		return true, nil
	})
	return !gone && !errors.Is(err, ErrTaskNotFound)
}

// progress stores the status message that the run r of the task id, in
// state rec, reported last, while the task is still in that run. A
// message that the store does not take is left for the next report: the
// task's result clears it anyway.
func (s *Server) progress(id string, rec record, r *run) {
	message, ok := r.take()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run || now.Message == message {
			return false, nil
		}
		now.Message, now.Updated = message, s.now().UnixMilli()
		return true, nil
	})
	if err != nil && !errors.Is(err, ErrTaskNotFound) {
		s.log().Warn("mcptasks: a task's progress was not stored", "tool", rec.Tool, "err", err)
	}
}

// awaits reports whether now, the stored state of a task whose run of rec
// ended at finished, still waits for that run's outcome: working in that
// run, or ended by a cancel or a lapsed lease that came after the run had
// ended, while its outcome was not stored yet. Work that was done is
// never marked cancelled or lost.
func awaits(now *record, rec record, finished time.Time) bool {
	if now.Run != rec.Run {
		return false
	}
	switch now.Status {
	case StatusWorking:
		return true
	case StatusCancelled:
		return now.Updated > finished.UnixMilli()
	case StatusFailed:
		return now.Message == LapsedMessage && now.Updated > finished.UnixMilli()
	}
	return false
}

// The bounds of storing how a run ended: each attempt within
// storeTimeout, attempts firstRetry apart and then twice as far each time,
// up to lastRetry, for resultBound in all.
const (
	storeTimeout = 10 * time.Second
	firstRetry   = 50 * time.Millisecond
	lastRetry    = 2 * time.Second
	resultBound  = 2 * time.Minute
)

// finish stores how the run of rec, which ended at finished, ended, unless
// the task left that run meanwhile (a new run, a cancel or a lapse that
// came before the run ended, an expiry). A run that Shutdown ended fails
// the task. A write the store refuses, or whose reply is lost, is tried
// again until the outcome is known to be stored, for up to resultBound:
// a store that fails one write, or stalls for seconds, loses no result.
func (s *Server) finish(id string, rec record, out outcome, finished time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), resultBound)
	defer cancel()
	stopped := s.base.Err() != nil
	for wait := firstRetry; ; wait = min(2*wait, lastRetry) {
		attempt, end := context.WithTimeout(ctx, storeTimeout)
		_, err := s.change(attempt, id, rec.Principal, func(now *record) (bool, error) {
			if !awaits(now, rec, finished) {
				return false, nil
			}
			now.Lease = 0
			if stopped {
				now.Updated = s.now().UnixMilli()
				fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The server stopped while the task ran.")
				return true, nil
			}
			s.settle(now, out, s.now())
			return true, nil
		})
		end()
		if err == nil || errors.Is(err, ErrTaskNotFound) {
			return
		}
		s.log().Warn("mcptasks: storing a task's result failed; trying again", "tool", rec.Tool, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			s.log().Error("mcptasks: a task's result was not stored", "tool", rec.Tool, "err", err)
			return
		case <-t.C:
		}
	}
}

// lapsed reports whether r is a working task whose lease has lapsed at
// now: the instance that ran it stopped renewing it.
func lapsed(r *record, now time.Time) bool {
	return r.Status == StatusWorking && r.Lease != 0 && now.UnixMilli() > r.Lease
}

// orphan fails the task id, in state rec, whose tool this instance does
// not serve.
func (s *Server) orphan(ctx context.Context, id string, rec record) {
	s.log().ErrorContext(ctx, "mcptasks: the tool of a task is not served by this instance", "tool", rec.Tool)
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run {
			return false, nil
		}
		now.Updated, now.Lease = s.now().UnixMilli(), 0
		fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool is not served here.")
		return true, nil
	})
	if err != nil {
		s.log().ErrorContext(ctx, "mcptasks: a task was not failed", "tool", rec.Tool, "err", err)
	}
}
