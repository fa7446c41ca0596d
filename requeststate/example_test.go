package requeststate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// A Sealer seals the state of a suspended call for the principal that made
// it; the retry opens it, and another user's retry does not.
func ExampleSealer() {
	keys, err := requeststate.KeysFromHex(strings.Repeat("ab", 32)) // as TOOLNEXUS_STATE_KEYS holds them
	if err != nil {
		panic(err)
	}
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: "https://ops.example.com/mcp"})
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	call := requeststate.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Principal: "alice"}
	ask := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}.WithExpiry(now.Add(time.Hour))
	state, err := sealer.Seal(call, requeststate.State{Requests: []toolnexus.Request{ask}}, now)
	if err != nil {
		panic(err)
	}

	expiry, _ := requeststate.Expiry(state) // what a host can tell without the key
	fmt.Println("accepted until", expiry)

	st, err := sealer.Open(state, call, now.Add(time.Minute))
	fmt.Println(st.Requests()[0].Prompt, err)

	call.Principal = "mallory"
	_, err = sealer.Open(state, call, now.Add(time.Minute))
	fmt.Println(errors.Is(err, requeststate.ErrMismatch), err)
	// Output:
	// accepted until 2026-07-28 13:00:00 +0000 UTC
	// Deploy to prod? <nil>
	// true toolnexus: request state does not match the call: it was sealed for another principal
}

func ExampleKeysFromHex() {
	_, err := requeststate.KeysFromHex(strings.Repeat("ab", 32) + ",not-hex")
	fmt.Println(err)
	// Output: toolnexus: invalid request state key: key 2 of 2 is not hex
}
