package msg_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s          string
		max        int
		head, tail string
	}{
		{"short", 10, "short", ""},
		{"exactly10!", 10, "exactly10!", ""},
		{"a longer text", 4, "a lo", "… (13 bytes)"},
		{"ééé", 3, "é", "… (6 bytes)"}, // cut at a rune boundary
		{"", 0, "", ""},
	} {
		head, tail := msg.Cut(tt.s, tt.max)
		assert.Equal(t, tt.head, head, tt.s)
		assert.Equal(t, tt.tail, tail, tt.s)
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `"a\nb"`, msg.Quote("a\nb"))
	long := strings.Repeat("x", 100)
	assert.Equal(t, `"`+long[:msg.MaxQuoted]+`"… (100 bytes)`, msg.Quote(long))
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "image/png", msg.Printable("image/png"))
	assert.Equal(t, `"two words"`, msg.Printable("two words"))
	assert.Equal(t, `"x\nlevel=ERROR"`, msg.Printable("x\nlevel=ERROR"))
	assert.Equal(t, `"\xff"`, msg.Printable("\xff"))
}

func TestKeyPath(t *testing.T) {
	t.Parallel()
	assert.Equal(t, ".env", msg.KeyPath("env"))
	assert.Equal(t, `[""]`, msg.KeyPath(""))
	assert.Equal(t, `["a b"]`, msg.KeyPath("a b"))
	long := strings.Repeat("k", 50)
	assert.Equal(t, `["`+long[:msg.MaxQuoted]+`"… (50 bytes)]`, msg.KeyPath(long))
}

func TestErrorf(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("toolnexus: bad thing")
	err := msg.Errorf(sentinel, "value %s", msg.Quote("v"))
	assert.EqualError(t, err, `toolnexus: bad thing: value "v"`)
	assert.ErrorIs(t, err, sentinel)

	base := errors.New("toolnexus: invalid JSON")
	also := msg.Also("toolnexus: duplicate JSON key", base)
	assert.EqualError(t, also, "toolnexus: duplicate JSON key")
	assert.ErrorIs(t, also, base)
	assert.ErrorIs(t, msg.Errorf(also, "key %s", "x"), base)
	assert.NotErrorIs(t, base, also)
}

func TestJSONKind(t *testing.T) {
	t.Parallel()
	for v, want := range map[any]string{nil: "null", "s": "a string", 1.5: "a number", true: "a boolean", 3: "int"} {
		assert.Equal(t, want, msg.JSONKind(v))
	}
	assert.Equal(t, "an array", msg.JSONKind([]any{}))
	assert.Equal(t, "an object", msg.JSONKind(map[string]any{}))
}

func TestSortedKeys(t *testing.T) {
	t.Parallel()
	assert.Nil(t, msg.SortedKeys(map[string]int{}))
	assert.Equal(t, []string{"a", "b", "c"}, msg.SortedKeys(map[string]bool{"c": true, "a": false, "b": true}))
}

func TestUnprefixed(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("toolnexus: invalid answer")
	assert.Equal(t, `invalid answer: request "q": invalid JSON: x`,
		msg.Unprefixed(msg.Errorf(sentinel, "request %s: %s", msg.Quote("q"), "toolnexus: invalid JSON: x")))
}

// failingMarshal fails to write its JSON.
type failingMarshal struct{}

func (failingMarshal) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON here") }

func TestJSONCause(t *testing.T) {
	t.Parallel()
	_, err := json.Marshal(map[string]any{"v": failingMarshal{}})
	require.Error(t, err)
	assert.EqualError(t, msg.JSONCause(err), "no JSON here", "in both builds of encoding/json")
	_, err = json.Marshal(map[string]any{"f": func() {}})
	assert.EqualError(t, msg.JSONCause(err), "json: unsupported type: func()")
	assert.NoError(t, msg.JSONCause(nil))
}
