package b64_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// fixturePNG is the base64 of the module's fixture, testdata/fixture.png.
const fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="

// TestCheck covers the only base64 a part holds: canonical standard
// base64, padded, without whitespace or line breaks. Go's decoder skips \r
// and \n, so a lenient check would let two parts with the same bytes differ
// on the wire. Each refusal names the offending byte and where it is.
func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		wantMsg string // "" for valid
	}{
		{"no padding", "AAAA", ""},
		{"one pad", "AAA=", ""},
		{"two pads", "AA==", ""},
		{"plus and slash", "+/+/", ""},
		{"a PNG", fixturePNG, ""},

		{"missing padding", "AAA", `length 3 of "AAA" is not a multiple of 4 (missing padding?)`},
		{"missing both pads", "AAAAAA", `length 6 of "AAAAAA" is not a multiple of 4 (missing padding?)`},
		{"single character", "A", `length 1 of "A" is not a multiple of 4 (missing padding?)`},
		{"line feed, which the stdlib skips", "AAAA\nAAA", `byte '\n' at offset 4 of "AAAA\nAAA"`},
		{"CRLF, which the stdlib skips", "AAAA\r\nAA", `byte '\r' at offset 4 of "AAAA\r\nAA"`},
		{"leading line feeds", "\n\n\n\nAAAA", `byte '\n' at offset 0 of "\n\n\n\nAAAA"`},
		{"space", "AAAA AAA", `byte ' ' at offset 4 of "AAAA AAA"`},
		{"tab", "AA\tA", `byte '\t' at offset 2 of "AA\tA"`},
		{"URL-safe alphabet", "AA-_", `byte '-' at offset 2 of "AA-_"`},
		{"invalid character", "AA*A", `byte '*' at offset 2 of "AA*A"`},
		{"NUL byte", "AA\x00A", `byte '\x00' at offset 2 of "AA\x00A"`},
		{"non-ASCII", "AAA\xff", `byte '\xff' at offset 3 of "AAA\xff"`},
		{"padding inside", "AA==AAAA", `padding at offset 2 of "AA==AAAA" is not at the end`},
		{"three pads", "A===", `padding at offset 1 of "A===" is not at the end`},
		{"only padding", "====", `padding at offset 0 of "====" is not at the end`},
		{"too much padding", "AAAA====", `padding at offset 4 of "AAAA====" is not at the end`},
		{"non-zero padding bits, one pad", "AAB=", `"AAB=" has non-zero padding bits`},
		{"non-zero padding bits, two pads", "AB==", `"AB==" has non-zero padding bits`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := b64.Check(tt.data)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, b64.ErrInvalid)
			assert.EqualError(t, err, "toolnexus: invalid base64: "+tt.wantMsg)
		})
	}
}

// TestEncodeMatchesStdlib checks the standard encoder against
// encoding/base64 at every length up to 4 KiB and around the chunk
// boundaries of the encoder (1536 bytes) and of the reads (48 KiB).
func TestEncodeMatchesStdlib(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 200_001)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	lengths := []int{1535, 1536, 1537, 1538, 3072, 3073, 49151, 49152, 49153, 200_001}
	for n := 1; n <= 4096; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		want := base64.StdEncoding.EncodeToString(src[:n])
		dst := make([]byte, len(want))
		if !assert.Equal(t, len(want), b64.Encode(dst, src[:n]), "length %d", n) ||
			!assert.Equal(t, want, string(dst), "Encode, length %d", n) {
			return
		}
	}
}

// TestKernelsEncode checks every base64 encoder of this build on this
// CPU, scalar and vector, against encoding/base64: every length from 0 to
// 300 at every alignment from 0 to 63, and every value of every byte
// position of a 96-byte input.
func TestKernelsEncode(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 1<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, k := range b64.Kernels() {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			check := func(src []byte, dst []byte, what string, args ...any) bool {
				want := base64.StdEncoding.EncodeToString(src)
				dst = dst[:len(want)]
				msg := fmt.Sprintf(what, args...)
				return assert.Equal(t, len(want), k.Encode(dst, src), msg) &&
					assert.Equal(t, want, string(dst), msg)
			}
			out := make([]byte, 2<<10)
			for align := range 64 {
				for n := 0; n <= 300; n++ {
					if !check(random[align:align+n], out[align:], "length %d at alignment %d", n, align) {
						return
					}
				}
			}
			src := make([]byte, 96)
			for pos := range src {
				for v := range 256 {
					copy(src, random)
					src[pos] = byte(v)
					if !check(src, out, "byte %#x at %d", v, pos) {
						return
					}
				}
			}
		})
	}
}

// TestKernelsEveryGroup encodes every value of a group of three bytes
// with every base64 encoder of this build on this CPU, 1<<16 groups at a
// time: the first byte fixed, the others counting.
func TestKernelsEveryGroup(t *testing.T) {
	t.Parallel()
	kernels := b64.Kernels()
	groups := make([]byte, 3<<16)
	want := make([]byte, 4<<16)
	got := make([]byte, 4<<16)
	for i := range 1 << 16 {
		groups[3*i+1], groups[3*i+2] = byte(i>>8), byte(i)
	}
	for first := range 256 {
		for i := 0; i < len(groups); i += 3 {
			groups[i] = byte(first)
		}
		base64.StdEncoding.Encode(want, groups)
		for _, k := range kernels {
			require.Equal(t, len(want), k.Encode(got, groups))
			if !bytes.Equal(want, got) {
				for i := 0; i < len(want); i += 4 {
					require.Equal(t, string(want[i:i+4]), string(got[i:i+4]), "%s, group %x", k.Name, groups[i/4*3:i/4*3+3])
				}
			}
		}
	}
}

// TestKernelsCheck checks every base64 check of this build on this
// CPU, scalar and vector: canonical base64 of every length from 0 to 300 at
// every alignment from 0 to 63 passes, and every byte value at every
// position of a 128-byte string is refused exactly when it is outside the
// alphabet, by the kernel alone and by the whole check, which names it.
func TestKernelsCheck(t *testing.T) {
	t.Parallel()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	rng := rand.New(rand.NewPCG(5, 6))
	raw := make([]byte, 300)
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	text := make([]byte, 128)
	for i := range text {
		text[i] = alphabet[rng.IntN(64)]
	}
	for _, k := range b64.Kernels() {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			buf := make([]byte, 64+400)
			for align := range 64 {
				for n := 0; n <= 300; n++ {
					enc := buf[align : align+base64.StdEncoding.EncodedLen(n)]
					base64.StdEncoding.Encode(enc, raw[:n])
					if !assert.NoError(t, k.Check(string(enc)), "length %d at alignment %d", n, align) {
						return
					}
				}
			}
			s := make([]byte, len(text))
			for pos := range s {
				for v := range 256 {
					copy(s, text)
					s[pos] = byte(v)
					valid := strings.IndexByte(alphabet, byte(v)) >= 0
					checked, ok := k.Block(string(s))
					require.LessOrEqual(t, checked, len(s))
					require.Equal(t, valid || pos >= checked, ok, "kernel, byte %#x at %d", v, pos)
					err := k.Check(string(s))
					switch {
					case valid:
						require.NoError(t, err, "byte %#x at %d", v, pos)
					case v == '=' && pos >= len(s)-2:
						// Padding, which may be valid: FuzzCheckBase64.
					case v == '=':
						require.ErrorIs(t, err, b64.ErrInvalid)
						require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("toolnexus: invalid base64: padding at offset %d of ", pos)), "%v", err)
					default:
						quoted := strconv.QuoteRune(rune(v))
						if v >= utf8.RuneSelf {
							quoted = fmt.Sprintf(`'\x%02x'`, v)
						}
						require.ErrorIs(t, err, b64.ErrInvalid)
						require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("toolnexus: invalid base64: byte %s at offset %d of ", quoted, pos)), "%v", err)
					}
				}
			}
		})
	}
}

// isBase64 is what Run stops at: a byte of the standard alphabet.
func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// TestKernelsRun checks the runs that the vector kernels read 32 or 64
// bytes at a time, and the scalar code eight, for every byte at every
// place of a block: each stops at the first byte outside the alphabet,
// and CopyRun copies what Run finds.
func TestKernelsRun(t *testing.T) {
	t.Parallel()
	for n := 0; n < 140; n++ {
		for c := 0; c < 256; c++ {
			b := []byte(strings.Repeat("Q", n) + string([]byte{byte(c)}) + strings.Repeat("a", 70))
			want := 0
			for want < len(b) && isBase64(b[want]) {
				want++
			}
			for _, k := range b64.Kernels() {
				require.Equal(t, want, k.Run(b), "%s: byte %#x after %d", k.Name, c, n)
			}
			require.Equal(t, want, b64.Run(b))
			dst := make([]byte, len(b))
			require.Equal(t, want, b64.CopyRun(dst, b))
			require.Equal(t, b[:want], dst[:want])
		}
	}
}
