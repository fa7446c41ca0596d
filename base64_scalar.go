//go:build !(goexperiment.simd && amd64)

package toolnexus

// vectorKernels is empty without GOEXPERIMENT=simd on amd64: base64 is
// encoded and checked by scalar code alone.
var vectorKernels []vectorKernel

// encodeVector encodes nothing: see encode.
func encodeVector(dst, src []byte) (read, written int) { return 0, 0 }

// checkVector checks nothing: see checkBase64.
func checkVector(s string) (checked int, ok bool) { return 0, true }

// runVector finds no run: see base64Run.
func runVector(b []byte) int { return 0 }

// vectorRuns says that runVector finds runs: it finds none.
const vectorRuns = false
