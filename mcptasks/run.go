//lint:file-ignore SA1019 sampling and roots, which SEP-2577 deprecates, are input kinds a task may still ask for.

package mcptasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
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

// outcome is how one run of a task's tool ended: its result, or the stack
// of its panic.
type outcome struct {
	result toolnexus.ToolResult
	panic  string
}

// execute runs t's work with the task's arguments and answers, recovering
// a panic.
func execute(ctx context.Context, t *Tool, rec record) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = outcome{panic: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	return outcome{result: t.Run(ctx, rec.Arguments, rec.Answers)}
}

// settle sets rec, a working task whose run has ended with out at now, to
// the status out gives it: failed for a panic, input_required for a
// suspension the client can be asked, failed with -32021 for one it
// cannot, else completed with the tool's result.
func (s *Server) settle(rec *record, out outcome, now time.Time) {
	rec.Updated = now.UnixMilli()
	if out.panic != "" {
		s.logger.Error("mcptasks: task tool panicked", "tool", rec.Tool, "panic", out.panic)
		fail(rec, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool failed.")
		return
	}
	reqs, asks := toolnexus.PendingAllOf(out.result)
	if !asks {
		res, err := json.Marshal(out.result.MCPCallToolResult())
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
		s.logger.Error("mcptasks: task tool asked a request that cannot be sent", "tool", rec.Tool, "err", err)
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

// launch starts t's work on this instance with the arguments and answers
// of rec, in a context that ends at Shutdown or with the returned cancel;
// its outcome comes on the returned channel.
func (s *Server) launch(t *Tool, rec record) (<-chan outcome, context.CancelFunc) {
	ctx, cancel := context.WithCancel(s.base)
	done := make(chan outcome, 1)
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		done <- execute(ctx, t, rec)
	}()
	return done, cancel
}

// watch sees the run of the task id, in state rec, through on this
// instance, its outcome to come on done: every poll interval, and every
// third of the lease, it checks that the task is still in that run, ending
// the run's context (with cancel) when another instance cancelled the task
// or it expired, and renews the run's lease. Once the run has ended, the
// task takes the status it ended with (see finish).
func (s *Server) watch(id string, rec record, done <-chan outcome, cancel context.CancelFunc) {
	r := &run{gen: rec.Run, cancel: cancel}
	s.mu.Lock()
	if old := s.running[id]; old != nil {
		old.cancel()
	}
	s.running[id] = r
	s.mu.Unlock()
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		defer cancel()
		tick := time.NewTicker(min(s.poll, s.lease/3))
		var out outcome
	wait:
		for {
			select {
			case out = <-done:
				break wait
			case <-tick.C:
				if !s.keep(id, rec) {
					cancel()
				}
			}
		}
		tick.Stop()
		finished := s.time()
		s.mu.Lock()
		if s.running[id] == r {
			delete(s.running, id)
		}
		s.mu.Unlock()
		s.finish(id, rec, out, finished)
	}()
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
		at, lease := s.time().UnixMilli(), s.lease.Milliseconds()
		if now.Lease-at > lease*2/3 {
			return false, nil
		}
		now.Lease = at + lease
		return true, nil
	})
	return !gone && !errors.Is(err, ErrTaskNotFound)
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
				now.Updated = s.time().UnixMilli()
				fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The server stopped while the task ran.")
				return true, nil
			}
			s.settle(now, out, s.time())
			return true, nil
		})
		end()
		if err == nil || errors.Is(err, ErrTaskNotFound) {
			return
		}
		s.logger.Warn("mcptasks: storing a task's result failed; trying again", "tool", rec.Tool, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			s.logger.Error("mcptasks: a task's result was not stored", "tool", rec.Tool, "err", err)
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
	s.logger.ErrorContext(ctx, "mcptasks: the tool of a task is not served by this instance", "tool", rec.Tool)
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run {
			return false, nil
		}
		now.Updated, now.Lease = s.time().UnixMilli(), 0
		fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool is not served here.")
		return true, nil
	})
	if err != nil {
		s.logger.ErrorContext(ctx, "mcptasks: a task was not failed", "tool", rec.Tool, "err", err)
	}
}
