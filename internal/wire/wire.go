// Package wire is how the packages of the module print and log their values
// without a payload. A wire type is a struct whose exported fields print as
// they are but for those it names as payloads (base64, a data URL, raw JSON
// a tool returned, keys), which print as their size; the root package's
// printer walks such values, bounded however they hold each other, and its
// Redacted drops their payloads. A payload field says so on the field,
// with the tag toolnexus:"payload", as encoding/json reads its own tag: a
// renamed field stays a payload. Each package registers its wire types as
// it is initialized, and prints them through [Show], [Log] and [Format].
// Users of the module never name it.
package wire

import (
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
)

// payloads holds, for each wire type, its payload fields. It is written by
// Register, as the packages are initialized, and only read afterwards.
var payloads = map[reflect.Type][]string{}

// Tag is the struct tag of a payload field: toolnexus:"payload".
const Tag = "payload"

// Register names t, a struct type, a wire type, whose payload fields are
// those tagged toolnexus:"payload" (none is a wire type too). It is for
// package initialization, before any value is printed, and panics on a
// type registered twice.
func Register(t reflect.Type) {
	if _, dup := payloads[t]; dup {
		panic("wire: " + t.String() + " registered twice")
	}
	var fields []string
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("toolnexus") == Tag {
			fields = append(fields, t.Field(i).Name)
		}
	}
	payloads[t] = fields
}

// Payloads returns the payload fields of t, and whether t is a wire type.
func Payloads(t reflect.Type) ([]string, bool) {
	fields, ok := payloads[t]
	return fields, ok
}

// Show and Log are the root package's printer, which it sets as it is
// initialized, before any package that imports it: Show returns v, a value
// of a wire type, for %v, its non-zero fields, or for %#v when goSyntax,
// all its fields; Log logs it as a group of its non-zero fields. Payload
// fields show as their size.
var (
	Show func(v any, goSyntax bool) string
	Log  func(v any) slog.Value
)

// Format prints v, a value that shows no payload, for every verb: %#v is
// its GoString, %q its quoted String, every other verb its String.
func Format(f fmt.State, verb rune, v interface {
	fmt.Stringer
	fmt.GoStringer
}) {
	switch {
	case verb == 'v' && f.Flag('#'):
		io.WriteString(f, v.GoString())
	case verb == 'q':
		io.WriteString(f, strconv.Quote(v.String()))
	default:
		io.WriteString(f, v.String())
	}
}
