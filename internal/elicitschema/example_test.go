package elicitschema_test

import (
	"fmt"

	"github.com/toolnexus-go/toolnexus/internal/elicitschema"
)

func ExampleForm_Check() {
	f, err := elicitschema.Parse(map[string]any{"type": "object", "properties": map[string]any{
		"when": map[string]any{"type": "string", "format": "date"},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Check(map[string]any{"when": "2026-07-28"}))
	fmt.Println(f.Check(map[string]any{"when": "tomorrow"}))
	// Output:
	// map[when:2026-07-28] <nil>
	// map[] property "when" is not a valid date
}
