package requeststate_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// requireOpenError checks an error of opening a state: one of the sentinels
// of Open, and for a state that does not open, the one message that says
// nothing of why.
func requireOpenError(t *testing.T, err error) {
	t.Helper()
	switch {
	case errors.Is(err, requeststate.ErrInvalidState):
		if err.Error() != msgInvalidState && !strings.HasPrefix(err.Error(), "toolnexus: invalid request state: issued at ") {
			require.EqualError(t, err, "toolnexus: invalid request state: longer than 65536 bytes")
		}
	case errors.Is(err, requeststate.ErrShortKey), errors.Is(err, requeststate.ErrMismatch),
		errors.Is(err, toolnexus.ErrInvalidJSON), errors.Is(err, toolnexus.ErrExpired):
		require.True(t, strings.HasPrefix(err.Error(), "toolnexus: "), "%v", err)
	default:
		t.Fatalf("error %q matches no sentinel", err)
	}
}

// FuzzSealerKey opens arbitrary states with a Sealer of an arbitrary key,
// and seals and opens a request with it for a fuzzed tool and arguments.
func FuzzSealerKey(f *testing.F) {
	valid := func(tool string, args json.RawMessage) string {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{stateKey}})
		if err != nil {
			f.Fatal(err)
		}
		state, err := s.Seal(requeststate.Call{Tool: tool, Arguments: args}, requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
		if err != nil {
			f.Fatal(err)
		}
		return state
	}
	f.Add(stateKey, valid("deploy", stagingArg), "deploy", []byte(stagingArg))
	f.Add(stateKey, valid("deploy", stagingArg), "deploy", []byte(`{"env":"prod"}`))
	f.Add(stateKey, valid("login", nil), "login", []byte(` null `))
	f.Add(stateKey[:31], valid("login", nil), "login", []byte(`{}`))
	f.Add([]byte(strings.Repeat("k", 40)), "tn1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", []byte(`[1,2]`))
	f.Add([]byte(nil), "", "x", []byte(`{"a":`))
	f.Add(stateKey, valid("\xa4", nil), "\xa5", []byte(`{}`)) // not UTF-8
	f.Fuzz(func(t *testing.T, key []byte, state, tool string, args []byte) {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}})
		if len(key) < requeststate.MinKeyLen {
			require.ErrorIs(t, err, requeststate.ErrShortKey)
			return
		}
		require.NoError(t, err)
		call := requeststate.Call{Tool: tool, Arguments: args}
		got, err := s.Open(state, call, stateNow)
		if err == nil {
			assert.Equal(t, []toolnexus.Request{stateReq}, got.Requests())
		} else {
			requireOpenError(t, err)
		}

		sealed, err := s.Seal(call, requeststate.State{Requests: []toolnexus.Request{stateReq}}, stateNow)
		if !json.Valid(args) && len(bytes.Trim(args, " \t\r\n")) > 0 {
			require.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
			return
		}
		require.NoError(t, err)
		got, err = s.Open(sealed, call, stateNow)
		require.NoError(t, err)
		assert.Equal(t, []toolnexus.Request{stateReq}, got.Requests())
		_, err = s.Open(sealed, requeststate.Call{Tool: tool + "x", Arguments: args}, stateNow)
		require.ErrorIs(t, err, requeststate.ErrMismatch)
	})
}

// FuzzSealerOpen opens arbitrary states, and arbitrary bytes behind the
// prefix, with a Sealer holding two keys; then seals a fuzzed call with
// each key, opens it with the ring, and checks that each claim binds: a
// changed byte anywhere, another tool, principal or audience, or a ring
// without the key, and the state does not open.
func FuzzSealerOpen(f *testing.F) {
	const audience = "https://mcp.example.com"
	thirdKey := bytes.Repeat([]byte{0x03}, 32)
	ring := newSealer(f, requeststate.Options{Keys: [][]byte{newKey, oldKey}, Audience: audience})
	byKey := map[string]*requeststate.Sealer{}
	for _, k := range [][]byte{newKey, oldKey, thirdKey} {
		byKey[string(k)] = newSealer(f, requeststate.Options{Keys: [][]byte{k}, Audience: audience})
	}
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}, Answers: toolnexus.Answers{{ID: "pnd-0", OK: true}}}
	raw := func(key []byte, call requeststate.Call) []byte {
		state, err := byKey[string(key)].Seal(call, st, stateNow)
		if err != nil {
			f.Fatal(err)
		}
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, "tn1."))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	for _, k := range [][]byte{newKey, oldKey, thirdKey} {
		b := raw(k, stagingFor)
		f.Add(b, "tn1."+base64.RawURLEncoding.EncodeToString(b), stagingFor.Tool, []byte(stagingFor.Arguments), stagingFor.Principal, uint16(0))
		f.Add(b[:len(b)-1], "tn1."+base64.RawURLEncoding.EncodeToString(b)[1:], "deploy", []byte(`{"env":"prod"}`), "", uint16(7))
	}
	f.Add(raw(oldKey, requeststate.Call{Tool: "\xa4"}), "tn1.", "\xa4", []byte(nil), "\xff", uint16(300))
	// Arguments past 128 canonical bytes are bound by their digest.
	long := requeststate.Call{Tool: "deploy", Arguments: json.RawMessage(`{"note":"` + strings.Repeat("x", 200) + `"}`), Principal: "p"}
	lb := raw(newKey, long)
	f.Add(lb, "tn1."+base64.RawURLEncoding.EncodeToString(lb), long.Tool, []byte(long.Arguments), long.Principal, uint16(40))
	f.Add([]byte{}, "tn2.AAAA", "", []byte(`[1,2]`), "p", uint16(12))
	f.Fuzz(func(t *testing.T, body []byte, state, tool string, args []byte, principal string, flip uint16) {
		call := requeststate.Call{Tool: tool, Arguments: args, Principal: principal}
		for _, s := range []string{state, "tn1." + base64.RawURLEncoding.EncodeToString(body)} {
			got, err := ring.Open(s, call, stateNow)
			if err != nil {
				requireOpenError(t, err)
				continue
			}
			assert.Equal(t, st.Requests, got.Requests())
			expiry, err := requeststate.Expiry(s)
			require.NoError(t, err)
			assert.Equal(t, got.ExpiresAt, expiry)
		}

		for _, k := range [][]byte{newKey, oldKey} {
			sealed, err := byKey[string(k)].Seal(call, st, stateNow)
			if !json.Valid(args) && len(bytes.Trim(args, " \t\r\n")) > 0 {
				require.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
				return
			}
			if len(tool)+len(principal)+len(args) > 32<<10 {
				return // may be over the size limit
			}
			require.NoError(t, err)
			got, err := ring.Open(sealed, call, stateNow)
			require.NoError(t, err)
			assert.Equal(t, st.Requests, got.Requests())
			assert.Equal(t, st.Answers, got.Answers())

			for _, other := range []requeststate.Call{
				{Tool: tool + "x", Arguments: args, Principal: principal},
				{Tool: tool, Arguments: args, Principal: principal + "x"},
			} {
				_, err = ring.Open(sealed, other, stateNow)
				require.ErrorIs(t, err, requeststate.ErrMismatch)
			}
			_, err = newSealer(t, requeststate.Options{Keys: [][]byte{k}, Audience: audience + "x"}).Open(sealed, call, stateNow)
			require.ErrorIs(t, err, requeststate.ErrMismatch)
			_, err = byKey[string(thirdKey)].Open(sealed, call, stateNow)
			require.EqualError(t, err, msgInvalidState)

			b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, "tn1."))
			require.NoError(t, err)
			i := int(flip) % len(b)
			b[i] ^= 1 << (flip % 8)
			_, err = ring.Open("tn1."+base64.RawURLEncoding.EncodeToString(b), call, stateNow)
			require.EqualError(t, err, msgInvalidState, "bit %d of byte %d flipped", flip%8, i)
		}
	})
}

// FuzzStateData seals a Request and an Answer whose Data is a fuzzed JSON
// object: it comes back as it would through JSON. It also reads fuzzed
// bytes as the plaintext of a state, which must never panic.
func FuzzStateData(f *testing.F) {
	s := newSealer(f, requeststate.Options{})
	for _, d := range []string{`{"a":1,"b":[true,null,"x",{"c":-0.0}],"d":{}}`, `{"é":"\ud83d\ude00","n":1e308}`, `{"l":[[[]]]}`, `[]`} {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		requeststate.ReadPlaintext(d)
		var data map[string]any
		if json.Unmarshal(d, &data) != nil || len(data) == 0 {
			return
		}
		st := requeststate.State{
			Requests: []toolnexus.Request{{ID: "pnd-1", Kind: "input", Prompt: "Name?", Data: data}},
			Answers:  toolnexus.Answers{{ID: "pnd-0", OK: true, Data: data}},
		}
		state, err := s.Seal(stagingFor, st, stateNow)
		if errors.Is(err, toolnexus.ErrInvalidRequest) && len(d) > 16<<10 {
			return // over the size limit
		}
		require.NoError(t, err)
		plain, _, err := requeststate.StatePlaintext(s, stagingFor, st, stateNow)
		require.NoError(t, err)
		require.True(t, requeststate.ReadPlaintext(plain), "a sealed plaintext does not read to its end")
		got, err := s.Open(state, stagingFor, stateNow)
		require.NoError(t, err)
		j, err := json.Marshal(data)
		require.NoError(t, err)
		var want map[string]any
		require.NoError(t, json.Unmarshal(j, &want))
		assert.Equal(t, want, got.Requests()[0].Data)
		assert.Equal(t, want, got.Answers()[0].Data)
	})
}

// FuzzStateOpaque seals a fuzzed opaque value for a fuzzed principal: it
// comes back as it was, the plaintext reads to its end, and the state
// opens for no other principal.
func FuzzStateOpaque(f *testing.F) {
	s := newSealer(f, requeststate.Options{})
	for _, v := range []string{"", "round=1", "\x00\xff", strings.Repeat("é", 300)} {
		f.Add(v, "p")
	}
	f.Fuzz(func(t *testing.T, opaque, principal string) {
		call := requeststate.Call{Tool: "deploy", Arguments: stagingArg, Principal: principal}
		st := requeststate.State{Requests: []toolnexus.Request{stateReq}, Opaque: opaque}
		state, err := s.Seal(call, st, stateNow)
		if errors.Is(err, toolnexus.ErrInvalidRequest) && len(opaque)+len(principal) > 40<<10 {
			return // over the size limit
		}
		require.NoError(t, err)
		plain, _, err := requeststate.StatePlaintext(s, call, st, stateNow)
		require.NoError(t, err)
		require.True(t, requeststate.ReadPlaintext(plain), "a sealed plaintext does not read to its end")
		got, err := s.Open(state, call, stateNow)
		require.NoError(t, err)
		assert.Equal(t, opaque, got.Opaque())
		assert.Equal(t, st.Requests, got.Requests())
		call.Principal += "x"
		_, err = s.Open(state, call, stateNow)
		require.ErrorIs(t, err, requeststate.ErrMismatch)
	})
}
