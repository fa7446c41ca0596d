package toolnexus

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// Sentinel errors. Every error the package returns starts with "toolnexus: ",
// names the value it refuses and matches one of these with [errors.Is]
// (file errors also wrap the [*fs.PathError] of the failed operation).
var (
	// ErrUnknownPartType reports a part type other than the four PartType constants.
	ErrUnknownPartType = errors.New("toolnexus: unknown part type")
	// ErrUnknownExtension reports a file name whose extension is not in the
	// extension table; pass the MIME type explicitly instead.
	ErrUnknownExtension = errors.New("toolnexus: unknown file extension")
	// ErrMissingMIMEType reports a non-text part without a MIME type.
	ErrMissingMIMEType = errors.New("toolnexus: missing MIME type")
	// ErrInvalidMIMEType reports a MIME type that is not of the form type/subtype,
	// or that does not fit the part type (an image part needs image/*).
	ErrInvalidMIMEType = errors.New("toolnexus: invalid MIME type")
	// ErrInvalidPart reports a part whose fields do not fit together: a
	// non-text part with both or neither of Data and URL, a text part carrying
	// data or a URL, or a non-text part carrying text. Constructors report it
	// for an empty payload, which a part cannot carry.
	ErrInvalidPart = errors.New("toolnexus: invalid part")
	// ErrNotCarried reports a part that a destination would not carry,
	// which [ToolResult.Carried] refuses instead of letting a converter
	// send it as a placeholder.
	ErrNotCarried = errors.New("toolnexus: part not carried")
	// ErrInvalidPath reports a name that an fs.FS does not take
	// ([PartReader.FS]): absolute, outside the file system, or not a
	// clean slash-separated path. Its message says what to send instead.
	ErrInvalidPath = errors.New("toolnexus: invalid path")
	// ErrInvalidBase64 reports data that is not canonical standard base64:
	// padded, in the standard alphabet, without whitespace or line breaks.
	ErrInvalidBase64 = b64.ErrInvalid
	// ErrInvalidDataURL reports a data URL not of the form data:<mime>;base64,<data>.
	ErrInvalidDataURL = errors.New("toolnexus: invalid data URL")
	// ErrPartTooLarge reports input over the size limit given to the call: a
	// part, or a JSON document. The error is a [*PartTooLargeError].
	ErrPartTooLarge = errors.New("toolnexus: part too large")
	// ErrFileChanged reports a file or reader that gave more or fewer bytes
	// than it reported when it was opened: it changed while it was read, or
	// its size was wrong, as a size in an archive's header can be.
	ErrFileChanged = errors.New("toolnexus: size changed while read")
	// ErrRead reports a file or reader that could not be opened or read; the
	// error also wraps the cause, such as an [*fs.PathError] matching
	// [fs.ErrNotExist].
	ErrRead = errors.New("toolnexus: cannot read")
	// ErrInvalidRequest reports a suspension whose Request lacks an id, kind or
	// prompt, or a "pending" metadata value that is not a Request.
	ErrInvalidRequest = errors.New("toolnexus: invalid request")
	// ErrInvalidExpiry reports an ExpiresAt that is not an RFC 3339 time.
	ErrInvalidExpiry = errors.New("toolnexus: invalid expiresAt")
	// ErrAnswerMismatch reports an [Answer] whose ID does not echo its Request's.
	ErrAnswerMismatch = errors.New("toolnexus: answer does not match request")
	// ErrExpired reports an [Answer] to a Request whose expiry has passed.
	ErrExpired = errors.New("toolnexus: request expired")
	// ErrInvalidAnswer reports an answer off what its request asked for, such
	// as an elicitation's content off the schema it was asked with (see
	// [Request.AnswerFromMCP]). It also matches [ErrInvalidMCP].
	ErrInvalidAnswer error = msg.Also("toolnexus: invalid answer", ErrInvalidMCP)
	// ErrDuplicateKey reports a JSON object, at any depth, with two members
	// of one name, or of names that are one when case is folded ("Env" and
	// "env", "k" and the Kelvin sign): a reader that keeps the first of two
	// members, one that keeps the last and one that folds case, as
	// encoding/json does into a struct, would each read another value, so
	// RFC 7493 (I-JSON) asks for unique names. It also matches
	// [ErrInvalidJSON].
	ErrDuplicateKey = jsonscan.ErrDuplicateKey
	// ErrInvalidJSON reports JSON that does not decode into a value of this
	// package: a key holds a value of the wrong type, or the input is not
	// JSON.
	ErrInvalidJSON = jsonscan.ErrInvalidJSON
	// ErrToolPanicked reports a tool that panicked: a [Turn] makes it the
	// error result the model reads, and the MCP core an internal error.
	ErrToolPanicked = errors.New("toolnexus: tool panicked")
	// ErrInvalidMCP reports input to [ParseMCPCallToolResult] or
	// [FromMCPCallToolResult] that is not the JSON of an MCP CallToolResult.
	ErrInvalidMCP = errors.New("toolnexus: invalid MCP result")
	// ErrInvalidTurn reports a [Turn] that cannot be stored or sent: no
	// calls, a call without an id or tool name, two calls with one id, or
	// arguments that are not JSON.
	ErrInvalidTurn = errors.New("toolnexus: invalid turn")
	// ErrIncompleteTurn reports a [Turn] sent to a provider while some of its
	// calls still wait for an answer.
	ErrIncompleteTurn = errors.New("toolnexus: turn not complete")
)

// PartTooLargeError is the error of a read that went past its size limit:
// a part's decoded bytes, or the bytes of a JSON document given to
// [ParseToolResult] or [ParseMCPCallToolResult] when Document is set. It
// matches [ErrPartTooLarge] with [errors.Is].
type PartTooLargeError struct {
	// Limit is the limit given to the call, in decoded bytes of a part, or
	// in bytes of JSON for a document.
	Limit int64
	// Size is the size seen when the read stopped: the whole size when it is
	// known up front, otherwise Limit+1, the byte that crossed the limit.
	Size int64
	// Document says that what went past the limit is a JSON document, not a
	// part.
	Document bool
}

// Error implements the error interface: "toolnexus: part too large: 2013
// bytes, over the limit of 1024 bytes: send a smaller one, or a link to
// it", which tells the model what to do instead, or for a document
// "toolnexus: JSON document too large: 2013 bytes, over the limit of 1024
// bytes".
func (e *PartTooLargeError) Error() string {
	what := "toolnexus: part too large: "
	if e.Document {
		what = "toolnexus: JSON document too large: "
	}
	msg := what + strconv.FormatInt(e.Size, 10) +
		" bytes, over the limit of " + strconv.FormatInt(e.Limit, 10) + " bytes"
	if !e.Document {
		msg += ": send a smaller one, or a link to it"
	}
	return msg
}

// Is reports whether target is [ErrPartTooLarge].
func (e *PartTooLargeError) Is(target error) bool { return target == ErrPartTooLarge }

// errorfCause wraps a sentinel and cause, an error of the package, with
// details: errorfCause(ErrX, cause, "call %s", id) reads "toolnexus: x:
// call "id": cause's message without its prefix", and matches both.
func errorfCause(sentinel, cause error, format string, args ...any) error {
	text := sentinel.Error() + ": " + fmt.Sprintf(format, args...) + ": " + strings.TrimPrefix(cause.Error(), "toolnexus: ")
	return &causeError{msg: text, errs: []error{sentinel, cause}}
}

// causeError is the error of errorfCause.
type causeError struct {
	msg  string
	errs []error
}

func (e *causeError) Error() string { return e.msg }

// Unwrap returns the sentinel and the cause of e.
func (e *causeError) Unwrap() []error { return e.errs }
