package otelpark_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/otelpark"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// secret is in the arguments and the answers of every call: no attribute
// may carry it.
const secret = "hunter2-secret"

// telemetry is an Observer with in-memory exporters.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	obs    park.Observer
}

func newTelemetry(t *testing.T, o otelpark.Options) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	o.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(tel.spans))
	o.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	obs, err := otelpark.New(&o)
	require.NoError(t, err)
	tel.obs = obs
	return tel
}

// names returns the names of the spans ended so far, in order.
func (tel *telemetry) names() []string {
	var out []string
	for _, s := range tel.spans.GetSpans() {
		out = append(out, s.Name)
	}
	return out
}

// span returns the attributes of the first span named name, as strings.
func (tel *telemetry) span(t *testing.T, name string) map[string]string {
	t.Helper()
	for _, s := range tel.spans.GetSpans() {
		if s.Name == name {
			attrs := map[string]string{}
			for _, kv := range s.Attributes {
				attrs[string(kv.Key)] = kv.Value.String()
			}
			attrs["status"] = s.Status.Code.String()
			return attrs
		}
	}
	t.Fatalf("no span %q in %v", name, tel.names())
	return nil
}

// sums returns the value of each point of the metric name, keyed by its
// attributes written as k=v joined by commas, sorted.
func (tel *telemetry) sums(t *testing.T, name string) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tel.reader.Collect(context.Background(), &rm))
	out := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[attrKey(p.Attributes.ToSlice())] += float64(p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[attrKey(p.Attributes.ToSlice())] += float64(p.Count)
				}
			}
		}
	}
	return out
}

// leaks asserts that no span attribute holds the secret.
func (tel *telemetry) leaks(t *testing.T) {
	t.Helper()
	for _, s := range tel.spans.GetSpans() {
		for _, kv := range s.Attributes {
			assert.NotContains(t, kv.Value.String(), secret, "span %s attribute %s", s.Name, kv.Key)
		}
		for _, e := range s.Events {
			for _, kv := range e.Attributes {
				assert.NotContains(t, kv.Value.String(), secret, "span %s event %s", s.Name, e.Name)
			}
		}
	}
}

// deploy asks an approval carrying the secret, then deploys.
func deploy(runs *atomic.Int32) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		if len(answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy?", Data: map[string]any{"token": secret}})
		}
		runs.Add(1)
		return toolnexus.Ok("deployed")
	}
}

// clock is a time the test moves.
type clock struct{ now atomic.Pointer[time.Time] }

func newClock(at time.Time) *clock   { c := &clock{}; c.now.Store(&at); return c }
func (c *clock) Now() time.Time      { return *c.now.Load() }
func (c *clock) Add(d time.Duration) { at := c.Now().Add(d); c.now.Store(&at) }

var start = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)

func TestTurn(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t, otelpark.Options{})
	clk := newClock(start)
	r := park.Runner{Observer: tel.obs, Time: clk.Now, Store: park.NewMemoryStore(0, 0)}
	var runs atomic.Int32
	tools := map[string]toolnexus.Tool{"deploy": deploy(&runs)}
	ctx := context.Background()
	call := toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"` + secret + `"}`)}

	parked, err := r.RunTurn(ctx, tools, call)
	require.NoError(t, err)
	clk.Add(90 * time.Second)
	answer := parked.Waiting()[0].Request.Resolve(map[string]any{"note": secret})
	_, err = r.Resume(ctx, tools, parked, answer)
	require.NoError(t, err)
	_, err = r.Resume(ctx, tools, parked, answer) // a replay
	require.NoError(t, err)
	assert.Equal(t, int32(1), runs.Load())

	// Another call parks and expires.
	late, err := r.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call_2", Name: "deploy"})
	require.NoError(t, err)
	clk.Add(park.DefaultExpiry)
	_, err = r.Resume(ctx, tools, late, late.Waiting()[0].Request.Resolve(nil))
	require.ErrorIs(t, err, toolnexus.ErrExpired)

	assert.Equal(t, []string{
		"execute_tool deploy", "park.parked deploy",
		"park.answered deploy", "execute_tool deploy",
		"park.replayed deploy",
		"execute_tool deploy", "park.parked deploy",
		"park.refused deploy",
	}, tel.names())
	run := tel.span(t, "execute_tool deploy")
	assert.Equal(t, map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "deploy", "gen_ai.tool.call.id": "call_1",
		"toolnexus.tool.outcome": "parked", "status": "Unset",
	}, run)
	parkedSpan := tel.span(t, "park.parked deploy")
	assert.Equal(t, `["approval"]`, parkedSpan["toolnexus.park.request.kinds"])
	assert.Equal(t, parked.Calls[0].Parked, parkedSpan["toolnexus.park.id"])
	answered := tel.span(t, "park.answered deploy")
	assert.Equal(t, "90", answered["toolnexus.park.waited"])
	assert.Equal(t, "expired", tel.span(t, "park.refused deploy")["toolnexus.park.refusal.reason"])
	tel.leaks(t)

	assert.Equal(t, map[string]float64{
		"gen_ai.tool.name=deploy,toolnexus.tool.outcome=parked": 2,
		"gen_ai.tool.name=deploy,toolnexus.tool.outcome=ok":     1,
	}, tel.sums(t, "toolnexus.tool.runs"))
	assert.Equal(t, map[string]float64{"gen_ai.tool.name=deploy": 0}, tel.sums(t, "toolnexus.park.pending"))
	assert.Equal(t, map[string]float64{"gen_ai.tool.name=deploy,toolnexus.park.event=answered": 1}, tel.sums(t, "toolnexus.park.wait"))
	assert.Equal(t, map[string]float64{
		"gen_ai.tool.name=deploy,toolnexus.park.refusal.reason=replayed": 1,
		"gen_ai.tool.name=deploy,toolnexus.park.refusal.reason=expired":  1,
	}, tel.sums(t, "toolnexus.park.refusals"))
}

func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t, otelpark.Options{Arguments: true})
	r := park.Runner{Observer: tel.obs, Logger: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	fail := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Error("no such env")
	}
	boom := func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult { panic(secret) }
	_, err := r.Exec(ctx, park.Call{Tool: "fail", Arguments: json.RawMessage(`{"env":"x"}`)}, fail)
	require.NoError(t, err)
	_, err = r.Exec(ctx, park.Call{Tool: "boom"}, boom)
	require.ErrorIs(t, err, toolnexus.ErrToolPanicked)

	failed := tel.span(t, "execute_tool fail")
	assert.Equal(t, "tool_error", failed["error.type"])
	assert.Equal(t, "Unset", failed["status"], "a failed result is not a failed span")
	assert.Equal(t, `{"env":"x"}`, failed["gen_ai.tool.call.arguments"], "arguments, opted into")
	panicked := tel.span(t, "execute_tool boom")
	assert.Equal(t, "panic", panicked["error.type"])
	assert.Equal(t, "Error", panicked["status"])
	tel.leaks(t)
	assert.Equal(t, map[string]float64{
		"error.type=tool_error,gen_ai.tool.name=fail": 1,
		"error.type=panic,gen_ai.tool.name=boom":      1,
	}, tel.sums(t, "gen_ai.execute_tool.duration"))
}

func TestMCP(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t, otelpark.Options{})
	clk := newClock(start)
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte(strings.Repeat("k", 32))}, Audience: "test"})
	require.NoError(t, err)
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: park.Runner{Observer: tel.obs, Time: clk.Now, Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	var runs atomic.Int32
	ctx := context.Background()
	client := mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}
	call := mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"` + secret + `"}`), Client: client}
	first, err := runner.Run(ctx, call, deploy(&runs))
	require.NoError(t, err)
	clk.Add(time.Minute)
	retry := call
	retry.RequestState = first.RequestState
	retry.InputResponses = map[string]json.RawMessage{"approve": json.RawMessage(`{"action":"accept","content":{"note":"` + secret + `"}}`)}
	for range 3 {
		_, err = runner.Run(ctx, retry, deploy(&runs))
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), runs.Load())
	clk.Add(park.DefaultExpiry)
	_, err = runner.Run(ctx, retry, deploy(&runs))
	require.ErrorIs(t, err, toolnexus.ErrExpired)

	assert.Equal(t, []string{
		"execute_tool deploy", "park.parked deploy",
		"park.answered deploy", "execute_tool deploy",
		"park.replayed deploy", "park.replayed deploy",
		"park.refused deploy",
	}, tel.names())
	assert.Equal(t, "60", tel.span(t, "park.answered deploy")["toolnexus.park.waited"])
	assert.Equal(t, "expired", tel.span(t, "park.refused deploy")["toolnexus.park.refusal.reason"])
	tel.leaks(t)
	assert.Equal(t, map[string]float64{
		"gen_ai.tool.name=deploy,toolnexus.park.refusal.reason=replayed": 2,
		"gen_ai.tool.name=deploy,toolnexus.park.refusal.reason=expired":  1,
	}, tel.sums(t, "toolnexus.park.refusals"))
}

// attrKey writes attributes as k=v joined by commas, sorted.
func attrKey(kvs []attribute.KeyValue) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = string(kv.Key) + "=" + kv.Value.String()
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// leakValues holds, for every exported type of the module's packages,
// values of it holding data, a payload (base64 of random bytes, in a data
// URL, in raw JSON arguments, a key), that must print and log no part of
// it; a type that can hold none says why instead.
var leakValues = leaktest.Values{
	"otelpark.Options": nil, // two providers and a boolean
}

// TestNoTypePrintsPayload runs the repository's leak test on the module:
// every exported type needs an entry in leakValues, and none prints the
// payload its values hold.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	leaktest.Check(t, "otelpark", leakValues)
}
