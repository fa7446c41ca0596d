package toolnexus

import (
	"context"
	"encoding/json"
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
