package toolnexus_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/fips140"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

var (
	stateKey   = []byte("0123456789abcdef0123456789abcdef")
	stateNow   = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	stateReq   = toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to staging?"}.WithExpiry(stateNow.Add(time.Hour))
	stagingArg = json.RawMessage(`{"env":"staging"}`)
	oldKey     = bytes.Repeat([]byte{0x01}, 32)
	newKey     = bytes.Repeat([]byte{0x02}, 32)
	stagingFor = toolnexus.StateCall{Tool: "deploy", Arguments: stagingArg, Principal: "https://issuer.example|alice"}
)

// msgInvalidState is the message of every state that fails to open.
const msgInvalidState = "toolnexus: invalid request state: not sealed with this key, or altered"

// stateRE is the form of every state: the version prefix and URL-safe
// base64 without padding.
var stateRE = regexp.MustCompile(`^tn1\.[A-Za-z0-9_-]+$`)

func sealState(t *testing.T, tool string, args json.RawMessage, req toolnexus.Request) string {
	t.Helper()
	state, err := toolnexus.SealRequestState(stateKey, tool, args, req)
	require.NoError(t, err)
	return state
}

func newSealer(t testing.TB, o toolnexus.SealerOptions) *toolnexus.Sealer {
	t.Helper()
	if o.Keys == nil {
		o.Keys = [][]byte{stateKey}
	}
	s, err := toolnexus.NewSealer(o)
	require.NoError(t, err)
	return s
}

func seal(t testing.TB, s *toolnexus.Sealer, call toolnexus.StateCall, st toolnexus.State, now time.Time) string {
	t.Helper()
	state, err := s.Seal(call, st, now)
	require.NoError(t, err)
	require.Regexp(t, stateRE, state)
	return state
}

func TestSealer(t *testing.T) {
	t.Parallel()
	input := toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Which environment?",
		Data: map[string]any{"choices": []any{"dev", "prod"}, "n": 2.5}}
	answers := toolnexus.Answers{{ID: "pnd-0", OK: true, Data: map[string]any{"env": "dev"}}, {ID: "pnd-00", Reason: toolnexus.ReasonDeclined}}
	tests := []struct {
		name   string
		opts   toolnexus.SealerOptions
		call   toolnexus.StateCall
		st     toolnexus.State
		expiry time.Time
	}{
		{"one request, default maximum age", toolnexus.SealerOptions{}, stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow.Add(time.Hour)},
		{"the maximum age first", toolnexus.SealerOptions{MaxAge: time.Minute}, stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow.Add(time.Minute)},
		{"the State's expiry first", toolnexus.SealerOptions{}, stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq}, ExpiresAt: stateNow.Add(time.Second)}, stateNow.Add(time.Second)},
		{"no request expiry", toolnexus.SealerOptions{Audience: "https://mcp.example.com"}, toolnexus.StateCall{Tool: "pick"},
			toolnexus.State{Requests: []toolnexus.Request{input}}, stateNow.Add(toolnexus.DefaultStateMaxAge)},
		{"several requests and answers", toolnexus.SealerOptions{MaxAge: 2 * time.Hour}, stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{input, stateReq}, Answers: answers}, stateNow.Add(time.Hour)},
		{"expiry to the nanosecond, rounded down", toolnexus.SealerOptions{}, stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(1500 * time.Microsecond))}}, stateNow.Add(time.Millisecond)},
		{"unicode everywhere", toolnexus.SealerOptions{Audience: "serveur ☃"},
			toolnexus.StateCall{Tool: "déployer", Arguments: json.RawMessage(`{"env":"prod ☃","note":"<b>&"}`), Principal: "élodie"},
			toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-☃", Kind: "captcha", Prompt: "Prouvez-le ☃"}}}, stateNow.Add(toolnexus.DefaultStateMaxAge)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSealer(t, tt.opts)
			state := seal(t, s, tt.call, tt.st, stateNow)
			got, err := s.Open(state, tt.call, stateNow)
			require.NoError(t, err)
			body, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
			require.NoError(t, err)
			assert.Equal(t, base64.RawURLEncoding.EncodeToString(body[16:28]), got.ID, "the ID is the nonce, after the key id and the expiry")
			assert.Equal(t, tt.st.Requests, got.Requests())
			assert.Equal(t, tt.st.Answers, got.Answers())
			assert.Equal(t, stateNow, got.IssuedAt)
			assert.Equal(t, tt.expiry, got.ExpiresAt)
			expiry, err := toolnexus.RequestStateExpiry(state)
			require.NoError(t, err)
			assert.Equal(t, tt.expiry, expiry)

			_, err = s.Open(state, tt.call, tt.expiry.Add(-time.Nanosecond))
			require.NoError(t, err)
			_, err = s.Open(state, tt.call, tt.expiry)
			require.ErrorIs(t, err, toolnexus.ErrExpired)
		})
	}
}

// TestSealerNonces checks that the nonces Seal draws many at a time and
// those the AEAD draws itself, in FIPS 140-3 mode, make the same states:
// each Sealer opens the other's, and refuses them altered.
func TestSealerNonces(t *testing.T) {
	t.Parallel()
	require.False(t, fips140.Enabled(), "the tests run outside FIPS 140-3 mode")
	opts := toolnexus.SealerOptions{Keys: [][]byte{stateKey}, Audience: "https://mcp.example.com"}
	batched, err := toolnexus.NewSealerNonces(opts, false)
	require.NoError(t, err)
	drawn, err := toolnexus.NewSealerNonces(opts, true)
	require.NoError(t, err)
	for _, pair := range [][2]*toolnexus.Sealer{{batched, drawn}, {drawn, batched}, {batched, batched}, {drawn, drawn}} {
		state := seal(t, pair[0], benchCall, benchState, stateNow)
		got, err := pair[1].Open(state, benchCall, stateNow)
		require.NoError(t, err)
		assert.Equal(t, benchState.Requests, got.Requests())
		assert.Equal(t, benchState.Answers, got.Answers())
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
		require.NoError(t, err)
		assert.Equal(t, base64.RawURLEncoding.EncodeToString(b[16:28]), got.ID, "the ID is the nonce")
		for _, i := range []int{16, 27, 28, len(b) - 1} { // the nonce, the claims, the tag
			altered := bytes.Clone(b)
			altered[i] ^= 1
			_, err = pair[1].Open("tn1."+base64.RawURLEncoding.EncodeToString(altered), benchCall, stateNow)
			require.EqualError(t, err, msgInvalidState, "byte %d", i)
		}
	}
}

// TestSealerDrawEachNonce checks that DrawEachNonce makes every key draw
// each nonce as its state is sealed, and that such states open on a Sealer
// that batches its nonces, and the other way round.
func TestSealerDrawEachNonce(t *testing.T) {
	t.Parallel()
	opts := toolnexus.SealerOptions{Keys: [][]byte{stateKey, newKey}, Audience: "https://mcp.example.com"}
	batched := newSealer(t, opts)
	assert.False(t, toolnexus.DrawsEachNonce(batched))
	opts.DrawEachNonce = true
	each := newSealer(t, opts)
	assert.True(t, toolnexus.DrawsEachNonce(each))
	for _, pair := range [][2]*toolnexus.Sealer{{each, batched}, {batched, each}} {
		got, err := pair[1].Open(seal(t, pair[0], benchCall, benchState, stateNow), benchCall, stateNow)
		require.NoError(t, err)
		assert.Equal(t, benchState.Requests, got.Requests())
	}
	server, err := toolnexus.NewMCPServer(stateKey, toolnexus.MCPServerOptions{DrawEachNonce: true})
	require.NoError(t, err)
	assert.True(t, toolnexus.DrawsEachNonce(server.Sealer))
}

func TestSealerSealsAnew(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{})
	st := toolnexus.State{Requests: []toolnexus.Request{stateReq}}
	a, b := seal(t, s, stagingFor, st, stateNow), seal(t, s, stagingFor, st, stateNow)
	assert.NotEqual(t, a, b, "two seals of one state share a nonce")
	first, err := s.Open(a, stagingFor, stateNow)
	require.NoError(t, err)
	second, err := s.Open(b, stagingFor, stateNow)
	require.NoError(t, err)
	assert.NotEqual(t, first.ID, second.ID, "two seals of one state share an ID")
	assert.Equal(t, stateNow, first.IssuedAt)

	// The IDs come from crypto/rand many at a time: none is handed out
	// twice, across many batches and goroutines.
	ids := make(chan string, 400)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				state, err := s.Seal(stagingFor, st, stateNow)
				assert.NoError(t, err)
				opened, err := s.Open(state, stagingFor, stateNow)
				assert.NoError(t, err)
				ids <- opened.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		assert.False(t, seen[id], "ID %s twice", id)
		seen[id] = true
	}
	assert.Len(t, seen, 400)
}

func TestSealerExpiry(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{MaxAge: time.Hour})
	later := toolnexus.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(2 * time.Hour))}}
	tests := []struct {
		name    string
		st      toolnexus.State
		now     time.Time
		wantMsg string
	}{
		{"the request's", toolnexus.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(time.Minute))}}, stateNow.Add(time.Minute),
			`toolnexus: request expired: request "pnd-1" expired at 2026-07-28T12:01:00Z`},
		{"the second request's", toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-0", Kind: "input", Prompt: "Name?"}, stateReq}},
			stateNow.Add(time.Hour), `toolnexus: request expired: request "pnd-1" expired at 2026-07-28T13:00:00Z`},
		{"the maximum age", later, stateNow.Add(time.Hour),
			"toolnexus: request expired: the state issued at 2026-07-28T12:00:00Z has passed the maximum age of 1h0m0s"},
		{"the State's", toolnexus.State{Requests: later.Requests, ExpiresAt: stateNow.Add(time.Second)}, stateNow.Add(time.Second),
			"toolnexus: request expired: the state expired at 2026-07-28T12:00:01Z"},
		{"long past", later, stateNow.Add(1000 * time.Hour), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := seal(t, s, stagingFor, tt.st, stateNow)
			got, err := s.Open(state, stagingFor, tt.now)
			assertErr(t, err, toolnexus.ErrExpired, tt.wantMsg)
			assert.Equal(t, toolnexus.OpenedState{}, got)
		})
	}
}

// TestSealerLowerMaxAge opens, on a server whose maximum age is shorter,
// a state sealed for longer: the shorter age wins, whatever the header says.
func TestSealerLowerMaxAge(t *testing.T) {
	t.Parallel()
	long := newSealer(t, toolnexus.SealerOptions{MaxAge: 2 * time.Hour})
	short := newSealer(t, toolnexus.SealerOptions{MaxAge: 30 * time.Minute})
	st := toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?"}}}
	state := seal(t, long, stagingFor, st, stateNow)
	got, err := short.Open(state, stagingFor, stateNow)
	require.NoError(t, err)
	assert.Equal(t, stateNow.Add(30*time.Minute), got.ExpiresAt)
	_, err = short.Open(state, stagingFor, stateNow.Add(30*time.Minute))
	assertErr(t, err, toolnexus.ErrExpired, "toolnexus: request expired: the state issued at 2026-07-28T12:00:00Z has passed the maximum age of 30m0s")
	_, err = long.Open(state, stagingFor, stateNow.Add(30*time.Minute))
	require.NoError(t, err)
}

func TestSealerClockSkew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		skew    time.Duration
		ahead   time.Duration // how far the sealing server's clock is ahead
		wantMsg string        // empty: the state opens
	}{
		{"same clock", 0, 0, ""},
		{"within the default skew", 0, time.Minute, ""},
		{"beyond the default skew", 0, time.Minute + time.Millisecond,
			"toolnexus: invalid request state: issued at 2026-07-28T12:01:00.001Z, later than 2026-07-28T12:00:00Z allows with a clock skew of 1m0s"},
		{"within a configured skew", 5 * time.Minute, 5 * time.Minute, ""},
		{"beyond a configured skew", time.Second, 2 * time.Second,
			"toolnexus: invalid request state: issued at 2026-07-28T12:00:02Z, later than 2026-07-28T12:00:00Z allows with a clock skew of 1s"},
		{"a day ahead", 0, 24 * time.Hour,
			"toolnexus: invalid request state: issued at 2026-07-29T12:00:00Z, later than 2026-07-28T12:00:00Z allows with a clock skew of 1m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSealer(t, toolnexus.SealerOptions{ClockSkew: tt.skew, MaxAge: 48 * time.Hour})
			st := toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?"}}}
			state := seal(t, s, stagingFor, st, stateNow.Add(tt.ahead))
			got, err := s.Open(state, stagingFor, stateNow)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				assert.Equal(t, stateNow.Add(tt.ahead), got.IssuedAt)
				return
			}
			assertErr(t, err, toolnexus.ErrInvalidState, tt.wantMsg)
			assert.Equal(t, toolnexus.OpenedState{}, got)
		})
	}
}

func TestNewSealer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    toolnexus.SealerOptions
		wantErr error
		wantMsg string
	}{
		{"no keys", toolnexus.SealerOptions{}, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"empty ring", toolnexus.SealerOptions{Keys: [][]byte{}}, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"short key", toolnexus.SealerOptions{Keys: [][]byte{stateKey[:31]}}, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: 31 bytes, want at least 32"},
		{"short second key", toolnexus.SealerOptions{Keys: [][]byte{stateKey, nil}}, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: key 2 of 2: 0 bytes, want at least 32"},
		{"key given twice", toolnexus.SealerOptions{Keys: [][]byte{oldKey, newKey, bytes.Clone(oldKey)}}, toolnexus.ErrInvalidKey,
			"toolnexus: invalid request state key: key 3 of 3 is key 1 again"},
		{"negative maximum age", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, MaxAge: -time.Second}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: MaxAge -1s is not between 0 and 720h0m0s"},
		{"maximum age too long", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, MaxAge: toolnexus.MaxStateMaxAge + 1}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: MaxAge 720h0m0.000000001s is not between 0 and 720h0m0s"},
		{"negative skew", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, ClockSkew: -1}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: ClockSkew -1ns is not between 0 and 5m0s"},
		{"skew too large", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, ClockSkew: time.Hour}, toolnexus.ErrInvalidSealer,
			"toolnexus: invalid sealer options: ClockSkew 1h0m0s is not between 0 and 5m0s"},
		{"a skew longer than the maximum age", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, MaxAge: 30 * time.Second}, nil, ""},
		{"the longest maximum age", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, MaxAge: toolnexus.MaxStateMaxAge, ClockSkew: toolnexus.MaxStateClockSkew}, nil, ""},
		{"a short maximum age", toolnexus.SealerOptions{Keys: [][]byte{stateKey}, MaxAge: time.Second, ClockSkew: time.Millisecond}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := toolnexus.NewSealer(tt.opts)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Nil(t, s)
				return
			}
			require.NotNil(t, s)
		})
	}
}

// TestSealerKeysCopied changes a key after NewSealer: the Sealer keeps what
// it derived.
func TestSealerKeysCopied(t *testing.T) {
	t.Parallel()
	key := bytes.Clone(stateKey)
	s := newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{key}})
	st := toolnexus.State{Requests: []toolnexus.Request{stateReq}}
	before := seal(t, s, stagingFor, st, stateNow)
	key[0] ^= 0xff
	_, err := s.Open(before, stagingFor, stateNow)
	require.NoError(t, err)
	_, err = newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{stateKey}}).Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
	require.NoError(t, err)
}

// TestSealerRotation rotates a key as the Sealer's doc says, across server
// processes whose keys come from TOOLNEXUS_STATE_KEYS: during each step of
// the rollout, servers of the step before and of the step after share the
// parked calls both ways.
func TestSealerRotation(t *testing.T) {
	t.Parallel()
	oldHex, newHex := hex.EncodeToString(oldKey), hex.EncodeToString(newKey)
	process := func(env string) *toolnexus.Sealer {
		keys, err := toolnexus.KeysFromHex(env)
		require.NoError(t, err)
		return newSealer(t, toolnexus.SealerOptions{Keys: keys, Audience: "https://mcp.example.com"})
	}
	steps := []*toolnexus.Sealer{
		process(oldHex),                // before
		process(oldHex + "," + newHex), // the new key staged
		process(newHex + "," + oldHex), // the new key seals
		process(newHex),                // the old key retired, one maximum age later
	}
	st := toolnexus.State{Requests: []toolnexus.Request{stateReq}}
	for i := range len(steps) - 1 {
		for _, pair := range [][2]int{{i, i + 1}, {i + 1, i}} {
			t.Run(fmt.Sprintf("sealed at step %d, opened at step %d", pair[0], pair[1]), func(t *testing.T) {
				t.Parallel()
				state := seal(t, steps[pair[0]], stagingFor, st, stateNow)
				got, err := steps[pair[1]].Open(state, stagingFor, stateNow)
				require.NoError(t, err)
				assert.Equal(t, st.Requests, got.Requests())
			})
		}
	}
	t.Run("a state of the old key, once retired", func(t *testing.T) {
		t.Parallel()
		state := seal(t, steps[1], stagingFor, st, stateNow)
		_, err := steps[3].Open(state, stagingFor, stateNow)
		assertErr(t, err, toolnexus.ErrInvalidState, msgInvalidState)
	})
	t.Run("the new key sealing before it is staged everywhere", func(t *testing.T) {
		t.Parallel()
		state := seal(t, steps[2], stagingFor, st, stateNow)
		_, err := steps[0].Open(state, stagingFor, stateNow)
		assertErr(t, err, toolnexus.ErrInvalidState, msgInvalidState)
	})
}

// TestSealerBinding opens a state with calls other than the one it was
// sealed for.
func TestSealerBinding(t *testing.T) {
	t.Parallel()
	const audience = "https://mcp.example.com"
	s := newSealer(t, toolnexus.SealerOptions{Audience: audience})
	st := toolnexus.State{Requests: []toolnexus.Request{stateReq}}
	state := seal(t, s, stagingFor, st, stateNow)
	anonymous := seal(t, s, toolnexus.StateCall{Tool: "deploy", Arguments: stagingArg}, st, stateNow)
	with := func(f func(*toolnexus.StateCall)) toolnexus.StateCall {
		c := stagingFor
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		sealer  *toolnexus.Sealer
		state   string
		call    toolnexus.StateCall
		wantErr error
		wantMsg string
	}{
		{"the same call", s, state, stagingFor, nil, ""},
		{"the same call, arguments respelled", s, state, with(func(c *toolnexus.StateCall) { c.Arguments = json.RawMessage(` { "env" : "staging" } `) }), nil, ""},
		{"another principal", s, state, with(func(c *toolnexus.StateCall) { c.Principal = "https://issuer.example|mallory" }), toolnexus.ErrStateMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"no principal", s, state, with(func(c *toolnexus.StateCall) { c.Principal = "" }), toolnexus.ErrStateMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"a principal for an anonymous state", s, anonymous, stagingFor, toolnexus.ErrStateMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"a principal's prefix", s, state, with(func(c *toolnexus.StateCall) { c.Principal = c.Principal[:len(c.Principal)-1] }), toolnexus.ErrStateMismatch, ""},
		{"another audience", newSealer(t, toolnexus.SealerOptions{Audience: "https://other.example.com"}), state, stagingFor, toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not "https://other.example.com"`},
		{"no audience", newSealer(t, toolnexus.SealerOptions{}), state, stagingFor, toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not ""`},
		{"another tool", s, state, with(func(c *toolnexus.StateCall) { c.Tool = "destroy" }), toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for another tool, not "destroy"`},
		{"other arguments", s, state, with(func(c *toolnexus.StateCall) { c.Arguments = json.RawMessage(`{"env":"prod"}`) }), toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for other arguments to "deploy"`},
		{"arguments not JSON", s, state, with(func(c *toolnexus.StateCall) { c.Arguments = json.RawMessage(`{"env"`) }), toolnexus.ErrInvalidJSON, ""},
		{"another key", newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{newKey}, Audience: audience}), state, stagingFor,
			toolnexus.ErrInvalidState, msgInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.sealer.Open(tt.state, tt.call, stateNow)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Equal(t, toolnexus.OpenedState{}, got)
				assert.NotContains(t, err.Error(), "alice")
				assertStateSecret(t, err, tt.state)
				return
			}
			assert.Equal(t, st.Requests, got.Requests())
		})
	}
}

func TestSealerSealErrors(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{})
	tests := []struct {
		name    string
		call    toolnexus.StateCall
		st      toolnexus.State
		wantErr error
		wantMsg string
	}{
		{"no request", stagingFor, toolnexus.State{}, toolnexus.ErrInvalidRequest, "toolnexus: invalid request: a request state holds no request"},
		{"a request without prompt", stagingFor, toolnexus.State{Requests: []toolnexus.Request{stateReq, {ID: "pnd-2", Kind: "input"}}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-2" has no prompt`},
		{"unreadable expiry", stagingFor, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", ExpiresAt: "soon"}}},
			toolnexus.ErrInvalidExpiry, `toolnexus: invalid expiresAt: "soon" is not RFC 3339`},
		{"too large", stagingFor, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: strings.Repeat("p", 48<<10)}}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1" would make a state of 65714 bytes, over the limit of 65536 bytes`},
		{"a tool name too large", toolnexus.StateCall{Tool: strings.Repeat("t", 64<<10)}, toolnexus.State{Requests: []toolnexus.Request{stateReq}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1" would make a state of 87548 bytes, over the limit of 65536 bytes`},
		{"an answer that is not JSON", stagingFor, toolnexus.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "a", Data: map[string]any{"f": func() {}}}}},
			toolnexus.ErrInvalidRequest, ""},
		{"arguments not JSON", toolnexus.StateCall{Tool: "deploy", Arguments: json.RawMessage(`{`)}, toolnexus.State{Requests: []toolnexus.Request{stateReq}},
			toolnexus.ErrInvalidJSON, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state, err := s.Seal(tt.call, tt.st, stateNow)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Empty(t, state)
		})
	}
}

// TestSealerTampered changes one character of a state at every position:
// the prefix, the key id, the expiry, the nonce, the claims, the tag, and
// the last character, whose low bits are padding.
func TestSealerTampered(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{newKey, oldKey}})
	for _, key := range [][]byte{newKey, oldKey} {
		state := seal(t, newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{key}}), stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
		for i := range len(state) {
			for _, b := range []byte{'A', 'B', '_', '.', '='} {
				if state[i] == b {
					continue
				}
				tampered := state[:i] + string(b) + state[i+1:]
				_, err := s.Open(tampered, stagingFor, stateNow)
				require.ErrorIs(t, err, toolnexus.ErrInvalidState, "byte %d set to %q", i, b)
				require.EqualError(t, err, msgInvalidState)
				_, err = toolnexus.RequestStateExpiry(tampered)
				if err != nil {
					require.EqualError(t, err, msgInvalidState)
				}
			}
		}
	}
}

// TestSealerLayout reads a state as the format says: the prefix, then in
// base64 the key id, the expiry in Unix milliseconds, a 12-byte nonce, the
// claims and a 16-byte tag.
func TestSealerLayout(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{newKey, oldKey}})
	st := toolnexus.State{Requests: []toolnexus.Request{stateReq}}
	state := seal(t, s, stagingFor, st, stateNow)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
	require.NoError(t, err)
	other := seal(t, newSealer(t, toolnexus.SealerOptions{Keys: [][]byte{newKey}}), toolnexus.StateCall{Tool: "x"}, st, stateNow.Add(-time.Hour))
	otherRaw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(other, "tn1."))
	require.NoError(t, err)
	assert.Equal(t, raw[:8], otherRaw[:8], "one key, one key id")
	assert.NotEqual(t, newKey[:8], raw[:8], "the key id is not the key")
	assert.Equal(t, uint64(stateNow.Add(time.Hour).UnixMilli()), beUint64(raw[8:16]))
	plain, aad, err := toolnexus.StatePlaintext(s, stagingFor, st, stateNow)
	require.NoError(t, err)
	assert.Len(t, raw, 16+12+len(plain)+16)
	assert.Equal(t, "tn1."+string(raw[:16]), string(aad), "the prefix and the header are the associated data")
	assert.NotContains(t, string(raw), "Deploy to staging?", "the claims are encrypted")
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

func TestRequestStateExpiry(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{})
	state := seal(t, s, stagingFor, toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
	tests := []struct {
		name    string
		state   string
		want    time.Time
		wantMsg string
	}{
		{"sealed", state, stateNow.Add(time.Hour), ""},
		{"never, from SealRequestState", sealState(t, "login", nil, toolnexus.Request{ID: "pnd-2", Kind: "input", Prompt: "Name?"}), time.Time{}, ""},
		{"from SealRequestState", sealState(t, "login", nil, stateReq), stateNow.Add(time.Hour), ""},
		{"empty", "", time.Time{}, msgInvalidState},
		{"garbage", "tn1.not a state", time.Time{}, msgInvalidState},
		{"another version", "tn2." + strings.TrimPrefix(state, "tn1."), time.Time{}, msgInvalidState},
		{"too short for a header", "tn1.AAAAAAAAAAAAAAAAAAAAAA", time.Time{}, msgInvalidState},
		{"over-long", "tn1." + strings.Repeat("A", 64<<10), time.Time{}, "toolnexus: invalid request state: longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.RequestStateExpiry(tt.state)
			if tt.wantMsg != "" {
				assertErr(t, err, toolnexus.ErrInvalidState, tt.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKeysFromHex(t *testing.T) {
	t.Parallel()
	oldHex, newHex := hex.EncodeToString(oldKey), hex.EncodeToString(newKey)
	tests := []struct {
		name    string
		list    string
		want    [][]byte
		wantErr error
		wantMsg string
	}{
		{"one key", oldHex, [][]byte{oldKey}, nil, ""},
		{"two keys", newHex + "," + oldHex, [][]byte{newKey, oldKey}, nil, ""},
		{"upper case", strings.ToUpper(newHex), [][]byte{newKey}, nil, ""},
		{"a longer key", oldHex + "ff", [][]byte{append(bytes.Clone(oldKey), 0xff)}, nil, ""},
		{"a file's trailing newline", newHex + "," + oldHex + "\n", [][]byte{newKey, oldKey}, nil, ""},
		{"white space around", " \t\r\n" + oldHex + "\r\n\v\f ", [][]byte{oldKey}, nil, ""},
		{"white space alone", " \n", nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"empty", "", nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"trailing comma", oldHex + ",", nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: key 2 of 2 is empty"},
		{"space after the comma", newHex + ", " + oldHex, nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: key 2 of 2 is not hex"},
		{"not hex", "zz" + oldHex[2:], nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{"odd length", oldHex + "f", nil, toolnexus.ErrInvalidKey, "toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{"base64, not hex", base64.StdEncoding.EncodeToString(oldKey), nil, toolnexus.ErrInvalidKey, ""},
		{"short", oldHex[:62], nil, toolnexus.ErrShortKey, "toolnexus: request state key too short: key 1 of 1: 31 bytes, want at least 32"},
		{"short second", newHex + ",abcd", nil, toolnexus.ErrShortKey, "toolnexus: request state key too short: key 2 of 2: 2 bytes, want at least 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.KeysFromHex(tt.list)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Equal(t, tt.want, got)
			if err != nil {
				assert.NotContains(t, err.Error(), oldHex[4:20], "the error shows no key")
			}
		})
	}
}

// TestSealerClaim claims states sealed now: a ClaimStore keeps a claim
// until its state expires, by its own clock.
func TestSealerClaim(t *testing.T) {
	t.Parallel()
	stateNow := time.Now()
	st := toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}
	t.Run("once", func(t *testing.T) {
		t.Parallel()
		claims := toolnexus.NewMemoryClaims()
		s := newSealer(t, toolnexus.SealerOptions{Claims: claims})
		twin := newSealer(t, toolnexus.SealerOptions{Claims: claims})
		state := seal(t, s, stagingFor, st, stateNow)
		opened, err := s.Open(state, stagingFor, stateNow)
		require.NoError(t, err)
		require.NoError(t, s.Claim(context.Background(), opened))
		again, err := twin.Open(state, stagingFor, stateNow)
		require.NoError(t, err, "a claimed state still opens")
		err = twin.Claim(context.Background(), again)
		assertErr(t, err, toolnexus.ErrStateReplayed, "toolnexus: request state already used: state "+opened.ID+" has already been used")
		require.ErrorIs(t, s.Claim(context.Background(), opened), toolnexus.ErrStateReplayed)

		other, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
		require.NoError(t, err)
		require.NoError(t, twin.Claim(context.Background(), other), "each state is claimed on its own")
	})
	t.Run("without a store", func(t *testing.T) {
		t.Parallel()
		s := newSealer(t, toolnexus.SealerOptions{})
		opened, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
		require.NoError(t, err)
		require.NoError(t, s.Claim(context.Background(), opened))
		require.NoError(t, s.Claim(context.Background(), opened))
	})
	t.Run("a store that fails", func(t *testing.T) {
		t.Parallel()
		down := errors.New("connection refused")
		s := newSealer(t, toolnexus.SealerOptions{Claims: failingClaims{down}})
		opened, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
		require.NoError(t, err)
		err = s.Claim(context.Background(), opened)
		assertErr(t, err, toolnexus.ErrClaimStore, "toolnexus: cannot claim request state: state "+opened.ID+": connection refused")
		require.ErrorIs(t, err, down)
		require.NotErrorIs(t, err, toolnexus.ErrStateReplayed)
	})
	t.Run("an OpenedState that Open did not return", func(t *testing.T) {
		t.Parallel()
		s := newSealer(t, toolnexus.SealerOptions{Claims: toolnexus.NewMemoryClaims()})
		err := s.Claim(context.Background(), toolnexus.OpenedState{ID: "made-up"})
		assertErr(t, err, toolnexus.ErrInvalidState,
			"toolnexus: invalid request state: the state to claim has no ID or no expiry: claim an OpenedState that Open returned")
	})
	t.Run("the store is told the state's expiry", func(t *testing.T) {
		t.Parallel()
		rec := &recordingClaims{}
		s := newSealer(t, toolnexus.SealerOptions{Claims: rec, MaxAge: time.Minute})
		opened, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
		require.NoError(t, err)
		require.NoError(t, s.Claim(context.Background(), opened))
		until := stateNow.Add(time.Minute).Truncate(time.Millisecond).Add(toolnexus.MaxStateClockSkew)
		assert.Equal(t, []string{opened.ID + " until " + until.UTC().Format(time.RFC3339Nano)}, rec.calls,
			"the expiry it was sealed with, and the largest skew a server may have")
	})
	t.Run("a claim outlives the state on every server", func(t *testing.T) {
		t.Parallel()
		// A state sealed by a server with a longer maximum age opens on one
		// with a shorter one until the shorter age, and on the sealer's
		// until the longer age, and on a server whose clock lags by the
		// most skew allowed until that much later: the claim lasts past
		// all of them.
		rec := &recordingClaims{}
		long := newSealer(t, toolnexus.SealerOptions{Claims: rec, MaxAge: 2 * time.Hour})
		short := newSealer(t, toolnexus.SealerOptions{Claims: rec, MaxAge: time.Hour, ClockSkew: toolnexus.MaxStateClockSkew})
		state := seal(t, long, stagingFor, st, stateNow)
		opened, err := short.Open(state, stagingFor, stateNow)
		require.NoError(t, err)
		assert.Equal(t, stateNow.Add(time.Hour).Truncate(time.Millisecond).UTC(), opened.ExpiresAt, "the short server's view")
		require.NoError(t, short.Claim(context.Background(), opened))
		lagging := stateNow.Add(2*time.Hour - time.Millisecond)
		_, err = long.Open(state, stagingFor, lagging)
		require.NoError(t, err, "the long server still opens it")
		until := stateNow.Add(2 * time.Hour).Truncate(time.Millisecond).Add(toolnexus.MaxStateClockSkew)
		assert.Equal(t, []string{opened.ID + " until " + until.UTC().Format(time.RFC3339Nano)}, rec.calls)
	})
}

// failingClaims is a ClaimStore whose every claim fails.
type failingClaims struct{ err error }

func (f failingClaims) Claim(context.Context, string, time.Time) (bool, error) { return false, f.err }

// recordingClaims is a ClaimStore that records its calls and claims all.
type recordingClaims struct{ calls []string }

func (r *recordingClaims) Claim(_ context.Context, id string, until time.Time) (bool, error) {
	r.calls = append(r.calls, id+" until "+until.Format(time.RFC3339Nano))
	return true, nil
}

// TestSealRequestState keeps the one-key form working: a state of it opens
// whenever its request has not expired, with no audience and no principal.
func TestSealRequestState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tool string
		args json.RawMessage
		req  toolnexus.Request
	}{
		{"approval", "deploy", stagingArg, stateReq},
		{"login without expiry", "login", nil, toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindAuthorization,
			Prompt: toolnexus.DefaultAuthPrompt, URL: "https://example.com/login"}},
		{"input with data", "pick", json.RawMessage(`{}`), toolnexus.Request{ID: "pnd-3", Kind: toolnexus.KindInput, Prompt: "Which environment?",
			Data: map[string]any{"choices": []any{"dev", "prod"}, "n": 2.5}, ExpiresAt: "2026-07-28T15:00:00+02:00"}},
		{"empty tool name, array args", "", json.RawMessage(`[1,"two",null]`), stateReq},
		{"unicode", "déployer", json.RawMessage(`{"env":"prod ☃","note":"<b>&"}`), toolnexus.Request{ID: "pnd-☃", Kind: "captcha", Prompt: "Prouvez-le ☃"}},
		{"not UTF-8", "\xa4", nil, stateReq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := sealState(t, tt.tool, tt.args, tt.req)
			assert.Regexp(t, stateRE, state)
			got, err := toolnexus.OpenRequestState(stateKey, state, tt.tool, tt.args, stateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.req, got)
			// A Sealer with the key and no audience opens it too, within its
			// maximum age.
			opened, err := newSealer(t, toolnexus.SealerOptions{}).Open(state, toolnexus.StateCall{Tool: tt.tool, Arguments: tt.args}, time.Now())
			if tt.req.Expired(time.Now()) {
				require.ErrorIs(t, err, toolnexus.ErrExpired)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []toolnexus.Request{tt.req}, opened.Requests())
		})
	}
}

func TestSealRequestStateErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     []byte
		args    json.RawMessage
		req     toolnexus.Request
		wantErr error
		wantMsg string
	}{
		{"nil key", nil, stagingArg, stateReq, toolnexus.ErrShortKey, "toolnexus: request state key too short: 0 bytes, want at least 32"},
		{"31-byte key", stateKey[:31], stagingArg, stateReq, toolnexus.ErrShortKey, "toolnexus: request state key too short: 31 bytes, want at least 32"},
		{"request without id", stateKey, stagingArg, toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy?"}, toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: "approval" request has no id`},
		{"unreadable expiry", stateKey, stagingArg, toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?", ExpiresAt: "tomorrow"},
			toolnexus.ErrInvalidExpiry, `toolnexus: invalid expiresAt: "tomorrow" is not RFC 3339`},
		{"request too large", stateKey, stagingArg, toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: strings.Repeat("p", 64<<10)},
			toolnexus.ErrInvalidRequest, ""},
		{"data that is not JSON", stateKey, stagingArg, toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?",
			Data: map[string]any{"f": func() {}}}, toolnexus.ErrInvalidRequest, ""},
		{"args not JSON", stateKey, json.RawMessage(`{"env":`), stateReq, toolnexus.ErrInvalidJSON, ""},
		{"two values as args", stateKey, json.RawMessage(`{} {}`), stateReq, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: arguments: not one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state, err := toolnexus.SealRequestState(tt.key, "deploy", tt.args, tt.req)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Empty(t, state)
		})
	}
}

func TestOpenRequestState(t *testing.T) {
	t.Parallel()
	state := sealState(t, "deploy", stagingArg, stateReq)
	expiry, err := stateReq.Expiry()
	require.NoError(t, err)
	otherKey := bytes.Repeat([]byte{0x5a}, 32)
	body := strings.TrimPrefix(state, "tn1.")
	tests := []struct {
		name    string
		key     []byte
		state   string
		tool    string
		args    string
		now     time.Time
		wantErr error
		wantMsg string
	}{
		{"intact", stateKey, state, "deploy", `{"env":"staging"}`, stateNow, nil, ""},
		{"keys reordered and spaced", stateKey, sealState(t, "deploy", json.RawMessage(`{"env":"staging","n":1,"tags":["a","b"]}`), stateReq),
			"deploy", " {\n\t\"tags\" : [ \"a\",\"b\" ], \"n\":1 ,\"env\":\"staging\"}\n", stateNow, nil, ""},
		{"empty args sealed, null given", stateKey, sealState(t, "login", nil, stateReq), "login", `null`, stateNow, nil, ""},
		{"null args sealed, {} given", stateKey, sealState(t, "login", json.RawMessage(`null`), stateReq), "login", ` { } `, stateNow, nil, ""},
		{"{} sealed, empty given", stateKey, sealState(t, "login", json.RawMessage(`{}`), stateReq), "login", ``, stateNow, nil, ""},
		{"just before expiry", stateKey, state, "deploy", `{"env":"staging"}`, expiry.Add(-time.Nanosecond), nil, ""},
		{"issued in the future: no check", stateKey, state, "deploy", `{"env":"staging"}`, stateNow.Add(-365 * 24 * time.Hour), nil, ""},

		{"expiry reached", stateKey, state, "deploy", `{"env":"staging"}`, expiry, toolnexus.ErrExpired,
			`toolnexus: request expired: request "pnd-1" expired at 2026-07-28T13:00:00Z`},
		{"expiry passed", stateKey, state, "deploy", `{"env":"staging"}`, expiry.Add(24 * time.Hour), toolnexus.ErrExpired, ""},

		{"other tool", stateKey, state, "destroy", `{"env":"staging"}`, stateNow, toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for another tool, not "destroy"`},
		{"tool in other case", stateKey, state, "Deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrStateMismatch, ""},
		{"other args", stateKey, state, "deploy", `{"env":"prod"}`, stateNow, toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for other arguments to "deploy"`},
		{"key in other case", stateKey, state, "deploy", `{"ENV":"staging"}`, stateNow, toolnexus.ErrStateMismatch, ""},
		{"extra argument", stateKey, state, "deploy", `{"env":"staging","force":true}`, stateNow, toolnexus.ErrStateMismatch, ""},
		{"no arguments", stateKey, state, "deploy", ``, stateNow, toolnexus.ErrStateMismatch, ""},
		{"number spelled otherwise", stateKey, sealState(t, "scale", json.RawMessage(`{"n":1}`), stateReq), "scale", `{"n":1.0}`, stateNow, toolnexus.ErrStateMismatch, ""},
		{"args not JSON", stateKey, state, "deploy", `{"env":"staging"`, stateNow, toolnexus.ErrInvalidJSON, ""},
		{"sealed with an audience", stateKey, seal(t, newSealer(t, toolnexus.SealerOptions{Audience: "a"}), toolnexus.StateCall{Tool: "deploy", Arguments: stagingArg},
			toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow), "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrStateMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not ""`},
		{"sealed for a principal", stateKey, seal(t, newSealer(t, toolnexus.SealerOptions{}), stagingFor,
			toolnexus.State{Requests: []toolnexus.Request{stateReq}}, stateNow), "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrStateMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},

		{"other key", otherKey, state, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"short key", stateKey[:16], state, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: 16 bytes, want at least 32"},
		{"empty", stateKey, "", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"prefix only", stateKey, "tn1.", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"no prefix", stateKey, body, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"the layout of the previous release", stateKey, oldLayoutState(t), "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"other version", stateKey, "tn2." + body, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"truncated by one", stateKey, state[:len(state)-1], "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"truncated to the header", stateKey, state[:4+22], "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"one more byte", stateKey, state + "A", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"padded", stateKey, state + "==", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"line break inside", stateKey, state[:40] + "\n" + state[40:], "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"standard alphabet", stateKey, strings.NewReplacer("-", "+", "_", "/").Replace(state) + "+", "deploy", `{"env":"staging"}`, stateNow,
			toolnexus.ErrInvalidState, msgInvalidState},
		{"garbage", stateKey, "tn1.not a state at all", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"over-long", stateKey, "tn1." + strings.Repeat("A", 64<<10), "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState,
			"toolnexus: invalid request state: longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.OpenRequestState(tt.key, tt.state, tt.tool, json.RawMessage(tt.args), tt.now)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Equal(t, toolnexus.Request{}, got)
				assertStateSecret(t, err, tt.state)
				return
			}
			assert.Equal(t, stateReq, got)
		})
	}
}

// oldLayoutState returns a state as the release before the key ring sealed
// it: a nonce and the AES-GCM ciphertext of the JSON claims under a key
// derived with HMAC-SHA256, behind the same prefix. It does not open: the
// key derivation differs.
func oldLayoutState(t *testing.T) string {
	t.Helper()
	mac := hmac.New(sha256.New, stateKey)
	mac.Write([]byte("toolnexus request state v1"))
	block, err := aes.NewCipher(mac.Sum(nil))
	require.NoError(t, err)
	aead, err := cipher.NewGCMWithRandomNonce(block)
	require.NoError(t, err)
	plain := `{"tool":"ZGVwbG95","args":"","request":{"id":"pnd-1","kind":"approval","prompt":"Deploy to staging?"}}`
	return "tn1." + base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, []byte(plain), []byte("tn1.")))
}

// assertStateSecret checks that an error shows neither the state nor the key.
func assertStateSecret(t *testing.T, err error, state string) {
	t.Helper()
	msg := err.Error()
	if body := strings.TrimPrefix(state, "tn1."); len(body) >= 8 {
		assert.NotContains(t, msg, body[:8])
	}
	assert.NotContains(t, msg, string(stateKey[:8]))
}

// benchCall and benchState are a typical round: one approval asked, one
// answer given before, a principal and an audience.
var (
	benchCall  = toolnexus.StateCall{Tool: "deploy", Arguments: json.RawMessage(`{"env":"staging","replicas":3}`), Principal: "https://issuer.example|user-42"}
	benchState = toolnexus.State{
		Requests: []toolnexus.Request{stateReq},
		Answers:  toolnexus.Answers{{ID: "pnd-0", OK: true, Data: map[string]any{"region": "eu-west-1"}}},
	}
)

// The benchmarks of the Sealer and their baseline, to run in one go:
//
//	go test -run '^$' -bench 'Sealer|BareGCM' -benchmem -count 8
//
// BenchmarkSealerSeal seals benchState for benchCall: it validates the
// requests, digests the arguments, draws a state ID and a nonce, writes
// the claims, seals them and writes the text. BenchmarkSealerOpen opens
// that state: it decodes the text, opens the AEAD, digests the arguments
// and checks every claim; it builds no request or answer.
// BenchmarkSealerOpenRead also builds them, as a server resuming the call
// does, with OpenedState.Requests and OpenedState.Answers.
//
// BenchmarkBareGCMSeal and BenchmarkBareGCMOpen seal and open the very
// bytes the Sealer does (the claims of benchState as plaintext, its prefix
// and header as associated data) with an AES-256-GCM cipher built once,
// random nonce included, and nothing else. BenchmarkBareGCMSealText and
// BenchmarkBareGCMOpenText add what any text token needs, the stdlib's
// URL-safe base64 of the sealed bytes.
func BenchmarkSealerSeal(b *testing.B) {
	s := newSealer(b, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Seal(benchCall, benchState, stateNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealerOpen(b *testing.B) {
	s := newSealer(b, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(state, benchCall, stateNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealerOpenRead(b *testing.B) {
	s := newSealer(b, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	b.ReportAllocs()
	for b.Loop() {
		st, err := s.Open(state, benchCall, stateNow)
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Requests()) != 1 || len(st.Answers()) != 1 {
			b.Fatal("the state lost its requests or answers")
		}
	}
}

// bareGCM returns an AES-256-GCM cipher built once, and the plaintext and
// associated data the Sealer seals for the benchmark's call.
func bareGCM(b *testing.B) (aead cipher.AEAD, plain, aad []byte) {
	s := newSealer(b, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	plain, aad, err := toolnexus.StatePlaintext(s, benchCall, benchState, stateNow)
	require.NoError(b, err)
	block, err := aes.NewCipher(stateKey)
	require.NoError(b, err)
	aead, err = cipher.NewGCMWithRandomNonce(block)
	require.NoError(b, err)
	return aead, plain, aad
}

func BenchmarkBareGCMSeal(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	b.ReportAllocs()
	for b.Loop() {
		aead.Seal(nil, nil, plain, aad)
	}
}

func BenchmarkBareGCMSealText(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	}
}

func BenchmarkBareGCMOpen(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	sealed := aead.Seal(nil, nil, plain, aad)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aead.Open(nil, nil, sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBareGCMOpenText(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	text := base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	b.ReportAllocs()
	for b.Loop() {
		sealed, err := base64.RawURLEncoding.DecodeString(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := aead.Open(sealed[:0], nil, sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealerVsBareGCM runs Seal and Open beside their baselines with
// text, BenchmarkBareGCMSealText's and BenchmarkBareGCMOpenText's work, in
// alternating blocks of 64 calls, so that a machine that drifts slows both
// sides alike. It reports each side's time per call and the ratio.
func BenchmarkSealerVsBareGCM(b *testing.B) {
	s := newSealer(b, toolnexus.SealerOptions{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	aead, plain, aad := bareGCM(b)
	text := base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	b.Run("Seal", func(b *testing.B) {
		benchPaired(b, func() {
			if _, err := s.Seal(benchCall, benchState, stateNow); err != nil {
				b.Fatal(err)
			}
		}, func() {
			_ = base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
		})
	})
	b.Run("Open", func(b *testing.B) {
		benchPaired(b, func() {
			if _, err := s.Open(state, benchCall, stateNow); err != nil {
				b.Fatal(err)
			}
		}, func() {
			sealed, err := base64.RawURLEncoding.DecodeString(text)
			if err == nil {
				_, err = aead.Open(sealed[:0], nil, sealed, aad)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
}

// benchPaired times ours and bare in alternating blocks of 64 calls and
// reports the time per call of each, and ours over bare.
func benchPaired(b *testing.B, ours, bare func()) {
	perOurs, perBare := alternate(b, 64, ours, bare)
	b.ReportMetric(perOurs, "ns/sealer")
	b.ReportMetric(perBare, "ns/bare")
	b.ReportMetric(perOurs/perBare, "sealer/bare")
}

// TestStateCarriesEveryField guards the binary encoding of a state's
// requests and answers: a field added to Request or Answer must be added
// to it, and to this list.
func TestStateCarriesEveryField(t *testing.T) {
	t.Parallel()
	names := func(v any) []string {
		var out []string
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			out = append(out, f.Name)
		}
		return out
	}
	assert.Equal(t, []string{"ID", "Kind", "Prompt", "URL", "Data", "ExpiresAt"}, names(toolnexus.Request{}))
	assert.Equal(t, []string{"ID", "OK", "Data", "Reason"}, names(toolnexus.Answer{}))

	s := newSealer(t, toolnexus.SealerOptions{})
	st := toolnexus.State{
		Requests: []toolnexus.Request{{ID: "i", Kind: "k", Prompt: "p", URL: "https://example.com/u", ExpiresAt: "2026-07-28T16:00:00+02:00",
			Data: map[string]any{"n": 1.5, "s": "x", "b": true, "z": nil, "l": []any{"a", 2.0}, "m": map[string]any{"k": "v"}}}},
		Answers: toolnexus.Answers{{ID: "a", OK: true, Reason: "r", Data: map[string]any{"x": "y"}}, {ID: "b"}},
	}
	got, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
	require.NoError(t, err)
	assert.Equal(t, st.Requests, got.Requests())
	assert.Equal(t, st.Answers, got.Answers())
}

// TestSealerData seals Data of every kind: each comes back as it would
// through JSON, as on the wire.
func TestSealerData(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{})
	tests := []struct {
		name string
		data map[string]any
		want map[string]any
	}{
		{"JSON values", map[string]any{"s": "é", "n": -0.5, "big": 1e300, "t": true, "f": false, "z": nil,
			"l": []any{1.0, "two", []any{}, map[string]any{}}, "m": map[string]any{"k": map[string]any{"deep": []any{nil}}}},
			map[string]any{"s": "é", "n": -0.5, "big": 1e300, "t": true, "f": false, "z": nil,
				"l": []any{1.0, "two", []any{}, map[string]any{}}, "m": map[string]any{"k": map[string]any{"deep": []any{nil}}}}},
		{"Go values", map[string]any{"i": 3, "strs": []string{"a", "b"}, "num": json.Number("12"), "raw": json.RawMessage(`{"x":[1]}`)},
			map[string]any{"i": 3.0, "strs": []any{"a", "b"}, "num": 12.0, "raw": map[string]any{"x": []any{1.0}}}},
		{"nil slice and map", map[string]any{"l": []any(nil), "m": map[string]any(nil)}, map[string]any{"l": nil, "m": nil}},
		{"a string that is not UTF-8", map[string]any{"s": "a\xffb"}, map[string]any{"s": "a\ufffdb"}},
		{"a key that is not UTF-8", map[string]any{"\xff": 1.0}, map[string]any{"\ufffd": 1.0}},
		{"empty", map[string]any{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := toolnexus.State{
				Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: tt.data}},
				Answers:  toolnexus.Answers{{ID: "pnd-0", OK: true, Data: tt.data}},
			}
			got, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Requests()[0].Data)
			assert.Equal(t, tt.want, got.Answers()[0].Data)
		})
	}
	_, err := s.Seal(stagingFor, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?",
		Data: map[string]any{"nan": math.NaN()}}}}, stateNow)
	assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1": json: unsupported value: NaN`)
}

// TestPrincipal checks that a principal names its issuer and subject so
// that no other pair gives it.
func TestPrincipal(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "iss:22:https://issuer.examplesub:alice", toolnexus.Principal("https://issuer.example", "alice"))
	seen := map[string][2]string{}
	for _, pair := range [][2]string{{"a", "bc"}, {"ab", "c"}, {"", "abc"}, {"abc", ""}, {"a:", "b"}, {"a", ":b"}, {"1:a", "sub:"}, {"", "1:asub:"}, {"", ""}} {
		p := toolnexus.Principal(pair[0], pair[1])
		prev, dup := seen[p]
		assert.False(t, dup, "%q and %q give %q", prev, pair, p)
		seen[p] = pair
	}
}

// TestSealDataBound seals requests and answers whose Data nests without
// end or deeper than MaxDataDepth: Seal refuses them with
// ErrInvalidRequest, and takes Data exactly MaxDataDepth deep.
func TestSealDataBound(t *testing.T) {
	t.Parallel()
	s := newSealer(t, toolnexus.SealerOptions{})
	for name, data := range hostileData() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Seal(stagingFor, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: data}}}, stateNow)
			assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1": data nests deeper than 10000 levels, or holds itself`)
			_, err = s.Seal(stagingFor, toolnexus.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "a", OK: true, Data: data}}}, stateNow)
			assertErr(t, err, toolnexus.ErrInvalidRequest, "")
		})
	}
	deep := deepData(100)
	state, err := s.Seal(stagingFor, toolnexus.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: deep}}}, stateNow)
	require.NoError(t, err)
	opened, err := s.Open(state, stagingFor, stateNow)
	require.NoError(t, err)
	assert.Equal(t, deep, opened.Requests()[0].Data)
}
