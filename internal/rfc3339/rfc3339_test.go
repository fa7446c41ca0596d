package rfc3339_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
)

// TestParseUTC checks the fast path of Parse against time.Parse: on every
// day of years with and without leap days, at the first and last second,
// with fractions of every length, and on the near misses it must leave to
// time.Parse.
func TestParseUTC(t *testing.T) {
	t.Parallel()
	var inputs []string
	for _, year := range []int{0, 1, 4, 100, 400, 1600, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 9999} {
		for d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
			day := d.Format("2006-01-02")
			inputs = append(inputs, day+"T00:00:00Z", day+"T23:59:59Z")
		}
		for _, md := range []string{"02-29", "02-30", "04-31", "06-31", "09-31", "11-31", "12-32", "13-01", "00-10", "01-00"} {
			inputs = append(inputs, fmt.Sprintf("%04d-%sT12:00:00Z", year, md))
		}
	}
	for n := 1; n <= 12; n++ {
		inputs = append(inputs, "2026-07-28T16:00:00."+"987654321987"[:n]+"Z")
	}
	inputs = append(inputs, "2026-07-28T24:00:00Z", "2026-07-28T23:60:00Z", "2026-07-28T23:59:60Z", "2026-07-28T16:00:00.Z",
		"2026-07-28T16:00:00,5Z", "2026-07-28t16:00:00Z", "2026-07-28T16:00:00z", "2026-07-28T16:00:00+02:00", "2026-07-28 16:00:00Z",
		"+026-07-28T16:00:00Z", "2026-7-28T16:00:00Z", "2026-07-28T16:00:0Z", "２026-07-28T16:00:00Z", "2026-07-28T16:00:00.1x5Z")
	for _, s := range inputs {
		want, wantErr := rfc3339.ParseStd(s)
		got, ok := rfc3339.ParseUTC(s)
		if ok {
			require.NoError(t, wantErr, "%s", s)
			require.Equal(t, want, got, "%s", s)
			require.Equal(t, time.UTC, got.Location(), "%s", s)
		}
		back, ok := rfc3339.Parse(s)
		if s == "2026-07-28T23:59:60Z" { // a leap second, which time.Parse refuses
			require.True(t, ok)
			require.Equal(t, time.Date(2026, 7, 29, 0, 0, 0, 0, time.UTC), back)
			continue
		}
		if s == "2026-07-28T16:00:00,5Z" { // time.Parse takes a comma, RFC 3339 only a dot
			require.False(t, ok)
			continue
		}
		require.Equal(t, wantErr == nil, ok, "%s", s)
		require.Equal(t, want, back, "%s", s)
	}
	_, ok := rfc3339.ParseUTC("2026-07-28T16:00:00.5Z")
	assert.True(t, ok, "the form WithExpiry writes takes the fast path")
}

// TestParse checks what Parse takes beyond time.Parse and what it refuses
// that time.Parse takes: RFC 3339's grammar and its rules.
func TestParse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Time{
		"2026-07-28T16:00:00Z":        time.Date(2026, 7, 28, 16, 0, 0, 0, time.UTC),
		"2026-07-28t16:00:00z":        time.Date(2026, 7, 28, 16, 0, 0, 0, time.UTC),
		"2026-07-28T18:00:00.5+02:00": time.Date(2026, 7, 28, 16, 0, 0, 5e8, time.UTC),
		"2016-12-31T23:59:60Z":        time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC),
		"2017-01-01T00:59:60+01:00":   time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-02-29T00:00:00Z":        {},
		"2026-07-28T16:00:00+24:00":   {},
		"2026-07-28T16:00:00+02:60":   {},
		"2026-07-28T12:59:60Z":        {},
		"2026-07-28T16:00:00,5Z":      {},
		"2026-07-28T16:00:00":         {},
		"2026-07-28 16:00:00Z":        {},
		"":                            {},
	} {
		got, ok := rfc3339.Parse(s)
		assert.Equal(t, !want.IsZero(), ok, "%q", s)
		assert.True(t, want.Equal(got), "%q: %v", s, got)
	}
}
