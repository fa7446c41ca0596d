//go:build goexperiment.jsonv2

package toolnexus_test

import (
	jsonv2 "encoding/json/v2"
	"testing"
)

// BenchmarkReadResultJSONv2 is BenchmarkReadResult against encoding/json/v2,
// which only a build with GOEXPERIMENT=jsonv2 has: the readers next to
// jsonv2.Unmarshal into the same plain structs, which by default matches
// keys exactly, refuses a key that repeats and checks UTF-8, as the readers
// do but for repeated keys, where the last one wins.
func BenchmarkReadResultJSONv2(b *testing.B) {
	benchReaders(b, func(data []byte, v any) error { return jsonv2.Unmarshal(data, v) })
}
