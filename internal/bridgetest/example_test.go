package bridgetest_test

import (
	"fmt"

	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
)

func ExampleQuestion() {
	for _, sc := range bridgetest.Scenarios[:2] {
		fmt.Printf("%s: asked %q, then %q\n", sc.Name(), sc.Asked, sc.Text)
	}
	// Output:
	// deploy accept: asked "form: Deploy to prod?", then "deployed to prod"
	// deploy decline: asked "form: Deploy to staging?", then "deploy to staging declined"
}
