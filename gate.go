package toolnexus

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	claimstore "github.com/toolnexus-go/toolnexus/internal/claims"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// The reasons a gated tool (see [Gate]) refuses a call, each in the text
// of the error result the model reads and in the error the gate logs.
var (
	// ErrInvalidGate reports a [Gate] that cannot be built: no tool, no
	// policy, a key shorter than [MinGateKeyLen] or a negative expiry.
	ErrInvalidGate = errors.New("toolnexus: invalid gate")
	// ErrApprovalUsed reports an approval that has already run its tool:
	// an approval is used once, and its replay runs nothing.
	ErrApprovalUsed = errors.New("toolnexus: approval already used")
	// ErrApprovalMismatch reports an answer to an approval that the gate
	// did not ask for this call: one given for other arguments (other
	// keys, or the same keys with other values), by another gate, or by
	// this gate before a restart that gave it a new key. It also matches
	// [ErrAnswerMismatch].
	ErrApprovalMismatch = msg.Also("toolnexus: approval does not match the call", ErrAnswerMismatch)
	// ErrApprovalStore reports a [ClaimStore] that could not record the
	// use of an approval; the error also wraps the store's, and the tool
	// does not run.
	ErrApprovalStore = errors.New("toolnexus: cannot record the use of an approval")
)

// MinGateKeyLen is the shortest [GateOptions].Key, in bytes.
const MinGateKeyLen = 32

// gateClockSkew is how long after its expiry an approval's use is
// remembered: the most by which the clocks of servers sharing a
// [ClaimStore] may disagree.
const gateClockSkew = 5 * time.Minute

// The ID of a request a gate asks: gatePrefix, then in URL-safe base64
// without padding a random nonce, the expiry in Unix milliseconds and the
// first bytes of an HMAC-SHA256, under the gate's key, of gateMACTag, the
// nonce, the expiry and the binding of the call's arguments (their
// canonical form, or its digest when long, as a request state binds them).
const (
	gatePrefix   = "gate-"
	gateNonceLen = 16
	gateMACLen   = 16
	gateTokenLen = gateNonceLen + 8 + gateMACLen
	gateMACTag   = "toolnexus gate approval v1\x00"
)

// Policy decides, for one call of a gated tool (see [Gate]), whether a
// person must approve it before the tool runs: it returns the [Request] to
// put to the person and true, or false to let the call run as it is. The
// request is of kind [KindApproval] (the kind an empty Kind gets), or of
// another kind the policy picks, such as a [KindInput] that asks the
// person to type the name of what the call changes; granting it
// ([Request.Resolve]) is the approval, declining it refuses the call. Its
// ID is the gate's own, whatever the policy sets. A Policy is called on
// every run of the gated tool, with the call's arguments, and must decide
// alike for alike arguments; it must be safe for concurrent use.
type Policy func(ctx context.Context, args json.RawMessage) (Request, bool)

// RequireApproval returns the Policy that asks every call for an approval
// of kind [KindApproval] with prompt.
func RequireApproval(prompt string) Policy {
	return func(context.Context, json.RawMessage) (Request, bool) {
		return Request{Kind: KindApproval, Prompt: prompt}, true
	}
}

// ClaimStore records which approvals of a [Gate] have been used, so that
// each runs its tool once. Its one method is that of the requeststate
// package's ClaimStore: requeststate.NewMemoryClaims and the redisclaims
// module's Redis store are ClaimStores here too. Every process that runs a
// gated tool whose approvals may come back to another (servers behind a
// load balancer, one server across a restart) must share one store, and
// one [GateOptions].Key.
type ClaimStore interface {
	// Claim records id as used until until, after which the approval it
	// names is refused as expired anyway, and reports whether id was not
	// used before. It reports an error when it cannot tell, and is safe
	// for concurrent use.
	Claim(ctx context.Context, id string, until time.Time) (bool, error)
}

// GateOptions configures a [Gate]. The zero GateOptions is ready to use,
// for one process.
type GateOptions struct {
	// Key is the secret, at least MinGateKeyLen random bytes, with which
	// the gate binds each approval it asks to the call's arguments and to
	// itself. Nil means a random key of the gate's own, made by Gate: its
	// approvals are then refused by any other gate, and by this one after
	// a restart. Set the same key on every process that may run a call
	// another asked about, and a different key on each gated tool.
	Key []byte
	// Claims records the approvals used. Nil means a store in memory of
	// the gate's own, which forgets them when the process ends (see
	// requeststate.NewMemoryClaims for its bounds): with a Key shared by
	// several processes, share a store too, such as a Redis one.
	Claims ClaimStore
	// Expiry is how long an approval can be given and its call finished,
	// from the run that asked it; zero means [DefaultExpiry]. A request
	// the policy gives an earlier ExpiresAt keeps it.
	Expiry time.Duration
	// Time, when set, returns the current time, as in crypto/tls.Config;
	// nil means time.Now.
	Time func() time.Time
	// Logger gets each refused approval, with its reason; nil means
	// [slog.Default].
	Logger *slog.Logger
}

// String returns o's fields, its key as its size, for %v.
func (o GateOptions) String() string { return showWire(o, false) }

// GoString returns o in Go syntax, its key as its size, for %#v.
func (o GateOptions) GoString() string { return showWire(o, true) }

// Format prints o for every verb without its key, as [GateOptions.String] (%#v: [GateOptions.GoString]).
func (o GateOptions) Format(f fmt.State, verb rune) { wire.Format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its non-empty fields, without its key.
func (o GateOptions) LogValue() slog.Value { return logWire(o) }

// Gate returns tool behind policy: a Tool that, for each call the policy
// says needs a person, asks first and runs tool only with an approval of
// that very call, once. A nil opts is the zero [GateOptions].
//
// On a call the policy picks, the first run returns a suspension
// ([Pending]) of the policy's [Request], whose ID the gate makes: random,
// expiring after the Expiry, and bound to the arguments as a request state
// of package requeststate binds them, by their value (the order of keys,
// the spacing and the escapes do not matter; numbers must be written the
// same). A run with an answer granting that request runs tool, with the
// answers that follow it (those of tool's own suspensions), never with the
// approval itself; a decline is an [Error] with its reason, and tool does
// not run.
//
// An approval runs tool once: its use is claimed in the [ClaimStore]
// before tool runs, so that a host, a client or a framework that runs the
// gated tool again with the same answers (a replay) gets an Error, and
// tool does not run. A tool that suspends after its approval is run again
// with each new round of its own answers, each round once. Tool does not
// run, and the call gets an Error naming the reason, for an approval
// given for other arguments or by another gate ([ErrApprovalMismatch]),
// one that has expired ([ErrExpired]), one already used
// ([ErrApprovalUsed]), a store that fails ([ErrApprovalStore]), arguments
// that repeat a name or hold two names that are one when case is folded
// ([ErrDuplicateKey]) or are not JSON ([ErrInvalidJSON]), and a policy
// whose request is not valid.
//
// Used once holds on every carrier, with the default store in memory and
// whatever the carrier itself lets happen again:
//
//   - In a [Turn], [Turn.Answer] refuses an answer to a call that has
//     finished, but a host that kept the parked turn, or calls the gated
//     Tool itself, can run it again with the old answer: refused.
//   - Over MCP on protocol 2026-07-28 (the ToolHandler of the mcpbridge
//     and mcpgobridge modules serves the gated Tool as it is), a client
//     can send the same requestState and
//     inputResponses again after the tool ran; the bridge lets a state
//     finish once only when requeststate.Options.Claims is set, and the
//     gate refuses the replay without it. Other arguments do not open the
//     state at all.
//   - On older protocols the bridges ask the client within the call, by
//     elicitation, and run the tool again in that call; each call is
//     asked anew, under a new ID.
//   - The framework adapters (einobridge, genkitbridge) can resume the
//     same checkpoint, or restart the same stored interrupt, again with
//     the same answer: refused.
//
// The gate trusts its host with answers as the host trusts its carrier: a
// Turn passes an answer only to the call that asked it, and the MCP
// bridges only answers to requests their sealed state holds. What the gate
// adds is that an approval, however it comes back, runs only the call it
// was given for, and only once. Processes that may run a call another
// asked about (servers behind a load balancer, a server across a restart)
// need one [GateOptions].Key and one shared ClaimStore. Gate reports
// [ErrInvalidGate] for a nil tool or policy, a Key shorter than
// MinGateKeyLen and a negative Expiry.
func Gate(tool Tool, policy Policy, opts *GateOptions) (Tool, error) {
	var o GateOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case tool == nil:
		return nil, msg.Errorf(ErrInvalidGate, "no tool")
	case policy == nil:
		return nil, msg.Errorf(ErrInvalidGate, "no policy")
	case o.Key != nil && len(o.Key) < MinGateKeyLen:
		return nil, msg.Errorf(ErrInvalidGate, "a key of %d bytes, shorter than %d", len(o.Key), MinGateKeyLen)
	case o.Expiry < 0:
		return nil, msg.Errorf(ErrInvalidGate, "Expiry %v is negative", o.Expiry)
	}
	g := &gate{tool: tool, policy: policy, claims: o.Claims, expiry: cmp.Or(o.Expiry, DefaultExpiry), now: o.Time, logger: o.Logger}
	g.key = slices.Clone(o.Key)
	if g.key == nil {
		g.key = make([]byte, MinGateKeyLen)
		rand.Read(g.key) // never fails, as crypto/rand documents
	}
	if g.claims == nil {
		g.claims = claimstore.NewMemory(0, g.clock, "approvals that may still be used")
	}
	return g.run, nil
}

// gate is a tool behind a policy, as [Gate] makes it.
type gate struct {
	tool   Tool
	policy Policy
	key    []byte
	claims ClaimStore
	expiry time.Duration
	now    func() time.Time
	logger *slog.Logger
}

// run runs one call of the gated tool.
func (g *gate) run(ctx context.Context, args json.RawMessage, answers Answers) ToolResult {
	binding, err := jsonscan.AppendBinding(nil, args)
	if err != nil {
		return g.refuse(ctx, err)
	}
	mine, foreign := -1, ""
	for i, a := range answers {
		if _, _, ok := g.ours(a.ID, binding); ok {
			mine = i
			break
		}
		if foreign == "" && strings.HasPrefix(a.ID, gatePrefix) {
			foreign = a.ID
		}
	}
	rest := answers
	if mine >= 0 {
		// Every copy of the approval goes: a copy left in rest would name
		// another round, whose claim would be fresh.
		id := answers[mine].ID
		rest = slices.DeleteFunc(slices.Clone(answers), func(a Answer) bool { return a.ID == id })
		if len(rest) == 0 {
			rest = nil // as on a first run
		}
	}
	req, ask := g.policy(ctx, args)
	if !ask {
		return g.tool(ctx, args, rest)
	}
	if mine < 0 {
		if foreign != "" {
			return g.refuse(ctx, msg.Errorf(ErrApprovalMismatch, "approval %s was not given for these arguments by this gate", msg.Quote(foreign)))
		}
		return g.ask(ctx, req, binding)
	}
	a := answers[mine]
	nonce, expiry, _ := g.ours(a.ID, binding)
	now := g.clock()
	if !now.Before(expiry) {
		return g.refuse(ctx, msg.Errorf(ErrExpired, "approval %s expired at %s", strconv.Quote(a.ID), expiry.Format(time.RFC3339Nano)))
	}
	if !a.OK {
		return Errorf("toolnexus: approval declined: %s", cmp.Or(a.Reason, ReasonDeclined))
	}
	id := "gate:" + nonce + roundOf(rest)
	fresh, err := g.claims.Claim(ctx, id, expiry.Add(gateClockSkew))
	switch {
	case err != nil:
		return g.refuse(ctx, fmt.Errorf("%w: approval %s: %w", ErrApprovalStore, strconv.Quote(a.ID), err))
	case !fresh:
		return g.refuse(ctx, msg.Errorf(ErrApprovalUsed, "approval %s has run its tool", strconv.Quote(a.ID)))
	}
	return g.tool(ctx, args, rest)
}

// ask returns the suspension asking req, the policy's request, for the
// call whose arguments bind to binding.
func (g *gate) ask(ctx context.Context, req Request, binding []byte) ToolResult {
	now := g.clock()
	expiry := now.Add(g.expiry)
	if t, err := req.Expiry(); err != nil {
		return g.refuse(ctx, err)
	} else if !t.IsZero() && t.Before(expiry) {
		expiry = t
	}
	expiry = time.UnixMilli(expiry.UnixMilli()).UTC() // as the token holds it
	req.ID = g.token(binding, expiry)
	req.Kind = cmp.Or(req.Kind, KindApproval)
	req = req.WithExpiry(expiry)
	if err := req.Validate(); err != nil {
		return g.refuse(ctx, err)
	}
	return Pending(req)
}

// token returns a new request ID of g for the arguments that bind to
// binding, expiring at expiry.
func (g *gate) token(binding []byte, expiry time.Time) string {
	var b [gateTokenLen]byte
	rand.Read(b[:gateNonceLen]) // never fails, as crypto/rand documents
	binary.BigEndian.PutUint64(b[gateNonceLen:], uint64(expiry.UnixMilli()))
	copy(b[gateNonceLen+8:], g.mac(b[:gateNonceLen+8], binding))
	return gatePrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// ours reports whether id is a request ID that g made for the arguments
// that bind to binding, and returns its nonce, as URL-safe base64, and its
// expiry.
func (g *gate) ours(id string, binding []byte) (string, time.Time, bool) {
	body, ok := strings.CutPrefix(id, gatePrefix)
	if !ok || len(body) != base64.RawURLEncoding.EncodedLen(gateTokenLen) {
		return "", time.Time{}, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil || len(b) != gateTokenLen || !hmac.Equal(b[gateNonceLen+8:], g.mac(b[:gateNonceLen+8], binding)) {
		return "", time.Time{}, false
	}
	ms := int64(binary.BigEndian.Uint64(b[gateNonceLen:]))
	return body[:base64.RawURLEncoding.EncodedLen(gateNonceLen)], time.UnixMilli(ms).UTC(), true
}

// mac returns the tag of a token whose nonce and expiry are head, for the
// arguments that bind to binding.
func (g *gate) mac(head, binding []byte) []byte {
	h := hmac.New(sha256.New, g.key)
	h.Write([]byte(gateMACTag))
	h.Write(head)
	h.Write(binding)
	return h.Sum(nil)[:gateMACLen]
}

// roundOf names the round of a gated tool's own suspensions that answers,
// the answers after its approval, make: "" for its first run, else the
// digest of their IDs, in order, so that each round runs once.
func roundOf(answers Answers) string {
	if len(answers) == 0 {
		return ""
	}
	h := sha256.New()
	for _, a := range answers {
		h.Write([]byte(strconv.Itoa(len(a.ID)) + ":" + a.ID))
	}
	return ":" + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// refuse logs why a call was refused and returns the error result the
// model reads, and tool does not run.
func (g *gate) refuse(ctx context.Context, err error) ToolResult {
	logger := g.logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.WarnContext(ctx, "toolnexus: gated call refused", "err", err)
	return Error(err.Error())
}

// clock returns the current time by g's clock.
func (g *gate) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}
