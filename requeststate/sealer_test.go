package requeststate_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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
	"github.com/toolnexus-go/toolnexus/internal/argmemo"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	stateKey   = []byte("0123456789abcdef0123456789abcdef")
	stateNow   = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	stateReq   = toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to staging?"}.WithExpiry(stateNow.Add(time.Hour))
	stagingArg = json.RawMessage(`{"env":"staging"}`)
	oldKey     = bytes.Repeat([]byte{0x01}, 32)
	newKey     = bytes.Repeat([]byte{0x02}, 32)
	stagingFor = requeststate.Call{Tool: "deploy", Arguments: stagingArg, Principal: "https://issuer.example|alice"}
)

// msgInvalidState is the message of every state that fails to open.
const msgInvalidState = "toolnexus: invalid request state: not sealed with this key, or altered"

// stateRE is the form of every state: the version prefix and URL-safe
// base64 without padding.
var stateRE = regexp.MustCompile(`^tn1\.[A-Za-z0-9_-]+$`)

// sealState returns the state of one request asked by a call of tool
// with args, as a Sealer with stateKey, no audience and no principal
// seals it at stateNow.
func sealState(t *testing.T, tool string, args json.RawMessage, req toolnexus.Request) string {
	t.Helper()
	return seal(t, newSealer(t, requeststate.Options{}), requeststate.Call{Tool: tool, Arguments: args}, requeststate.State{Requests: []toolnexus.Request{req}}, stateNow)
}

// assertErr checks that err is want, or no error for a nil want: it starts
// with the module's prefix, matches want with errors.Is and, when msg is
// not empty, reads msg.
func assertErr(t testing.TB, err, want error, msg string) {
	t.Helper()
	if want == nil {
		assert.NoError(t, err)
		return
	}
	if !assert.Error(t, err, "want %v", want) {
		return
	}
	assert.True(t, strings.HasPrefix(err.Error(), "toolnexus: "), "error %q lacks the toolnexus: prefix", err)
	assert.ErrorIs(t, err, want)
	if msg != "" {
		assert.EqualError(t, err, msg)
	}
}

func newSealer(t testing.TB, o requeststate.Options) *requeststate.Sealer {
	t.Helper()
	if o.Keys == nil {
		o.Keys = [][]byte{stateKey}
	}
	s, err := requeststate.NewSealer(o)
	require.NoError(t, err)
	return s
}

func seal(t testing.TB, s *requeststate.Sealer, call requeststate.Call, st requeststate.State, now time.Time) string {
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
		opts   requeststate.Options
		call   requeststate.Call
		st     requeststate.State
		expiry time.Time
	}{
		{"one request, default maximum age", requeststate.Options{}, stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow.Add(time.Hour)},
		{"the maximum age first", requeststate.Options{MaxAge: time.Minute}, stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow.Add(time.Minute)},
		{"the State's expiry first", requeststate.Options{}, stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq}, ExpiresAt: stateNow.Add(time.Second)}, stateNow.Add(time.Second)},
		{"no request expiry", requeststate.Options{Audience: "https://mcp.example.com"}, requeststate.Call{Tool: "pick"},
			requeststate.State{Requests: []toolnexus.Request{input}}, stateNow.Add(requeststate.DefaultMaxAge)},
		{"several requests and answers", requeststate.Options{MaxAge: 2 * time.Hour}, stagingFor,
			requeststate.State{Requests: []toolnexus.Request{input, stateReq}, Answers: answers}, stateNow.Add(time.Hour)},
		{"expiry to the nanosecond, rounded down", requeststate.Options{}, stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(1500 * time.Microsecond))}}, stateNow.Add(time.Millisecond)},
		{"unicode everywhere", requeststate.Options{Audience: "serveur ☃"},
			requeststate.Call{Tool: "déployer", Arguments: json.RawMessage(`{"env":"prod ☃","note":"<b>&"}`), Principal: "élodie"},
			requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-☃", Kind: "captcha", Prompt: "Prouvez-le ☃"}}}, stateNow.Add(requeststate.DefaultMaxAge)},
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
			expiry, err := requeststate.Expiry(state)
			require.NoError(t, err)
			assert.Equal(t, tt.expiry, expiry)

			_, err = s.Open(state, tt.call, tt.expiry.Add(-time.Nanosecond))
			require.NoError(t, err)
			_, err = s.Open(state, tt.call, tt.expiry)
			require.ErrorIs(t, err, toolnexus.ErrExpired)
		})
	}
}

func TestSealerSealsAnew(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{})
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
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
	s := newSealer(t, requeststate.Options{MaxAge: time.Hour})
	later := requeststate.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(2 * time.Hour))}}
	tests := []struct {
		name    string
		st      requeststate.State
		now     time.Time
		wantMsg string
	}{
		{"the request's", requeststate.State{Requests: []toolnexus.Request{stateReq.WithExpiry(stateNow.Add(time.Minute))}}, stateNow.Add(time.Minute),
			`toolnexus: request expired: request "pnd-1" expired at 2026-07-28T12:01:00Z`},
		{"the second request's", requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-0", Kind: "input", Prompt: "Name?"}, stateReq}},
			stateNow.Add(time.Hour), `toolnexus: request expired: request "pnd-1" expired at 2026-07-28T13:00:00Z`},
		{"the maximum age", later, stateNow.Add(time.Hour),
			"toolnexus: request expired: the state issued at 2026-07-28T12:00:00Z has passed the maximum age of 1h0m0s"},
		{"the State's", requeststate.State{Requests: later.Requests, ExpiresAt: stateNow.Add(time.Second)}, stateNow.Add(time.Second),
			"toolnexus: request expired: the state expired at 2026-07-28T12:00:01Z"},
		{"long past", later, stateNow.Add(1000 * time.Hour), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := seal(t, s, stagingFor, tt.st, stateNow)
			got, err := s.Open(state, stagingFor, tt.now)
			assertErr(t, err, toolnexus.ErrExpired, tt.wantMsg)
			assert.Equal(t, requeststate.Opened{}, got)
		})
	}
}

// TestSealerLowerMaxAge opens, on a server whose maximum age is shorter,
// a state sealed for longer: the shorter age wins, whatever the header says.
func TestSealerLowerMaxAge(t *testing.T) {
	t.Parallel()
	long := newSealer(t, requeststate.Options{MaxAge: 2 * time.Hour})
	short := newSealer(t, requeststate.Options{MaxAge: 30 * time.Minute})
	st := requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?"}}}
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
			s := newSealer(t, requeststate.Options{ClockSkew: tt.skew, MaxAge: 48 * time.Hour})
			st := requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?"}}}
			state := seal(t, s, stagingFor, st, stateNow.Add(tt.ahead))
			got, err := s.Open(state, stagingFor, stateNow)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				assert.Equal(t, stateNow.Add(tt.ahead), got.IssuedAt)
				return
			}
			assertErr(t, err, requeststate.ErrInvalidState, tt.wantMsg)
			assert.Equal(t, requeststate.Opened{}, got)
		})
	}
}

// TestSealerBinding opens a state with calls other than the one it was
// sealed for.
func TestSealerBinding(t *testing.T) {
	t.Parallel()
	const audience = "https://mcp.example.com"
	s := newSealer(t, requeststate.Options{Audience: audience})
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
	state := seal(t, s, stagingFor, st, stateNow)
	anonymous := seal(t, s, requeststate.Call{Tool: "deploy", Arguments: stagingArg}, st, stateNow)
	with := func(f func(*requeststate.Call)) requeststate.Call {
		c := stagingFor
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		sealer  *requeststate.Sealer
		state   string
		call    requeststate.Call
		wantErr error
		wantMsg string
	}{
		{"the same call", s, state, stagingFor, nil, ""},
		{"the same call, arguments respelled", s, state, with(func(c *requeststate.Call) { c.Arguments = json.RawMessage(` { "env" : "staging" } `) }), nil, ""},
		{"another principal", s, state, with(func(c *requeststate.Call) { c.Principal = "https://issuer.example|mallory" }), requeststate.ErrMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"no principal", s, state, with(func(c *requeststate.Call) { c.Principal = "" }), requeststate.ErrMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"a principal for an anonymous state", s, anonymous, stagingFor, requeststate.ErrMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},
		{"a principal's prefix", s, state, with(func(c *requeststate.Call) { c.Principal = c.Principal[:len(c.Principal)-1] }), requeststate.ErrMismatch, ""},
		{"another audience", newSealer(t, requeststate.Options{Audience: "https://other.example.com"}), state, stagingFor, requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not "https://other.example.com"`},
		{"no audience", newSealer(t, requeststate.Options{}), state, stagingFor, requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not ""`},
		{"another tool", s, state, with(func(c *requeststate.Call) { c.Tool = "destroy" }), requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for another tool, not "destroy"`},
		{"other arguments", s, state, with(func(c *requeststate.Call) { c.Arguments = json.RawMessage(`{"env":"prod"}`) }), requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for other arguments to "deploy"`},
		{"arguments not JSON", s, state, with(func(c *requeststate.Call) { c.Arguments = json.RawMessage(`{"env"`) }), toolnexus.ErrInvalidJSON, ""},
		{"another key", newSealer(t, requeststate.Options{Keys: [][]byte{newKey}, Audience: audience}), state, stagingFor,
			requeststate.ErrInvalidState, msgInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.sealer.Open(tt.state, tt.call, stateNow)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Equal(t, requeststate.Opened{}, got)
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
	s := newSealer(t, requeststate.Options{})
	tests := []struct {
		name    string
		call    requeststate.Call
		st      requeststate.State
		wantErr error
		wantMsg string
	}{
		{"no request", stagingFor, requeststate.State{}, toolnexus.ErrInvalidRequest, "toolnexus: invalid request: a request state holds no request"},
		{"a request without prompt", stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq, {ID: "pnd-2", Kind: "input"}}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-2" has no prompt`},
		{"unreadable expiry", stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", ExpiresAt: "soon"}}},
			toolnexus.ErrInvalidExpiry, `toolnexus: invalid expiresAt: "soon" is not RFC 3339`},
		{"too large", stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: strings.Repeat("p", 48<<10)}}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1" would make a state of 65714 bytes, over the limit of 65536 bytes`},
		{"a tool name too large", requeststate.Call{Tool: strings.Repeat("t", 64<<10)}, requeststate.State{Requests: []toolnexus.Request{stateReq}},
			toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1" would make a state of 87548 bytes, over the limit of 65536 bytes`},
		{"an answer that is not JSON", stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "a", Data: map[string]any{"f": func() {}}}}},
			toolnexus.ErrInvalidRequest, ""},
		{"arguments not JSON", requeststate.Call{Tool: "deploy", Arguments: json.RawMessage(`{`)}, requeststate.State{Requests: []toolnexus.Request{stateReq}},
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

func TestExpiry(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{})
	state := seal(t, s, stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
	tests := []struct {
		name    string
		state   string
		want    time.Time
		wantMsg string
	}{
		{"sealed", state, stateNow.Add(time.Hour), ""},
		{"no request expiry: the maximum age", sealState(t, "login", nil, toolnexus.Request{ID: "pnd-2", Kind: "input", Prompt: "Name?"}),
			stateNow.Add(requeststate.DefaultMaxAge), ""},
		{"empty", "", time.Time{}, msgInvalidState},
		{"garbage", "tn1.not a state", time.Time{}, msgInvalidState},
		{"another version", "tn2." + strings.TrimPrefix(state, "tn1."), time.Time{}, msgInvalidState},
		{"too short for a header", "tn1.AAAAAAAAAAAAAAAAAAAAAA", time.Time{}, msgInvalidState},
		{"over-long", "tn1." + strings.Repeat("A", 64<<10), time.Time{}, "toolnexus: invalid request state: longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requeststate.Expiry(tt.state)
			if tt.wantMsg != "" {
				assertErr(t, err, requeststate.ErrInvalidState, tt.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestOpenedUntil checks until when a state may open on any server: its
// sealed expiry, which a shorter maximum age does not shorten for a server
// with a longer one, plus the clock skew any server may have.
func TestOpenedUntil(t *testing.T) {
	t.Parallel()
	long := newSealer(t, requeststate.Options{MaxAge: 2 * time.Hour})
	short := newSealer(t, requeststate.Options{MaxAge: time.Hour})
	call := requeststate.Call{Tool: "deploy"}
	state, err := long.Seal(call, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}}}, stateNow)
	require.NoError(t, err)
	opened, err := short.Open(state, call, stateNow)
	require.NoError(t, err)
	assert.Equal(t, stateNow.Add(time.Hour).UTC(), opened.ExpiresAt, "this server's maximum age")
	assert.Equal(t, stateNow.Add(2*time.Hour+requeststate.MaxClockSkew).UTC(), opened.Until(), "the sealer's expiry, and the skew")
	assert.Equal(t, stateNow.Add(time.Minute+requeststate.MaxClockSkew).UTC(), requeststate.Opened{ExpiresAt: stateNow.Add(time.Minute)}.Until(), "an Opened made by hand")
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

	s := newSealer(t, requeststate.Options{})
	st := requeststate.State{
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
	s := newSealer(t, requeststate.Options{})
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
			st := requeststate.State{
				Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: tt.data}},
				Answers:  toolnexus.Answers{{ID: "pnd-0", OK: true, Data: tt.data}},
			}
			got, err := s.Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Requests()[0].Data)
			assert.Equal(t, tt.want, got.Answers()[0].Data)
		})
	}
	_, err := s.Seal(stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?",
		Data: map[string]any{"nan": math.NaN()}}}}, stateNow)
	assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1": json: unsupported value: NaN`)
}

// TestPrincipal checks that a principal names its issuer and subject so
// that no other pair gives it.
func TestPrincipal(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "iss:22:https://issuer.examplesub:alice", requeststate.Principal("https://issuer.example", "alice"))
	seen := map[string][2]string{}
	for _, pair := range [][2]string{{"a", "bc"}, {"ab", "c"}, {"", "abc"}, {"abc", ""}, {"a:", "b"}, {"a", ":b"}, {"1:a", "sub:"}, {"", "1:asub:"}, {"", ""}} {
		p := requeststate.Principal(pair[0], pair[1])
		prev, dup := seen[p]
		assert.False(t, dup, "%q and %q give %q", prev, pair, p)
		seen[p] = pair
	}
}

// deepData returns Data n levels deep.
func deepData(n int) map[string]any {
	m := map[string]any{"leaf": true}
	for range n - 1 {
		m = map[string]any{"a": m}
	}
	return m
}

// TestSealDataBound seals requests and answers whose Data nests without
// end or deeper than MaxDataDepth: Seal refuses them with
// ErrInvalidRequest, and takes Data exactly MaxDataDepth deep.
func TestSealDataBound(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{})
	self := map[string]any{"a": 1.0}
	self["self"] = self
	deepList := []any{}
	for range toolnexus.MaxDataDepth + 5 {
		deepList = []any{deepList}
	}
	hostile := map[string]map[string]any{
		"a map that holds itself": self,
		"too deep":                deepData(toolnexus.MaxDataDepth + 2),
		"a list too deep":         {"l": deepList},
	}
	for name, data := range hostile {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Seal(stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: data}}}, stateNow)
			assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "pnd-1": data nests deeper than 10000 levels, or holds itself`)
			_, err = s.Seal(stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "a", OK: true, Data: data}}}, stateNow)
			assertErr(t, err, toolnexus.ErrInvalidRequest, "")
		})
	}
	deep := deepData(100)
	state, err := s.Seal(stagingFor, requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: deep}}}, stateNow)
	require.NoError(t, err)
	opened, err := s.Open(state, stagingFor, stateNow)
	require.NoError(t, err)
	assert.Equal(t, deep, opened.Requests()[0].Data)
}

// TestSealerOpaque seals an opaque value beside the requests: it comes back
// byte for byte from the state sealed for its call, and from no other; a
// state without one gives "".
func TestSealerOpaque(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{Audience: "https://relay.example.com/mcp"})
	tests := []struct{ name, opaque string }{
		{"none", ""},
		{"an upstream state", "round=2;name=Alice"},
		{"bytes that are not UTF-8", "\xff\x00\xfe"},
		{"long", strings.Repeat("s", 40<<10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := requeststate.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "pnd-0", OK: true}}, Opaque: tt.opaque}
			state := seal(t, s, stagingFor, st, stateNow)
			assert.NotContains(t, state, "round=2")
			got, err := s.Open(state, stagingFor, stateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.opaque, got.Opaque())
			assert.Equal(t, st.Requests, got.Requests())
			assert.Equal(t, st.Answers, got.Answers())
			other := stagingFor
			other.Principal = "https://issuer.example|mallory"
			_, err = s.Open(state, other, stateNow)
			assertErr(t, err, requeststate.ErrMismatch, "toolnexus: request state does not match the call: it was sealed for another principal")
		})
	}
	// The value is authenticated with the rest: one bit of it changed and
	// the state does not open.
	state := seal(t, s, stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq}, Opaque: "upstream"}, stateNow)
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
	require.NoError(t, err)
	b[len(b)-17] ^= 1 // the last byte of the plaintext, before the tag
	_, err = s.Open("tn1."+base64.RawURLEncoding.EncodeToString(b), stagingFor, stateNow)
	require.EqualError(t, err, msgInvalidState)
	// One too long for a state is refused, not cut.
	_, err = s.Seal(stagingFor, requeststate.State{Requests: []toolnexus.Request{stateReq}, Opaque: strings.Repeat("s", 64<<10)}, stateNow)
	assertErr(t, err, toolnexus.ErrInvalidRequest, "")
	for _, shown := range []string{fmt.Sprint(requeststate.State{Opaque: "round=1"}), fmt.Sprintf("%#v", requeststate.State{Opaque: "round=1"})} {
		assert.NotContains(t, shown, "round=1")
	}
}

// TestSealerBoundCall checks a Call that carries the binding its carrier
// computed (argmemo.BindCall): it seals and opens as the same call bound by
// the Sealer, and one whose Arguments were replaced after is bound again.
func TestSealerBoundCall(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{})
	args := json.RawMessage(`{"replicas":3,"env":"staging"}`)
	binding, ok := jsonscan.BindObject(args)
	require.True(t, ok)
	bound := argmemo.BindCall(requeststate.Call{Tool: "deploy", Arguments: args}, binding).(requeststate.Call)
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
	state := seal(t, s, bound, st, stateNow)

	_, err := s.Open(state, requeststate.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"staging","replicas":3}`)}, stateNow)
	require.NoError(t, err)
	_, err = s.Open(state, bound, stateNow)
	require.NoError(t, err)

	other := bound
	other.Arguments = json.RawMessage(`{"replicas":30,"env":"staging"}`)
	_, err = s.Open(state, other, stateNow)
	assertErr(t, err, requeststate.ErrMismatch, "")
	state = seal(t, s, other, st, stateNow)
	_, err = s.Open(state, requeststate.Call{Tool: "deploy", Arguments: other.Arguments}, stateNow)
	require.NoError(t, err)
}
