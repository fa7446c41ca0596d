// Package progress carries the listener of a running tool's progress in
// its context: the root's ReportProgress reports to it, and the Runner of
// package park installs it for a carrier. Users of the module never name
// it.
package progress

import "context"

// Func is a listener of progress: done of total (0 when unknown), and a
// message.
type Func func(done, total float64, message string)

// key is the context key of the listener.
type key struct{}

// With returns ctx with fn as its listener; a nil fn returns ctx.
func With(ctx context.Context, fn Func) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, fn)
}

// Report hands done, total and message to ctx's listener, if it has one.
func Report(ctx context.Context, done, total float64, message string) {
	if fn, ok := ctx.Value(key{}).(Func); ok {
		fn(done, total, message)
	}
}
