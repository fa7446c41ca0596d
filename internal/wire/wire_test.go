package wire_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

type secret struct {
	Name string
	Key  string `toolnexus:"payload"`
}

func init() { wire.Register(reflect.TypeFor[secret]()) }

// TestRegister checks what Payloads says of a type registered, of one
// registered without payload fields, and of one not registered, and that a
// second registration panics.
func TestRegister(t *testing.T) {
	fields, ok := wire.Payloads(reflect.TypeFor[secret]())
	assert.True(t, ok)
	assert.Equal(t, []string{"Key"}, fields)
	type plain struct{ Name string }
	wire.Register(reflect.TypeFor[plain]())
	fields, ok = wire.Payloads(reflect.TypeFor[plain]())
	assert.True(t, ok)
	assert.Empty(t, fields)
	_, ok = wire.Payloads(reflect.TypeFor[struct{ X int }]())
	assert.False(t, ok)
	assert.Panics(t, func() { wire.Register(reflect.TypeFor[plain]()) })
}

// shown prints as its fixed forms, through Format.
type shown struct{}

func (shown) String() string                  { return "plain" }
func (shown) GoString() string                { return "go" }
func (s shown) Format(f fmt.State, verb rune) { wire.Format(f, verb, s) }

func TestFormat(t *testing.T) {
	t.Parallel()
	var s shown
	for verb, want := range map[string]string{"%v": "plain", "%+v": "plain", "%s": "plain", "%#v": "go", "%q": `"plain"`, "%x": "plain", "%d": "plain"} {
		assert.Equal(t, want, fmt.Sprintf(verb, s), verb)
	}
}
