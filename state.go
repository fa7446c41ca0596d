package toolnexus

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// MinStateKeyLen is the shortest key [SealRequestState] and
// [OpenRequestState] take, in bytes. The key should be random, secret, and
// the same on every server that may receive the retry of a call.
const MinStateKeyLen = 32

// maxStateLen is the longest request state, in bytes, that
// OpenRequestState reads; SealRequestState refuses a request whose state
// would be longer.
const maxStateLen = 64 << 10

// statePrefix starts every request state: the format's name and version.
// It is authenticated with the rest, so a state cannot be read as another
// version.
const statePrefix = "tn1."

// stateKeyLabel derives the AES-256 key of the request states from the
// server's key, so that the key is never used directly, nor for anything
// else under the same name.
const stateKeyLabel = "toolnexus request state v1"

// stateOverhead is what sealing adds to the plaintext: a random nonce and
// the authentication tag of AES-GCM.
const stateOverhead = 12 + 16

// sealedState is the plaintext of a request state. Only this file writes
// it, and it is decoded only once its authentication has passed; the
// Request in it is read with exact keys by [Request.UnmarshalJSON].
type sealedState struct {
	Tool    []byte  `json:"tool"` // bytes: JSON would replace invalid UTF-8
	Args    []byte  `json:"args"` // SHA-256 of the canonical arguments
	Request Request `json:"request"`
}

// SealRequestState returns the request state of a call to tool with
// arguments args that suspended on req: an opaque string, such as the
// requestState of an MCP input_required result, that the client holds and
// sends back, unchanged, with its answer. It holds req, the tool's name and
// a SHA-256 digest of args, encrypted and authenticated with AES-256-GCM
// under a key derived from key with HMAC-SHA256; [OpenRequestState] reads
// it back. The state is text in the URL-safe base64 alphabet, behind a
// version prefix.
//
// The digest is of args decoded and encoded again, so that the order of
// keys and the spacing do not matter; empty args, null and {} are the same
// call. Pass args as the tool reads them: a decoder that folds the case of
// keys, as encoding/json does into a struct, can read two argument objects
// with the same canonical form differently.
//
// A request without ExpiresAt gives a state that never expires; set one
// with [Request.WithExpiry]. SealRequestState reports [ErrShortKey] for a key
// shorter than [MinStateKeyLen], the error of [Request.Validate] for a
// request that is not valid, [ErrInvalidRequest] for one whose state would
// be longer than 64 KiB, and [ErrInvalidJSON] when args is not JSON.
func SealRequestState(key []byte, tool string, args json.RawMessage, req Request) (string, error) {
	aead, err := stateCipher(key)
	if err != nil {
		return "", err
	}
	if err := req.Validate(); err != nil {
		return "", err
	}
	digest, err := argsDigest(args)
	if err != nil {
		return "", err
	}
	plain, err := json.Marshal(sealedState{Tool: []byte(tool), Args: digest, Request: req})
	if err != nil {
		return "", errorf(ErrInvalidRequest, "request %s: %v", quote(req.ID), err)
	}
	size := len(statePrefix) + base64.RawURLEncoding.EncodedLen(stateOverhead+len(plain))
	if size > maxStateLen {
		return "", errorf(ErrInvalidRequest, "request %s would make a state of %d bytes, over the limit of %d", quote(req.ID), size, maxStateLen)
	}
	sealed := make([]byte, aead.NonceSize(), stateOverhead+len(plain))
	if _, err := io.ReadFull(rand.Reader, sealed); err != nil {
		return "", fmt.Errorf("toolnexus: cannot seal request state: %w", err)
	}
	sealed = aead.Seal(sealed, sealed, plain, []byte(statePrefix))
	return statePrefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// OpenRequestState returns the Request that state, made by
// [SealRequestState] with the same key, holds, once it has checked that
// state is intact and that it was sealed for this call: the same tool and
// arguments with the same canonical form. It reports [ErrShortKey] for a
// short key; [ErrInvalidState] for a state that is longer than
// 64 KiB, was sealed with another key, or was altered in any way;
// [ErrStateMismatch] for a state sealed for another tool or other arguments
// ([ErrInvalidJSON] when args is not JSON); and [ErrExpired] when the
// request's ExpiresAt is not after now.
func OpenRequestState(key []byte, state, tool string, args json.RawMessage, now time.Time) (Request, error) {
	aead, err := stateCipher(key)
	if err != nil {
		return Request{}, err
	}
	if len(state) > maxStateLen {
		return Request{}, errorf(ErrInvalidState, "longer than %d bytes", maxStateLen)
	}
	body, ok := strings.CutPrefix(state, statePrefix)
	// The decoder skips line breaks, which would let one state have many
	// spellings; the strict encoding refuses non-zero trailing bits.
	if !ok || strings.ContainsAny(body, "\r\n") {
		return Request{}, errInvalidState
	}
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil || len(sealed) < stateOverhead {
		return Request{}, errInvalidState
	}
	nonce, ciphertext := sealed[:aead.NonceSize()], sealed[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, ciphertext, []byte(statePrefix))
	if err != nil {
		return Request{}, errInvalidState
	}
	var s sealedState
	if err := json.Unmarshal(plain, &s); err != nil {
		return Request{}, errInvalidState
	}
	if string(s.Tool) != tool {
		return Request{}, errorf(ErrStateMismatch, "it was sealed for another tool, not %s", quote(tool))
	}
	digest, err := argsDigest(args)
	if err != nil {
		return Request{}, err
	}
	if !bytes.Equal(s.Args, digest) {
		return Request{}, errorf(ErrStateMismatch, "it was sealed for other arguments to %s", quote(tool))
	}
	expiry, err := s.Request.Expiry()
	if err != nil {
		return Request{}, err
	}
	if !expiry.IsZero() && !now.Before(expiry) {
		return Request{}, errorf(ErrExpired, "request %s expired at %s", quote(s.Request.ID), s.Request.ExpiresAt)
	}
	return s.Request, nil
}

// errInvalidState is the one error of a state that fails to open: it does
// not say which check failed.
var errInvalidState = errorf(ErrInvalidState, "not sealed with this key, or altered")

// stateCipher returns the AES-256-GCM cipher of the request states sealed
// with key.
func stateCipher(key []byte) (cipher.AEAD, error) {
	if len(key) < MinStateKeyLen {
		return nil, errorf(ErrShortKey, "%d bytes, want at least %d", len(key), MinStateKeyLen)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(stateKeyLabel))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, err // unreachable: the key is 32 bytes
	}
	return cipher.NewGCM(block)
}

// argsDigest returns the SHA-256 of the canonical form of args: decoded and
// encoded again by encoding/json, numbers kept as written, with empty input
// and null read as {}.
func argsDigest(args json.RawMessage) ([]byte, error) {
	var v any = map[string]any{}
	if len(bytes.Trim(args, " \t\r\n")) > 0 {
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		var decoded any
		if err := d.Decode(&decoded); err != nil {
			return nil, errorf(ErrInvalidJSON, "arguments: %v", err)
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, errorf(ErrInvalidJSON, "arguments: not one JSON value")
		}
		if decoded != nil {
			v = decoded
		}
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		return nil, errorf(ErrInvalidJSON, "arguments: %v", err)
	}
	sum := sha256.Sum256(canonical)
	return sum[:], nil
}
