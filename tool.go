package toolnexus

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
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
// Error result. It is the one shape every host of this module runs, a
// [Turn], the framework adapters and the MCP bridges alike, so a tool is
// written once.
type Tool func(ctx context.Context, args json.RawMessage, answers Answers) ToolResult

// DecodeArguments decodes args, the raw JSON arguments of a tool call, into
// v, a non-nil pointer, as json.Unmarshal does, except that keys are
// matched exactly, as [Answer.DecodeData] matches them: a key that differs
// from a field's JSON name only in case is ignored, as an unknown key is.
// Empty arguments and null decode as {}. Arguments whose objects repeat a
// name, or hold two names that are one when case is folded, report
// [ErrDuplicateKey] and decode nothing: they are the arguments no state
// binds, so that a tool that decodes with DecodeArguments reads the call
// its state was sealed for. Other JSON that does not decode into v reports
// [ErrInvalidJSON].
func DecodeArguments(args json.RawMessage, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return msg.Errorf(ErrInvalidJSON, "DecodeArguments needs a non-nil pointer, not %T", v)
	}
	if err := jsonscan.CheckNames(args); err != nil {
		return err
	}
	return decodeExact(args, v)
}

// decodeExact decodes args into v, a non-nil pointer, with exact keys:
// through encoding/json's untyped values (numbers as written), without the
// keys that would match a field of v only by folding case.
func decodeExact(args json.RawMessage, v any) error {
	decoded, err := jsonscan.DecodeNumbers(args)
	if err != nil {
		return err
	}
	b, err := json.Marshal(exactKeys(decoded, reflect.TypeOf(v).Elem()))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return msg.Errorf(ErrInvalidJSON, "arguments: %v", err)
	}
	return nil
}
