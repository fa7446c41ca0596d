package requeststate_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// TestSealerTampered changes one character of a state at every position:
// the prefix, the key id, the expiry, the nonce, the claims, the tag, and
// the last character, whose low bits are padding.
func TestSealerTampered(t *testing.T) {
	t.Parallel()
	s := newSealer(t, requeststate.Options{Keys: [][]byte{newKey, oldKey}})
	for _, key := range [][]byte{newKey, oldKey} {
		state := seal(t, newSealer(t, requeststate.Options{Keys: [][]byte{key}}), stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
		for i := range len(state) {
			for _, b := range []byte{'A', 'B', '_', '.', '='} {
				if state[i] == b {
					continue
				}
				tampered := state[:i] + string(b) + state[i+1:]
				_, err := s.Open(tampered, stagingFor, stateNow)
				require.ErrorIs(t, err, requeststate.ErrInvalidState, "byte %d set to %q", i, b)
				require.EqualError(t, err, msgInvalidState)
				_, err = requeststate.Expiry(tampered)
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
	s := newSealer(t, requeststate.Options{Keys: [][]byte{newKey, oldKey}})
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
	state := seal(t, s, stagingFor, st, stateNow)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
	require.NoError(t, err)
	other := seal(t, newSealer(t, requeststate.Options{Keys: [][]byte{newKey}}), requeststate.Call{Tool: "x"}, st, stateNow.Add(-time.Hour))
	otherRaw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(other, "tn1."))
	require.NoError(t, err)
	assert.Equal(t, raw[:8], otherRaw[:8], "one key, one key id")
	assert.NotEqual(t, newKey[:8], raw[:8], "the key id is not the key")
	assert.Equal(t, uint64(stateNow.Add(time.Hour).UnixMilli()), beUint64(raw[8:16]))
	plain, aad, err := requeststate.StatePlaintext(s, stagingFor, st, stateNow)
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

// TestSealerOpen opens a state of one request, sealed with no audience and
// no principal, with the calls, keys, times and texts it must take and
// refuse.
func TestSealerOpen(t *testing.T) {
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
		{"issued in the future", stateKey, state, "deploy", `{"env":"staging"}`, stateNow.Add(-365 * 24 * time.Hour), requeststate.ErrInvalidState, ""},

		{"expiry reached", stateKey, state, "deploy", `{"env":"staging"}`, expiry, toolnexus.ErrExpired,
			`toolnexus: request expired: request "pnd-1" expired at 2026-07-28T13:00:00Z`},
		{"expiry passed", stateKey, state, "deploy", `{"env":"staging"}`, expiry.Add(24 * time.Hour), toolnexus.ErrExpired, ""},

		{"other tool", stateKey, state, "destroy", `{"env":"staging"}`, stateNow, requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for another tool, not "destroy"`},
		{"tool in other case", stateKey, state, "Deploy", `{"env":"staging"}`, stateNow, requeststate.ErrMismatch, ""},
		{"other args", stateKey, state, "deploy", `{"env":"prod"}`, stateNow, requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for other arguments to "deploy"`},
		{"key in other case", stateKey, state, "deploy", `{"ENV":"staging"}`, stateNow, requeststate.ErrMismatch, ""},
		{"extra argument", stateKey, state, "deploy", `{"env":"staging","force":true}`, stateNow, requeststate.ErrMismatch, ""},
		{"no arguments", stateKey, state, "deploy", ``, stateNow, requeststate.ErrMismatch, ""},
		{"number spelled otherwise", stateKey, sealState(t, "scale", json.RawMessage(`{"n":1}`), stateReq), "scale", `{"n":1.0}`, stateNow, requeststate.ErrMismatch, ""},
		{"args not JSON", stateKey, state, "deploy", `{"env":"staging"`, stateNow, toolnexus.ErrInvalidJSON, ""},
		{"sealed with an audience", stateKey, seal(t, newSealer(t, requeststate.Options{Audience: "a"}), requeststate.Call{Tool: "deploy", Arguments: stagingArg},
			requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow), "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrMismatch,
			`toolnexus: request state does not match the call: it was sealed for another audience, not ""`},
		{"sealed for a principal", stateKey, seal(t, newSealer(t, requeststate.Options{}), stagingFor,
			requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow), "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrMismatch,
			"toolnexus: request state does not match the call: it was sealed for another principal"},

		{"other key", otherKey, state, "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"empty", stateKey, "", "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"prefix only", stateKey, "tn1.", "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"no prefix", stateKey, body, "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"the layout of the previous release", stateKey, oldLayoutState(t), "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"other version", stateKey, "tn2." + body, "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"truncated by one", stateKey, state[:len(state)-1], "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"truncated to the header", stateKey, state[:4+22], "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"one more byte", stateKey, state + "A", "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"padded", stateKey, state + "==", "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"line break inside", stateKey, state[:40] + "\n" + state[40:], "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"standard alphabet", stateKey, strings.NewReplacer("-", "+", "_", "/").Replace(state) + "+", "deploy", `{"env":"staging"}`, stateNow,
			requeststate.ErrInvalidState, msgInvalidState},
		{"garbage", stateKey, "tn1.not a state at all", "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState, msgInvalidState},
		{"over-long", stateKey, "tn1." + strings.Repeat("A", 64<<10), "deploy", `{"env":"staging"}`, stateNow, requeststate.ErrInvalidState,
			"toolnexus: invalid request state: longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := newSealer(t, requeststate.Options{Keys: [][]byte{tt.key}}).Open(tt.state, requeststate.Call{Tool: tt.tool, Arguments: json.RawMessage(tt.args)}, tt.now)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Equal(t, requeststate.Opened{}, got)
				assertStateSecret(t, err, tt.state)
				return
			}
			assert.Equal(t, []toolnexus.Request{stateReq}, got.Requests())
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
