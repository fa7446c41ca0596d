package requeststate_test

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/benchpair"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// benchCall and benchState are a typical round: one approval asked, one
// answer given before, a principal and an audience.
var (
	benchCall  = requeststate.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"staging","replicas":3}`), Principal: "https://issuer.example|user-42"}
	benchState = requeststate.State{
		Requests: []toolnexus.Request{stateReq},
		Answers:  toolnexus.Answers{{ID: "pnd-0", OK: true, Data: map[string]any{"region": "eu-west-1"}}},
	}
)

// The benchmarks of the Sealer and their baseline, to run in one go:
//
//	go test -run '^$' -bench 'Sealer|BareGCM' -benchmem -count 8
//
// BenchmarkSealerSeal seals benchState for benchCall: it validates the
// requests, binds the arguments, writes the claims, seals them under a
// nonce the AEAD draws (the state's ID) and writes the text. BenchmarkSealerOpen opens
// that state: it decodes the text, opens the AEAD, digests the arguments
// and checks every claim; it builds no request or answer.
// BenchmarkSealerOpenRead also builds them, as a server resuming the call
// does, with Opened.Requests and Opened.Answers.
//
// BenchmarkBareGCMSeal and BenchmarkBareGCMOpen seal and open the very
// bytes the Sealer does (the claims of benchState as plaintext, its prefix
// and header as associated data) with an AES-256-GCM cipher built once,
// random nonce included, and nothing else. BenchmarkBareGCMSealText and
// BenchmarkBareGCMOpenText add what any text token needs, the stdlib's
// URL-safe base64 of the sealed bytes.
func BenchmarkSealerSeal(b *testing.B) {
	s := newSealer(b, requeststate.Options{Audience: "https://mcp.example.com"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Seal(benchCall, benchState, stateNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealerOpen(b *testing.B) {
	s := newSealer(b, requeststate.Options{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(state, benchCall, stateNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealerOpenRead(b *testing.B) {
	s := newSealer(b, requeststate.Options{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	b.ReportAllocs()
	for b.Loop() {
		st, err := s.Open(state, benchCall, stateNow)
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Requests()) != 1 || len(st.Answers()) != 1 {
			b.Fatal("the state lost its requests or answers")
		}
	}
}

// bareGCM returns an AES-256-GCM cipher built once, and the plaintext and
// associated data the Sealer seals for the benchmark's call.
func bareGCM(b *testing.B) (aead cipher.AEAD, plain, aad []byte) {
	s := newSealer(b, requeststate.Options{Audience: "https://mcp.example.com"})
	plain, aad, err := requeststate.StatePlaintext(s, benchCall, benchState, stateNow)
	require.NoError(b, err)
	block, err := aes.NewCipher(stateKey)
	require.NoError(b, err)
	aead, err = cipher.NewGCMWithRandomNonce(block)
	require.NoError(b, err)
	return aead, plain, aad
}

func BenchmarkBareGCMSeal(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	b.ReportAllocs()
	for b.Loop() {
		aead.Seal(nil, nil, plain, aad)
	}
}

func BenchmarkBareGCMSealText(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	}
}

func BenchmarkBareGCMOpen(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	sealed := aead.Seal(nil, nil, plain, aad)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aead.Open(nil, nil, sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBareGCMOpenText(b *testing.B) {
	aead, plain, aad := bareGCM(b)
	text := base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	b.ReportAllocs()
	for b.Loop() {
		sealed, err := base64.RawURLEncoding.DecodeString(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := aead.Open(sealed[:0], nil, sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealerVsBareGCM runs Seal and Open beside their baselines with
// text, BenchmarkBareGCMSealText's and BenchmarkBareGCMOpenText's work, in
// alternating blocks of 64 calls, so that a machine that drifts slows both
// sides alike. It reports each side's time per call and the ratio.
func BenchmarkSealerVsBareGCM(b *testing.B) {
	s := newSealer(b, requeststate.Options{Audience: "https://mcp.example.com"})
	state := seal(b, s, benchCall, benchState, stateNow)
	aead, plain, aad := bareGCM(b)
	text := base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
	b.Run("Seal", func(b *testing.B) {
		benchPaired(b, func() {
			if _, err := s.Seal(benchCall, benchState, stateNow); err != nil {
				b.Fatal(err)
			}
		}, func() {
			_ = base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, plain, aad))
		})
	})
	b.Run("Open", func(b *testing.B) {
		benchPaired(b, func() {
			if _, err := s.Open(state, benchCall, stateNow); err != nil {
				b.Fatal(err)
			}
		}, func() {
			sealed, err := base64.RawURLEncoding.DecodeString(text)
			if err == nil {
				_, err = aead.Open(sealed[:0], nil, sealed, aad)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
}

// benchPaired times ours and bare in alternating blocks of 64 calls and
// reports the time per call of each, and ours over bare.
func benchPaired(b *testing.B, ours, bare func()) {
	perOurs, perBare := benchpair.Alternate(b, 64, ours, bare)
	b.ReportMetric(perOurs, "ns/sealer")
	b.ReportMetric(perBare, "ns/bare")
	b.ReportMetric(perOurs/perBare, "sealer/bare")
}
