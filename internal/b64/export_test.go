package b64

import "encoding/base64"

// Kernel is one way of encoding and checking base64 in this build on this
// CPU: Encode is Encode, and Check is Check, with the kernel.
type Kernel struct {
	Name   string
	Encode func(dst, src []byte) int
	Check  func(s string) error
	// Block is the kernel's check alone: how many bytes at the start of s
	// it checked, and whether they are all in the alphabet.
	Block func(s string) (int, bool)
	// Run is Run with the kernel: the length of the run of bytes of the
	// alphabet at the start of b.
	Run func(b []byte) int
}

// Kernels returns the scalar kernel and every vector kernel this CPU can
// run.
func Kernels() []Kernel {
	scalar := vectorKernel{"scalar", func([]byte, []byte) (int, int) { return 0, 0 },
		func(string) (int, bool) { return 0, true }, func([]byte) int { return 0 }}
	var ks []Kernel
	for _, k := range append([]vectorKernel{scalar}, vectorKernels...) {
		ks = append(ks, Kernel{
			Name: k.name,
			Encode: func(dst, src []byte) int {
				n := base64.StdEncoding.EncodedLen(len(src))
				_ = dst[:n]
				read, written := k.encode(dst, src)
				encodeScalar(dst[written:], src[read:], stdPairs, base64.StdEncoding)
				return n
			},
			Check: func(s string) error { return checkWith(s, k.check) },
			Block: k.check,
			Run:   func(b []byte) int { return runFrom(b, k.run(b)) },
		})
	}
	return ks
}
