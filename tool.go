package toolnexus

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/progress"
)

// Tool is a tool as a host runs it for a model's call: args are the
// arguments the model sent, as raw JSON (an object), and answers are every
// [Answer] a person has given to what the tool asked in this call so far,
// earliest first, empty on the first run. It returns what the model reads
// next: a finished result, an [Error] the model can recover from, or a
// suspension ([Pending], [PendingAll]) that the host parks until a person
// answers, then runs the tool again with the same args and one more answer.
//
// A Tool never returns a Go error and should not panic: a failure is an
// Error result. It is the one shape every host of this module runs (a
// [Turn], the framework adapters and the MCP bridges alike, each through
// the Runner of package park), so a tool is written once.
type Tool func(ctx context.Context, args json.RawMessage, answers Answers) ToolResult

// ErrInvalidArguments reports arguments a model sent a tool that are not a
// JSON object, or that do not decode into what the tool takes: a key it
// does not take among them.
var ErrInvalidArguments = errors.New("toolnexus: invalid arguments")

// DecodeArguments decodes args, the raw JSON arguments of a tool call, into
// v, a non-nil pointer, as json.Unmarshal does, except that keys are
// matched exactly and every key must be one v takes: a key that v does not
// declare, at any depth, or that differs from a field's JSON name only in
// case, reports [ErrInvalidArguments] naming it and the keys v takes, so
// that the model can correct its call. A struct that has a field tagged
// with the option unknown (`json:",unknown"`, json/v2's name for where
// unknown members go) opts into unknown keys: no other field takes them,
// and that field holds them as the build's encoding/json puts them (json/v2
// does, encoding/json v1 leaves the field as it was); a key that differs
// from a field's name only in case is still refused. Empty arguments and null decode as {}.
// Arguments whose objects repeat a name, or hold two names that are one
// when case is folded, report [ErrDuplicateKey] and decode nothing: they
// are the arguments no state binds, so that a tool that decodes with
// DecodeArguments reads the call its state was sealed for. Other JSON that
// does not decode into v reports [ErrInvalidJSON].
func DecodeArguments(args json.RawMessage, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return msg.Errorf(ErrInvalidJSON, "DecodeArguments needs a non-nil pointer, not %T", v)
	}
	if err := jsonscan.CheckNames(args); err != nil {
		return err
	}
	return decodeExact(argsOrEmpty(args), v)
}

// CheckArguments checks args, the arguments a model sent the tool name,
// and returns them as a tool reads them: a JSON object of UTF-8 whose
// objects repeat no name, even when case is folded; empty arguments and
// null read as {}. Its errors match [ErrInvalidArguments] and name the
// tool and what is wrong, in words the model can act on. The Runner of
// package park checks every call with it before its tool runs.
func CheckArguments(name string, args json.RawMessage) (json.RawMessage, error) {
	return readArguments(name, args, nil)
}

// argsOrEmpty returns args, or {} when they are empty or null.
func argsOrEmpty(args json.RawMessage) json.RawMessage {
	trimmed := bytes.Trim(args, jsonscan.Space)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return emptyObject
	}
	return args
}

// decodeExact decodes args, a JSON object whose names are not repeated,
// into v, a non-nil pointer, with exact keys: it reads the keys of args
// against v's type, refusing one v does not take, then decodes args into v
// with json.Unmarshal, which then matches every key exactly.
func decodeExact(args json.RawMessage, v any) error {
	if _, err := takenKeys(args, jsonscan.SkipSpace(args, 0), reflect.TypeOf(v).Elem()); err != nil {
		if r, ok := err.(*refusedKey); ok {
			return &argumentsRefused{msg: "toolnexus: " + unknownKey(r.path(), r.key, r.fields)}
		}
		return err
	}
	if err := json.Unmarshal(args, v); err != nil {
		return msg.Errorf(ErrInvalidJSON, "arguments: %v", err)
	}
	return nil
}

// refusedKey is the first key takenKeys refuses, the fields of the struct
// that does not take it, and where it is: the segments of its path, its
// own first, which each level adds as the error passes through it, so
// that a path is written only for a key refused.
type refusedKey struct {
	key    string
	fields map[string]reflect.Type
	at     []string
}

// Error says which key was refused.
func (r *refusedKey) Error() string { return "toolnexus: " + unknownKey(r.path(), r.key, r.fields) }

// path returns where the refused key is, as msg.KeyPath writes it.
func (r *refusedKey) path() string {
	var b strings.Builder
	for _, seg := range slices.Backward(r.at) {
		b.WriteString(seg)
	}
	return b.String()
}

// keysOf is what takenKeys reads of a Go type, found once per type.
type keysOf struct {
	t       reflect.Type            // the type a value is read as: pointers followed, any for a type that reads itself
	fields  map[string]reflect.Type // of a struct: the keys it takes, but unknown's
	unknown string                  // of a struct: the Go name of the field unknown members go to
}

// typeKeys holds the keysOf of each type takenKeys has read.
var typeKeys sync.Map // reflect.Type → *keysOf

// keysFor returns what takenKeys reads of t.
func keysFor(t reflect.Type) *keysOf {
	if k, ok := typeKeys.Load(t); ok {
		return k.(*keysOf)
	}
	k := &keysOf{t: t}
	for k.t.Kind() == reflect.Pointer {
		k.t = k.t.Elem()
	}
	if pt := reflect.PointerTo(k.t); pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler) {
		k.t = anyType // a type that reads itself: its keys are its own
	}
	if k.t.Kind() == reflect.Struct {
		k.fields, k.unknown = jsonFields(k.t), unknownField(k.t)
		delete(k.fields, k.unknown)
	}
	stored, _ := typeKeys.LoadOrStore(t, k)
	return stored.(*keysOf)
}

// takenKeys reads the JSON value at b[i] and reports the first key that a
// value of t does not take, as a *refusedKey: one that names no field of
// a struct (a key that matches one only when case is folded among them),
// unless the struct opts into unknown keys, which then still refuses a
// key that folds to a field. It returns the index after the value.
func takenKeys(b []byte, i int, t reflect.Type) (int, error) {
	if i >= len(b) {
		return i, msg.Errorf(ErrInvalidJSON, "arguments: unexpected end of JSON input")
	}
	k := keysFor(t)
	t = k.t
	switch {
	case b[i] == '{' && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		i = jsonscan.SkipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			end, _, ok := jsonscan.SkipString(b, i)
			if !ok {
				return i, msg.Errorf(ErrInvalidJSON, "arguments: a key that is not a JSON string")
			}
			raw := b[i+1 : end-1]
			var key string // set only when the raw key does not name it as it is
			if bytes.IndexByte(raw, '\\') >= 0 {
				unquoted := new(string)
				if err := json.Unmarshal(b[i:end], unquoted); err != nil {
					return i, msg.Errorf(ErrInvalidJSON, "arguments: %v", err)
				}
				key, raw = *unquoted, nil
			}
			i = jsonscan.SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return i, msg.Errorf(ErrInvalidJSON, "arguments: a key without a value")
			}
			i = jsonscan.SkipSpace(b, i+1)
			elem, known := t, true
			if t.Kind() == reflect.Map {
				elem = t.Elem()
			} else {
				if raw != nil {
					elem, known = k.fields[string(raw)]
				} else {
					elem, known = k.fields[key]
				}
				if !known {
					if raw != nil {
						key = string(raw)
					}
					if k.unknown == "" || foldsToField(key, k.fields) || strings.EqualFold(key, k.unknown) {
						return i, &refusedKey{key: key, fields: k.fields, at: []string{msg.KeyPath(key)}}
					}
				}
			}
			var err error
			if known {
				i, err = takenKeys(b, i, elem)
			} else {
				i, err = jsonscan.ScanValue(b, i, 1, false)
			}
			if r, ok := err.(*refusedKey); ok {
				if raw != nil {
					key = string(raw)
				}
				r.at = append(r.at, msg.KeyPath(key))
			}
			if err != nil {
				return i, err
			}
			if i = jsonscan.SkipSpace(b, i); i < len(b) && b[i] == ',' {
				i = jsonscan.SkipSpace(b, i+1)
			}
		}
		return i + 1, nil
	case b[i] == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		i = jsonscan.SkipSpace(b, i+1)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			var err error
			if i, err = takenKeys(b, i, t.Elem()); err != nil {
				if r, ok := err.(*refusedKey); ok {
					r.at = append(r.at, "["+strconv.Itoa(n)+"]")
				}
				return i, err
			}
			if i = jsonscan.SkipSpace(b, i); i < len(b) && b[i] == ',' {
				i = jsonscan.SkipSpace(b, i+1)
			}
		}
		return i + 1, nil
	}
	end, err := jsonscan.ScanValue(b, i, 1, false)
	if err != nil {
		return i, msg.Errorf(ErrInvalidJSON, "arguments: %v", err)
	}
	return end, nil
}

// The types takenKeys reads by.
var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	anyType         = reflect.TypeFor[any]()
)

// unknownKey is the message of key, at path, which a struct whose fields
// are fields does not take.
func unknownKey(path, key string, fields map[string]reflect.Type) string {
	takes := "no keys"
	if len(fields) > 0 {
		names := msg.SortedKeys(fields)
		for i, n := range names {
			names[i] = msg.Quote(n)
		}
		takes = strings.Join(names, ", ")
	}
	for _, n := range msg.SortedKeys(fields) {
		if strings.EqualFold(n, key) {
			return fmt.Sprintf("unknown key %s: keys are matched exactly, did you mean %s? (it takes %s)", msg.Quote(strings.TrimPrefix(path, ".")), msg.Quote(n), takes)
		}
	}
	return fmt.Sprintf("unknown key %s (it takes %s)", msg.Quote(strings.TrimPrefix(path, ".")), takes)
}

// unknownField returns the Go name of the field of the struct t tagged
// with the option unknown, json/v2's place for unknown members, or "".
func unknownField(t reflect.Type) string {
	for i := range t.NumField() {
		f := t.Field(i)
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		for _, o := range strings.Split(opts, ",") {
			if o == "unknown" {
				return f.Name
			}
		}
	}
	return ""
}

// ToolFor returns fn as a [Tool] whose arguments are decoded into In, a
// struct (or map) of the tool's input, as [DecodeArguments] decodes: as
// encoding/json decodes, except that keys are matched exactly, every key
// must be one In takes, and numbers keep every digit until they reach In.
// Arguments that are not a JSON object, hold a key In does not take (one
// that differs from a field's name only in case among them), or a value of
// the wrong type for In, make the error result that the model reads, naming
// what is wrong and the keys the tool takes, and fn does not run: the model
// can correct its call. The answers are handed to fn as they come:
// [Answers.Latest] is the answer of a tool that asks once. A nil fn gives a
// nil Tool, which a Runner reports by its name.
func ToolFor[In any](fn func(ctx context.Context, in In, answers Answers) ToolResult) Tool {
	if fn == nil {
		return nil
	}
	return func(ctx context.Context, args json.RawMessage, answers Answers) ToolResult {
		var in In
		var err error
		if argmemo.Checked(ctx, args) {
			// Checked by the Runner that runs the tool: only decoded here.
			err = decodeInto(argmemo.Tool(ctx, args), args, &in)
		} else {
			_, err = readArguments("", args, &in)
		}
		if err != nil {
			return Error(err.Error())
		}
		return fn(ctx, in, answers)
	}
}

// emptyObject is the arguments a tool is given for none.
var emptyObject = json.RawMessage("{}")

// readArguments checks args, the arguments a model sent the tool name (""
// when it is not known), and returns them as a tool reads them: a JSON
// object, empty arguments and null read as {}. When v is not nil, it also
// decodes them into v with exact keys. Every decoding of a model's
// arguments goes through it; its errors match [ErrInvalidArguments].
func readArguments(name string, args json.RawMessage, v any) (json.RawMessage, error) {
	trimmed := bytes.Trim(args, jsonscan.Space)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		args = emptyObject
	}
	if !isJSON(args) {
		return nil, argumentsError(name, "are not JSON: %s", syntaxError(args))
	}
	d := jsonReader{data: args}
	if d.peek() != '{' {
		return nil, argumentsError(name, "are not a JSON object but %s", d.kind())
	}
	if err := jsonscan.CheckNames(args); err != nil {
		return nil, &argumentsRefused{msg: argumentsMessage(name, "are ambiguous: %s", strings.TrimPrefix(err.Error(), "toolnexus: ")), cause: err}
	}
	if v == nil {
		return args, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, argumentsError(name, "cannot be decoded into %T, which is not a non-nil pointer", v)
	}
	if err := decodeInto(name, args, v); err != nil {
		return nil, err
	}
	return args, nil
}

// decodeInto decodes args, the checked arguments of the tool name, into v,
// a non-nil pointer, with exact keys; its error matches
// [ErrInvalidArguments].
func decodeInto(name string, args json.RawMessage, v any) error {
	if err := decodeExact(args, v); err != nil {
		why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "toolnexus: invalid JSON: arguments: "), "toolnexus: ")
		return &argumentsRefused{msg: argumentsMessage(name, "are not what the tool takes: %s", why), cause: err}
	}
	return nil
}

// isJSON reports whether b is one JSON value that holds only UTF-8, as
// [ParseTurn] reads arguments.
func isJSON(b []byte) bool {
	i, err := jsonscan.ScanValue(b, jsonscan.SkipSpace(b, 0), 0, true)
	return err == nil && jsonscan.SkipSpace(b, i) == len(b)
}

// syntaxError says why b, which isJSON refused, is not JSON.
func syntaxError(b []byte) string {
	if jsonscan.Valid(b) {
		return "a string " + jsonscan.ErrNotUTF8.Error()
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "unexpected end of JSON input"
		}
		return err.Error()
	}
	return "more than one JSON value"
}

// argumentsError returns the error of arguments of the tool name.
func argumentsError(name, format string, args ...any) error {
	return &argumentsRefused{msg: argumentsMessage(name, format, args...)}
}

// argumentsMessage is the message of an [argumentsRefused].
func argumentsMessage(name, format string, args ...any) string {
	of := "arguments "
	if name != "" {
		of = "arguments of " + msg.Quote(name) + " "
	}
	return "toolnexus: " + of + fmt.Sprintf(format, args...)
}

// argumentsRefused is the error of arguments a tool cannot take: it
// matches [ErrInvalidArguments] and, through its cause, the error that
// refused them ([ErrDuplicateKey], [ErrInvalidJSON]).
type argumentsRefused struct {
	msg   string
	cause error
}

func (e *argumentsRefused) Error() string { return e.msg }

// Is reports whether target is [ErrInvalidArguments].
func (e *argumentsRefused) Is(target error) bool { return target == ErrInvalidArguments }

// Unwrap returns the error that refused the arguments, if any.
func (e *argumentsRefused) Unwrap() error { return e.cause }

// ReportProgress tells whoever runs the tool whose context ctx is how far
// it has got: done of total (zero when the total is not known), and a
// message for a person, such as "uploaded 3 of 10 files". The tool need
// not know where it runs: each carrier delivers it in its own form (an MCP
// progress notification when the client asked for one, a task's status
// message, a framework's partial output, a Turn host's callback), at most
// a few times a second, always the last. Without a listener it does
// nothing, and allocates nothing.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	progress.Report(ctx, done, total, message)
}
