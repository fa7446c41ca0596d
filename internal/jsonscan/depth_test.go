package jsonscan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// nested returns a value n levels deep: maps in slices in maps.
func nested(n int) any {
	var v any = "leaf"
	for i := range n {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"k": v}
		}
	}
	return v
}

// TestCheckDepth checks the bound of a value's depth: MaxDepth levels pass,
// one more is refused, and so is a value that holds itself, in JSON's own
// types and in Go's.
func TestCheckDepth(t *testing.T) {
	t.Parallel()
	require.NoError(t, jsonscan.CheckDepth(nested(jsonscan.MaxDepth)))
	assert.ErrorIs(t, jsonscan.CheckDepth(nested(jsonscan.MaxDepth+1)), jsonscan.ErrTooDeep)
	assert.EqualError(t, jsonscan.CheckDepth(nested(jsonscan.MaxDepth+1)), "nests deeper than 10000 levels, or holds itself")

	self := map[string]any{}
	self["self"] = self
	assert.ErrorIs(t, jsonscan.CheckDepth(self), jsonscan.ErrTooDeep)

	type node struct {
		Next *node
		Tags []string
	}
	loop := &node{Tags: []string{"a"}}
	loop.Next = loop
	assert.ErrorIs(t, jsonscan.CheckDepth(map[string]any{"n": loop}), jsonscan.ErrTooDeep)
	assert.NoError(t, jsonscan.CheckDepth(map[string]any{"n": &node{Next: &node{}}, "b": []byte("bytes are one string")}))
}
