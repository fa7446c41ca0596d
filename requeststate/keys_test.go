package requeststate_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

func TestNewSealer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    requeststate.Options
		wantErr error
		wantMsg string
	}{
		{"no keys", requeststate.Options{}, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"empty ring", requeststate.Options{Keys: [][]byte{}}, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"short key", requeststate.Options{Keys: [][]byte{stateKey[:31]}}, requeststate.ErrShortKey,
			"toolnexus: request state key too short: 31 bytes, want at least 32"},
		{"short second key", requeststate.Options{Keys: [][]byte{stateKey, nil}}, requeststate.ErrShortKey,
			"toolnexus: request state key too short: key 2 of 2: 0 bytes, want at least 32"},
		{"key given twice", requeststate.Options{Keys: [][]byte{oldKey, newKey, bytes.Clone(oldKey)}}, requeststate.ErrInvalidKey,
			"toolnexus: invalid request state key: key 3 of 3 is key 1 again"},
		{"negative maximum age", requeststate.Options{Keys: [][]byte{stateKey}, MaxAge: -time.Second}, requeststate.ErrInvalidOptions,
			"toolnexus: invalid sealer options: MaxAge -1s is not between 0 and 720h0m0s"},
		{"maximum age too long", requeststate.Options{Keys: [][]byte{stateKey}, MaxAge: requeststate.MaxMaxAge + 1}, requeststate.ErrInvalidOptions,
			"toolnexus: invalid sealer options: MaxAge 720h0m0.000000001s is not between 0 and 720h0m0s"},
		{"negative skew", requeststate.Options{Keys: [][]byte{stateKey}, ClockSkew: -1}, requeststate.ErrInvalidOptions,
			"toolnexus: invalid sealer options: ClockSkew -1ns is not between 0 and 5m0s"},
		{"skew too large", requeststate.Options{Keys: [][]byte{stateKey}, ClockSkew: time.Hour}, requeststate.ErrInvalidOptions,
			"toolnexus: invalid sealer options: ClockSkew 1h0m0s is not between 0 and 5m0s"},
		{"a skew longer than the maximum age", requeststate.Options{Keys: [][]byte{stateKey}, MaxAge: 30 * time.Second}, nil, ""},
		{"the longest maximum age", requeststate.Options{Keys: [][]byte{stateKey}, MaxAge: requeststate.MaxMaxAge, ClockSkew: requeststate.MaxClockSkew}, nil, ""},
		{"a short maximum age", requeststate.Options{Keys: [][]byte{stateKey}, MaxAge: time.Second, ClockSkew: time.Millisecond}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := requeststate.NewSealer(tt.opts)
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
	s := newSealer(t, requeststate.Options{Keys: [][]byte{key}})
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
	before := seal(t, s, stagingFor, st, stateNow)
	key[0] ^= 0xff
	_, err := s.Open(before, stagingFor, stateNow)
	require.NoError(t, err)
	_, err = newSealer(t, requeststate.Options{Keys: [][]byte{stateKey}}).Open(seal(t, s, stagingFor, st, stateNow), stagingFor, stateNow)
	require.NoError(t, err)
}

// TestSealerRotation rotates a key as the Sealer's doc says, across server
// processes whose keys come from TOOLNEXUS_STATE_KEYS: during each step of
// the rollout, servers of the step before and of the step after share the
// parked calls both ways.
func TestSealerRotation(t *testing.T) {
	t.Parallel()
	oldHex, newHex := hex.EncodeToString(oldKey), hex.EncodeToString(newKey)
	process := func(env string) *requeststate.Sealer {
		keys, err := requeststate.KeysFromHex(env)
		require.NoError(t, err)
		return newSealer(t, requeststate.Options{Keys: keys, Audience: "https://mcp.example.com"})
	}
	steps := []*requeststate.Sealer{
		process(oldHex),                // before
		process(oldHex + "," + newHex), // the new key staged
		process(newHex + "," + oldHex), // the new key seals
		process(newHex),                // the old key retired, one maximum age later
	}
	st := requeststate.State{Requests: []toolnexus.Request{stateReq}}
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
		assertErr(t, err, requeststate.ErrInvalidState, msgInvalidState)
	})
	t.Run("the new key sealing before it is staged everywhere", func(t *testing.T) {
		t.Parallel()
		state := seal(t, steps[2], stagingFor, st, stateNow)
		_, err := steps[0].Open(state, stagingFor, stateNow)
		assertErr(t, err, requeststate.ErrInvalidState, msgInvalidState)
	})
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
		{"white space alone", " \n", nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"empty", "", nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: no key"},
		{"trailing comma", oldHex + ",", nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: key 2 of 2 is empty"},
		{"space after the comma", newHex + ", " + oldHex, nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: key 2 of 2 is not hex"},
		{"not hex", "zz" + oldHex[2:], nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{"odd length", oldHex + "f", nil, requeststate.ErrInvalidKey, "toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{"base64, not hex", base64.StdEncoding.EncodeToString(oldKey), nil, requeststate.ErrInvalidKey, ""},
		{"short", oldHex[:62], nil, requeststate.ErrShortKey, "toolnexus: request state key too short: key 1 of 1: 31 bytes, want at least 32"},
		{"short second", newHex + ",abcd", nil, requeststate.ErrShortKey, "toolnexus: request state key too short: key 2 of 2: 2 bytes, want at least 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requeststate.KeysFromHex(tt.list)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			assert.Equal(t, tt.want, got)
			if err != nil {
				assert.NotContains(t, err.Error(), oldHex[4:20], "the error shows no key")
			}
		})
	}
}
