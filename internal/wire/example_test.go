package wire_test

import (
	"fmt"

	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// token prints its name for every verb, never its value.
type token struct{ name, value string }

func (t token) String() string                { return "token " + t.name }
func (t token) GoString() string              { return "token{" + t.name + "}" }
func (t token) Format(f fmt.State, verb rune) { wire.Format(f, verb, t) }

func ExampleFormat() {
	t := token{"api", "s3cr3t"}
	fmt.Printf("%v | %#v | %q | %x\n", t, t, t, t)
	// Output: token api | token{api} | "token api" | token api
}
