package mcpbridge_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
)

// benchSizes are the image payloads of the benchmarks.
var benchSizes = []struct {
	name string
	n    int
}{
	{"1MiB", 1 << 20},
	{"16MiB", 16 << 20},
}

// benchImage returns n random bytes, the same on every run.
func benchImage(n int) []byte {
	b := make([]byte, n)
	mathrand.NewChaCha8([32]byte{}).Read(b)
	return b
}

// BenchmarkCallToolResult converts a result with one image to the SDK's
// type: typed, and through the JSON bridge it replaces.
func BenchmarkCallToolResult(b *testing.B) {
	for _, size := range benchSizes {
		p, err := toolnexus.PartFromBytes(benchImage(size.n), "image/png")
		if err != nil {
			b.Fatal(err)
		}
		r := toolnexus.Ok("screenshot.png (image/png)", p)
		impls := []struct {
			name string
			run  func() error
		}{
			{"typed", func() error {
				mcpbridge.CallToolResult(r)
				return nil
			}},
			{"json", func() error {
				data, err := json.Marshal(r.MCPCallToolResult())
				if err != nil {
					return err
				}
				var res mcp.CallToolResult
				return json.Unmarshal(data, &res)
			}},
		}
		for _, impl := range impls {
			b.Run("size="+size.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size.n))
				for b.Loop() {
					if err := impl.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFromCallToolResult reads a result of the SDK with one image:
// typed, and through the JSON bridge it replaces.
func BenchmarkFromCallToolResult(b *testing.B) {
	for _, size := range benchSizes {
		res := &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "screenshot.png (image/png)"},
			&mcp.ImageContent{Data: benchImage(size.n), MIMEType: "image/png"},
		}}
		impls := []struct {
			name string
			run  func() (toolnexus.ToolResult, error)
		}{
			{"typed", func() (toolnexus.ToolResult, error) { return mcpbridge.FromCallToolResult(res) }},
			{"json", func() (toolnexus.ToolResult, error) {
				data, err := json.Marshal(res)
				if err != nil {
					return toolnexus.ToolResult{}, err
				}
				return toolnexus.FromMCPCallToolResult(data)
			}},
		}
		for _, impl := range impls {
			b.Run("size="+size.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size.n))
				for b.Loop() {
					r, err := impl.run()
					if err != nil || len(r.Parts) != 1 {
						b.Fatal(err, len(r.Parts))
					}
				}
			})
		}
	}
}

// The round-trip benchmarks run a tool over the SDK's in-memory transport,
// a client and a server in this process, with 1, 16 and 256 calls in
// flight on one session: side toolnexus is a tool of mcpbridge.Handler,
// side baseline the same tool as a plain handler of the SDK. Both sides run
// in one process, in alternating batches (see benchRoundTrip), and each
// benchmark reports both sides and their ratio:
//
//	cd mcpbridge && go test -run '^$' -bench 'Elicitation|TextCall' -benchtime 40x -count 6 -cpu 1,2 .

// inFlights are the calls in flight of the round-trip benchmarks.
var inFlights = []int{1, 16, 256}

// benchIn is the input of the round-trip benchmarks' tools.
type benchIn struct {
	To string `json:"to"`
}

// benchArgs are the arguments every call of a round-trip benchmark sends.
var benchArgs = map[string]any{"to": "ops@example.com"}

// benchKey seals the states of both sides of BenchmarkElicitation.
var benchKey = bytes.Repeat([]byte{0x42}, 32)

// roundTrip is one flow of a round-trip benchmark: a server with one tool,
// "send", and a client that accepts every elicitation.
type roundTrip struct {
	name string
	add  func(tb testing.TB, s *mcp.Server)
	want string // the text of the call's result
}

// askedID is the ID under which the tools of BenchmarkElicitation ask for
// the approval, the same on both sides, so that the messages of each side
// differ only by what the bridge adds, its state.
const askedID = "approve"

// bridgeTool is the tool "send" of mcpbridge: with elicit, it asks for an
// approval, then says "sent to" its address; without, it answers "hello"
// at once.
func bridgeTool(elicit bool) func(testing.TB, *mcp.Server) {
	return func(tb testing.TB, s *mcp.Server) {
		b, err := mcpbridge.New(bridgetest.Runner(tb, benchKey, bridgetest.Config{}), nil)
		if err != nil {
			tb.Fatal(err)
		}
		mcp.AddTool(s, &mcp.Tool{Name: "send"}, mcpbridge.Handler(b, func(_ context.Context, in benchIn, a *toolnexus.Answer) toolnexus.ToolResult {
			switch {
			case !elicit:
				return toolnexus.Ok("hello " + in.To)
			case a == nil:
				return toolnexus.Pending(toolnexus.Request{ID: askedID, Kind: toolnexus.KindApproval, Prompt: "Send the report to " + in.To + "?"})
			case !a.OK:
				return toolnexus.Errorf("not sent")
			}
			return toolnexus.Ok("sent to " + in.To)
		}))
	}
}

// sdkState is what the baseline seals into its request state: the call it
// belongs to, what it asked and until when it may be answered, as the
// bridge's state binds them.
type sdkState struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Asked   string          `json:"asked"`
	Expires int64           `json:"expires"`
}

// sdkSealer seals and opens the baseline's states with AES-256-GCM, a
// random nonce before each ciphertext, in unpadded base64url.
type sdkSealer struct{ aead cipher.AEAD }

func newSDKSealer(tb testing.TB) sdkSealer {
	block, err := aes.NewCipher(benchKey)
	if err != nil {
		tb.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		tb.Fatal(err)
	}
	return sdkSealer{aead}
}

func (s sdkSealer) seal(st sdkState) (string, error) {
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil)), nil
}

func (s sdkSealer) open(state string) (sdkState, error) {
	var st sdkState
	sealed, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(sealed) < s.aead.NonceSize() {
		return st, errors.New("bad state")
	}
	plain, err := s.aead.Open(nil, sealed[:s.aead.NonceSize()], sealed[s.aead.NonceSize():], nil)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(plain, &st)
}

// sdkTool is bridgeTool as a plain handler of the SDK, on its own multi
// round-trip flow: an input_required result with an elicitation and a
// state sealed as sdkSealer does, opened and checked on the retry.
func sdkTool(elicit bool) func(testing.TB, *mcp.Server) {
	return func(tb testing.TB, s *mcp.Server) {
		sealer := newSDKSealer(tb)
		text := func(t string) *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}}
		}
		mcp.AddTool(s, &mcp.Tool{Name: "send"}, func(_ context.Context, req *mcp.CallToolRequest, in benchIn) (*mcp.CallToolResult, any, error) {
			if !elicit {
				return text("hello " + in.To), nil, nil
			}
			p := req.Params
			if p.RequestState == "" {
				state, err := sealer.seal(sdkState{Tool: p.Name, Args: p.Arguments, Asked: askedID, Expires: time.Now().Add(10 * time.Minute).Unix()})
				if err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{askedID: &mcp.ElicitParams{
						Message:         "Send the report to " + in.To + "?",
						RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
					}},
					RequestState: state,
				}, nil, nil
			}
			st, err := sealer.open(p.RequestState)
			if err != nil || st.Tool != p.Name || !bytes.Equal(st.Args, p.Arguments) || time.Now().Unix() >= st.Expires {
				return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid or expired requestState"}
			}
			answer, ok := p.InputResponses[st.Asked].(*mcp.ElicitResult)
			if !ok || answer.Action != "accept" {
				return text("not sent"), nil, nil
			}
			return text("sent to " + in.To), nil, nil
		})
	}
}

// session connects a client that accepts every elicitation to a server
// with rt's tool, and returns the client's session and a function that
// closes both ends and waits for them.
func (rt roundTrip) session(tb testing.TB) (*mcp.ClientSession, func()) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.1"}, nil)
	rt.add(tb, s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return cs, func() {
		if err := cs.Close(); err != nil {
			tb.Error(err)
		}
		if err := ss.Wait(); err != nil {
			tb.Error(err)
		}
	}
}

// call calls the tool once and checks its result.
func (rt roundTrip) call(cs *mcp.ClientSession) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: benchArgs})
	if err != nil {
		return err
	}
	if len(res.Content) != 1 || res.IsError {
		return fmt.Errorf("result %+v", res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != rt.want {
		return fmt.Errorf("content %+v, want %q", res.Content[0], rt.want)
	}
	return nil
}

// run makes n calls, inFlight at a time.
func (rt roundTrip) run(cs *mcp.ClientSession, n, inFlight int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, inFlight)
	for i := range inFlight {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if errs[i] = rt.call(cs); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// roundTrips are the flows of the round-trip benchmarks, by job and side.
var roundTrips = map[string][2]roundTrip{
	"Elicitation": {
		{"toolnexus", bridgeTool(true), "sent to ops@example.com"},
		{"baseline", sdkTool(true), "sent to ops@example.com"},
	},
	"TextCall": {
		{"toolnexus", bridgeTool(false), "hello ops@example.com"},
		{"baseline", sdkTool(false), "hello ops@example.com"},
	},
}

// benchRoundTrip measures both sides of job at each number of calls in
// flight, paired, so that a machine whose speed drifts, as a shared one
// does, slows both alike. Each side has its own session, both open for the
// whole benchmark. Each of the b.N iterations is a round: a batch of calls
// on one side, then a batch of as many on the other, with the same number
// in flight, each batch after a garbage collection, so that it pays for
// its own garbage only; which side goes first alternates from round to
// round. A batch is 16 calls, or twice the calls in flight when that is
// more, so that every goroutine makes at least two. The metrics:
//
//   - ratio: the median over the rounds of the toolnexus batch's time over
//     the baseline batch's; ratio-q1 and ratio-q3 are the lower and upper
//     quartiles of these per-round ratios, their spread;
//   - cpu-ratio, cpu-ratio-q1, cpu-ratio-q3: the same of the CPU time the
//     process used during each batch (user and system, on Unix only), which
//     other processes on the machine disturb less; cpu-total-ratio is that
//     of each side's total CPU time;
//   - toolnexus-ns/call, baseline-ns/call: each side's total time over its
//     calls;
//   - toolnexus-allocs/call, baseline-allocs/call, toolnexus-B/call,
//     baseline-B/call: each side's allocations per call, the whole
//     process's (client, server and transport) while its batches ran, as
//     runtime.MemStats counts them.
//
// ns/op, B/op and allocs/op of the testing package are those of a round,
// garbage collections included. -benchtime 40x runs 40 rounds. On a shared
// machine, -cpu 1 (one P, the calls in flight still as many) gives the
// steadier ratios: per-round quartiles about 5% either side of the median,
// against 10 to 20% with two Ps.
func benchRoundTrip(b *testing.B, job string) {
	sides := roundTrips[job]
	for _, inFlight := range inFlights {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			batch := max(16, 2*inFlight)
			var sessions [2]*mcp.ClientSession
			for i, rt := range sides {
				cs, done := rt.session(b)
				defer done()
				if err := rt.run(cs, batch, inFlight); err != nil { // the pools filled
					b.Fatal(err)
				}
				sessions[i] = cs
			}
			var (
				took, cpu      [2]time.Duration
				mallocs, bytes [2]uint64
				ratios         = make([]float64, 0, b.N)
				cpuRatios      = make([]float64, 0, b.N)
				before, after  runtime.MemStats
				hasCPU         = true
			)
			b.ResetTimer()
			for round := range b.N {
				var t, c [2]time.Duration
				for k := range 2 {
					i := (k + round) % 2
					runtime.GC()
					runtime.ReadMemStats(&before)
					cpu0, ok0 := cpuTime()
					start := time.Now()
					err := sides[i].run(sessions[i], batch, inFlight)
					t[i] = time.Since(start)
					cpu1, ok1 := cpuTime()
					runtime.ReadMemStats(&after)
					if err != nil {
						b.Fatal(err)
					}
					c[i], hasCPU = cpu1-cpu0, hasCPU && ok0 && ok1
					took[i] += t[i]
					cpu[i] += c[i]
					mallocs[i] += after.Mallocs - before.Mallocs
					bytes[i] += after.TotalAlloc - before.TotalAlloc
				}
				ratios = append(ratios, float64(t[0])/float64(t[1]))
				cpuRatios = append(cpuRatios, float64(c[0])/float64(c[1]))
			}
			slices.Sort(ratios)
			b.ReportMetric(quantile(ratios, 0.5), "ratio")
			b.ReportMetric(quantile(ratios, 0.25), "ratio-q1")
			b.ReportMetric(quantile(ratios, 0.75), "ratio-q3")
			calls := float64(b.N * batch)
			if hasCPU {
				slices.Sort(cpuRatios)
				b.ReportMetric(quantile(cpuRatios, 0.5), "cpu-ratio")
				b.ReportMetric(quantile(cpuRatios, 0.25), "cpu-ratio-q1")
				b.ReportMetric(quantile(cpuRatios, 0.75), "cpu-ratio-q3")
				b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "cpu-total-ratio")
			}
			for i, rt := range sides {
				b.ReportMetric(float64(took[i].Nanoseconds())/calls, rt.name+"-ns/call")
				b.ReportMetric(float64(mallocs[i])/calls, rt.name+"-allocs/call")
				b.ReportMetric(float64(bytes[i])/calls, rt.name+"-B/call")
			}
		})
	}
}

// quantile returns the q quantile of sorted, interpolating between its two
// nearest elements.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[i]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// BenchmarkElicitation is one elicitation cycle: the call, its
// input_required result with a sealed state, the client's answer (the
// SDK's client fulfils the request and retries), and the completed result.
func BenchmarkElicitation(b *testing.B) { benchRoundTrip(b, "Elicitation") }

// BenchmarkTextCall is a call whose tool answers text at once.
func BenchmarkTextCall(b *testing.B) { benchRoundTrip(b, "TextCall") }

// TestRoundTripsLeaveNoGoroutine runs every flow of the round-trip
// benchmarks with 16 calls in flight and checks that, once its session is
// closed, no goroutine it started is left. Not parallel: it counts the
// process's goroutines.
func TestRoundTripsLeaveNoGoroutine(t *testing.T) {
	for job, sides := range roundTrips {
		for _, rt := range sides {
			t.Run(job+"/"+rt.name, func(t *testing.T) {
				before := runtime.NumGoroutine()
				cs, done := rt.session(t)
				require.NoError(t, rt.run(cs, 64, 16))
				done()
				deadline := time.Now().Add(5 * time.Second)
				for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
			})
		}
	}
}

// BenchmarkRelay calls the tools of an in-memory upstream directly, the
// baseline, and through a Relay: a call that completes at once, and a
// round (input_required, then the retry with the answer and the state).
func BenchmarkRelay(b *testing.B) {
	u := newUpstream(b)
	for _, via := range []struct {
		name   string
		server *mcp.Server
	}{{"direct", u.server}, {"relay", newRelay(b, u)}} {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		_, err := via.server.Connect(ctx, st, nil)
		require.NoError(b, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, manual).Connect(ctx, ct, nil)
		require.NoError(b, err)
		b.Cleanup(func() { cs.Close() })
		args := map[string]any{"env": "prod"}
		b.Run("call/"+via.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("round/"+via.name, func(b *testing.B) {
			b.ReportAllocs()
			answer := mcp.InputResponseMap{"ok": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}
			for b.Loop() {
				first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: args})
				if err != nil {
					b.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
				if err != nil || res.InputRequests != nil {
					b.Fatal(err, res)
				}
			}
		})
	}
}
