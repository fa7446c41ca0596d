package requeststate

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// Sealer seals the request state of a suspended tool call (such as the
// requestState of an MCP input_required result) and opens it when the
// client sends it back, as the MCP specification asks: the state comes from
// the client, so it is treated as hostile. It is encrypted and
// authenticated with AES-256-GCM, and bound to the tool, the arguments
// (their canonical form, or its digest when long), the audience, the
// principal and an expiry.
//
// A Sealer derives its keys once, in [NewSealer], and is safe for
// concurrent use. Seal and Open allocate a buffer and a string each,
// whatever the state's size; the requests and answers of a state are
// built only when the [Opened] is asked for them. Every server that may
// receive the retry of a call (the instances behind one load balancer, or
// one server across a restart) needs a Sealer with the same keys and
// audience.
//
// A state is text: the prefix "tn1." and, in URL-safe base64 without
// padding, an 8-byte key id (derived from the key, never the key), the
// expiry in Unix milliseconds (8 bytes, big-endian), the 12-byte random
// nonce (drawn from crypto/rand by the AEAD as it seals the state, so that
// no two processes, even clones of one memory, hand out a nonce twice; it
// names the state's parking for the Runner of package park too),
// the encrypted claims and the 16-byte tag. The prefix, key id and expiry
// are authenticated as associated data; the key id lets Open try one key,
// and the expiry lets a host read, with [Expiry], until when
// the state may be accepted.
//
// Keys are rotated without failing a parked call, each step rolled out to
// every server before the next: add the new key as the second key (every
// server opens its states, none seals with it yet); make it the first key
// (servers seal with it and still open the old key's states); once the
// maximum age has passed since the last server stopped sealing with the old
// key, no state of the old key can open anymore: remove it.
//
// Rotate a key before all the servers sealing with it together have sealed
// 2^32 states with it: NIST SP 800-38D bounds the use of random 96-bit
// nonces under one key to 2^32 encryptions, beyond which two states may
// share a nonce, which lets their key's states be forged. At 1,000 states a
// second that is 49 days; a rotation every 30 days keeps up to 1,600 a
// second within the bound, every 7 days up to 7,000.
type Sealer struct {
	keys     []stateKey // keys[0] seals
	audience string
	maxAge   time.Duration
	skew     time.Duration
}

// NewSealer returns a Sealer with o's keys and limits. It reports
// [ErrShortKey] for a key shorter than [MinKeyLen], [ErrInvalidKey]
// for no key or a key given twice, and [ErrInvalidOptions] for a MaxAge or
// ClockSkew out of bounds.
func NewSealer(o Options) (*Sealer, error) {
	s := &Sealer{audience: o.Audience, maxAge: o.MaxAge, skew: o.ClockSkew}
	if s.maxAge == 0 {
		s.maxAge = DefaultMaxAge
	}
	if s.skew == 0 {
		s.skew = DefaultClockSkew
	}
	switch {
	case s.maxAge < 0 || s.maxAge > MaxMaxAge:
		return nil, msg.Errorf(ErrInvalidOptions, "MaxAge %v is not between 0 and %v", o.MaxAge, MaxMaxAge)
	case s.skew < 0 || s.skew > MaxClockSkew:
		return nil, msg.Errorf(ErrInvalidOptions, "ClockSkew %v is not between 0 and %v", o.ClockSkew, MaxClockSkew)
	}
	if err := s.deriveKeys(o.Keys); err != nil {
		return nil, err
	}
	return s, nil
}

// Call is the call a state is bound to.
type Call struct {
	// Tool is the name of the tool called.
	Tool string
	// Arguments are the call's arguments as the tool reads them; see
	// [Sealer.Seal] for how they are compared.
	Arguments json.RawMessage `toolnexus:"payload"`
	// Principal names the authenticated user of the call, such as the
	// issuer and subject of its OAuth token ([Principal] writes them as
	// one string); empty for a call without one. A state sealed for one
	// principal opens for no other, nor for none.
	Principal string

	// binding is the binding of Arguments, when a carrier of the module
	// computed it (argmemo.BindCall), and bound the Arguments it was
	// computed from.
	binding, bound []byte
}

// appendBinding appends the binding of c's arguments to dst: the one the
// carrier computed, when the arguments are still those it read.
func (c Call) appendBinding(dst []byte) ([]byte, error) {
	if c.binding != nil && argmemo.Same(c.bound, c.Arguments) {
		return append(dst, c.binding...), nil
	}
	return jsonscan.AppendBinding(dst, c.Arguments)
}

// String returns c's fields, its arguments as their size, for %v.
func (c Call) String() string { return wire.Show(c, false) }

// GoString returns c in Go syntax, its arguments as their size, for %#v.
func (c Call) GoString() string { return wire.Show(c, true) }

// Format prints c for every verb without its arguments, as [Call.String] (%#v: [Call.GoString]).
func (c Call) Format(f fmt.State, verb rune) { wire.Format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as a group of its non-empty fields, without its arguments.
func (c Call) LogValue() slog.Value { return wire.Log(c) }

// Principal returns the principal of a user whose token issuer issued for
// subject, as [Call].Principal names it: a string no other pair of
// issuer and subject gives, the issuer's length first, so that issuer "a"
// and subject "bc" are not issuer "ab" and subject "c". Empty strings are
// kept as they are: a subject is never left out, but a bridge refuses a
// token without one before it comes here.
func Principal(issuer, subject string) string {
	return "iss:" + strconv.Itoa(len(issuer)) + ":" + issuer + "sub:" + subject
}

// State is what a request state carries from one round of a suspended call
// to the next: what [Sealer.Seal] seals. [Sealer.Open] gives it back as an
// [Opened].
type State struct {
	// Requests are what the tool asked in the latest round: at least one.
	Requests []toolnexus.Request
	// Answers are the answers of earlier rounds, earliest first.
	Answers toolnexus.Answers
	// ExpiresAt, when not zero, shortens the state's life: it stops
	// opening at the earliest of this time (to the millisecond), its
	// requests' ExpiresAt and its issue time plus the maximum age.
	ExpiresAt time.Time
	// Opaque is a value the state carries for its caller, which the
	// Sealer never reads: encrypted and authenticated with the rest, bound
	// to the same call, and given back by [Opened.Opaque]. A relay keeps
	// there the requestState of the server it calls, so that its own
	// client never sees it. It counts towards the state's 64 KiB, in
	// base64 (an Opaque of up to about 47 KiB fits beside a few requests);
	// State's String, GoString and LogValue never show it.
	Opaque string `toolnexus:"payload"`
}

// String returns st's fields, the Data of its requests and answers as
// their size, for %v.
func (st State) String() string { return wire.Show(st, false) }

// GoString returns st in Go syntax without Data, for %#v.
func (st State) GoString() string { return wire.Show(st, true) }

// Format prints st for every verb without Data, as [State.String] (%#v: [State.GoString]).
func (st State) Format(f fmt.State, verb rune) { wire.Format(f, verb, st) }

// LogValue implements [slog.LogValuer]: st logs as a group of its non-empty fields, without Data.
func (st State) LogValue() slog.Value { return wire.Log(st) }

// Opened is a request state that [Sealer.Open] has authenticated and
// checked against its call. It holds the requests and answers of the
// [State] that was sealed as the state's bytes, which
// [Opened.Requests] and [Opened.Answers] build anew at each
// call: Open builds neither, and costs no more than its checks, and a
// caller that needs neither (a replay that the Runner of package park refuses) pays
// nothing for them. An Opened is a value that never changes, and its
// copies share its bytes. The zero Opened holds no request and cannot
// be claimed.
type Opened struct {
	// IssuedAt is when the state was sealed, to the millisecond.
	IssuedAt time.Time
	// ExpiresAt is when the state stops opening, to the millisecond.
	ExpiresAt time.Time
	// ID identifies the state for the Runner of package park: the URL-safe base64 of
	// the random nonce it was sealed with, which no other state shares.
	ID string
	// rounds holds the requests, then the answers, as appendState wrote
	// them, under the state's key.
	rounds string
	// sealedExpiry is the expiry of the state's header, in Unix
	// milliseconds, which its sealer authenticated: the latest a state can
	// open on any server, whose clock or maximum age differ from this one's.
	sealedExpiry int64
}

// Requests returns the requests of the state's latest round, read anew
// from the state at each call: the caller owns them. A state that Seal
// wrote holds at least one.
func (o Opened) Requests() []toolnexus.Request {
	r := claimsReader{s: o.rounds, ok: true}
	if reqs := r.requests(true); r.ok {
		return reqs
	}
	return nil // unreachable for a state that Seal wrote under the key
}

// Answers returns the answers of the state's earlier rounds, earliest
// first, read anew from the state at each call: the caller owns them.
func (o Opened) Answers() toolnexus.Answers {
	r := claimsReader{s: o.rounds, ok: true}
	r.requests(false)
	if answers := r.answers(true); r.ok {
		return answers
	}
	return nil // unreachable for a state that Seal wrote under the key
}

// Opaque returns the [State].Opaque that was sealed in the state, as it
// was given to Seal: "" for a state that carries none.
func (o Opened) Opaque() string {
	r := claimsReader{s: o.rounds, ok: true}
	r.requests(false)
	r.answers(false)
	if v := r.opaque(); r.ok {
		return v
	}
	return "" // unreachable for a state that Seal wrote under the key
}

// String returns o's issue time, expiry and ID, never its requests and
// answers, for %v.
func (o Opened) String() string { return wire.Show(o, false) }

// GoString returns o's exported fields in Go syntax, for %#v.
func (o Opened) GoString() string { return wire.Show(o, true) }

// Format prints o for every verb as [Opened.String] (%#v: [Opened.GoString]).
func (o Opened) Format(f fmt.State, verb rune) { wire.Format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its issue time, expiry and ID.
func (o Opened) LogValue() slog.Value { return wire.Log(o) }

// Seal returns the request state that carries st for call, issued at now:
// an opaque string the client holds and sends back, unchanged, with its
// answers. The state is encrypted and authenticated with the first key,
// and holds, besides st (its requests, answers and Opaque), the tool, the
// arguments (their canonical form, or a SHA-256 digest of it past 128
// bytes), the audience, the principal, the issue time and the expiry; its
// random nonce is its ID.
//
// The arguments are bound by their value, so that the order of keys, the
// spacing and the escapes do not matter; empty arguments, null and {} are the
// same call, and numbers must be written the same. Arguments with an object,
// at any depth, that repeats a name or holds two names that are one when case
// is folded ({"Env":"prod","env":"staging"}) are refused with
// [toolnexus.ErrDuplicateKey], by Seal and by Open: decoders that keep the
// first or the last of them, or fold case, would read different calls from one
// binding.
//
// A Request's Data goes through JSON, as it does on the wire: a number comes
// back as a float64. Seal reports the error of [toolnexus.Request.Validate]
// for a request that is not valid, [toolnexus.ErrInvalidRequest] for a State
// without requests, with Data that is not JSON, or whose state would be longer
// than 64 KiB, and [toolnexus.ErrInvalidJSON] when the arguments are not JSON
// ([toolnexus.ErrDuplicateKey] when they repeat a name).
func (s *Sealer) Seal(call Call, st State, now time.Time) (string, error) {
	if len(st.Requests) == 0 {
		return "", msg.Errorf(toolnexus.ErrInvalidRequest, "a request state holds no request")
	}
	expiry := now.Add(s.maxAge).UnixMilli()
	if !st.ExpiresAt.IsZero() {
		expiry = min(expiry, st.ExpiresAt.UnixMilli())
	}
	for _, r := range st.Requests {
		if err := r.Validate(); err != nil {
			return "", err
		}
		if t, _ := r.Expiry(); !t.IsZero() { // read by Validate
			expiry = min(expiry, t.UnixMilli()) // rounded down: a state never outlives its request
		}
	}
	var argsBuf [jsonscan.MaxBinding]byte
	args, err := call.appendBinding(argsBuf[:0])
	if err != nil {
		return "", err
	}
	id := st.Requests[0].ID
	k := s.keys[0]
	// One buffer holds the prefix, the header and the claims, which the AEAD
	// seals in place past the nonce it draws, then the text.
	hint := aadLen + nonceLen + claimsFixed + 1 + len(args) + len(call.Tool) + len(s.audience) + len(call.Principal) + stateSizeHint(st) + tagLen
	buf := make([]byte, 0, hint+len(statePrefix)+base64.RawURLEncoding.EncodedLen(hint))
	buf = append(buf, statePrefix...)
	buf = append(buf, k.id[:]...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(expiry))
	plain := binary.BigEndian.AppendUint64(buf[aadLen:aadLen], uint64(now.UnixMilli()))
	plain = append(binary.AppendUvarint(plain, uint64(len(args))), args...)
	plain = appendString(plain, call.Tool)
	plain = appendString(plain, s.audience)
	plain = appendString(plain, call.Principal)
	plain, err = appendState(plain, st)
	if err != nil {
		return "", msg.Errorf(toolnexus.ErrInvalidRequest, "request %s: %v", msg.Quote(id), err)
	}
	textLen := base64.RawURLEncoding.EncodedLen(headerLen + nonceLen + len(plain) + tagLen)
	if size := len(statePrefix) + textLen; size > maxStateLen {
		return "", msg.Errorf(toolnexus.ErrInvalidRequest, "request %s would make a state of %d bytes, over the limit of %d bytes", msg.Quote(id), size, maxStateLen)
	}
	sealed := k.aead.Seal(buf[:aadLen], nil, plain, buf[:aadLen])
	text := slices.Grow(sealed, len(statePrefix)+textLen)[len(sealed):][:len(statePrefix)+textLen]
	copy(text, statePrefix)
	b64.EncodeURL(text[len(statePrefix):], sealed[len(statePrefix):])
	return string(text), nil
}

// Open returns the [Opened] that state, sealed by a Sealer with one of s's
// keys and its audience, holds for call at now, once it has checked that state
// is intact, was sealed for this call, and has not expired. It reports
// [ErrInvalidState] for a state that is longer than 64 KiB, was sealed with a
// key s does not hold, was altered in any way, or was issued later than now by
// more than the clock skew allowed; [ErrMismatch] for a state sealed for
// another tool, other arguments, another audience or another principal
// ([toolnexus.ErrInvalidJSON] when the arguments are not JSON,
// [toolnexus.ErrDuplicateKey] when they repeat a name); and
// [toolnexus.ErrExpired] for one that has expired. Open does not claim the
// state: see the Runner of package park.
func (s *Sealer) Open(state string, call Call, now time.Time) (Opened, error) {
	var argsBuf [jsonscan.MaxBinding]byte
	args, argsErr := call.appendBinding(argsBuf[:0])
	buf, err := decodeState(state)
	if err != nil {
		return Opened{}, err
	}
	k := s.key(buf[len(statePrefix) : len(statePrefix)+keyIDLen])
	if k == nil {
		return Opened{}, errInvalidState
	}
	var id [stateIDLen]byte // the nonce, read before the claims are opened over it
	b64.EncodeURL(id[:], buf[aadLen:aadLen+nonceLen])
	sealed := buf[aadLen:]
	plain, err := k.aead.Open(sealed[:0], nil, sealed, buf[:aadLen])
	if err != nil {
		return Opened{}, errInvalidState
	}
	var c claims
	if !readClaims(plain, &c) {
		return Opened{}, errInvalidState
	}
	if err := s.check(&c, &call, args, argsErr); err != nil {
		return Opened{}, err
	}
	sealedExpiry := int64(binary.BigEndian.Uint64(buf[len(statePrefix)+keyIDLen : aadLen]))
	// One string holds the ID and the rounds: the ID is written just
	// before the rounds, over the claims and the header, already read,
	// which take more room than it.
	rounds := cap(buf) - cap(c.state) // c.state is in buf's storage
	copy(buf[rounds-stateIDLen:], id[:])
	text := string(buf[rounds-stateIDLen : rounds+len(c.state)])
	st := Opened{
		IssuedAt:     time.UnixMilli(c.issuedAt).UTC(),
		ID:           text[:stateIDLen],
		rounds:       text[stateIDLen:],
		sealedExpiry: sealedExpiry,
	}
	// In milliseconds, as the issue time is: later than now and the skew,
	// to the nanosecond, is later than their millisecond.
	if c.issuedAt > now.Add(s.skew).UnixMilli() {
		return Opened{}, msg.Errorf(ErrInvalidState, "issued at %s, later than %s allows with a clock skew of %v",
			st.IssuedAt.Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), s.skew)
	}
	expiry := st.sealedExpiry
	if age := s.maxAge.Milliseconds(); c.issuedAt <= math.MaxInt64-age { // no overflow
		expiry = min(expiry, c.issuedAt+age)
	}
	st.ExpiresAt = time.UnixMilli(expiry).UTC()
	// The header's expiry is the earliest of the requests' too: only a state
	// that has expired needs them read.
	if !now.Before(st.ExpiresAt) {
		return Opened{}, s.expired(st, now)
	}
	return st, nil
}

// check reports whether the claims c were sealed for call on s, given
// the binding of its arguments and the error of computing it.
func (s *Sealer) check(c *claims, call *Call, args []byte, argsErr error) error {
	if string(c.audience) != s.audience {
		return msg.Errorf(ErrMismatch, "it was sealed for another audience, not %s", msg.Quote(s.audience))
	}
	if string(c.tool) != call.Tool {
		return msg.Errorf(ErrMismatch, "it was sealed for another tool, not %s", msg.Quote(call.Tool))
	}
	if argsErr != nil {
		return argsErr
	}
	if !bytes.Equal(c.args, args) {
		return msg.Errorf(ErrMismatch, "it was sealed for other arguments to %s", msg.Quote(call.Tool))
	}
	if string(c.principal) != call.Principal {
		return msg.Errorf(ErrMismatch, "it was sealed for another principal")
	}
	return nil
}

// expired returns the error of st, which has expired at now, naming the
// limit it reached.
func (s *Sealer) expired(st Opened, now time.Time) error {
	for _, r := range st.Requests() {
		if r.Expired(now) {
			return msg.Errorf(toolnexus.ErrExpired, "request %s expired at %s", msg.Quote(r.ID), r.ExpiresAt)
		}
	}
	if !now.Before(st.IssuedAt.Add(s.maxAge)) {
		return msg.Errorf(toolnexus.ErrExpired, "the state issued at %s has passed the maximum age of %v",
			st.IssuedAt.Format(time.RFC3339Nano), s.maxAge)
	}
	return msg.Errorf(toolnexus.ErrExpired, "the state expired at %s", st.ExpiresAt.Format(time.RFC3339Nano))
}

// Until returns the latest time at which o, which [Sealer.Open]
// returned, may open on any server that shares its keys: the expiry its
// sealer wrote in it, which no server's maximum age extends, plus
// [MaxClockSkew], the most by which a server's clock may lag. The Runner
// of package park keeps the claim of an answered state until then, so
// that the state is answered once.
func (o Opened) Until() time.Time {
	at := o.ExpiresAt
	if o.sealedExpiry != 0 {
		at = time.UnixMilli(o.sealedExpiry).UTC()
	}
	return at.Add(MaxClockSkew)
}

// Expiry returns the time until which state, sealed by a [Sealer], may be
// accepted, without the key: a host that received an MCP input_required
// result can tell how long its call can stay parked. The time is read from
// the state's header, which the server authenticates but the host cannot:
// it is the server's word, to the millisecond, and the server may refuse
// the state earlier (a key retired, a shorter maximum age, a state already
// used). It reports [ErrInvalidState] for a string that is not a state.
func Expiry(state string) (time.Time, error) {
	buf, err := decodeState(state)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(buf[len(statePrefix)+keyIDLen : aadLen]))).UTC(), nil
}

// errInvalidState is the one error of a state that fails to open: it does
// not say which check failed.
var errInvalidState = msg.Errorf(ErrInvalidState, "not sealed with this key, or altered")

func init() {
	argmemo.BindCall = func(call any, binding []byte) any {
		c := call.(Call)
		c.binding, c.bound = binding, c.Arguments
		return c
	}
	wire.Register(reflect.TypeFor[Call]())
	wire.Register(reflect.TypeFor[State]())
	wire.Register(reflect.TypeFor[Opened]())
	wire.Register(reflect.TypeFor[Options]())
}
