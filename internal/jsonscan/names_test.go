package jsonscan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// TestCheckNames checks the refusal of objects, at any depth, whose member
// names repeat or are one when case is folded, as encoding/json decodes and
// strings.EqualFold compares them, and that every other object passes.
func TestCheckNames(t *testing.T) {
	t.Parallel()
	wide := func(last string) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range 40 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		return b.String() + `"` + last + `":0}`
	}
	for _, tt := range []struct {
		name, args string
		msg        string // "" for arguments that pass
	}{
		{"one case of each name", `{"env":"prod","region":"eu"}`, ""},
		{"case folded", `{"Env":"prod","env":"staging"}`,
			`toolnexus: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"case folded, the other order", `{"env":"staging","Env":"prod"}`,
			`toolnexus: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"upper case", `{"ENV":"prod","env":"staging"}`,
			`toolnexus: duplicate JSON key: keys "ENV" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"escaped", `{"\u0045nv":"prod","env":"staging"}`,
			`toolnexus: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"Kelvin sign", `{"k":1,"\u212a":2}`,
			`toolnexus: duplicate JSON key: keys "k" and "\u212a" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"long s", `{"s":1,"ſ":2}`,
			`toolnexus: duplicate JSON key: keys "s" and "\u017f" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"twice", `{"env":"prod","env":"staging"}`, `toolnexus: duplicate JSON key: key "env" appears twice in the top-level object`},
		{"twice, once escaped", `{"a\u0062":1,"ab":2}`, `toolnexus: duplicate JSON key: key "ab" appears twice in the top-level object`},
		{"lone surrogates, both U+FFFD", `{"\ud800":1,"\udbff":2}`, `toolnexus: duplicate JSON key: key "\ufffd" appears twice in the top-level object`},
		{"nested", `{"a":[{"b":1},{"B":2,"b":3}]}`,
			`toolnexus: duplicate JSON key: keys "B" and "b" in the object at a[1] are one key when case is folded, as encoding/json folds it`},
		{"deep in objects", `{"x":{"y z":{"q":1,"Q":2}}}`,
			`toolnexus: duplicate JSON key: keys "q" and "Q" in the object at x["y z"] are one key when case is folded, as encoding/json folds it`},
		{"in an array at the top", `[1,{"a":1,"A":2}]`,
			`toolnexus: duplicate JSON key: keys "a" and "A" in the object at [1] are one key when case is folded, as encoding/json folds it`},
		{"wide, folded", wide("K39"),
			`toolnexus: duplicate JSON key: keys "k39" and "K39" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"wide, twice", wide("k0"), `toolnexus: duplicate JSON key: key "k0" appears twice in the top-level object`},
		{"wide, Kelvin", wide("\u212a7"),
			`toolnexus: duplicate JSON key: keys "k7" and "\u212a7" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"wide, distinct", wide("k40"), ""},
		{"one name in two objects", `{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, ""},
		{"sharp s is not ss under simple folding", `{"ß":1,"ss":2}`, ""},
		{"dotted I is not i under simple folding", `{"İ":1,"i":2}`, ""},
		{"strings with names in them", `{"a":"{\"b\":1,\"B\":2}"}`, ""},
		{"empty", ``, ""},
		{"null", `null`, ""},
		{"not JSON is left to the parser", `{"a":1,`, ""},
		{"too deep is left to the parser", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := jsonscan.CheckNames([]byte(tt.args))
			if tt.msg == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, jsonscan.ErrDuplicateKey)
			assert.ErrorIs(t, err, jsonscan.ErrInvalidJSON)
			assert.Equal(t, tt.msg, err.Error())
			_, err = bindingOf([]byte(tt.args))
			assert.ErrorIs(t, err, jsonscan.ErrDuplicateKey, "the binding refuses them")
		})
	}
}
