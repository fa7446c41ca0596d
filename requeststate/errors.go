package requeststate

import "errors"

// Sentinel errors. Every error of the package starts with "toolnexus: ",
// names what it refuses without showing a state or a key, and matches one
// of these, or one of package toolnexus (ErrExpired, ErrInvalidRequest,
// ErrInvalidJSON, ErrDuplicateKey), with [errors.Is].
var (
	// ErrInvalidState reports a request state (see [Sealer.Open]) that
	// these keys did not seal, or that was altered, cut short or made too
	// long on its way: opening it fails its authentication, whatever was
	// done to it. It also reports a state issued later than the clock skew
	// allows. The error never shows the state or the key.
	ErrInvalidState = errors.New("toolnexus: invalid request state")
	// ErrMismatch reports a genuine request state presented with a call
	// other than the one it was sealed for: another tool, other arguments,
	// another audience or another principal.
	ErrMismatch = errors.New("toolnexus: request state does not match the call")
	// ErrShortKey reports a sealing key shorter than [MinKeyLen] bytes.
	ErrShortKey = errors.New("toolnexus: request state key too short")
	// ErrInvalidKey reports a list of request state keys that is empty,
	// holds a key twice or holds a key that is not hex ([KeysFromHex]).
	ErrInvalidKey = errors.New("toolnexus: invalid request state key")
	// ErrInvalidOptions reports [Options] whose MaxAge or ClockSkew is out
	// of bounds.
	ErrInvalidOptions = errors.New("toolnexus: invalid sealer options")
)
