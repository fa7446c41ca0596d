package toolnexus

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/fips140"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// MinStateKeyLen is the shortest request state key, in bytes. A key should
// be random, secret, and the same on every server that may receive the
// retry of a call.
const MinStateKeyLen = 32

// Limits of [SealerOptions]: the maximum age of a state and the allowance
// for clocks that disagree.
const (
	// DefaultStateMaxAge is the maximum age of a state when
	// [SealerOptions].MaxAge is zero.
	DefaultStateMaxAge = 24 * time.Hour
	// MaxStateMaxAge is the longest [SealerOptions].MaxAge: a state that
	// lives longer could not be revoked but by retiring its key.
	MaxStateMaxAge = 30 * 24 * time.Hour
	// DefaultStateClockSkew is the allowance for clocks that disagree when
	// [SealerOptions].ClockSkew is zero.
	DefaultStateClockSkew = time.Minute
	// MaxStateClockSkew is the largest [SealerOptions].ClockSkew.
	MaxStateClockSkew = 5 * time.Minute
)

// maxStateLen is the longest request state, in bytes, that a [Sealer]
// opens; Seal refuses a state that would be longer.
const maxStateLen = 64 << 10

// statePrefix starts every request state: the format's name and version.
// It is authenticated with the header, so a state cannot be read as another
// version.
const statePrefix = "tn1."

// The layout of a state after its prefix, in URL-safe base64 without
// padding: a header of the key id and the expiry, authenticated with the
// prefix as the associated data, then the random nonce, the ciphertext of
// the claims and the tag of AES-256-GCM.
const (
	keyIDLen     = 8
	headerLen    = keyIDLen + 8 // key id, expiry in Unix milliseconds
	aadLen       = len(statePrefix) + headerLen
	nonceLen     = 12            // AES-GCM's nonce, random
	tagLen       = 16            // AES-GCM's tag
	stateIDLen   = 16            // a state's ID, its nonce in URL-safe base64
	claimsFixed  = 8             // issued-at
	noExpiry     = math.MaxInt64 // the header's expiry of a state that never expires
	hkdfKeyIDTag = "toolnexus request state tn1 key id"
	hkdfKeyTag   = "toolnexus request state tn1 aes-256-gcm key "
)

// SealerOptions configures a [Sealer].
type SealerOptions struct {
	// Keys are the secrets states are sealed with, each at least
	// MinStateKeyLen random bytes: Keys[0] seals, every key opens. See
	// [Sealer] for how to rotate them.
	Keys [][]byte
	// Audience names this service, such as its URL; a state opens only for
	// the audience it was sealed for, so two services sharing a key cannot
	// open each other's states. Set it: every service that leaves it empty
	// shares the empty audience.
	Audience string
	// MaxAge is how long after it is sealed a state may open, at most
	// MaxStateMaxAge; zero means DefaultStateMaxAge. A state expires at the
	// earliest of its issue time plus MaxAge, the State's ExpiresAt and
	// its requests' ExpiresAt.
	MaxAge time.Duration
	// ClockSkew is how far in the future, by this server's clock, a state
	// may have been issued by another server's, at most
	// MaxStateClockSkew; zero means DefaultStateClockSkew.
	ClockSkew time.Duration
	// Claims, when set, lets each state finish at most once: see
	// [Sealer.Claim]. Nil lets a client retry a state until it expires,
	// as it may after a lost response.
	Claims ClaimStore
	// DrawEachNonce, when set, draws the nonce of each state from
	// crypto/rand as it is sealed, rather than many at a time into the
	// process's memory, for a process that a virtual machine snapshot may
	// clone (see [Sealer]). It costs a call into the kernel per state. In
	// FIPS 140-3 mode each nonce is drawn so whatever it says.
	DrawEachNonce bool
}

// Sealer seals the request state of a suspended tool call (such as the
// requestState of an MCP input_required result) and opens it when the
// client sends it back, as the MCP specification asks: the state comes from
// the client, so it is treated as hostile. It is encrypted and
// authenticated with AES-256-GCM, and bound to the tool, the arguments
// (their canonical form, or its digest when long), the audience, the
// principal and an expiry.
//
// A Sealer derives its keys once, in [NewSealer], and is safe for
// concurrent use. Seal allocates the state's text alone, and Open one
// string, the state's ID and its requests and answers as bytes, whatever
// their size: the work is done in reused buffers, and the requests and
// answers are built only when the [OpenedState] is asked for them.
// Every server that may receive the retry of a call (the
// instances behind one load balancer, or one server across a restart)
// needs a Sealer with the same keys and audience.
//
// A state is text: the prefix "tn1." and, in URL-safe base64 without
// padding, an 8-byte key id (derived from the key, never the key), the
// expiry in Unix milliseconds (8 bytes, big-endian; the largest int64 for
// none), the 12-byte random nonce (from crypto/rand, drawn by the AEAD
// itself in FIPS 140-3 mode; it names the state for [Sealer.Claim] too),
// the encrypted claims and the 16-byte tag. The prefix, key id and expiry
// are authenticated as associated data; the key id lets Open try one key,
// and the expiry lets a host read, with [RequestStateExpiry], until when
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
//
// Seal draws random nonces from crypto/rand 64 at a time, and hands each
// out once. A process that may be cloned with its memory, as a virtual
// machine restored twice from one snapshot is, would hand out the nonces
// drawn before the snapshot once in each clone: set
// [SealerOptions].DrawEachNonce there, so that each nonce is drawn as its
// state is sealed, from the kernel, which a restored machine reseeds.
type Sealer struct {
	keys     []stateKey // keys[0] seals
	audience string
	maxAge   time.Duration // 0: none, for SealRequestState's states
	skew     time.Duration
	claims   ClaimStore
}

// stateKey is one key of a Sealer's ring, derived from a secret. Its AEAD
// takes the nonces that Seal draws, many at a time (see newStateRandom),
// or, in FIPS 140-3 mode, draws each itself (randomNonce): the states are
// the same bytes either way, the nonce in front of the ciphertext.
type stateKey struct {
	id          [keyIDLen]byte
	aead        cipher.AEAD
	randomNonce bool
}

// NewSealer returns a Sealer with o's keys and limits. It reports
// [ErrShortKey] for a key shorter than [MinStateKeyLen], [ErrInvalidKey]
// for no key or a key given twice, and [ErrInvalidSealer] for a MaxAge or
// ClockSkew out of bounds.
func NewSealer(o SealerOptions) (*Sealer, error) {
	s := &Sealer{audience: o.Audience, maxAge: o.MaxAge, skew: o.ClockSkew, claims: o.Claims}
	if s.maxAge == 0 {
		s.maxAge = DefaultStateMaxAge
	}
	if s.skew == 0 {
		s.skew = DefaultStateClockSkew
	}
	switch {
	case s.maxAge < 0 || s.maxAge > MaxStateMaxAge:
		return nil, msg.Errorf(ErrInvalidSealer, "MaxAge %v is not between 0 and %v", o.MaxAge, MaxStateMaxAge)
	case s.skew < 0 || s.skew > MaxStateClockSkew:
		return nil, msg.Errorf(ErrInvalidSealer, "ClockSkew %v is not between 0 and %v", o.ClockSkew, MaxStateClockSkew)
	}
	if err := s.deriveKeys(o.Keys, o.DrawEachNonce); err != nil {
		return nil, err
	}
	return s, nil
}

// deriveKeys builds the key ring of secrets, whose ciphers draw each nonce
// themselves when drawEach is set.
func (s *Sealer) deriveKeys(secrets [][]byte, drawEach bool) error {
	if len(secrets) == 0 {
		return msg.Errorf(ErrInvalidKey, "no key")
	}
	s.keys = make([]stateKey, len(secrets))
	for i, secret := range secrets {
		if len(secret) < MinStateKeyLen {
			if len(secrets) == 1 {
				return msg.Errorf(ErrShortKey, "%d bytes, want at least %d", len(secret), MinStateKeyLen)
			}
			return msg.Errorf(ErrShortKey, "key %d of %d: %d bytes, want at least %d", i+1, len(secrets), len(secret), MinStateKeyLen)
		}
		k, err := newStateKey(secret, drawEach || fips140.Enabled())
		if err != nil {
			return err
		}
		for j := range i {
			if s.keys[j].id == k.id {
				return msg.Errorf(ErrInvalidKey, "key %d of %d is key %d again", i+1, len(secrets), j+1)
			}
		}
		s.keys[i] = k
	}
	return nil
}

// newStateKey derives the key id and the AES-256-GCM cipher of secret with
// HKDF-SHA256: the id from the secret alone, the cipher's key from the
// secret under a label naming the format and the id. With randomNonce, the
// cipher draws its own nonces, as FIPS 140-3 mode asks.
func newStateKey(secret []byte, randomNonce bool) (stateKey, error) {
	k := stateKey{randomNonce: randomNonce}
	id, err := hkdf.Key(sha256.New, secret, nil, hkdfKeyIDTag, keyIDLen)
	if err != nil {
		return k, fmt.Errorf("toolnexus: cannot derive request state key: %w", err)
	}
	copy(k.id[:], id)
	key, err := hkdf.Key(sha256.New, secret, nil, hkdfKeyTag+hex.EncodeToString(id), 32)
	if err != nil {
		return k, fmt.Errorf("toolnexus: cannot derive request state key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return k, err // unreachable: the key is 32 bytes
	}
	if randomNonce {
		k.aead, err = cipher.NewGCMWithRandomNonce(block)
	} else {
		k.aead, err = cipher.NewGCM(block)
	}
	return k, err
}

// StateCall is the call a state is bound to.
type StateCall struct {
	// Tool is the name of the tool called.
	Tool string
	// Arguments are the call's arguments as the tool reads them; see
	// [Sealer.Seal] for how they are compared.
	Arguments json.RawMessage
	// Principal names the authenticated user of the call, such as the
	// issuer and subject of its OAuth token ([Principal] writes them as
	// one string); empty for a call without one. A state sealed for one
	// principal opens for no other, nor for none.
	Principal string
}

// Principal returns the principal of a user whose token issuer issued for
// subject, as [StateCall].Principal names it: a string no other pair of
// issuer and subject gives, the issuer's length first, so that issuer "a"
// and subject "bc" are not issuer "ab" and subject "c". Empty strings are
// kept as they are: a subject is never left out, but a bridge refuses a
// token without one before it comes here.
func Principal(issuer, subject string) string {
	return "iss:" + strconv.Itoa(len(issuer)) + ":" + issuer + "sub:" + subject
}

// State is what a request state carries from one round of a suspended call
// to the next: what [Sealer.Seal] seals. [Sealer.Open] gives it back as an
// [OpenedState].
type State struct {
	// Requests are what the tool asked in the latest round: at least one.
	Requests []Request
	// Answers are the answers of earlier rounds, earliest first.
	Answers Answers
	// ExpiresAt, when not zero, shortens the state's life: it stops
	// opening at the earliest of this time (to the millisecond), its
	// requests' ExpiresAt and its issue time plus the maximum age.
	ExpiresAt time.Time
}

// OpenedState is a request state that [Sealer.Open] has authenticated and
// checked against its call. It holds the requests and answers of the
// [State] that was sealed as the state's bytes, which
// [OpenedState.Requests] and [OpenedState.Answers] build anew at each
// call: Open builds neither, and costs no more than its checks, and a
// caller that needs neither (a replay that [Sealer.Claim] refuses) pays
// nothing for them. An OpenedState is a value that never changes, and its
// copies share its bytes. The zero OpenedState holds no request and cannot
// be claimed.
type OpenedState struct {
	// IssuedAt is when the state was sealed, to the millisecond.
	IssuedAt time.Time
	// ExpiresAt is when the state stops opening, to the millisecond; the
	// zero time means never, for a state of [SealRequestState].
	ExpiresAt time.Time
	// ID identifies the state for [Sealer.Claim]: the URL-safe base64 of
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
func (o OpenedState) Requests() []Request {
	r := claimsReader{s: o.rounds, ok: true}
	if reqs := r.requests(true); r.ok {
		return reqs
	}
	return nil // unreachable for a state that Seal wrote under the key
}

// Answers returns the answers of the state's earlier rounds, earliest
// first, read anew from the state at each call: the caller owns them.
func (o OpenedState) Answers() Answers {
	r := claimsReader{s: o.rounds, ok: true}
	r.requests(false)
	if answers := r.answers(true); r.ok {
		return answers
	}
	return nil // unreachable for a state that Seal wrote under the key
}

// Seal returns the request state that carries st for call, issued at now:
// an opaque string the client holds and sends back, unchanged, with its
// answers. The state is encrypted and authenticated with the first key,
// and holds, besides st, the tool, the arguments (their canonical form, or
// a SHA-256 digest of it past 128 bytes), the audience, the principal, the
// issue time and the expiry; its random nonce is its ID.
//
// The arguments are bound by their value, so that the order of keys, the
// spacing and the escapes do not matter; empty arguments, null and {} are
// the same call, and numbers must be written the same. Arguments with an
// object, at any depth, that repeats a name or holds two names that are one
// when case is folded ({"Env":"prod","env":"staging"}) are refused with
// [ErrDuplicateKey], by Seal and by Open: decoders that keep the first or
// the last of them, or fold case, would read different calls from one
// binding.
//
// A Request's Data goes through JSON, as it does on the wire: a number
// comes back as a float64. Seal reports the error of [Request.Validate]
// for a request that is not valid, [ErrInvalidRequest] for a State without
// requests, with Data that is not JSON, or whose state would be longer
// than 64 KiB, and [ErrInvalidJSON] when the arguments are not JSON
// ([ErrDuplicateKey] when they repeat a name).
func (s *Sealer) Seal(call StateCall, st State, now time.Time) (string, error) {
	if len(st.Requests) == 0 {
		return "", msg.Errorf(ErrInvalidRequest, "a request state holds no request")
	}
	expiry := int64(noExpiry)
	if s.maxAge > 0 {
		expiry = now.Add(s.maxAge).UnixMilli()
	}
	if !st.ExpiresAt.IsZero() {
		expiry = min(expiry, st.ExpiresAt.UnixMilli())
	}
	for _, r := range st.Requests {
		t, err := r.validate()
		if err != nil {
			return "", err
		}
		if !t.IsZero() {
			expiry = min(expiry, t.UnixMilli()) // rounded down: a state never outlives its request
		}
	}
	// One scratch buffer holds the canonical arguments, then the prefix
	// and the header, the nonce, the claims, sealed in place, and the
	// text.
	sc := getScratch()
	defer putScratch(sc)
	scratch := &sc.buf
	var argsBuf [jsonscan.MaxBinding]byte
	args, err := jsonscan.AppendBinding(argsBuf[:0], scratch, call.Arguments)
	if err != nil {
		return "", err
	}
	id := st.Requests[0].ID
	k := s.keys[0]
	sealedHint := aadLen + nonceLen + tagLen + claimsFixed + 1 + len(args) +
		len(call.Tool) + len(s.audience) + len(call.Principal) + stateSizeHint(st)
	buf := slices.Grow((*scratch)[:0], sealedHint+len(statePrefix)+base64.RawURLEncoding.EncodedLen(sealedHint))
	buf = append(buf, statePrefix...)
	buf = append(buf, k.id[:]...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(expiry))
	if !k.randomNonce {
		nonce := sc.nonce()
		buf = append(buf, nonce[:]...)
	} // else the AEAD draws it, and moves the claims past it
	plain := binary.BigEndian.AppendUint64(buf[len(buf):], uint64(now.UnixMilli()))
	plain = append(binary.AppendUvarint(plain, uint64(len(args))), args...)
	plain = appendString(plain, call.Tool)
	plain = appendString(plain, s.audience)
	plain = appendString(plain, call.Principal)
	plain, err = appendState(plain, st)
	if err != nil {
		return "", msg.Errorf(ErrInvalidRequest, "request %s: %v", msg.Quote(id), err)
	}
	textLen := base64.RawURLEncoding.EncodedLen(headerLen + nonceLen + len(plain) + tagLen)
	if size := len(statePrefix) + textLen; size > maxStateLen {
		return "", msg.Errorf(ErrInvalidRequest, "request %s would make a state of %d bytes, over the limit of %d bytes", msg.Quote(id), size, maxStateLen)
	}
	var sealed []byte
	if k.randomNonce {
		sealed = k.aead.Seal(buf[:aadLen], nil, plain, buf[:aadLen])
	} else {
		sealed = k.aead.Seal(buf[:aadLen+nonceLen], buf[aadLen:aadLen+nonceLen], plain, buf[:aadLen])
	}
	full := slices.Grow(sealed, len(statePrefix)+textLen)
	keepGrown(scratch, full)
	text := full[len(sealed) : len(sealed)+len(statePrefix)+textLen]
	copy(text, statePrefix)
	b64.EncodeURL(text[len(statePrefix):], sealed[len(statePrefix):])
	return string(text), nil
}

// stateScratch is what Seal and Open reuse from call to call: a buffer,
// and random nonces drawn from crypto/rand many at a time, each handed out
// once. A scratch the pool drops takes its unused nonces with it.
type stateScratch struct {
	buf    []byte
	nonces [64 * nonceLen]byte
	next   int // the first unused byte of nonces, or 0 before any is drawn
}

// stateScratches holds the scratches of Seal and Open, so that a state
// costs no allocation but its text (Seal) or its rounds (Open).
var stateScratches = sync.Pool{New: func() any { return new(stateScratch) }}

// maxPooledState is the capacity of the largest scratch buffer kept for
// reuse, that of a state of about 24 KiB; a larger one, for a rare large
// state, is left to the collector.
const maxPooledState = 64 << 10

// getScratch returns a scratch of stateScratches.
func getScratch() *stateScratch {
	return stateScratches.Get().(*stateScratch)
}

// putScratch gives sc back to stateScratches, unless its buffer has grown
// too large.
func putScratch(sc *stateScratch) {
	if cap(sc.buf) <= maxPooledState {
		stateScratches.Put(sc)
	}
}

// nonce returns the random nonce of a new state.
func (sc *stateScratch) nonce() (nonce [nonceLen]byte) {
	if sc.next == 0 || sc.next == len(sc.nonces) {
		rand.Read(sc.nonces[:]) // never fails
		sc.next = 0
	}
	sc.next += copy(nonce[:], sc.nonces[sc.next:])
	return nonce
}

// keepGrown keeps buf as the scratch buffer b when it has grown out of
// b's storage; else b holds it already, and is not written to.
func keepGrown(b *[]byte, buf []byte) {
	if cap(buf) != cap(*b) {
		*b = buf[:0]
	}
}

// Open returns the [OpenedState] that state, sealed by a Sealer with one
// of s's keys and its audience, holds for call at now, once it has checked
// that state is intact, was sealed for this call, and has not expired. It
// reports [ErrInvalidState] for a state that is longer than 64 KiB, was
// sealed with a key s does not hold, was altered in any way, or was issued
// later than now by more than the clock skew allowed; [ErrStateMismatch]
// for a state sealed for another tool, other arguments, another audience
// or another principal ([ErrInvalidJSON] when the arguments are not JSON,
// [ErrDuplicateKey] when they repeat a name);
// and [ErrExpired] for one that has expired. Open does not claim the
// state: see [Sealer.Claim].
func (s *Sealer) Open(state string, call StateCall, now time.Time) (st OpenedState, err error) {
	// The scratch buffer holds the canonical arguments, then the state's
	// bytes; the binding's error, if any, is reported where check reads it.
	sc := getScratch()
	defer putScratch(sc)
	scratch := &sc.buf
	var argsBuf [jsonscan.MaxBinding]byte
	args, argsErr := jsonscan.AppendBinding(argsBuf[:0], scratch, call.Arguments)
	buf, err := decodeState((*scratch)[:0], state)
	if err != nil {
		return OpenedState{}, err
	}
	keepGrown(scratch, buf)
	k := s.key(buf[len(statePrefix) : len(statePrefix)+keyIDLen])
	if k == nil {
		return OpenedState{}, errInvalidState
	}
	var id [stateIDLen]byte
	b64.EncodeURL(id[:], buf[aadLen:aadLen+nonceLen]) // before open: in FIPS mode, the claims are opened over the nonce
	plain, err := k.open(buf)
	if err != nil {
		return OpenedState{}, errInvalidState
	}
	var c claims
	if !readClaims(plain, &c) {
		return OpenedState{}, errInvalidState
	}
	expiry := int64(binary.BigEndian.Uint64(buf[len(statePrefix)+keyIDLen : aadLen]))
	if err := s.check(&c, &call, args, argsErr); err != nil {
		return OpenedState{}, err
	}
	// The OpenedState keeps a copy of the ID and the rounds, together: the
	// ID is written just before the rounds, over claims already checked.
	// It fits: the claims take 13 bytes at least, and the prefix, header
	// and nonce 32 before them.
	rounds := cap(buf) - cap(c.state) // c.state is in buf's storage
	if rounds < stateIDLen || rounds+len(c.state) > len(buf) {
		return OpenedState{}, errInvalidState // unreachable: k.open opens in place
	}
	copy(buf[rounds-stateIDLen:], id[:])
	text := string(buf[rounds-stateIDLen : rounds+len(c.state)])
	// The result is written in place: copied, it would be read before its
	// stores had landed.
	st.IssuedAt, st.ID, st.rounds = time.UnixMilli(c.issuedAt).UTC(), text[:stateIDLen], text[stateIDLen:]
	st.sealedExpiry = expiry
	if s.maxAge > 0 {
		// In milliseconds, as the issue time is: later than now and the
		// skew, to the nanosecond, is later than their millisecond.
		if c.issuedAt > now.Add(s.skew).UnixMilli() {
			return OpenedState{}, msg.Errorf(ErrInvalidState, "issued at %s, later than %s allows with a clock skew of %v",
				st.IssuedAt.Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), s.skew)
		}
		if age := s.maxAge.Milliseconds(); c.issuedAt <= noExpiry-age {
			expiry = min(expiry, c.issuedAt+age)
		}
	}
	if expiry != noExpiry {
		st.ExpiresAt = time.UnixMilli(expiry).UTC()
		// The header's expiry is the earliest of the requests' too: only a
		// state that has expired needs them read.
		if !now.Before(st.ExpiresAt) {
			return OpenedState{}, s.expired(st, now)
		}
	}
	return st, nil
}

// open opens in place the sealed claims of buf, a state's bytes, with k.
func (k *stateKey) open(buf []byte) ([]byte, error) {
	if k.randomNonce {
		sealed := buf[aadLen:]
		return k.aead.Open(sealed[:0], nil, sealed, buf[:aadLen])
	}
	ciphertext := buf[aadLen+nonceLen:]
	return k.aead.Open(ciphertext[:0], buf[aadLen:aadLen+nonceLen], ciphertext, buf[:aadLen])
}

// key returns the key of s whose id is id, or nil.
func (s *Sealer) key(id []byte) *stateKey {
	for i := range s.keys {
		if bytes.Equal(s.keys[i].id[:], id) {
			return &s.keys[i]
		}
	}
	return nil
}

// decodeState returns the bytes of state, its prefix followed by the
// base64 decoded, in buf's storage when it is large enough, once state is
// well formed: at most 64 KiB, strict base64 without line breaks, long
// enough for a header, a nonce and a tag.
func decodeState(buf []byte, state string) ([]byte, error) {
	if len(state) > maxStateLen {
		return nil, msg.Errorf(ErrInvalidState, "longer than %d bytes", maxStateLen)
	}
	body, ok := strings.CutPrefix(state, statePrefix)
	if !ok {
		return nil, errInvalidState
	}
	size := len(statePrefix) + base64.RawURLEncoding.DecodedLen(len(body))
	buf = slices.Grow(buf[:0], size)[:size]
	copy(buf, statePrefix)
	n, ok := b64.DecodeURL(buf[len(statePrefix):], body)
	if !ok || n < headerLen+nonceLen+tagLen {
		return nil, errInvalidState
	}
	return buf, nil
}

// check reports whether the claims c were sealed for call on s, given
// the binding of its arguments and the error of computing it.
func (s *Sealer) check(c *claims, call *StateCall, args []byte, argsErr error) error {
	if string(c.audience) != s.audience {
		return msg.Errorf(ErrStateMismatch, "it was sealed for another audience, not %s", msg.Quote(s.audience))
	}
	if string(c.tool) != call.Tool {
		return msg.Errorf(ErrStateMismatch, "it was sealed for another tool, not %s", msg.Quote(call.Tool))
	}
	if argsErr != nil {
		return argsErr
	}
	if !bytes.Equal(c.args, args) {
		return msg.Errorf(ErrStateMismatch, "it was sealed for other arguments to %s", msg.Quote(call.Tool))
	}
	if string(c.principal) != call.Principal {
		return msg.Errorf(ErrStateMismatch, "it was sealed for another principal")
	}
	return nil
}

// expired returns the error of st, which has expired at now, naming the
// limit it reached.
func (s *Sealer) expired(st OpenedState, now time.Time) error {
	for _, r := range st.Requests() {
		if r.Expired(now) {
			return msg.Errorf(ErrExpired, "request %s expired at %s", msg.Quote(r.ID), r.ExpiresAt)
		}
	}
	if s.maxAge > 0 && !now.Before(st.IssuedAt.Add(s.maxAge)) {
		return msg.Errorf(ErrExpired, "the state issued at %s has passed the maximum age of %v",
			st.IssuedAt.Format(time.RFC3339Nano), s.maxAge)
	}
	return msg.Errorf(ErrExpired, "the state expired at %s", st.ExpiresAt.Format(time.RFC3339Nano))
}

// Claim marks st, which [Sealer.Open] returned, as finished, once
// for all the servers that share s's [ClaimStore]: call it before running
// the tool with st's answers, and run the tool only when it succeeds. A
// second Claim of the same state reports [ErrStateReplayed]; a store that
// fails reports [ErrClaimStore], wrapping the store's error, and the call
// must be refused, never run unchecked. Without a ClaimStore, Claim does
// nothing: a state may then finish any number of times until it expires.
//
// The claim lasts until the state can open on no server: until the expiry
// its sealer wrote in it, which no server's maximum age extends, plus
// [MaxStateClockSkew], the most by which a server's clock may lag. A state
// is so used at most once: taken before the tool runs, its claim stays when
// the tool does not finish (the process crashed, or the tool panicked,
// perhaps after it acted), and the client's retry is refused as a state
// already used. Each call runs at most once; one may not run at all.
func (s *Sealer) Claim(ctx context.Context, st OpenedState) error {
	if s.claims == nil {
		return nil
	}
	if st.ID == "" || st.ExpiresAt.IsZero() {
		return msg.Errorf(ErrInvalidState, "the state to claim has no ID or no expiry: claim an OpenedState that Open returned")
	}
	until := st.ExpiresAt
	if st.sealedExpiry != 0 && st.sealedExpiry != noExpiry {
		until = time.UnixMilli(st.sealedExpiry).UTC()
	}
	fresh, err := s.claims.Claim(ctx, st.ID, until.Add(MaxStateClockSkew))
	if err != nil {
		return fmt.Errorf("%w: state %s: %w", ErrClaimStore, st.ID, err)
	}
	if !fresh {
		return msg.Errorf(ErrStateReplayed, "state %s has already been used", st.ID)
	}
	return nil
}

// RequestStateExpiry returns the time until which state, sealed by a
// [Sealer], may be accepted, or the zero time for a state that never
// expires, without the key: a host that received an MCP input_required
// result can tell how long its call can stay parked. The time is read from
// the state's header, which the server authenticates but the host cannot:
// it is the server's word, to the millisecond, and the server may refuse
// the state earlier (a key retired, a shorter maximum age, a state already
// used). It reports [ErrInvalidState] for a string that is not a state.
func RequestStateExpiry(state string) (time.Time, error) {
	buf, err := decodeState(nil, state)
	if err != nil {
		return time.Time{}, err
	}
	expiry := int64(binary.BigEndian.Uint64(buf[len(statePrefix)+keyIDLen : aadLen]))
	if expiry == noExpiry {
		return time.Time{}, nil
	}
	return time.UnixMilli(expiry).UTC(), nil
}

// KeysFromHex returns the keys of list, comma-separated hex keys, such as
// an environment variable or a secret's file holds them for
// [SealerOptions].Keys: the first seals, all open. ASCII white space around
// the list (a file's last newline) is not part of it; white space within it
// is not hex.
// It reports [ErrInvalidKey] for an empty list, an empty key or one that is
// not hex, and [ErrShortKey] for a key shorter than [MinStateKeyLen] bytes.
// The errors never show a key.
func KeysFromHex(list string) ([][]byte, error) {
	list = strings.Trim(list, asciiSpace)
	if list == "" {
		return nil, msg.Errorf(ErrInvalidKey, "no key")
	}
	fields := strings.Split(list, ",")
	keys := make([][]byte, len(fields))
	for i, f := range fields {
		key, err := hex.DecodeString(f)
		switch {
		case f == "":
			return nil, msg.Errorf(ErrInvalidKey, "key %d of %d is empty", i+1, len(fields))
		case err != nil:
			return nil, msg.Errorf(ErrInvalidKey, "key %d of %d is not hex", i+1, len(fields))
		case len(key) < MinStateKeyLen:
			return nil, msg.Errorf(ErrShortKey, "key %d of %d: %d bytes, want at least %d", i+1, len(fields), len(key), MinStateKeyLen)
		}
		keys[i] = key
	}
	return keys, nil
}

// asciiSpace is the white space of ASCII.
const asciiSpace = " \t\n\v\f\r"

// SealRequestState returns the request state of a call to tool with
// arguments args that suspended on req: the one-key, unbound form of
// [Sealer.Seal], with no audience, no principal and no maximum age. The
// state expires with req, or never for a req without ExpiresAt (set one
// with [Request.WithExpiry]). It reports [ErrShortKey] for a key shorter
// than [MinStateKeyLen] and the errors of Seal.
func SealRequestState(key []byte, tool string, args json.RawMessage, req Request) (string, error) {
	s, err := unboundSealer(key)
	if err != nil {
		return "", err
	}
	return s.Seal(StateCall{Tool: tool, Arguments: args}, State{Requests: []Request{req}}, time.Now())
}

// OpenRequestState returns the Request that state, made by
// [SealRequestState] with the same key, holds: the one-key, unbound form
// of [Sealer.Open], which checks no audience, no principal and no maximum
// age. It reports [ErrShortKey] for a short key and the errors of Open.
func OpenRequestState(key []byte, state, tool string, args json.RawMessage, now time.Time) (Request, error) {
	s, err := unboundSealer(key)
	if err != nil {
		return Request{}, err
	}
	st, err := s.Open(state, StateCall{Tool: tool, Arguments: args}, now)
	if err != nil {
		return Request{}, err
	}
	reqs := st.Requests()
	if len(reqs) == 0 {
		return Request{}, errInvalidState // unreachable: Seal writes at least one
	}
	return reqs[0], nil
}

// unboundSealer returns the Sealer of SealRequestState: one key, no
// audience, no maximum age.
func unboundSealer(key []byte) (*Sealer, error) {
	s := &Sealer{}
	if err := s.deriveKeys([][]byte{key}, false); err != nil {
		return nil, err
	}
	return s, nil
}

// errInvalidState is the one error of a state that fails to open: it does
// not say which check failed.
var errInvalidState = msg.Errorf(ErrInvalidState, "not sealed with this key, or altered")

// String returns c's fields, its arguments as their size, for %v.
func (c StateCall) String() string { return showWire(c, false) }

// GoString returns c in Go syntax, its arguments as their size, for %#v.
func (c StateCall) GoString() string { return showWire(c, true) }

// Format prints c for every verb without its arguments, as [StateCall.String] (%#v: [StateCall.GoString]).
func (c StateCall) Format(f fmt.State, verb rune) { format(f, verb, c) }

// LogValue implements [slog.LogValuer]: c logs as a group of its non-empty fields, without its arguments.
func (c StateCall) LogValue() slog.Value { return logWire(c) }

// String returns st's fields, the Data of its requests and answers as
// their size, for %v.
func (st State) String() string { return showWire(st, false) }

// GoString returns st in Go syntax without Data, for %#v.
func (st State) GoString() string { return showWire(st, true) }

// Format prints st for every verb without Data, as [State.String] (%#v: [State.GoString]).
func (st State) Format(f fmt.State, verb rune) { format(f, verb, st) }

// LogValue implements [slog.LogValuer]: st logs as a group of its non-empty fields, without Data.
func (st State) LogValue() slog.Value { return logWire(st) }

// String returns o's issue time, expiry and ID, never its requests and
// answers, for %v.
func (o OpenedState) String() string { return showWire(o, false) }

// GoString returns o's exported fields in Go syntax, for %#v.
func (o OpenedState) GoString() string { return showWire(o, true) }

// Format prints o for every verb as [OpenedState.String] (%#v: [OpenedState.GoString]).
func (o OpenedState) Format(f fmt.State, verb rune) { format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its issue time, expiry and ID.
func (o OpenedState) LogValue() slog.Value { return logWire(o) }

// String returns o's fields, its keys as their number, for %v.
func (o SealerOptions) String() string { return showWire(o, false) }

// GoString returns o in Go syntax without its keys, for %#v.
func (o SealerOptions) GoString() string { return showWire(o, true) }

// Format prints o for every verb without its keys, as [SealerOptions.String] (%#v: [SealerOptions.GoString]).
func (o SealerOptions) Format(f fmt.State, verb rune) { format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its non-empty fields, without its keys.
func (o SealerOptions) LogValue() slog.Value { return logWire(o) }
