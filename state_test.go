package toolnexus_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
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
)

// msgInvalidState is the message of every state that fails to open.
const msgInvalidState = "toolnexus: invalid request state: not sealed with this key, or altered"

func sealState(t *testing.T, tool string, args json.RawMessage, req toolnexus.Request) string {
	t.Helper()
	state, err := toolnexus.SealRequestState(stateKey, tool, args, req)
	require.NoError(t, err)
	return state
}

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := sealState(t, tt.tool, tt.args, tt.req)
			assert.Regexp(t, regexp.MustCompile(`^tn1\.[A-Za-z0-9_-]+$`), state)
			got, err := toolnexus.OpenRequestState(stateKey, state, tt.tool, tt.args, stateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.req, got)
		})
	}
}

func TestSealRequestStateNonce(t *testing.T) {
	t.Parallel()
	a := sealState(t, "deploy", stagingArg, stateReq)
	b := sealState(t, "deploy", stagingArg, stateReq)
	assert.NotEqual(t, a, b, "two seals of one request share a nonce")
	for _, state := range []string{a, b} {
		got, err := toolnexus.OpenRequestState(stateKey, state, "deploy", stagingArg, stateNow)
		require.NoError(t, err)
		assert.Equal(t, stateReq, got)
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

		{"other key", otherKey, state, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"short key", stateKey[:16], state, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrShortKey,
			"toolnexus: request state key too short: 16 bytes, want at least 32"},
		{"empty", stateKey, "", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"prefix only", stateKey, "tn1.", "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"no prefix", stateKey, body, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"other version", stateKey, "tn2." + body, "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"truncated by one", stateKey, state[:len(state)-1], "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
		{"truncated to the nonce", stateKey, state[:4+16], "deploy", `{"env":"staging"}`, stateNow, toolnexus.ErrInvalidState, msgInvalidState},
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

// TestOpenRequestStateTampered changes one byte of a state at every
// position: the version prefix, the nonce, the encrypted request, the
// authentication tag and the last character, whose low bits are padding.
func TestOpenRequestStateTampered(t *testing.T) {
	t.Parallel()
	state := sealState(t, "deploy", stagingArg, stateReq)
	nonce := len("tn1.") + 16 // 12 bytes of nonce are 16 characters
	tag := len(state) - 22    // the 16-byte tag starts within the last 22 characters
	classes := []struct {
		name     string
		from, to int
	}{
		{"prefix", 0, len("tn1.")},
		{"nonce", len("tn1."), nonce},
		{"ciphertext", nonce, tag},
		{"tag", tag, len(state) - 1},
		{"last character", len(state) - 1, len(state)},
	}
	for _, c := range classes {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Less(t, c.from, c.to)
			for i := c.from; i < c.to; i++ {
				for _, b := range []byte{'A', 'B', '_', '.', '='} {
					if state[i] == b {
						continue
					}
					tampered := state[:i] + string(b) + state[i+1:]
					_, err := toolnexus.OpenRequestState(stateKey, tampered, "deploy", stagingArg, stateNow)
					require.ErrorIs(t, err, toolnexus.ErrInvalidState, "byte %d set to %q", i, b)
					require.EqualError(t, err, msgInvalidState)
				}
			}
		})
	}
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

// FuzzOpenRequestState opens arbitrary states with arbitrary keys, and seals
// and opens a request with a fuzzed key, tool and arguments.
func FuzzOpenRequestState(f *testing.F) {
	valid := func(tool string, args json.RawMessage) string {
		state, err := toolnexus.SealRequestState(stateKey, tool, args, stateReq)
		if err != nil {
			f.Fatal(err)
		}
		return state
	}
	f.Add(stateKey, valid("deploy", stagingArg), "deploy", []byte(stagingArg))
	f.Add(stateKey, valid("deploy", stagingArg), "deploy", []byte(`{"env":"prod"}`))
	f.Add(stateKey, valid("login", nil), "login", []byte(` null `))
	f.Add(stateKey[:31], valid("login", nil), "login", []byte(`{}`))
	f.Add([]byte(strings.Repeat("k", 40)), "tn1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", []byte(`[1,2]`))
	f.Add([]byte(nil), "", "x", []byte(`{"a":`))
	f.Add(stateKey, valid("\xa4", nil), "\xa5", []byte(`{}`)) // not UTF-8: JSON would read both as U+FFFD
	f.Fuzz(func(t *testing.T, key []byte, state, tool string, args []byte) {
		got, err := toolnexus.OpenRequestState(key, state, tool, args, stateNow)
		switch {
		case err == nil:
			assert.Equal(t, stateReq, got)
		case errors.Is(err, toolnexus.ErrInvalidState):
			if err.Error() != msgInvalidState {
				require.EqualError(t, err, "toolnexus: invalid request state: longer than 65536 bytes")
			}
		case errors.Is(err, toolnexus.ErrShortKey), errors.Is(err, toolnexus.ErrStateMismatch),
			errors.Is(err, toolnexus.ErrInvalidJSON), errors.Is(err, toolnexus.ErrExpired):
			require.True(t, strings.HasPrefix(err.Error(), "toolnexus: "), "%v", err)
		default:
			t.Fatalf("error %q matches no sentinel", err)
		}

		sealed, err := toolnexus.SealRequestState(key, tool, args, stateReq)
		switch {
		case len(key) < 32:
			require.ErrorIs(t, err, toolnexus.ErrShortKey)
			return
		case !json.Valid(args) && len(bytes.Trim(args, " \t\r\n")) > 0:
			require.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
			return
		}
		require.NoError(t, err)
		got, err = toolnexus.OpenRequestState(key, sealed, tool, args, stateNow)
		require.NoError(t, err)
		assert.Equal(t, stateReq, got)
		_, err = toolnexus.OpenRequestState(key, sealed, tool+"x", args, stateNow)
		require.ErrorIs(t, err, toolnexus.ErrStateMismatch)
	})
}
