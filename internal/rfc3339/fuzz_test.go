package rfc3339_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
)

// FuzzParseUTC checks the fast path of Parse: what it reads,
// time.Parse reads to the same time.
func FuzzParseUTC(f *testing.F) {
	for _, s := range []string{"2026-07-28T16:00:00Z", "2024-02-29T23:59:59.123456789Z", "0000-03-01T00:00:00.5Z", "2026-07-28T16:00:00+02:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := rfc3339.ParseUTC(s)
		if !ok {
			return
		}
		want, err := rfc3339.ParseStd(s)
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
	})
}
