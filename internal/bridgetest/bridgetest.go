// Package bridgetest is what the tests of the MCP bridges (the mcpbridge
// module on the go-sdk, mcpgobridge on mark3labs/mcp-go) share that no SDK
// has: the [mcpcall.Runner] a test server runs its calls with, made from a
// key and the options of the state and of the core, and a log a test
// reads back while the server writes it. It depends on the standard
// library and the main module alone; users of the module never name it.
package bridgetest

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/toolnexus-go/toolnexus/mcpcall"
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
	if c.Runner.Logger == nil {
		c.Runner.Logger = slog.New(slog.DiscardHandler)
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
