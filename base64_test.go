package toolnexus_test

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// TestCheckBase64 covers the only base64 a part holds: canonical standard
// base64, padded, without whitespace or line breaks. Go's decoder skips \r
// and \n, so a lenient check would let two parts with the same bytes differ
// on the wire. Each refusal names the offending byte and where it is.
func TestCheckBase64(t *testing.T) {
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
		{"fixture", fixturePNGBase64(t), ""},

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
			p, err := toolnexus.PartFromBase64(tt.data, "image/png")
			if tt.wantMsg == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.data, p.Data)
				return
			}
			assertErr(t, err, toolnexus.ErrInvalidBase64, "toolnexus: invalid base64: "+tt.wantMsg)
			assert.Zero(t, p)
			// Validate and SHA256 read data with the same check.
			bad := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: tt.data}
			assert.Equal(t, err, bad.Validate())
			_, shaErr := bad.SHA256()
			assert.Equal(t, err, shaErr)
		})
	}
}

// TestEncodeMatchesStdlib checks the package's base64 encoder against
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
		if !assert.Equal(t, len(want), toolnexus.Encode(dst, src[:n]), "length %d", n) ||
			!assert.Equal(t, want, string(dst), "Encode, length %d", n) {
			return
		}
		p, err := toolnexus.PartFromBytes(src[:n], "application/octet-stream")
		require.NoError(t, err)
		require.Equal(t, want, p.Data, "PartFromBytes, length %d", n)
		require.Equal(t, int64(n), p.Size(), fmt.Sprint("size of ", n))
	}
}
