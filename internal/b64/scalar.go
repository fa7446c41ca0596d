//go:build !(goexperiment.simd && amd64)

package b64

// vectorKernels is empty without GOEXPERIMENT=simd on amd64: base64 is
// encoded and checked by scalar code alone.
var vectorKernels []vectorKernel

// encodeVector encodes nothing: see [Encode].
func encodeVector(dst, src []byte) (read, written int) { return 0, 0 }

// checkVector checks nothing: see [Check].
func checkVector(s string) (checked int, ok bool) { return 0, true }

// runVector finds no run: see [Run].
func runVector(b []byte) int { return 0 }

// VectorRuns says whether [Run] reads with a vector kernel, many times
// faster than it copies: it does not in this build.
const VectorRuns = false
