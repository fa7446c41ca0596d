package b64_test

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// encodeURL returns the URL-safe base64 of src, without padding, as a
// state's text is written.
func encodeURL(src []byte) string {
	dst := make([]byte, base64.RawURLEncoding.EncodedLen(len(src)))
	b64.EncodeURL(dst, src)
	return string(dst)
}

// decodeURL returns the bytes that s encodes, as a state's text is read,
// and whether s is strictly URL-safe base64 without padding.
func decodeURL(s string) ([]byte, bool) {
	dst := make([]byte, base64.RawURLEncoding.DecodedLen(len(s)))
	n, ok := b64.DecodeURL(dst, s)
	return dst[:n], ok
}

// TestURL checks the URL-safe codec against every length up to a few
// turns of its loops, and the inputs it must refuse.
func TestURL(t *testing.T) {
	t.Parallel()
	t.Run("every length", func(t *testing.T) {
		t.Parallel()
		src := make([]byte, 64)
		for i := range src {
			src[i] = byte(i*37 + 250)
		}
		for n := range len(src) + 1 {
			want := base64.RawURLEncoding.EncodeToString(src[:n])
			require.Equal(t, want, encodeURL(src[:n]), "length %d", n)
			got, ok := decodeURL(want)
			require.True(t, ok, "length %d", n)
			require.Equal(t, src[:n], got, "length %d", n)
		}
	})
	tests := []struct {
		name, text string
	}{
		{"a standard character", "AAAA+AAA"},
		{"a slash late", "AAAAAAAAAAAA/A"},
		{"padding", "AAA="},
		{"a line break", "AAAA\nAAAA"},
		{"a carriage return", "AAAAAAAA\r"},
		{"a length no input has", "AAAAA"},
		{"unused bits of a 2-character tail", "AAAAAB"},
		{"unused bits of a 3-character tail", "AAAAAAB"},
		{"a byte outside ASCII", "AAAA\xffAAA"},
		{"a NUL", "AA\x00A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ok := decodeURL(tt.text)
			assert.False(t, ok)
		})
	}
}

// FuzzURL holds the URL-safe codec to the stdlib's strict URL-safe
// encoding without padding, which it refuses line breaks beyond.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"", "QQ", "QUI", "QUJD", "QUJDREVGR0g", "AAAAAB", "AAAA\nAAAA", "-_-_"} {
		f.Add([]byte(s))
	}
	strict := base64.RawURLEncoding.Strict()
	f.Fuzz(func(t *testing.T, data []byte) {
		require.Equal(t, base64.RawURLEncoding.EncodeToString(data), encodeURL(data))
		want, err := strict.DecodeString(string(data))
		got, ok := decodeURL(string(data))
		if bytes.ContainsAny(data, "\r\n") {
			require.False(t, ok, "a line break")
			return
		}
		require.Equal(t, err == nil, ok, "%v", err)
		if ok {
			require.Equal(t, want, got)
		}
	})
}
