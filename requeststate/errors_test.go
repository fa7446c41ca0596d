package requeststate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// TestSentinels pins the message of each sentinel of the package, and that
// none matches another.
func TestSentinels(t *testing.T) {
	t.Parallel()
	sentinels := map[error]string{
		requeststate.ErrInvalidState:   "toolnexus: invalid request state",
		requeststate.ErrMismatch:       "toolnexus: request state does not match the call",
		requeststate.ErrShortKey:       "toolnexus: request state key too short",
		requeststate.ErrInvalidKey:     "toolnexus: invalid request state key",
		requeststate.ErrInvalidOptions: "toolnexus: invalid sealer options",
	}
	for err, msg := range sentinels {
		assert.EqualError(t, err, msg)
		for other := range sentinels {
			if other != err {
				assert.NotErrorIs(t, err, other)
			}
		}
	}
}
