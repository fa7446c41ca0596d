package mcpcall

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// MultiRoundTrip is the first MCP protocol version whose clients take an
// input_required result themselves (SEP-2322) and whose results carry a
// resultType. A server on an older protocol sends the client its input
// requests while it serves the call.
const MultiRoundTrip = "2026-07-28"

// The JSON-RPC error codes [Runner.Run] answers with.
const (
	// CodeInvalidParams is JSON-RPC's code for invalid params: a request
	// state that does not open, or an input response that is malformed or
	// off what it answers.
	CodeInvalidParams = -32602
	// CodeInternalError is JSON-RPC's code for an internal error, such as a
	// claim store that cannot be reached.
	CodeInternalError = -32603
	// CodeMissingClientCapability is the code of MCP's
	// MissingRequiredClientCapabilityError (SEP-2575): the call needs a
	// capability the client did not declare.
	CodeMissingClientCapability = -32021
)

// Client is what the client of an MCP call negotiated and declared: its
// protocol version and whether it takes form and url elicitations,
// sampling and roots requests. An empty Protocol is read as the latest,
// [MultiRoundTrip]. The zero Client takes no input request.
type Client struct {
	Protocol   string
	ElicitForm bool
	ElicitURL  bool
	Sampling   bool
	Roots      bool
}

// multiRound reports whether c's protocol has input_required results and
// resultType.
func (c Client) multiRound() bool {
	return c.Protocol == "" || c.Protocol >= MultiRoundTrip
}

// Call is one MCP tools/call as [Runner.Run] takes it from the transport:
// the tool's name and raw arguments, which the tool is run with; the
// requestState and inputResponses of a retry, each response the raw JSON
// of a result of elicitation/create, sampling/createMessage or roots/list;
// the authenticated user the call is made for, if any, such as
// [requeststate.Principal] of a token's issuer and subject; and the
// client's declarations. Authenticated says that the call came with a
// credential, such as an OAuth token: Principal must then name its user,
// or Run refuses it.
//
// Ask, when set, sends one input request to the client while the call is
// served and returns the client's response: Run then asks the client
// itself, round after round, and never returns an input_required result.
// Set it for a client on a protocol older than [MultiRoundTrip], whose
// session takes requests from the server; leave it nil otherwise.
//
// Progress, when set, gets the progress the tool reports
// (toolnexus.ReportProgress), rate-limited by the park.Runner: a bridge
// sets it to send notifications/progress when the client's request
// carried a progressToken.
type Call struct {
	Tool           string
	Arguments      json.RawMessage            `toolnexus:"payload"`
	RequestState   string                     `toolnexus:"payload"`
	InputResponses map[string]json.RawMessage `toolnexus:"payload"`
	Principal      string
	Authenticated  bool
	Client         Client
	Ask            func(ctx context.Context, id string, r toolnexus.MCPInputRequest) (json.RawMessage, error)
	Progress       func(done, total float64, message string)
}

// String returns c's fields, its arguments, state and input responses as
// their size, for %v.
func (c Call) String() string { return wire.Show(c, false) }

// GoString returns c in Go syntax without payload, for %#v.
func (c Call) GoString() string { return wire.Show(c, true) }

// Format prints c for every verb without payload, as [Call.String] (%#v: [Call.GoString]).
func (c Call) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as a group of its non-empty fields, without payload.
func (c Call) LogValue() slog.Value { return wire.Log(c) }

func init() {
	wire.Register(reflect.TypeFor[Call]())
}

// Error is a JSON-RPC error that [Runner.Run] answers a call with: Code,
// Message and Data are sent to the client as they are; Err is the real
// reason, for [errors.Is] and the server's log, and is never sent.
type Error struct {
	Code    int
	Message string
	Data    json.RawMessage
	Err     error
}

// Error returns the code, message and reason of e.
func (e *Error) Error() string {
	msg := fmt.Sprintf("toolnexus: MCP error %d: %s", e.Code, e.Message)
	if e.Err != nil {
		msg += ": " + strings.TrimPrefix(e.Err.Error(), "toolnexus: ")
	}
	return msg
}

// Unwrap returns the reason of e.
func (e *Error) Unwrap() error { return e.Err }
