// Package argmemo carries what a carrier established about a call's
// arguments, so that no layer reads them again: that they were checked,
// and their binding, computed once. The Runner of package park and the MCP
// runner of package mcpcall put it in the context of the call; the root's
// ToolFor, the Runner's claim and the gate of package approval read it
// from there, and the Sealer of package requeststate takes it with the
// call ([BindCall]). Users of the module never name it.
package argmemo

import (
	"context"
	"sync"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// memo is what is known of one call's arguments.
type memo struct {
	tool    string // the name of the tool called
	args    []byte
	once    sync.Once
	binding []byte
	err     error
}

// key is the context key of the memo.
type key struct{}

// With returns ctx with args, the arguments of a call of the tool named
// tool, marked as checked (a JSON object of UTF-8, names not repeated),
// and binding, when not nil, as their binding.
func With(ctx context.Context, tool string, args, binding []byte) context.Context {
	m := &memo{tool: tool, args: args}
	if binding != nil {
		m.once.Do(func() { m.binding = binding })
	}
	return context.WithValue(ctx, key{}, m)
}

// of returns the memo of ctx for args: the same bytes, at the same place.
func of(ctx context.Context, args []byte) *memo {
	m, ok := ctx.Value(key{}).(*memo)
	if !ok || !Same(m.args, args) {
		return nil
	}
	return m
}

// Same reports whether a and b are the same bytes at the same place, not
// empty: what was established of one holds of the other.
func Same(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// Tool returns the name of the tool called with args, as ctx says, or "".
func Tool(ctx context.Context, args []byte) string {
	if m := of(ctx, args); m != nil {
		return m.tool
	}
	return ""
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

// BindCall returns call, a requeststate.Call, carrying binding as the
// binding of its arguments, which its Sealer then takes instead of
// computing it: set by package requeststate as it starts, so that only the
// module hands a Sealer a binding. Its caller computed binding from the
// call's Arguments, which must not change after.
var BindCall func(call any, binding []byte) any
