package rfc3339_test

import (
	"testing"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/benchpair"
	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
)

// BenchmarkParse reads the times a state or a task holds, next to
// time.Parse with time.RFC3339: the form time.Time.Format writes in UTC,
// which has a path of its own, and one with an offset.
func BenchmarkParse(b *testing.B) {
	for _, s := range []struct{ name, text string }{
		{"form=utc-nano", "2026-12-03T18:35:07.123456789Z"},
		{"form=offset", "2026-12-03T19:35:07+01:00"},
	} {
		b.Run(s.name, func(b *testing.B) {
			var got time.Time
			b.ReportAllocs()
			perOurs, perBase := benchpair.Alternate(b, 1024, func() {
				t, ok := rfc3339.Parse(s.text)
				if !ok {
					b.Fatal("refused")
				}
				got = t
			}, func() {
				t, err := time.Parse(time.RFC3339, s.text)
				if err != nil {
					b.Fatal(err)
				}
				got = t
			})
			b.ReportMetric(perOurs, "ns/toolnexus")
			b.ReportMetric(perBase, "ns/baseline")
			b.ReportMetric(perOurs/perBase, "toolnexus/baseline")
			_ = got
		})
	}
}
