// Package msg holds what the packages of the module write their messages
// with: an error wrapping its sentinel, a value quoted and cut short so
// that an error never carries a payload, text from a peer made safe to
// print, and the place of a key in JSON. Users of the module never name
// it; its packages share it so that every message reads alike.
package msg

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of an offending value an error message shows.
const MaxQuoted = 40

// Errorf returns sentinel wrapped with details: Errorf(ErrX, "%s is bad", v)
// reads "toolnexus: x: v is bad" and matches ErrX with errors.Is.
func Errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// Also returns a sentinel error whose message is text and which also
// matches also with errors.Is, such as a duplicate key that is invalid
// JSON too.
func Also(text string, also error) error {
	return &alsoError{msg: text, also: also}
}

// alsoError is the sentinel of Also.
type alsoError struct {
	msg  string
	also error
}

func (e *alsoError) Error() string { return e.msg }

// Is reports whether target is the sentinel e also matches.
func (e *alsoError) Is(target error) bool { return target == e.also }

// Cut returns the head of s shown for display, at most max bytes of it
// ended at a rune boundary, and the tail to print after it: "" when s is
// whole, else "… (N bytes)".
func Cut(s string, max int) (head, tail string) {
	if len(s) <= max {
		return s, ""
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Quote returns s quoted for an error message, cut to its first
// [MaxQuoted] bytes when it is longer: an error must not carry a megabyte
// of base64.
func Quote(s string) string {
	h, t := Cut(s, MaxQuoted)
	return strconv.Quote(h) + t
}

// Printable returns s as it is when it holds only graphic characters and
// no space, else quoted, so that text from a peer cannot forge a line of a
// log.
func Printable(s string) string {
	for _, c := range s {
		if c == utf8.RuneError || c == ' ' || !unicode.IsGraphic(c) {
			return strconv.Quote(s)
		}
	}
	return s
}

// KeyPath is the step of a place in JSON that key names: ".key", or, for a
// key that is not a plain name, ["key"], quoted and cut short.
func KeyPath(key string) string {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') || i >= MaxQuoted {
			return "[" + Quote(key) + "]"
		}
	}
	if key == "" {
		return `[""]`
	}
	return "." + key
}

// JSONKind names the JSON type of v, a value decoded from JSON, for an
// error message, which names a value's type and never the value: "a
// string", "an object", "null"; the Go type of any other value.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// SortedKeys returns the keys of m in order, in one allocation (none for
// an empty map), so that a message or a log lists them alike every time.
func SortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Unprefixed returns the message of err without the module's "toolnexus: "
// prefixes, for a model or a client to read: the text a sentinel and its
// details say, without the names of code.
func Unprefixed(err error) string {
	return strings.ReplaceAll(err.Error(), "toolnexus: ", "")
}

// JSONCause returns err, an error of json.Marshal, without the wrapping
// that names the Go type whose MarshalJSON failed ("json: error calling
// MarshalJSON for type mcp.InputRequestMap: "), which differs between the
// builds of encoding/json (with GOEXPERIMENT=jsonv2 it names
// *mcp.InputRequestMap): the error that MarshalJSON returned, or err.
func JSONCause(err error) error {
	var m *json.MarshalerError
	for errors.As(err, &m) && m.Err != nil {
		err = m.Err
	}
	return err
}
