package b64_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// benchSizes are the payload sizes the standard alphabet's kernels are
// measured at, as the root package's part benchmarks are.
var benchSizes = []struct {
	name string
	n    int
}{
	{"size=1KiB", 1 << 10},
	{"size=64KiB", 64 << 10},
	{"size=1MiB", 1 << 20},
	{"size=16MiB", 16 << 20},
}

// payload returns n pseudo-random bytes, the same for every run.
func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(b)
	return b
}

// intSink keeps results alive so that the compiler cannot drop the work.
var intSink int64

// sideBySide runs a kernel of this package and the stdlib's way of doing
// the same as the sub-benchmarks impl=toolnexus/name and impl=baseline/name,
// so that benchstat -col /impl prints their ratio. Each function does the
// job b.N times; n is the bytes of input per job.
func sideBySide(b *testing.B, name string, n int64, ours, baseline func(b *testing.B)) {
	for _, impl := range []struct {
		name string
		run  func(*testing.B)
	}{{"toolnexus", ours}, {"baseline", baseline}} {
		b.Run("impl="+impl.name+"/"+name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			impl.run(b)
		})
	}
}

// BenchmarkEncode is the package's base64 encoder next to the stdlib's,
// each into a buffer allocated once: the speed of the encoding alone.
func BenchmarkEncode(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		dst := make([]byte, base64.StdEncoding.EncodedLen(s.n))
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				intSink = int64(b64.Encode(dst, data))
			}
		}, func(b *testing.B) {
			for range b.N {
				base64.StdEncoding.Encode(dst, data)
			}
		})
	}
}

// BenchmarkEncodeTo encodes into a string of the exact size, as a part
// made from bytes is, next to base64.StdEncoding.EncodeToString.
func BenchmarkEncodeTo(b *testing.B) {
	for _, s := range benchSizes {
		data := payload(s.n)
		sideBySide(b, s.name, int64(s.n), func(b *testing.B) {
			for range b.N {
				var sb strings.Builder
				sb.Grow(base64.StdEncoding.EncodedLen(len(data)))
				b64.EncodeTo(&sb, data)
				intSink = int64(sb.Len())
			}
		}, func(b *testing.B) {
			for range b.N {
				intSink = int64(len(base64.StdEncoding.EncodeToString(data)))
			}
		})
	}
}

// BenchmarkCheck is the check every converter makes of a part's base64,
// next to the stdlib's way of checking it: decoding it into a buffer
// allocated once. The bytes per second are of base64 read.
func BenchmarkCheck(b *testing.B) {
	for _, s := range benchSizes {
		text := base64.StdEncoding.EncodeToString(payload(s.n))
		src := []byte(text)
		dst := make([]byte, s.n)
		sideBySide(b, s.name, int64(len(text)), func(b *testing.B) {
			for range b.N {
				if err := b64.Check(text); err != nil {
					b.Fatal(err)
				}
			}
		}, func(b *testing.B) {
			for range b.N {
				n, err := base64.StdEncoding.Decode(dst, src)
				if err != nil {
					b.Fatal(err)
				}
				intSink = int64(n)
			}
		})
	}
}

// benchText is the size of a typical state's text.
var benchText = base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte("toolnexus state "), 18))

// BenchmarkDecodeURL and BenchmarkStdDecodeURL compare the URL-safe
// decoder to the stdlib's strict one, each into a buffer of its own.
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
