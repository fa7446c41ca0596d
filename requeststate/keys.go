package requeststate

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// MinKeyLen is the shortest request state key, in bytes. A key should
// be random, secret, and the same on every server that may receive the
// retry of a call.
const MinKeyLen = 32

// Limits of [Options]: the maximum age of a state and the allowance
// for clocks that disagree.
const (
	// DefaultMaxAge is the maximum age of a state when
	// [Options].MaxAge is zero.
	DefaultMaxAge = 24 * time.Hour
	// MaxMaxAge is the longest [Options].MaxAge: a state that
	// lives longer could not be revoked but by retiring its key.
	MaxMaxAge = 30 * 24 * time.Hour
	// DefaultClockSkew is the allowance for clocks that disagree when
	// [Options].ClockSkew is zero.
	DefaultClockSkew = time.Minute
	// MaxClockSkew is the largest [Options].ClockSkew.
	MaxClockSkew = 5 * time.Minute
)

// Options configures a [Sealer].
type Options struct {
	// Keys are the secrets states are sealed with, each at least
	// MinKeyLen random bytes: Keys[0] seals, every key opens. See
	// [Sealer] for how to rotate them.
	Keys [][]byte `toolnexus:"payload"`
	// Audience names this service, such as its URL; a state opens only for
	// the audience it was sealed for, so two services sharing a key cannot
	// open each other's states. Set it: every service that leaves it empty
	// shares the empty audience.
	Audience string
	// MaxAge is how long after it is sealed a state may open, at most
	// MaxMaxAge; zero means DefaultMaxAge. A state expires at the
	// earliest of its issue time plus MaxAge, the State's ExpiresAt and
	// its requests' ExpiresAt.
	MaxAge time.Duration
	// ClockSkew is how far in the future, by this server's clock, a state
	// may have been issued by another server's, at most
	// MaxClockSkew; zero means DefaultClockSkew.
	ClockSkew time.Duration
}

// String returns o's fields, its keys as their number, for %v.
func (o Options) String() string { return wire.Show(o, false) }

// GoString returns o in Go syntax without its keys, for %#v.
func (o Options) GoString() string { return wire.Show(o, true) }

// Format prints o for every verb without its keys, as [Options.String] (%#v: [Options.GoString]).
func (o Options) Format(f fmt.State, verb rune) { wire.Format(f, verb, o) }

// LogValue implements [slog.LogValuer]: o logs as a group of its non-empty fields, without its keys.
func (o Options) LogValue() slog.Value { return wire.Log(o) }

// stateKey is one key of a Sealer's ring, derived from a secret. Its AEAD
// draws the nonce of each state it seals from crypto/rand and writes it in
// front of the ciphertext.
type stateKey struct {
	id   [keyIDLen]byte
	aead cipher.AEAD
}

// deriveKeys builds the key ring of secrets.
func (s *Sealer) deriveKeys(secrets [][]byte) error {
	if len(secrets) == 0 {
		return msg.Errorf(ErrInvalidKey, "no key")
	}
	s.keys = make([]stateKey, len(secrets))
	for i, secret := range secrets {
		if len(secret) < MinKeyLen {
			if len(secrets) == 1 {
				return msg.Errorf(ErrShortKey, "%d bytes, want at least %d", len(secret), MinKeyLen)
			}
			return msg.Errorf(ErrShortKey, "key %d of %d: %d bytes, want at least %d", i+1, len(secrets), len(secret), MinKeyLen)
		}
		k, err := newStateKey(secret)
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
// secret under a label naming the format and the id. The cipher draws its
// own random nonces.
func newStateKey(secret []byte) (stateKey, error) {
	var k stateKey
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
	k.aead, err = cipher.NewGCMWithRandomNonce(block)
	return k, err
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

// KeysFromHex returns the keys of list, comma-separated hex keys, such as
// an environment variable or a secret's file holds them for
// [Options].Keys: the first seals, all open. ASCII white space around
// the list (a file's last newline) is not part of it; white space within it
// is not hex.
// It reports [ErrInvalidKey] for an empty list, an empty key or one that is
// not hex, and [ErrShortKey] for a key shorter than [MinKeyLen] bytes.
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
		case len(key) < MinKeyLen:
			return nil, msg.Errorf(ErrShortKey, "key %d of %d: %d bytes, want at least %d", i+1, len(fields), len(key), MinKeyLen)
		}
		keys[i] = key
	}
	return keys, nil
}

// asciiSpace is the white space of ASCII.
const asciiSpace = " \t\n\v\f\r"
