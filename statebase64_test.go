package toolnexus_test

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolnexus-go/toolnexus"
)

// TestStateBase64 checks the state's text codec against every length up to
// a few turns of its 8-character loop, and the inputs it must refuse.
func TestStateBase64(t *testing.T) {
	t.Parallel()
	t.Run("every length", func(t *testing.T) {
		t.Parallel()
		src := make([]byte, 64)
		for i := range src {
			src[i] = byte(i*37 + 250)
		}
		for n := range len(src) + 1 {
			want := base64.RawURLEncoding.EncodeToString(src[:n])
			require.Equal(t, want, toolnexus.EncodeURL(src[:n]), "length %d", n)
			got, ok := toolnexus.DecodeURL(want)
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
			_, ok := toolnexus.DecodeURL(tt.text)
			assert.False(t, ok)
		})
	}
}

// FuzzStateBase64 holds the state's text codec to the stdlib's strict
// URL-safe encoding without padding, which it refuses line breaks beyond.
func FuzzStateBase64(f *testing.F) {
	for _, s := range []string{"", "QQ", "QUI", "QUJD", "QUJDREVGR0g", "AAAAAB", "AAAA\nAAAA", "-_-_"} {
		f.Add([]byte(s))
	}
	strict := base64.RawURLEncoding.Strict()
	f.Fuzz(func(t *testing.T, data []byte) {
		require.Equal(t, base64.RawURLEncoding.EncodeToString(data), toolnexus.EncodeURL(data))
		want, err := strict.DecodeString(string(data))
		got, ok := toolnexus.DecodeURL(string(data))
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

// benchText is the size of a typical state's text.
var benchText = base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte("toolnexus state "), 18))

// BenchmarkStateBase64Decode and BenchmarkStdBase64Decode compare the state
// codec's decoder to the stdlib's strict one, each into a buffer of its own.
func BenchmarkStateBase64Decode(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := toolnexus.DecodeURL(benchText); !ok {
			b.Fatal("refused")
		}
	}
}

func BenchmarkStdBase64Decode(b *testing.B) {
	strict := base64.RawURLEncoding.Strict()
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := strict.DecodeString(benchText); err != nil {
			b.Fatal(err)
		}
	}
}
