package b64_test

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// benchText is the size of a typical state's text.
var benchText = base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte("toolnexus state "), 18))

// BenchmarkDecodeURL and BenchmarkStdDecodeURL compare the URL-safe
// decoder to the stdlib's strict one, each into a buffer of its own. (The
// standard encoder and the check are measured beside the stdlib with the
// jobs of the root package: BENCH='Encode|CheckBase64' .ci/bench.)
func BenchmarkDecodeURL(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		dst := make([]byte, base64.RawURLEncoding.DecodedLen(len(benchText)))
		if _, ok := b64.DecodeURL(dst, benchText); !ok {
			b.Fatal("refused")
		}
	}
}

func BenchmarkStdDecodeURL(b *testing.B) {
	strict := base64.RawURLEncoding.Strict()
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := strict.DecodeString(benchText); err != nil {
			b.Fatal(err)
		}
	}
}
