package toolnexus

import (
	"encoding/base64"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// The internals that the external tests need, as net/netip's export_test.go
// has them: the parsers that fuzz_test.go checks against the standard
// library, and how an error quotes a value, for the messages that name a
// temporary path (TestErrorQuotesLongValues pins it).

var (
	ParseDataURL = parseDataURL
	CheckBase64  = checkBase64
	Encode       = encode
	Quote        = msg.Quote
	ValidFormat  = validFormat
	NotJSON      = notJSON
	ValidJSON    = validJSON
	StringRun    = stringRun
	Base64Run    = base64Run
)

// InPlaceMargin is how far the end of the input must be past the end of
// its encoding for Encode to read it from the same buffer.
const InPlaceMargin = inPlaceMargin

// Base64Kernel is one way of encoding and checking base64 in this build on
// this CPU: Encode is encode, and Check is checkBase64, with the kernel.
type Base64Kernel struct {
	Name   string
	Encode func(dst, src []byte) int
	Check  func(s string) error
	// Block is the kernel's check alone: how many bytes at the start of s
	// it checked, and whether they are all in the alphabet.
	Block func(s string) (int, bool)
	// Run is base64Run with the kernel: the length of the run of bytes of
	// the alphabet at the start of b.
	Run func(b []byte) int
}

// Base64Kernels returns the scalar kernel and every vector kernel this CPU
// can run.
func Base64Kernels() []Base64Kernel {
	scalar := vectorKernel{"scalar", encodeVector0, checkVector0, func([]byte) int { return 0 }}
	var ks []Base64Kernel
	for _, k := range append([]vectorKernel{scalar}, vectorKernels...) {
		ks = append(ks, Base64Kernel{
			Name: k.name,
			Encode: func(dst, src []byte) int {
				n := base64.StdEncoding.EncodedLen(len(src))
				_ = dst[:n]
				read, written := k.encode(dst, src)
				encodeScalar(dst[written:], src[read:])
				return n
			},
			Check: func(s string) error { return checkBase64With(s, k.check) },
			Block: k.check,
			Run:   func(b []byte) int { return base64RunFrom(b, k.run(b)) },
		})
	}
	return ks
}

func encodeVector0([]byte, []byte) (int, int) { return 0, 0 }
func checkVector0(string) (int, bool)         { return 0, true }

// JSONSkip moves the exact-key reader past the first JSON value of data and
// returns that value's bytes and the offset where reading stopped.
func JSONSkip(data []byte) ([]byte, int, error) {
	r := jsonReader{data: data}
	v, err := r.skip()
	return v, r.pos, err
}

// JSONString reads the first JSON value of data as the exact-key reader
// reads a string value.
func JSONString(data []byte) (string, error) {
	r := jsonReader{data: data}
	return r.str("s")
}

// JSONBase64 reads the first JSON value of data as the exact-key reader
// reads a part's data, and says whether it found it canonical base64.
func JSONBase64(data []byte) (string, bool, error) {
	r := jsonReader{data: data}
	return r.base64Str("data")
}

// DecodeExact reads data as ParseToolResult does, without its limit and
// without validating the result: the exact-key reader alone, as an
// UnmarshalJSON method would call it.
func DecodeExact(data []byte) (ToolResult, error) {
	var r ToolResult
	err := unmarshal(data, &r, (*jsonReader).toolResult)
	return r, err
}

// DecodeExactPart reads one part as DecodeExact reads the parts of a result.
func DecodeExactPart(data []byte) (ContentPart, error) {
	var p ContentPart
	err := unmarshal(data, &p, (*jsonReader).part)
	return p, err
}
