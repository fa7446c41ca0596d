// Package bridgetest is what the tests of the MCP bridges (the mcpbridge
// module on the go-sdk, mcpgobridge on mark3labs/mcp-go) share that no SDK
// has: the [mcpcall.Runner] a test server runs its calls with, made from a
// key and the options of the state and of the core, a log a test reads
// back while the server writes it, the scenarios both example servers
// keep, and a redis-server for their claims; and the cases, tool and
// clock of the expiry tests of the framework bridges (einobridge,
// genkitbridge), and the check of their panic log. It depends on the standard
// library and the main module alone; users of the module never name it.
package bridgetest

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// Config configures the Runner of a test server: State the options of its
// Sealer, whose Keys open states besides the key that seals them, and
// Runner the options of the core. The zero Config is ready to use.
type Config struct {
	State  requeststate.Options
	Runner mcpcall.Options
}

// Runner returns a Runner whose Sealer seals states with key and opens
// them with key and c.State.Keys, as c configures it, and a logger that
// discards all when c sets none. It stops the test on an error.
func Runner(t testing.TB, key []byte, c Config) *mcpcall.Runner {
	t.Helper()
	c.State.Keys = append([][]byte{key}, c.State.Keys...)
	sealer, err := requeststate.NewSealer(c.State)
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	if c.Runner.Park.Logger == nil {
		c.Runner.Park.Logger = slog.New(slog.DiscardHandler)
	}
	r, err := mcpcall.NewRunner(sealer, c.Runner)
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	return r
}

// Log is a log a test reads back while a server writes it, from any
// goroutine: the writer of a [slog.TextHandler].
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the log.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns what has been written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Logger returns a text logger that writes to l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, nil))
}

// Scenario is one call of a tool of the example servers (mcpbridge's on
// the go-sdk, mcpgobridge's on mcp-go) and the person's answer to its
// question, with what the client must end with: the contract both servers
// keep, which every client of their tests checks. Its JSON is what the
// TypeScript client of the tests reads.
type Scenario struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Action    string         `json:"action"`
	Content   map[string]any `json:"content,omitempty"`

	// Asked is the question, as [Question] writes it; Text is the text of
	// the result, and IsError whether it is an error.
	Asked   string `json:"-"`
	Text    string `json:"-"`
	IsError bool   `json:"-"`
}

// Name names s in a test: its tool and the person's action.
func (s Scenario) Name() string { return s.Tool + " " + s.Action }

// Scenarios are the calls of every tool of the example servers with each
// answer a person may give.
var Scenarios = []Scenario{
	{Tool: "deploy", Arguments: map[string]any{"env": "prod"}, Action: "accept", Asked: "form: Deploy to prod?", Text: "deployed to prod"},
	{Tool: "deploy", Arguments: map[string]any{"env": "staging"}, Action: "decline", Asked: "form: Deploy to staging?", Text: "deploy to staging declined", IsError: true},
	{Tool: "deploy", Arguments: map[string]any{"env": "prod"}, Action: "cancel", Asked: "form: Deploy to prod?", Text: "deploy to prod cancelled", IsError: true},
	{Tool: "login", Action: "accept", Asked: "url: Authorization required to continue https://example.com/login", Text: "signed in"},
	{Tool: "login", Action: "decline", Asked: "url: Authorization required to continue https://example.com/login", Text: "login declined", IsError: true},
	{Tool: "login", Action: "cancel", Asked: "url: Authorization required to continue https://example.com/login", Text: "login declined", IsError: true},
	{Tool: "pick", Action: "accept", Content: map[string]any{"answer": "prod"}, Asked: "form: Which environment?", Text: "picked prod"},
	{Tool: "pick", Action: "decline", Asked: "form: Which environment?", Text: "nothing picked", IsError: true},
}

// Gated is the deploy tool of the bridges' gate tests: it deploys to the
// env of its arguments, behind an approval.Gate whose policy asks
// "Deploy to production?" for env prod only, and counts its runs; the
// gate reads a clock the test sets.
type Gated struct {
	// Tool is the gated tool, for a bridge to serve.
	Tool toolnexus.Tool
	runs atomic.Int32
	now  atomic.Pointer[time.Time]
}

// NewGated returns the gated deploy tool, its clock at start (set it as the
// Time of the park.Runner that runs it). It stops the test on an error.
func NewGated(t testing.TB, start time.Time) *Gated {
	t.Helper()
	g := &Gated{}
	g.now.Store(&start)
	type deployIn struct {
		Env string `json:"env"`
	}
	inner := toolnexus.ToolFor(func(_ context.Context, in deployIn, _ toolnexus.Answers) toolnexus.ToolResult {
		g.runs.Add(1)
		return toolnexus.Ok("deployed to " + in.Env)
	})
	onlyProd := func(_ context.Context, args json.RawMessage) (toolnexus.Request, bool) {
		var in deployIn
		if err := toolnexus.DecodeArguments(args, &in); err == nil && in.Env != "prod" {
			return toolnexus.Request{}, false
		}
		return toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to production?"}, true
	}
	tool, err := approval.Gate(inner, onlyProd, nil)
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	g.Tool = tool
	return g
}

// Park returns the park.Runner to run the gated tool with: its clock is
// the gate's, its refusals logged nowhere.
func (g *Gated) Park() park.Runner {
	return park.Runner{Time: g.Now, Logger: slog.New(slog.DiscardHandler)}
}

// Run runs the gated tool once with args and answers, as [Gated.Park]
// runs it, without a claim of its own.
func (g *Gated) Run(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	res, _ := g.Park().Exec(ctx, park.Call{Tool: "deploy", Arguments: args, Answers: answers}, g.Tool)
	return res
}

// Runs returns how many times the deploy tool behind the gate has run.
func (g *Gated) Runs() int32 { return g.runs.Load() }

// Now returns the time of the gate's clock.
func (g *Gated) Now() time.Time { return *g.now.Load() }

// SetNow sets the gate's clock to at.
func (g *Gated) SetNow(at time.Time) { g.now.Store(&at) }

// Question describes an elicitation as [Scenario].Asked does: its mode,
// message and URL.
func Question(mode, message, url string) string {
	return strings.TrimSpace(mode + ": " + message + " " + url)
}

// FreeAddr returns an address of 127.0.0.1 with a port nothing listens on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// StartRedis starts a redis-server (the Debian package redis-server)
// without persistence on a free port of 127.0.0.1, stops it when the test
// ends, and returns its address.
func StartRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("bridgetest: redis-server is needed (apt-get install -y redis-server): %v", err)
	}
	addr := FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	var out Log
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("bridgetest: redis-server did not start on %s:\n%s", addr, out.String())
	return ""
}

// Part returns the part of b, which must make one, as [toolnexus.PartFromBytes]
// makes it.
func Part(t testing.TB, b []byte, mimeType string) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromBytes(b, mimeType)
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	return p
}

// URLPart returns the part by the URL u, which must make one, as
// [toolnexus.PartFromURL] makes it.
func URLPart(t testing.TB, u, mimeType string) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromURL(u, mimeType)
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	return p
}

// ViaJSON returns r as an SDK's result type T reads it from the JSON of
// [toolnexus.ToolResult.MCPCallToolResult]: the conversion a bridge's
// CallToolResult replaces, which its tests compare it with.
func ViaJSON[T any](t testing.TB, r toolnexus.ToolResult) *T {
	t.Helper()
	data, err := json.Marshal(r.MCPCallToolResult())
	if err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	var res T
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("bridgetest: %v", err)
	}
	return &res
}
