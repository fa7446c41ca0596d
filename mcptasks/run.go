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

// start runs the tool of the task id, in state rec, on this instance: its
// context ends when the task is cancelled here, when another instance's
// change of the task is seen (checked every poll interval), or at
// Shutdown. The task then takes the status the run ended with, unless it
// changed meanwhile.
func (s *Server) start(id string, rec record, t *Tool) {
	ctx, cancel := context.WithCancel(s.base)
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
		done := make(chan outcome, 1)
		go func() { done <- execute(ctx, t, rec) }()
		tick := time.NewTicker(s.poll)
		var out outcome
	wait:
		for {
			select {
			case out = <-done:
				break wait
			case <-tick.C:
				if !s.current(ctx, id, rec) {
					cancel()
				}
			}
		}
		tick.Stop()
		s.mu.Lock()
		if s.running[id] == r {
			delete(s.running, id)
		}
		s.mu.Unlock()
		s.finish(id, rec, out)
	}()
}

// current reports whether the task id is still in the run of rec: not
// changed, cancelled, expired or dropped by a request another instance
// served. It reports true when the store cannot tell.
func (s *Server) current(ctx context.Context, id string, rec record) bool {
	_, now, err := s.load(ctx, id, rec.Principal)
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return false
	case err != nil:
		return true
	}
	return now.Status == StatusWorking && now.Run == rec.Run
}

// finish stores how the run of rec ended, unless the task left that run
// meanwhile (it was cancelled, or it expired). A run that Shutdown ended
// fails the task.
func (s *Server) finish(id string, rec record, out outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	stopped := s.base.Err() != nil
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run {
			return false, nil
		}
		if stopped {
			now.Updated = s.time().UnixMilli()
			fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The server stopped while the task ran.")
			return true, nil
		}
		s.settle(now, out, s.time())
		return true, nil
	})
	if err != nil && !errors.Is(err, ErrTaskNotFound) {
		s.logger.Error("mcptasks: a task's result was not stored", "tool", rec.Tool, "err", err)
	}
}

// orphan fails the task id, in state rec, whose tool this instance does
// not serve.
func (s *Server) orphan(ctx context.Context, id string, rec record) {
	s.logger.ErrorContext(ctx, "mcptasks: the tool of a task is not served by this instance", "tool", rec.Tool)
	_, err := s.change(ctx, id, rec.Principal, func(now *record) (bool, error) {
		if now.Status != StatusWorking || now.Run != rec.Run {
			return false, nil
		}
		now.Updated = s.time().UnixMilli()
		fail(now, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, "The tool is not served here.")
		return true, nil
	})
	if err != nil {
		s.logger.ErrorContext(ctx, "mcptasks: a task was not failed", "tool", rec.Tool, "err", err)
	}
}

// storeTimeout bounds the store's work for a run that has ended.
const storeTimeout = 10 * time.Second
