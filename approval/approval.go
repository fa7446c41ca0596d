// Package approval asks a person before a tool runs: [Gate] puts a tool
// behind a [Policy], and runs it only with an approval given for that very
// call (its arguments, by their value), once. It works on every carrier a
// toolnexus tool runs on, since it is itself a toolnexus.Tool: the Turn
// of package park, the MCP bridges, tasks, the framework adapters. Its
// approvals are claimed in the Store of the park.Runner that runs the call
// and bound with keys derived from the request state keys of package
// requeststate: one key ring and one store per deployment.
package approval

import (
	"cmp"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The reasons a gated tool (see [Gate]) refuses a call, each in the text
// of the error result the model reads and in the error the gate logs.
var (
	// ErrInvalidGate reports a [Gate] that cannot be built: no tool, no
	// policy, or a key shorter than requeststate.MinKeyLen.
	ErrInvalidGate = errors.New("toolnexus: invalid gate")
	// ErrUsed reports an approval that has already run its tool: an
	// approval is used once, and its replay runs nothing.
	ErrUsed = errors.New("toolnexus: approval already used")
	// ErrMismatch reports an answer to an approval that the gate did not
	// ask for this call: one given for other arguments (other keys, or
	// the same keys with other values), by another gate, or by this gate
	// before a restart that gave it a new key. It also matches
	// toolnexus.ErrAnswerMismatch.
	ErrMismatch = msg.Also("toolnexus: approval does not match the call", toolnexus.ErrAnswerMismatch)
	// ErrStore reports a park.Store that could not record the use of an
	// approval; the error also wraps the store's, and the tool does not
	// run.
	ErrStore = errors.New("toolnexus: cannot record the use of an approval")
)

// The ID of a request a gate asks: idPrefix, then in URL-safe base64
// without padding a random nonce, the expiry in Unix milliseconds, the id
// of the key (derived from the key, never the key) and the first bytes of
// an HMAC-SHA256, under the gate's key, of macTag, the nonce, the expiry
// and the binding of the call's arguments (their canonical form, or its
// digest when long, as a request state binds them).
const (
	idPrefix = "gate-"
	nonceLen = 16
	keyIDLen = 4
	macLen   = 16
	tokenLen = nonceLen + 8 + keyIDLen + macLen
	macTag   = "toolnexus gate approval v2\x00"
	keyLabel = "toolnexus approval key v1"
)

// Policy decides, for one call of a gated tool (see [Gate]), whether a
// person must approve it before the tool runs: it returns the
// toolnexus.Request to put to the person and true, or false to let the
// call run as it is. The request is of kind toolnexus.KindApproval (the
// kind an empty Kind gets), or of another kind the policy picks, such as a
// toolnexus.KindInput that asks the person to type the name of what the
// call changes; granting it (toolnexus.Request.Resolve) is the approval,
// declining it refuses the call. Its ID is the gate's own, whatever the
// policy sets. A Policy is called on every run of the gated tool, with the
// call's arguments, and must decide alike for alike arguments; it must be
// safe for concurrent use.
type Policy func(ctx context.Context, args json.RawMessage) (toolnexus.Request, bool)

// Require returns the Policy that asks every call for an approval of kind
// toolnexus.KindApproval with prompt.
func Require(prompt string) Policy {
	return func(context.Context, json.RawMessage) (toolnexus.Request, bool) {
		return toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: prompt}, true
	}
}

// Options configures a [Gate]. The zero Options is ready to use, for one
// process.
type Options struct {
	// Keys are the request state keys of the deployment, as
	// requeststate.Options.Keys holds them: the gate derives its own keys
	// from them, binds each approval it asks with the first and takes
	// approvals bound with any, so that the keys rotate together. Nil
	// means a random key of the gate's own, made by Gate: its approvals
	// are then refused by any other gate, and by this one after a
	// restart. Give every process that may run a call another asked about
	// the same keys, and a different Name to each gated tool.
	Keys [][]byte `toolnexus:"payload"`
	// Name tells gated tools apart when they share Keys: an approval of
	// one is refused by another. Empty is a name too.
	Name string
}

// String returns o's fields, its keys as their number, for %v.
func (o Options) String() string { return wire.Show(o, false) }

// GoString returns o in Go syntax, its keys as their number, for %#v.
func (o Options) GoString() string { return wire.Show(o, true) }

// Format prints o for every verb without its keys, as [Options.String] (%#v: [Options.GoString]).
func (o Options) Format(f fmt.State, verb rune) { wire.Format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its non-empty fields, without its keys.
func (o Options) LogValue() slog.Value { return wire.Log(o) }

// Gate returns tool behind policy: a toolnexus.Tool that, for each call
// the policy says needs a person, asks first and runs tool only with an
// approval of that very call, once. A nil opts is the zero [Options].
//
// The gate reads the clock, the logger, the expiry of its requests and the
// Store of the park.Runner that runs it (park.FromContext), and the zero
// park.Runner's when it runs outside one.
//
// On a call the policy picks, the first run returns a suspension
// (toolnexus.Pending) of the policy's request, whose ID the gate makes:
// random, expiring after the Runner's Expiry (or earlier, as the policy
// asks), and bound to the arguments by their value (the order of keys,
// the spacing and the escapes do not matter; numbers must be written the
// same). A run with an answer granting that request runs tool, with the
// answers that follow it (those of tool's own suspensions), never with the
// approval itself; a decline is a toolnexus.Error with its reason, and tool
// does not run.
//
// An approval runs tool once: its use is claimed in the Store before tool
// runs, so that whatever runs the gated tool again with the same answers
// (a replay) gets an Error, and tool does not run. On a carrier, which
// claims the call's parking before the gated tool runs again, a replay of
// the same resume gets the first run's result from that claim instead,
// before the gate sees it: the gate's Error is for a replay the carrier
// does not catch (another parking, a Repeatable tool). A tool that suspends
// after its approval is run again with each new round of its own answers,
// each round once, whatever the order in which the round's answers come.
// Tool does not run, and the call gets an Error naming the reason, for an
// approval given for other arguments or by another gate ([ErrMismatch]),
// one that has expired (toolnexus.ErrExpired), one already used
// ([ErrUsed]), a store that fails ([ErrStore]), arguments that repeat a
// name or hold two names that are one when case is folded
// (toolnexus.ErrDuplicateKey) or are not JSON (toolnexus.ErrInvalidJSON),
// and a policy whose request is not valid.
//
// Gate reports [ErrInvalidGate] for a nil tool or policy and a key shorter
// than requeststate.MinKeyLen.
func Gate(tool toolnexus.Tool, policy Policy, opts *Options) (toolnexus.Tool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case tool == nil:
		return nil, msg.Errorf(ErrInvalidGate, "no tool")
	case policy == nil:
		return nil, msg.Errorf(ErrInvalidGate, "no policy")
	}
	g := &gate{tool: tool, policy: policy}
	secrets := o.Keys
	if len(secrets) == 0 {
		secret := make([]byte, requeststate.MinKeyLen)
		rand.Read(secret) // never fails, as crypto/rand documents
		secrets = [][]byte{secret}
	}
	for i, secret := range secrets {
		if len(secret) < requeststate.MinKeyLen {
			return nil, msg.Errorf(ErrInvalidGate, "key %d of %d has %d bytes, fewer than %d", i+1, len(secrets), len(secret), requeststate.MinKeyLen)
		}
		k, err := hkdf.Key(sha256.New, secret, nil, keyLabel+"\x00"+o.Name, sha256.Size)
		if err != nil {
			return nil, msg.Errorf(ErrInvalidGate, "key %d: %v", i+1, err)
		}
		id := sha256.Sum256(k)
		g.keys = append(g.keys, gateKey{id: [keyIDLen]byte(id[:keyIDLen]), macs: &sync.Pool{New: func() any { return hmac.New(sha256.New, k) }}})
	}
	return g.run, nil
}

// gate is a tool behind a policy, as [Gate] makes it.
type gate struct {
	tool   toolnexus.Tool
	policy Policy
	keys   []gateKey // keys[0] binds
}

// gateKey is one key of a gate's ring and its id.
type gateKey struct {
	id   [keyIDLen]byte
	macs *sync.Pool // of HMAC-SHA256 hashes under the key, reset after use
}

// run runs one call of the gated tool.
func (g *gate) run(ctx context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	r, _ := park.FromContext(ctx)
	binding, err := argmemo.Binding(ctx, args)
	if err != nil {
		return refuse(ctx, r, err)
	}
	var (
		mine, foreign = -1, ""
		nonce         string    // of the approval that is mine
		expiry        time.Time // of the approval that is mine
	)
	for i, a := range answers {
		var ok bool
		if nonce, expiry, ok = g.ours(a.ID, binding); ok {
			mine = i
			break
		}
		if foreign == "" && strings.HasPrefix(a.ID, idPrefix) {
			foreign = a.ID
		}
	}
	rest := answers
	if mine >= 0 {
		// Every copy of the approval goes: a copy left in rest would name
		// another round, whose claim would be fresh.
		id := answers[mine].ID
		rest = slices.DeleteFunc(slices.Clone(answers), func(a toolnexus.Answer) bool { return a.ID == id })
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
			return refuse(ctx, r, msg.Errorf(ErrMismatch, "approval %s was not given for these arguments by this gate", msg.Quote(foreign)))
		}
		return g.ask(ctx, r, req, binding)
	}
	a := answers[mine]
	if !r.Now().Before(expiry) {
		return refuse(ctx, r, msg.Errorf(toolnexus.ErrExpired, "approval %s expired at %s", strconv.Quote(a.ID), expiry.Format(time.RFC3339Nano)))
	}
	if !a.OK {
		return toolnexus.Errorf("toolnexus: approval declined: %s", cmp.Or(a.Reason, toolnexus.ReasonDeclined))
	}
	// The Observer sees the parking of the gated call, which the carrier
	// claims; the approval's own claim is the gate's, not a tool's.
	quiet := r
	quiet.Observer = nil
	_, _, err = quiet.Claim(ctx, park.Call{Tool: "approval", Park: "gate:" + nonce + roundOf(rest), Until: expiry})
	switch {
	case errors.Is(err, park.ErrRunning):
		// A claim is never finished: it is held once taken.
		return refuse(ctx, r, msg.Errorf(ErrUsed, "approval %s has run its tool", strconv.Quote(a.ID)))
	case err != nil:
		return refuse(ctx, r, fmt.Errorf("%w: approval %s: %w", ErrStore, strconv.Quote(a.ID), err))
	}
	return g.tool(ctx, args, rest)
}

// ask returns the suspension asking req, the policy's request, for the
// call whose arguments bind to binding.
func (g *gate) ask(ctx context.Context, r park.Runner, req toolnexus.Request, binding []byte) toolnexus.ToolResult {
	expiry := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if stamped := r.Stamp([]toolnexus.Request{{}}); stamped[0].ExpiresAt != "" {
		expiry, _ = stamped[0].Expiry()
	}
	if t, err := req.Expiry(); err != nil {
		return refuse(ctx, r, err)
	} else if !t.IsZero() && t.Before(expiry) {
		expiry = t
	}
	expiry = time.UnixMilli(expiry.UnixMilli()).UTC() // as the token holds it
	req.ID = g.token(binding, expiry)
	req.Kind = cmp.Or(req.Kind, toolnexus.KindApproval)
	req = req.WithExpiry(expiry)
	if err := req.Validate(); err != nil {
		return refuse(ctx, r, err)
	}
	return toolnexus.Pending(req)
}

// token returns a new request ID of g for the arguments that bind to
// binding, expiring at expiry, bound with g's first key.
func (g *gate) token(binding []byte, expiry time.Time) string {
	var b [tokenLen]byte
	rand.Read(b[:nonceLen]) // never fails, as crypto/rand documents
	binary.BigEndian.PutUint64(b[nonceLen:], uint64(expiry.UnixMilli()))
	k := g.keys[0]
	copy(b[nonceLen+8:], k.id[:])
	var tag [sha256.Size]byte
	copy(b[nonceLen+8+keyIDLen:], k.mac(&tag, b[:nonceLen+8+keyIDLen], binding))
	return idPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// ours reports whether id is a request ID that g made for the arguments
// that bind to binding, with any of its keys, and returns its nonce, as
// URL-safe base64, and its expiry.
func (g *gate) ours(id string, binding []byte) (string, time.Time, bool) {
	body, ok := strings.CutPrefix(id, idPrefix)
	if !ok || len(body) != base64.RawURLEncoding.EncodedLen(tokenLen) {
		return "", time.Time{}, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil || len(b) != tokenLen {
		return "", time.Time{}, false
	}
	head := b[:nonceLen+8+keyIDLen]
	i := slices.IndexFunc(g.keys, func(k gateKey) bool { return string(k.id[:]) == string(head[nonceLen+8:]) })
	var tag [sha256.Size]byte
	if i < 0 || !hmac.Equal(b[len(head):], g.keys[i].mac(&tag, head, binding)) {
		return "", time.Time{}, false
	}
	ms := int64(binary.BigEndian.Uint64(b[nonceLen:]))
	return body[:base64.RawURLEncoding.EncodedLen(nonceLen)], time.UnixMilli(ms).UTC(), true
}

// mac returns the tag, under k, of a token whose nonce, expiry and key id
// are head, for the arguments that bind to binding, written into dst.
func (k gateKey) mac(dst *[sha256.Size]byte, head, binding []byte) []byte {
	h := k.macs.Get().(hash.Hash)
	defer k.macs.Put(h)
	h.Reset()
	h.Write([]byte(macTag))
	h.Write(head)
	h.Write(binding)
	return h.Sum(dst[:0])[:macLen]
}

// roundOf names the round of a gated tool's own suspensions that answers,
// the answers after its approval, make: "" for its first run, else the
// digest of their IDs, each once, in sorted order, so that each round runs
// once whatever the order in which its answers come.
func roundOf(answers toolnexus.Answers) string {
	if len(answers) == 0 {
		return ""
	}
	ids := make([]string, len(answers))
	for i, a := range answers {
		ids[i] = a.ID
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(strconv.Itoa(len(id)) + ":" + id))
	}
	return ":" + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// refuse logs why a call was refused and returns the error result the
// model reads, and tool does not run.
func refuse(ctx context.Context, r park.Runner, err error) toolnexus.ToolResult {
	r.Log().WarnContext(ctx, "toolnexus: gated call refused", "err", err)
	return toolnexus.Error(err.Error())
}

func init() {
	wire.Register(reflect.TypeFor[Options]())
}
