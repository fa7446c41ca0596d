// Package mcptasks serves toolnexus tools as MCP tasks: the tasks extension
// (SEP-2663, "io.modelcontextprotocol/tasks") on the official Go SDK,
// github.com/modelcontextprotocol/go-sdk. The extension is for a client
// on protocol 2026-07-28 or later that declares it (capabilities
// "extensions" {"io.modelcontextprotocol/tasks": {}} in its initialize
// request); any other client gets a [TaskOptional] tool's result within
// its call, as from a tool without tasks, and a [TaskRequired] tool's
// refusal (see TaskRequired). For a client with the
// extension, a call of a TaskRequired tool returns a task at once, and
// one of a TaskOptional tool is answered within the call when the tool
// returns within [Options].InlineWait (20 ms unless set), else returns a
// task. The client polls
// tasks/get, whose result (resultType complete, as every result that is
// not input_required) is the task: its status, and its result once
// completed; it waits the pollIntervalMs each answer gives
// ([FirstPollInterval] after a change, backing off to PollInterval),
// answers with tasks/update what the tool asks, and may cancel with
// tasks/cancel. The go-sdk's own client (v1.8.0) has no methods for these:
// a Go client sends them as JSON-RPC requests of its own. A tool that
// returns a suspension
// ([toolnexus.Pending], [toolnexus.PendingAll]) inside a task makes it
// input_required with those requests, and runs again, once, with every
// answer; what it reports with [toolnexus.ReportProgress] becomes the
// task's status message. Tools run through the [park.Runner] of the
// [mcpcall.Runner] given to [New], which sets the clock, the expiry of a
// request asked without one, the logger and the store in which each
// answered suspension is claimed. Tasks live in a [TaskStore] that every
// instance behind a load balancer shares, so that any instance reads,
// answers and finishes a task that another created.
package mcptasks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// ExtensionID names the tasks extension in a client's and a server's
// capabilities.
const ExtensionID = "io.modelcontextprotocol/tasks"

// The defaults of [Options].
const (
	// DefaultTTL is how long a task can be read after it was created.
	DefaultTTL = time.Hour
	// DefaultPollInterval is the longest interval a client is asked to
	// poll a task at.
	DefaultPollInterval = time.Second
	// FirstPollInterval is the interval a client is asked to poll a task
	// at once it has just been created or changed: the interval then grows
	// to half the time since the task last changed, up to the server's
	// PollInterval.
	FirstPollInterval = 25 * time.Millisecond
	// DefaultLease is how long a running task stays working without the
	// instance that runs it renewing its lease.
	DefaultLease = 30 * time.Second
	// DefaultInlineWait is how long a call of a [TaskOptional] tool waits
	// for the tool before it becomes a task.
	DefaultInlineWait = 20 * time.Millisecond
)

// LapsedMessage is the status message of a task that failed because the
// instance that ran it stopped renewing its lease: it was killed, lost its
// node or could not reach the store for longer than the lease. Its tool
// may have acted; what it returned, if it returned, is lost.
const LapsedMessage = "The server that ran the task stopped before it finished."

// The errors of [New] and [Server.AddTool], for [errors.Is].
var (
	// ErrInvalidOptions reports [Options] out of bounds, such as a
	// negative time to live, or a nil server.
	ErrInvalidOptions = errors.New("mcptasks: invalid options")
	// ErrInvalidTool reports a [Tool] that cannot be served: no MCP
	// tool, no name, no Run, an input schema that is not an object
	// schema, or a name already served.
	ErrInvalidTool = errors.New("mcptasks: invalid tool")
)

// TaskSupport says when a call of a [Tool] is a task.
type TaskSupport int

const (
	// TaskOptional makes a call a task when its client declared the
	// extension and the tool did not return within InlineWait, and runs
	// it within the call otherwise, as a tool of the mcpbridge package
	// runs.
	TaskOptional TaskSupport = iota
	// TaskRequired makes a call a task, and refuses a client that did
	// not declare the extension with the JSON-RPC error -32021 naming it
	// (on protocols before 2026-07-28, which have no such error, with a
	// result that says so and is an error).
	TaskRequired
)

// Tool is a tool that may run as a task. Tool is the MCP tool: its name,
// description and input schema (nil: any object), which the SDK checks
// the arguments against. Run is the work, given the arguments (with the
// schema's defaults applied) and every answer so far, through the
// [park.Runner] of the [Server] (a panic fails the task, its stack logged):
// inside a task, a suspension it returns makes the task input_required,
// each request answerable until its ExpiresAt (by default, the
// park.Runner's Expiry from the run that asked it), and it runs again once
// each request is answered; within a call, a suspension is asked as a
// multi round trip. What it reports with [toolnexus.ReportProgress]
// becomes the status message of its task, stored a few times a second at
// most.
//
// Inside a task, the answers to each suspension run Run once: before Run
// runs again, they claim the suspension in the Store of the [park.Runner]
// (its parking, bound to the tool, the arguments and the user), and keep
// what Run returned with the claim, so that a tasks/update sent twice, to
// one instance or two, or a task that its store forgot and that is answered
// again, never runs Run twice: the task gets the result of the one run.
// The instances behind one load balancer share that Store (the redisclaims
// module's) as they share the [TaskStore]; a [park.Runner] that names the
// tool in Repeatable claims nothing. A client that gives up on a task and
// calls the tool again makes a new task, which is a new call, and runs Run
// again.
//
// Prepare, when set, runs within the call before any task exists, given
// every answer of the call: what it asks is asked as a multi round trip
// (its answers checked and sealed as the mcpbridge package does), and once
// it returns a result that is neither a suspension nor an error, the call
// becomes a task whose Run sees those answers first. An error result of
// Prepare ends the call with it, without a task. A call may so start as a
// multi round trip and become a task, never the reverse.
type Tool struct {
	Tool    *mcp.Tool
	Run     toolnexus.Tool
	Prepare toolnexus.Tool
	Support TaskSupport
}

// Options configures a [Server]: what is a task's own. How its tools run
// (the clock, the expiry of a request asked without ExpiresAt, the logger
// and the store of claims) is the [park.Runner] of the [mcpcall.Runner]
// given to [New], [mcpcall.Options].Park, declared once for every
// carrier. The zero Options is ready to use.
type Options struct {
	// Store holds the tasks; nil means a [NewMemoryStore] of this
	// server's own. Servers behind one load balancer share one store.
	Store TaskStore
	// TTL is how long a task can be read after it was created, its
	// ttlMs; zero means DefaultTTL.
	TTL time.Duration
	// PollInterval is the longest interval a client is asked to poll at,
	// its pollIntervalMs (a task asks for [FirstPollInterval] once it
	// changed, then for half the time since), and how often a running
	// task checks whether another instance cancelled it; zero means
	// DefaultPollInterval.
	PollInterval time.Duration
	// Lease is how long a task stays working without word from the
	// instance that runs it: that instance renews the lease of each of
	// its runs about every third of Lease, and a task whose lease has
	// lapsed (its instance was killed, or cut off from the store) is
	// failed by the next tasks/get, on any instance, with the status
	// message [LapsedMessage] and the error -32603, but for the instance
	// that runs it, which renews the lease instead (its run is alive; the
	// store stalled). The instances' clocks must agree to well within
	// Lease. Zero means DefaultLease; it is at least three milliseconds.
	Lease time.Duration
	// InlineWait is how long a call of a [TaskOptional] tool from a client
	// that declared the extension waits for the tool: a tool that returns
	// a result within it (not a suspension; a tool that panics makes a
	// failed task) is answered within the call, as the extension allows,
	// and no task is stored; else the call becomes a task while its tool
	// goes on running. Zero means DefaultInlineWait; a negative InlineWait
	// makes every such call a task at once. A [TaskRequired] tool is
	// always a task.
	InlineWait time.Duration
	// Principal returns the authenticated user a request is made for:
	// a task is bound to the user of the call that created it, and any
	// other user's request is answered as for an unknown task. Nil means,
	// as the mcpbridge package binds a call, [requeststate.Principal] of
	// the issuer (the string under "iss" in the token's Extra, if any) and
	// the UserID of the request's token (extra.TokenInfo), or no user
	// without a token. A request with a token for which the principal is
	// empty (a TokenInfo without UserID) is refused with -32603, never
	// bound to no user: tools/call, tasks/get, tasks/update and
	// tasks/cancel alike. extra is nil on a transport that is not HTTP.
	Principal func(extra *mcp.RequestExtra) string
}

// Server serves the tasks of the tools added to it on one SDK server: it
// advertises the extension in server/discover, serves tasks/get,
// tasks/update and tasks/cancel, and turns the calls of its tools into
// tasks. A Server is safe for concurrent use. Every instance that may
// receive a request about a task (the instances behind one load
// balancer) needs a Server whose runner's Sealer has the same keys and
// audience, whose runner's [park.Runner] has the same Store, the same
// tools and the same [TaskStore]; an instance runs the tools of the tasks
// it created and of those whose answers it received.
type Server struct {
	sdk       *mcp.Server
	bridge    *mcpbridge.Bridge
	store     TaskStore
	ttl, poll time.Duration
	lease     time.Duration
	inline    time.Duration
	park      park.Runner
	principal func(*mcp.RequestExtra) string

	base    context.Context // the context of every run, ended by Shutdown
	stop    context.CancelFunc
	runs    sync.WaitGroup
	mu      sync.Mutex
	tools   map[string]*Tool
	running map[string]*run // the runs of this instance, by task, until their outcome is stored
}

// New returns a Server of the tasks of server, an SDK server, whose calls
// run their multi round trips with r, the core that seals their state
// (see [mcpcall.Runner]). Every tool, within a call or as a task, runs
// through r's [park.Runner] ([mcpcall.Runner.Park]): its clock is the
// tasks' clock, its Expiry how long a request asked without ExpiresAt can
// be answered (a task's own requests too), its Logger gets what a client
// is never told (the stack of a tool that panicked, a result that could not
// be stored), and its Store keeps the claims that answer each suspension
// of a task once. It adds the receiving middleware and the methods the
// extension needs to server; its HTTP handler should be wrapped in
// [RoutingHandler]. A nil opts is the zero [Options]. It reports
// [ErrInvalidOptions] for a nil server or runner, or a negative duration.
func New(server *mcp.Server, r *mcpcall.Runner, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case server == nil:
		return nil, fmt.Errorf("%w: no SDK server", ErrInvalidOptions)
	case r == nil:
		return nil, fmt.Errorf("%w: no mcpcall.Runner", ErrInvalidOptions)
	case o.TTL < 0:
		return nil, fmt.Errorf("%w: TTL %v is negative", ErrInvalidOptions, o.TTL)
	case o.PollInterval < 0:
		return nil, fmt.Errorf("%w: PollInterval %v is negative", ErrInvalidOptions, o.PollInterval)
	case o.Lease < 0:
		return nil, fmt.Errorf("%w: Lease %v is negative", ErrInvalidOptions, o.Lease)
	}
	s := &Server{
		sdk:       server,
		store:     o.Store,
		ttl:       cmp.Or(o.TTL, DefaultTTL).Truncate(time.Millisecond),
		poll:      cmp.Or(o.PollInterval, DefaultPollInterval).Truncate(time.Millisecond),
		lease:     cmp.Or(o.Lease, DefaultLease).Truncate(time.Millisecond),
		inline:    cmp.Or(o.InlineWait, DefaultInlineWait),
		park:      r.Park(),
		principal: o.Principal,
		tools:     map[string]*Tool{},
		running:   map[string]*run{},
	}
	if s.ttl <= 0 || s.poll <= 0 || s.lease < 3*time.Millisecond {
		return nil, fmt.Errorf("%w: TTL and PollInterval must be at least a millisecond, Lease at least three", ErrInvalidOptions)
	}
	if s.store == nil {
		s.store = newMemoryStore(s.now)
	}
	bridge, err := mcpbridge.New(r, &mcpbridge.Options{
		Principal: func(req *mcp.CallToolRequest) string { return s.principalOf(req.Extra) },
	})
	if err != nil {
		return nil, err
	}
	s.bridge = bridge
	s.base, s.stop = context.WithCancel(context.Background())
	if err := s.addMethods(); err != nil {
		return nil, fmt.Errorf("mcptasks: %w", err)
	}
	server.AddReceivingMiddleware(s.middleware)
	return s, nil
}

// Bridge returns the bridge that runs the multi round trips of the calls
// of s's tools: a tool that never runs as a task is added to the SDK
// server with [mcpbridge.Handler] or [mcpbridge.CallHandler] of it.
func (s *Server) Bridge() *mcpbridge.Bridge { return s.bridge }

// AddTool adds t to s and to its SDK server, whose tools/list then lists
// it. It reports [ErrInvalidTool] for a Tool without an MCP tool, a name
// or Run, with an input schema that the SDK refuses, or whose name s
// already serves.
func (s *Server) AddTool(t Tool) (err error) {
	switch {
	case t.Tool == nil || t.Tool.Name == "":
		return fmt.Errorf("%w: no MCP tool or no name", ErrInvalidTool)
	case t.Run == nil:
		return fmt.Errorf("%w: tool %q has no Run", ErrInvalidTool, t.Tool.Name)
	case t.Support != TaskOptional && t.Support != TaskRequired:
		return fmt.Errorf("%w: tool %q has task support %d", ErrInvalidTool, t.Tool.Name, t.Support)
	}
	mt := *t.Tool
	if mt.InputSchema == nil {
		mt.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if err := objectSchema(mt.InputSchema); err != nil {
		return fmt.Errorf("%w: tool %q: %v", ErrInvalidTool, mt.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.tools[mt.Name]; dup {
		return fmt.Errorf("%w: tool %q is served already", ErrInvalidTool, mt.Name)
	}
	defer func() {
		if p := recover(); p != nil { // the SDK panics on a schema it cannot resolve
			err = fmt.Errorf("%w: tool %q: %v", ErrInvalidTool, mt.Name, p)
		}
	}()
	tool := t
	tool.Tool = &mt
	mcp.AddTool(s.sdk, &mt, mcpbridge.CallHandler(s.bridge, s.handler(&tool)))
	s.tools[mt.Name] = &tool
	return nil
}

// objectSchema reports an error unless schema is a JSON object whose type
// is "object", as the SDK requires of an input schema.
func objectSchema(schema any) error {
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("input schema: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return errors.New("input schema is not a JSON object")
	}
	if string(m["type"]) != `"object"` {
		return errors.New(`input schema has no type "object"`)
	}
	return nil
}

// tool returns the tool of s named name, or nil.
func (s *Server) tool(name string) *Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools[name]
}

// Shutdown stops s: it cancels the context of every tool that runs on this
// instance and waits until each has returned, or until ctx is done, whose
// error it then returns. A task whose tool was stopped so is failed, with
// a status message that says why. s serves no new run after Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// now returns the current time by the clock of s's park.Runner.
func (s *Server) now() time.Time { return s.park.Now() }

// log returns the logger of s's park.Runner.
func (s *Server) log() *slog.Logger { return s.park.Log() }

// principalOf returns the user a request with extra is made for.
func (s *Server) principalOf(extra *mcp.RequestExtra) string {
	if s.principal != nil {
		return s.principal(extra)
	}
	if extra == nil || extra.TokenInfo == nil || extra.TokenInfo.UserID == "" {
		return ""
	}
	issuer, _ := extra.TokenInfo.Extra["iss"].(string)
	return requeststate.Principal(issuer, extra.TokenInfo.UserID)
}
