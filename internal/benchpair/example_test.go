package benchpair_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/toolnexus-go/toolnexus/internal/benchpair"
)

func ExampleAlternate() {
	res := testing.Benchmark(func(b *testing.B) {
		perOurs, perBase := benchpair.Alternate(b, 64, func() { _ = strconv.Itoa(42) }, func() { _ = fmt.Sprint(42) })
		b.ReportMetric(perOurs/perBase, "ours/baseline")
	})
	fmt.Println(res.Extra["ours/baseline"] > 0)
	// Output: true
}
