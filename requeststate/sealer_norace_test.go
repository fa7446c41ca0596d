//go:build !race

package requeststate_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// TestSealerAllocations guards what a state costs the collector, which
// does not grow with the state: Seal allocates its buffer and the state's
// text, and Open the state's bytes and a copy of its ID and rounds, for a
// prompt of 8 KiB as for a short one; reading the requests and answers of
// an Opened allocates their slices, and their Data maps and boxed values.
// Not parallel: it counts the process's allocations. It is built without
// the race detector only, which allocates on its own: .ci/run runs it
// without.
func TestSealerAllocations(t *testing.T) {
	s := newSealer(t, requeststate.Options{Audience: "https://mcp.example.com"})
	large := requeststate.State{Requests: []toolnexus.Request{{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: strings.Repeat("Deploy? ", 1<<10)}}}
	tests := []struct {
		name  string
		st    requeststate.State
		reads float64
	}{
		// One slice of requests, one of answers, the answer's map (its
		// header and its group) and its string boxed in an any.
		{"benchState", benchState, 5},
		{"a large prompt, no answer", large, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := seal(t, s, benchCall, tt.st, stateNow)
			opened, err := s.Open(state, benchCall, stateNow)
			require.NoError(t, err)
			seals := testing.AllocsPerRun(100, func() {
				if _, err := s.Seal(benchCall, tt.st, stateNow); err != nil {
					panic(err)
				}
			})
			opens := testing.AllocsPerRun(100, func() {
				if _, err := s.Open(state, benchCall, stateNow); err != nil {
					panic(err)
				}
			})
			reads := testing.AllocsPerRun(100, func() {
				opened.Requests()
				opened.Answers()
			})
			assert.Equal(t, 2.0, seals, "Seal")
			assert.Equal(t, 2.0, opens, "Open")
			assert.Equal(t, tt.reads, reads, "Requests and Answers")
		})
	}
}
