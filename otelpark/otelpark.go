// Package otelpark turns what a park.Runner sees into OpenTelemetry
// traces and metrics: a span per tool run, named as the GenAI semantic
// conventions name it (execute_tool {tool}), a span per step in the life of
// a parked call (park.parked {tool}, park.answered {tool}, park.declined
// {tool}, park.replayed {tool}, park.refused {tool}), and metrics of runs,
// errors, parked calls, time to an answer and refusals.
// It never records a payload: no argument, answer or result data, unless
// [Options].Arguments opts into the call's arguments. Set it as the
// Runner's Observer, on every carrier alike:
//
//	obs, err := otelpark.New(nil) // the global providers
//	runner := park.Runner{Observer: obs}
//
// It is a module of its own so that users of toolnexus without
// OpenTelemetry never download it. It requires, and is tested with,
// go.opentelemetry.io/otel v1.44.0, the version ADK for Go v2.2.0 builds
// with: a program that uses adkbridge cannot build with otel v1.47.0,
// whose otel/log ADK's telemetry does not compile against, so otelpark
// asks for no newer one than it needs. A program without ADK may use any
// later otel v1.
package otelpark

import (
	"context"
	"errors"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/toolnexus-go/toolnexus/otelpark"

// The attribute keys it writes, beside the GenAI conventions'
// gen_ai.operation.name, gen_ai.tool.name, gen_ai.tool.call.id and
// gen_ai.tool.call.arguments, and error.type.
const (
	// AttrPark is the id of a parking.
	AttrPark = attribute.Key("toolnexus.park.id")
	// AttrEvent is the step of a parking's life (park.Event's Kind).
	AttrEvent = attribute.Key("toolnexus.park.event")
	// AttrKinds are the kinds of the requests a parking asks.
	AttrKinds = attribute.Key("toolnexus.park.request.kinds")
	// AttrReason is why a resume was refused.
	AttrReason = attribute.Key("toolnexus.park.refusal.reason")
	// AttrWaited is how long a parking waited, in seconds.
	AttrWaited = attribute.Key("toolnexus.park.waited")
	// AttrOutcome is how a run ended: ok, error, parked or panic.
	AttrOutcome = attribute.Key("toolnexus.tool.outcome")
)

// The semantic conventions' keys.
const (
	attrOperation = attribute.Key("gen_ai.operation.name")
	attrTool      = attribute.Key("gen_ai.tool.name")
	attrCallID    = attribute.Key("gen_ai.tool.call.id")
	attrArguments = attribute.Key("gen_ai.tool.call.arguments")
	attrErrorType = attribute.Key("error.type")
)

// Options configures the Observer of [New]. The zero Options is ready to
// use: the global providers, and no arguments recorded.
type Options struct {
	// TracerProvider makes the tracer; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Arguments, when set, records each call's arguments, as the model
	// sent them, in gen_ai.tool.call.arguments: they may hold what a
	// person would not want in a trace, so it is off unless asked.
	Arguments bool
}

// observer is the park.Observer of [New].
type observer struct {
	tracer    trace.Tracer
	arguments bool
	duration  metric.Float64Histogram
	runs      metric.Int64Counter
	parked    metric.Int64UpDownCounter
	waited    metric.Float64Histogram
	refusals  metric.Int64Counter
}

// New returns a park.Observer that records OpenTelemetry spans and metrics
// as the package says; a nil opts is the zero [Options]. Its metrics:
//
//   - gen_ai.execute_tool.duration (s): each run, by gen_ai.tool.name and
//     error.type;
//   - toolnexus.tool.runs: runs by gen_ai.tool.name and
//     toolnexus.tool.outcome (ok, error, parked, panic);
//   - toolnexus.park.pending: calls parked and not yet answered, declined,
//     or refused as expired, by tool;
//   - toolnexus.park.wait (s): the time from parking to answer, by tool
//     and toolnexus.park.event (answered or declined);
//   - toolnexus.park.refusals: resumes refused, by tool and
//     toolnexus.park.refusal.reason, replays answered from the kept result
//     among them (reason "replayed").
//
// It reports the meter's error for an instrument it cannot make.
func New(opts *Options) (park.Observer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	tp, mp := o.TracerProvider, o.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	obs := &observer{tracer: tp.Tracer(ScopeName), arguments: o.Arguments}
	var errs [5]error
	obs.duration, errs[0] = m.Float64Histogram("gen_ai.execute_tool.duration", metric.WithUnit("s"), metric.WithDescription("How long a tool ran."))
	obs.runs, errs[1] = m.Int64Counter("toolnexus.tool.runs", metric.WithUnit("{run}"), metric.WithDescription("Runs of a tool, by outcome."))
	obs.parked, errs[2] = m.Int64UpDownCounter("toolnexus.park.pending", metric.WithUnit("{call}"), metric.WithDescription("Calls parked and not yet answered."))
	obs.waited, errs[3] = m.Float64Histogram("toolnexus.park.wait", metric.WithUnit("s"), metric.WithDescription("How long a parked call waited for its answer."))
	obs.refusals, errs[4] = m.Int64Counter("toolnexus.park.refusals", metric.WithUnit("{resume}"), metric.WithDescription("Resumes refused, by reason."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return obs, nil
}

// Run starts the span of one run of c's tool and returns the function
// that ends it with the run's outcome.
func (o *observer) Run(ctx context.Context, c park.Call) (context.Context, func(toolnexus.ToolResult, error)) {
	attrs := []attribute.KeyValue{attrOperation.String("execute_tool"), attrTool.String(c.Tool)}
	if c.ID != "" {
		attrs = append(attrs, attrCallID.String(c.ID))
	}
	if c.Park != "" {
		attrs = append(attrs, AttrPark.String(c.Park))
	}
	if o.arguments && len(c.Arguments) > 0 {
		attrs = append(attrs, attrArguments.String(string(c.Arguments)))
	}
	ctx, span := o.tracer.Start(ctx, "execute_tool "+c.Tool, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	start := time.Now()
	return ctx, func(res toolnexus.ToolResult, panicked error) {
		outcome, errType := "ok", ""
		switch {
		case panicked != nil:
			outcome, errType = "panic", "panic"
			span.SetStatus(codes.Error, "tool panicked")
		case res.IsPending():
			outcome = "parked"
		case res.IsError:
			// A failed result is what the model reads, not a failed span.
			outcome, errType = "error", "tool_error"
		}
		span.SetAttributes(AttrOutcome.String(outcome))
		tool := attrTool.String(c.Tool)
		set := []attribute.KeyValue{tool}
		if errType != "" {
			span.SetAttributes(attrErrorType.String(errType))
			set = append(set, attrErrorType.String(errType))
		}
		span.End()
		o.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(set...))
		o.runs.Add(ctx, 1, metric.WithAttributes(tool, AttrOutcome.String(outcome)))
	}
}

// Event records one step in a parking's life: a span of its own, and the
// metrics it moves.
func (o *observer) Event(ctx context.Context, e park.Event) {
	attrs := []attribute.KeyValue{attrTool.String(e.Tool), AttrEvent.String(e.Kind)}
	if e.CallID != "" {
		attrs = append(attrs, attrCallID.String(e.CallID))
	}
	if e.Park != "" {
		attrs = append(attrs, AttrPark.String(e.Park))
	}
	if len(e.Kinds) > 0 {
		attrs = append(attrs, AttrKinds.StringSlice(e.Kinds))
	}
	if e.Reason != "" {
		attrs = append(attrs, AttrReason.String(e.Reason))
	}
	if e.Waited > 0 {
		attrs = append(attrs, AttrWaited.Float64(e.Waited.Seconds()))
	}
	_, span := o.tracer.Start(ctx, "park."+e.Kind+" "+e.Tool, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	span.End()
	tool := metric.WithAttributes(attrTool.String(e.Tool))
	switch e.Kind {
	case park.EventParked:
		o.parked.Add(ctx, 1, tool)
	case park.EventAnswered, park.EventDeclined:
		o.parked.Add(ctx, -1, tool)
		if e.Waited > 0 {
			o.waited.Record(ctx, e.Waited.Seconds(), metric.WithAttributes(attrTool.String(e.Tool), AttrEvent.String(e.Kind)))
		}
	case park.EventReplayed:
		o.refusals.Add(ctx, 1, metric.WithAttributes(attrTool.String(e.Tool), AttrReason.String("replayed")))
	case park.EventRefused:
		if e.Reason == "expired" {
			o.parked.Add(ctx, -1, tool)
		}
		o.refusals.Add(ctx, 1, metric.WithAttributes(attrTool.String(e.Tool), AttrReason.String(e.Reason)))
	}
}
