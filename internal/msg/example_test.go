package msg_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

func ExampleErrorf() {
	errBad := errors.New("toolnexus: invalid thing")
	err := msg.Errorf(errBad, "name %s is taken", msg.Quote("deploy"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, errBad))
	// Output:
	// toolnexus: invalid thing: name "deploy" is taken
	// true
}

func ExampleQuote() {
	fmt.Println(msg.Quote(strings.Repeat("QUJD", 20)))
	// Output:
	// "QUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJD"… (80 bytes)
}
