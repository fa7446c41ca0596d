package mcptasks

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

// The methods of the extension.
const (
	methodGet    = "tasks/get"
	methodUpdate = "tasks/update"
	methodCancel = "tasks/cancel"
)

// firstProtocol is the first MCP protocol version the extension is
// defined on; on older ones a client never declares it.
const firstProtocol = "2026-07-28"

// taskParams are the params of tasks/get and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// updateParams are the params of tasks/update.
type updateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// extraKey is the context key of the RequestExtra of a request of the
// extension's methods, which the SDK gives its middleware only.
type extraKey struct{}

// slotKey is the context key of the slot of a tools/call.
type slotKey struct{}

// slot carries the task that a tools/call became, or the error it failed
// with, from the tool's handler to the middleware, which sends it in
// place of the handler's result.
type slot struct {
	task *createTaskResult
	err  error
}

// addMethods adds the extension's methods to s's SDK server.
func (s *Server) addMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.sdk, methodGet, s.get); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s.sdk, methodUpdate, s.update); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.sdk, methodCancel, s.cancel)
}

// middleware is the receiving middleware of s: it advertises the extension
// in server/discover, turns the calls of s's tools into tasks, and gives
// the extension's methods the extra of their request.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "server/discover":
			res, err := next(ctx, method, req)
			if d, ok := res.(*mcp.DiscoverResult); ok && err == nil && d.Capabilities != nil {
				d.Capabilities.AddExtension(ExtensionID, nil)
			}
			return res, err
		case "tools/call":
			if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
				if t := s.tool(c.Params.Name); t != nil {
					return s.callTool(ctx, next, method, c, t)
				}
			}
		case methodGet, methodUpdate, methodCancel:
			ctx = context.WithValue(ctx, extraKey{}, req.GetExtra())
		}
		return next(ctx, method, req)
	}
}

// callTool serves a call of t: one that must be a task from a client
// without the extension is refused; one from a client with it runs with a
// slot in its context, so that the task it becomes is sent.
func (s *Server) callTool(ctx context.Context, next mcp.MethodHandler, method string, req *mcp.CallToolRequest, t *Tool) (mcp.Result, error) {
	protocol := req.ProtocolVersion()
	if !declares(protocol, req.ClientCapabilities()) {
		if t.Support != TaskRequired {
			return next(ctx, method, req)
		}
		if protocol != "" && protocol < firstProtocol {
			return mcpbridge.CallToolResult(toolnexus.Error("Tool " + t.Tool.Name + " runs only as an MCP task, which needs protocol " + firstProtocol + " and the " + ExtensionID + " extension.")), nil
		}
		return nil, missingExtension()
	}
	sl := &slot{}
	res, err := next(context.WithValue(ctx, slotKey{}, sl), method, req)
	switch {
	case err != nil:
		return res, err
	case sl.err != nil:
		return nil, sl.err
	case sl.task != nil:
		return sl.task, nil
	}
	return res, nil
}

// declares reports whether a client on protocol with caps declared the
// extension.
func declares(protocol string, caps *mcp.ClientCapabilities) bool {
	if protocol < firstProtocol || caps == nil {
		return false
	}
	_, ok := caps.Extensions[ExtensionID].(map[string]any)
	return ok
}

// handler returns the function that mcpbridge runs for a call of t: within
// the call for a client without the extension; else Prepare, if any, as
// the call's multi round trip, then the task.
func (s *Server) handler(t *Tool) mcpbridge.CallFunc[json.RawMessage] {
	return func(ctx context.Context, c mcpbridge.Call[json.RawMessage]) toolnexus.ToolResult {
		args := c.In
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		if t.Prepare != nil {
			if r := t.Prepare(ctx, args, c.Answers); r.IsError {
				return r // a suspension, or a refusal
			}
		}
		sl, _ := ctx.Value(slotKey{}).(*slot)
		if sl == nil {
			return t.Run(ctx, args, c.Answers)
		}
		task, inline, err := s.create(ctx, t, args, c.Answers, c.Request)
		switch {
		case err != nil:
			sl.err = err
			return toolnexus.Error("")
		case task == nil:
			return inline
		}
		sl.task = task
		return toolnexus.Ok("")
	}
}

// create runs a call of t, with args and the answers given before it
// became a task, as a task: it stores a new task, and runs its tool on
// this instance. A call of a TaskOptional tool waits s.inline for the tool
// first, and returns its result, with no task, when it has one by then.
func (s *Server) create(ctx context.Context, t *Tool, args json.RawMessage, answers toolnexus.Answers, req *mcp.CallToolRequest) (*createTaskResult, toolnexus.ToolResult, error) {
	now := s.now()
	rec := record{
		Tool: t.Tool.Name, Arguments: args, Principal: s.principalOf(req.Extra), Protocol: req.ProtocolVersion(),
		Status: StatusWorking, Created: now.UnixMilli(), Updated: now.UnixMilli(), TTL: s.ttl.Milliseconds(), Poll: s.poll.Milliseconds(),
		Run: 1, Lease: now.Add(s.lease).UnixMilli(), Answers: answers,
	}
	caps := capsOf(req.ClientCapabilities())
	rec.ElicitForm, rec.ElicitURL, rec.Sampling, rec.Roots = caps.form, caps.url, caps.sampling, caps.roots
	var (
		r    = newRun(rec.Run)
		c    = s.call(rec)
		done <-chan outcome
	)
	if t.Support == TaskOptional && s.inline > 0 {
		done = s.launch(t, c, nil, r)
		wait := time.NewTimer(s.inline)
		select {
		case out := <-done:
			wait.Stop()
			if _, asks := toolnexus.PendingAllOf(out.Result); !out.Panicked && !asks {
				r.cancel()
				return nil, out.Result, nil
			}
			again := make(chan outcome, 1) // a task's outcome, stored as the task is
			again <- out
			done = again
		case <-wait.C:
		}
	}
	id := newID()
	if err := s.put(ctx, id, &rec); err != nil {
		r.cancel()
		return nil, toolnexus.ToolResult{}, s.wire(ctx, fmt.Errorf("mcptasks: creating a task of %q: %w", t.Tool.Name, err))
	}
	if done == nil {
		done = s.launch(t, c, nil, r)
	}
	s.watch(id, rec, done, r)
	return &createTaskResult{ResultType: "task", taskInfo: rec.info(id, now)}, toolnexus.ToolResult{}, nil
}

// put stores rec as the new task id, under a write token of its own, so
// that a create whose reply is lost, or which the store's client sent
// twice and was told the task exists, is known as the one that stored it.
func (s *Server) put(ctx context.Context, id string, rec *record) error {
	rec.Write = newID()
	err := s.store.Create(ctx, id, rec.encode(), s.ttl)
	if err != nil && s.landed(ctx, id, rec.Write) {
		return nil
	}
	return err
}

// landed reports whether the task id holds the write of token: read again
// after a write that failed, or whose reply is lost, it tells whether the
// write was applied all the same.
func (s *Server) landed(ctx context.Context, id, token string) bool {
	st, err := s.store.Get(ctx, id)
	if err != nil {
		return false
	}
	rec, err := decodeRecord(st.Data)
	return err == nil && rec.Write == token
}

// caller returns the principal of a request of the extension's methods,
// and the -32021 error for a client that did not declare the extension.
func (s *Server) caller(ctx context.Context, ss *mcp.ServerSession, p mcp.Params) (string, error) {
	r := &mcp.ServerRequest[mcp.Params]{Session: ss, Params: p}
	if !declares(r.ProtocolVersion(), r.ClientCapabilities()) {
		return "", missingExtension()
	}
	extra, _ := ctx.Value(extraKey{}).(*mcp.RequestExtra)
	principal := s.principalOf(extra)
	if principal == "" && extra != nil && extra.TokenInfo != nil {
		return "", s.wire(ctx, errors.New("mcptasks: a request of the tasks extension with a token that names no subject"))
	}
	return principal, nil
}

// get serves tasks/get.
func (s *Server) get(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*getTaskResult, error) {
	principal, err := s.caller(ctx, ss, p)
	if err != nil {
		return nil, err
	}
	_, rec, err := s.load(ctx, p.TaskID, principal)
	if err != nil {
		return nil, s.wire(ctx, err)
	}
	now := s.now()
	if lapsed(&rec, now) {
		rec, err = s.change(ctx, p.TaskID, principal, func(r *record) (bool, error) {
			if !lapsed(r, now) {
				return false, nil
			}
			if s.holds(p.TaskID, r.Run) { // a store that stalled kept this instance from renewing it
				r.Lease = now.Add(s.lease).UnixMilli()
				return true, nil
			}
			r.Updated, r.Lease = now.UnixMilli(), 0
			fail(r, &rpcError{Code: jsonrpc.CodeInternalError, Message: "Internal error"}, LapsedMessage)
			return true, nil
		})
		if err != nil {
			return nil, s.wire(ctx, err)
		}
	}
	return rec.detailed(p.TaskID, now), nil
}

// update serves tasks/update: each response under the key of a request the
// task waits on is read as that request's answer, checked against what it
// asked; responses under other keys are ignored. Once the task waits on
// nothing, its tool runs again, on this instance, with every answer, once
// (see resume). An update of a task that already runs on its answers (an
// update sent again, its reply lost, or sent to two instances) claims the
// same parking: it runs the tool only when no run has claimed it, such as
// when the instance that took the answers died before it ran the tool.
func (s *Server) update(ctx context.Context, ss *mcp.ServerSession, p *updateParams) (*ackResult, error) {
	principal, err := s.caller(ctx, ss, p)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var (
		resume *record
		owner  bool
	)
	_, err = s.change(ctx, p.TaskID, principal, func(rec *record) (bool, error) {
		resume, owner = nil, false
		if rec.Status == StatusWorking && rec.Park != "" && !lapsed(rec, now) {
			resume = rec
			return false, nil
		}
		if rec.Status != StatusInputRequired {
			return false, nil
		}
		var left []asked
		answers := rec.Answers
		for _, a := range rec.Pending {
			raw, ok := p.InputResponses[a.Key]
			if !ok {
				left = append(left, a)
				continue
			}
			ans, err := a.Request.AnswerFromMCP(raw)
			if err == nil {
				err = ans.Check(a.Request, now)
			}
			if err != nil {
				return false, invalidResponse(a, err)
			}
			answers = append(answers[:len(answers):len(answers)], ans)
		}
		if len(left) == len(rec.Pending) {
			return false, nil
		}
		rec.Answers, rec.Pending, rec.Updated = answers, left, now.UnixMilli()
		if len(left) == 0 {
			rec.Status, rec.Lease = StatusWorking, now.Add(s.lease).UnixMilli()
			rec.Run++
			resume, owner = rec, true
		}
		return true, nil
	})
	if err != nil {
		return nil, s.wire(ctx, err)
	}
	if resume != nil {
		s.resume(ctx, p.TaskID, *resume, owner)
	}
	return ack(), nil
}

// invalidResponse returns the -32602 error of a response that does not
// answer a, naming its key when that is not its request's ID.
func invalidResponse(a asked, err error) *jsonrpc.Error {
	msg := strings.ReplaceAll(err.Error(), "toolnexus: ", "")
	if a.Key != a.Request.ID {
		msg = "key " + strconv.Quote(a.Key) + ": " + msg
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid inputResponses: " + msg}
}

// cancel serves tasks/cancel: a task that has not ended is cancelled, and
// its tool's context, on this instance or, within a poll interval, on the
// one that runs it, is cancelled. A task that has ended is left as it is,
// and so is work that was done: a task whose tool had returned before the
// cancel came, its result not yet stored (a store that stalled), is
// completed with that result once it is stored.
func (s *Server) cancel(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	principal, err := s.caller(ctx, ss, p)
	if err != nil {
		return nil, err
	}
	now := s.now().UnixMilli()
	_, err = s.change(ctx, p.TaskID, principal, func(rec *record) (bool, error) {
		if terminal(rec.Status) {
			return false, nil
		}
		rec.Status, rec.Message, rec.Pending, rec.Updated = StatusCancelled, "Cancelled by the client.", nil, now
		return true, nil
	})
	if err != nil {
		return nil, s.wire(ctx, err)
	}
	s.mu.Lock()
	if r := s.running[p.TaskID]; r != nil {
		r.cancel()
	}
	s.mu.Unlock()
	return ack(), nil
}

// maxAttempts bounds the reads of one change of a task that other changes
// keep coming between.
const maxAttempts = 16

// change reads the task id of principal, lets fn change it, and stores the
// change, reading it again when another change came between; fn returns
// false to leave the task as it is. It returns the task as fn left it.
// Each write carries a token of its own, so that one the store reports as
// failed or as a conflict, but applied (its reply lost, or the store's
// client sent it twice and the second copy was refused), is known as
// stored.
func (s *Server) change(ctx context.Context, id, principal string, fn func(*record) (bool, error)) (record, error) {
	for attempt := 1; ; attempt++ {
		st, rec, err := s.load(ctx, id, principal)
		if err != nil {
			return record{}, err
		}
		changed, err := fn(&rec)
		if err != nil || !changed {
			return rec, err
		}
		rec.Write = newID()
		err = s.store.Update(ctx, id, st.Version, rec.encode())
		switch {
		case err == nil:
			return rec, nil
		case errors.Is(err, ErrTaskNotFound):
			return rec, err
		case s.landed(ctx, id, rec.Write):
			return rec, nil // applied, its reply lost or a resent copy refused
		case !errors.Is(err, ErrTaskConflict) || attempt == maxAttempts:
			return rec, err
		}
	}
}

// load returns the task id of principal, as stored and read. A task of
// another principal, or whose time to live has passed, is reported as
// ErrTaskNotFound, as an unknown one is.
func (s *Server) load(ctx context.Context, id, principal string) (StoredTask, record, error) {
	if id == "" || len(id) > maxIDLen {
		return StoredTask{}, record{}, ErrTaskNotFound
	}
	st, err := s.store.Get(ctx, id)
	if err != nil {
		return StoredTask{}, record{}, err
	}
	rec, err := decodeRecord(st.Data)
	if err != nil {
		return StoredTask{}, record{}, err
	}
	if subtle.ConstantTimeCompare([]byte(rec.Principal), []byte(principal)) != 1 || rec.expired(s.now()) {
		return StoredTask{}, record{}, ErrTaskNotFound
	}
	return st, rec, nil
}

// wire returns err as the JSON-RPC error a client gets: -32602 for a task
// it cannot see, a JSON-RPC error as it is, else -32603, the reason logged.
func (s *Server) wire(ctx context.Context, err error) error {
	var rpc *jsonrpc.Error
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
	case errors.As(err, &rpc):
		return rpc
	}
	s.log().ErrorContext(ctx, "mcptasks: task request failed", "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
}
