// Package argmemo carries, in a running tool's context, what the Runner
// of package park established about the call's arguments: that they were
// checked, and their binding, computed once. The root's ToolFor and the
// gate of package approval read it instead of reading the arguments again.
// Users of the module never name it.
package argmemo

import (
	"context"
	"sync"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// memo is what is known of one call's arguments.
type memo struct {
	args    []byte
	once    sync.Once
	binding []byte
	err     error
}

// key is the context key of the memo.
type key struct{}

// With returns ctx with args marked as checked (a JSON object, names not
// repeated), and binding, when not nil, as their binding.
func With(ctx context.Context, args, binding []byte) context.Context {
	m := &memo{args: args}
	if binding != nil {
		m.once.Do(func() { m.binding = binding })
	}
	return context.WithValue(ctx, key{}, m)
}

// of returns the memo of ctx for args: the same bytes, at the same place.
func of(ctx context.Context, args []byte) *memo {
	m, ok := ctx.Value(key{}).(*memo)
	if !ok || len(m.args) != len(args) || len(args) == 0 || &m.args[0] != &args[0] {
		return nil
	}
	return m
}

// Checked reports whether ctx says args were checked.
func Checked(ctx context.Context, args []byte) bool { return of(ctx, args) != nil }

// Binding returns the binding of args (see jsonscan.AppendBinding),
// computed once for the call whose context ctx is.
func Binding(ctx context.Context, args []byte) ([]byte, error) {
	m := of(ctx, args)
	if m == nil {
		return jsonscan.AppendBinding(nil, args)
	}
	m.once.Do(func() { m.binding, m.err = jsonscan.AppendBinding(nil, args) })
	return m.binding, m.err
}
