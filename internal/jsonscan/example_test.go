package jsonscan_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

func ExampleSameArguments() {
	same, err := jsonscan.SameArguments(json.RawMessage(`{"env":"prod","n":1}`), json.RawMessage(` { "n" : 1, "\u0065nv" : "prod" } `))
	fmt.Println(same, err)
	same, err = jsonscan.SameArguments(json.RawMessage(`{"n":1}`), json.RawMessage(`{"n":1.0}`))
	fmt.Println(same, err)
	// Output:
	// true <nil>
	// false <nil>
}

func ExampleCheckNames() {
	fmt.Println(jsonscan.CheckNames([]byte(`{"env":"prod","deploy":{"Env":"staging","env":"prod"}}`)))
	// Output:
	// toolnexus: duplicate JSON key: keys "Env" and "env" in the object at deploy are one key when case is folded, as encoding/json folds it
}

func ExampleNotJSON() {
	fmt.Println(jsonscan.NotJSON([]byte(`{"env":"prod",}`)))
	// Output:
	// the input is not JSON: byte 15 of 15, "}", cannot be there
}
