package rfc3339_test

import (
	"fmt"

	"github.com/toolnexus-go/toolnexus/internal/rfc3339"
)

func ExampleParse() {
	t, ok := rfc3339.Parse("2016-12-31t23:59:60z") // a leap second, lower case
	fmt.Println(t, ok)
	_, ok = rfc3339.Parse("2026-07-28T16:00:00,5Z") // time.Parse takes the comma
	fmt.Println(ok)
	// Output:
	// 2017-01-01 00:00:00 +0000 UTC true
	// false
}
