package toolnexus

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEncodeMatchesStdlib(t *testing.T) {
	t.Parallel()
	src := payload(4096)
	for n := 0; n <= len(src); n += 1 + n/16 {
		dst := make([]byte, base64.StdEncoding.EncodedLen(n))
		assert.Equal(t, len(dst), encode(dst, src[:n]))
		assert.Equal(t, base64.StdEncoding.EncodeToString(src[:n]), string(dst), "length %d", n)

		var sb strings.Builder
		encodeTo(&sb, src[:n])
		assert.Equal(t, string(dst), sb.String(), "encodeTo, length %d", n)
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "a", "ab", "abc", "abcdefg", "\xff\xfe\xfd\x00\x01\x02\x03\x04\x05"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dst := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
		encode(dst, src)
		if want := base64.StdEncoding.EncodeToString(src); string(dst) != want {
			t.Fatalf("encode(%x) = %s, want %s", src, dst, want)
		}
		if err := checkBase64(string(dst)); err != nil {
			t.Fatalf("checkBase64 refuses its own encoding of %x: %v", src, err)
		}
	})
}
