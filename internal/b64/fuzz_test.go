package b64_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// FuzzCheck holds Check to the reference of a part's base64: Go's strict
// decoder, which also skips \r and \n. What it takes is canonical.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"", "AAAA", "AA==", "AAA=", "AB==", "AAB=", "A===", "====", "=", "AA==AAAA",
		"AAAA\r\nAAAA", "AAAA\nAAA", "AA AA==", "AA-_", "AA*A", "AA\x00A", "AAA\xff",
		"JVBERi0xLjQgdGlueQ==", "UklGRgAAAABXQVZF", "AAAAAA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := b64.Check(s)
		decoded, refErr := base64.StdEncoding.Strict().DecodeString(s)
		want := refErr == nil && !strings.ContainsAny(s, "\r\n")
		require.Equal(t, want, err == nil, "Check(%q) = %v, strict decoder: %v", s, err, refErr)
		if err != nil {
			require.ErrorIs(t, err, b64.ErrInvalid)
			require.True(t, strings.HasPrefix(err.Error(), "toolnexus: invalid base64: "), "%v", err)
			return
		}
		require.Equal(t, s, base64.StdEncoding.EncodeToString(decoded), "accepted base64 is canonical")
	})
}

// FuzzKernels checks every base64 kernel of this build on this CPU, scalar
// and vector, against Check's answer and encoding/base64's encoding: s as
// it is, and s after a valid prefix long enough that every kernel checks
// part of it.
func FuzzKernels(f *testing.F) {
	for _, s := range []string{"", "AAAA", "AA==", "AAB=", "AAAA\nAAA", "AA-_", "AAA\xff", "AA==AAAA"} {
		f.Add(s)
	}
	prefix := strings.Repeat("QUJD", 40)
	f.Fuzz(func(t *testing.T, s string) {
		for _, in := range []string{s, prefix + s} {
			want := b64.Check(in)
			enc := base64.StdEncoding.EncodeToString([]byte(in))
			for _, k := range b64.Kernels() {
				require.Equal(t, want, k.Check(in), "%s: check of %q", k.Name, in)
				dst := make([]byte, len(enc))
				require.Equal(t, len(enc), k.Encode(dst, []byte(in)), k.Name)
				require.Equal(t, enc, string(dst), "%s: encoding of %q", k.Name, in)
			}
		}
	})
}

// FuzzEncode holds Encode, every kernel and EncodeTo to encoding/base64.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "a", "ab", "abc", "abcdefg", "\xff\xfe\xfd\x00\x01\x02\x03\x04\x05"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dst := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
		require.Equal(t, len(dst), b64.Encode(dst, src))
		require.Equal(t, base64.StdEncoding.EncodeToString(src), string(dst))
		require.NoError(t, b64.Check(string(dst)), "Check refuses the encoding of %x", src)
		for _, k := range b64.Kernels() {
			buf := make([]byte, len(dst))
			k.Encode(buf, src)
			require.Equal(t, string(dst), string(buf), "%s", k.Name)
		}
		var sb strings.Builder
		b64.EncodeTo(&sb, src)
		require.Equal(t, string(dst), sb.String(), "EncodeTo")
	})
}
