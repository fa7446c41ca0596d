package toolnexus_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// wantBinding returns what a state holds of arguments whose canonical form
// is canon: canon when it is at most 128 bytes, else "h" and its SHA-256.
func wantBinding(canon []byte) []byte {
	if len(canon) <= 128 {
		return canon
	}
	sum := sha256.Sum256(canon)
	return append([]byte("h"), sum[:]...)
}

// TestArgsBindingForm checks what a state holds of arguments on either side
// of 128 canonical bytes: their canonical form, then its digest.
func TestArgsBindingForm(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 120, 121, 1000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			canon := []byte(`{"k":"` + strings.Repeat("x", n) + `"}`)
			got, err := toolnexus.ArgsBinding([]byte(` { "k" : "` + strings.Repeat("x", n) + `" } `))
			require.NoError(t, err)
			assert.Equal(t, wantBinding(canon), got)
			assert.Equal(t, n <= 120, bytes.Equal(canon, got))
		})
	}
}

// TestArgsBinding checks which arguments are the same call: those that
// encoding/json decodes, numbers kept as written, to the same value.
func TestArgsBinding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"keys reordered", `{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1}`, true},
		{"spacing", `{"a":1}`, " \t\r\n{ \"a\" : 1 }\n", true},
		{"empty, null and {}", ``, `null`, true},
		{"null and {}", ` null `, `{}`, true},
		{"escapes", `{"k":"é\n\"/<>&"}`, `{"\u006b":"\u00e9\u000a\u0022\/\u003c\u003e\u0026"}`, true},
		{"a surrogate pair", `{"k":"😀"}`, `{"k":"\ud83d\ude00"}`, true},
		{"a lone surrogate is U+FFFD", `{"k":"\ud83d"}`, `{"k":"\ufffd"}`, true},
		{"invalid UTF-8 is U+FFFD", "{\"k\":\"\xff\"}", `{"k":"\ufffd"}`, true},
		{"unsorted nested", `[{"z":1,"y":{"d":1,"c":2}}]`, `[{"y":{"c":2,"d":1},"z":1}]`, true},
		{"another number spelling", `{"n":1}`, `{"n":1.0}`, false},
		{"an exponent", `{"n":1e2}`, `{"n":100}`, false},
		{"a string, not a number", `{"n":1}`, `{"n":"1"}`, false},
		{"case of a key", `{"a":1}`, `{"A":1}`, false},
		{"array order", `[1,2]`, `[2,1]`, false},
		{"nested array and flat", `[[1],2]`, `[[1,2]]`, false},
		{"empty array and object", `[]`, `{}`, false},
		{"empty string and null", `{"a":""}`, `{"a":null}`, false},
		{"a key and a value moved", `{"ab":"c"}`, `{"a":"bc"}`, false},
		{"false and null", `[false]`, `[null]`, false},
		{"keys one the prefix of another, on encoding/json's path", `{"a":1,"a!":2,"a ":3,"x":"\ud83d"}`, `{"a ":3,"x":"\ufffd","a!":2,"a":1}`, true},
		{"long, keys reordered", `{"a":"` + strings.Repeat("é", 100) + `","b":1}`, `{"b":1,"a":"` + strings.Repeat(`\u00e9`, 100) + `"}`, true},
		{"long, one byte apart", `{"a":"` + strings.Repeat("x", 200) + `"}`, `{"a":"` + strings.Repeat("x", 199) + `y"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := toolnexus.ArgsBinding([]byte(tt.a))
			require.NoError(t, err)
			b, err := toolnexus.ArgsBinding([]byte(tt.b))
			require.NoError(t, err)
			if tt.same {
				assert.Equal(t, hex.EncodeToString(a), hex.EncodeToString(b))
			} else {
				assert.NotEqual(t, hex.EncodeToString(a), hex.EncodeToString(b))
			}
		})
	}
}

// TestIsCanonical checks which arguments are their own canonical form, and
// so bound as they are: JSON without white space, keys sorted and not
// repeated, strings escaped only where they must be, as the form writes
// them. The form of the others is another text.
func TestIsCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args      string
		canonical bool
	}{
		{`{"env":"staging","replicas":3}`, true},
		{`{}`, true},
		{`[]`, true},
		{`{"a":[1,-2.5e+3,true,false,null,{"b":{}}],"b":"x"}`, true},
		{`{"A":1,"a":2,"é":3}`, true},
		{`{"a":1,"a ":3,"a!":2}`, true}, // sorted by the keys, not by the keys and their quotes
		{`{"a ":3,"a":1}`, false},
		{`{"k":"\"\\\b\f\n\r\t\u0000\u001f\u007f é ☃ 😀"}`, false}, // \u007f: DEL is written as it is
		{"{\"k\":\"\\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\x7f é ☃ 😀\"}", true},
		{`{"n":1.0,"m":1e2,"z":-0}`, false}, // unsorted
		{`{"m":1e2,"n":1.0,"z":-0}`, true},  // numbers as written
		{`{"a":1,"a":2}`, false},
		{`{"b":1,"a":2}`, false},
		{`{ "a":1}`, false},
		{`{"a": 1}`, false},
		{`{"a":1} `, false},
		{`{"k":"\u001F"}`, false},
		{`{"k":"\u000a"}`, false},
		{`{"k":"\/"}`, false},
		{`{"k":"\u0041"}`, false},
		{`{"k":"\u00e9"}`, false},
		{`{"k":"\ud83d\ude00"}`, false},
		{"{\"k\":\"\x01\"}", false},
		{"{\"k\":\"\xff\"}", false},
		{`{"a":01}`, false},
		{`{"a":1,}`, false},
		{`{"a"}`, false},
		{``, false},
		{strings.Repeat("[", 256) + strings.Repeat("]", 256), true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.canonical, toolnexus.IsCanonical([]byte(tt.args)))
			form, err := toolnexus.CanonicalValue([]byte(tt.args))
			if tt.canonical {
				require.NoError(t, err)
				assert.Equal(t, tt.args, string(form))
			} else if err == nil {
				assert.NotEqual(t, tt.args, string(form))
				assert.True(t, toolnexus.IsCanonical(form), "%s", form)
			}
		})
	}
	// Deeper than the parser goes, the form is not checked but written
	// again, by encoding/json's path: the same.
	deep := strings.Repeat("[", 257) + strings.Repeat("]", 257)
	assert.False(t, toolnexus.IsCanonical([]byte(deep)))
	form, err := toolnexus.CanonicalValue([]byte(deep))
	require.NoError(t, err)
	assert.Equal(t, deep, string(form))
}

// TestCanonicalArgs checks which arguments the parser canonicalizes itself
// and which it leaves to encoding/json, and that both give one form.
func TestCanonicalArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   string
		parsed bool
	}{
		{`{"env":"staging","replicas":3}`, true},
		// Flat objects, and those that the flat path leaves to the
		// general parser: unsorted, nesting, escapes,
		// non-ASCII.
		{` { "a" : "x" , "b" : null , "c" : false , "d" : true , "e" : -1.5e3 } `, true},
		{`{}`, true},
		{`{"b":1,"a":2}`, true},
		{`{"a":[1],"b":{}}`, true},
		{`{"a":"\n","b":"é"}`, true},
		{`{"a":truex}`, false},
		{`{"a":-}`, false},
		{`{"a":"x"`, false},
		{`{"a":1}x`, false},
		{`{"a":1 "b":2}`, false},
		{`{"b":{"y":[1,2.5e-3,-0],"x":"\t"},"a":true}`, true},
		{` null `, true},
		{``, true},
		{`"just a string"`, true},
		{"{\"k\":\"\xff\"}", false},
		{`{"k":"\ud83d\ude00"}`, false},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), false},
		{`{"a":1} {}`, false},
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":tru}`, false},
		{`{"a" 1}`, false},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{"[\"\x01\"]", false},
		{`{"a":"\x"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			got, parsed := toolnexus.CanonicalArgs([]byte(tt.args))
			assert.Equal(t, tt.parsed, parsed)
			want, err := toolnexus.CanonicalValue([]byte(tt.args))
			if parsed {
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
			_, digestErr := toolnexus.ArgsBinding([]byte(tt.args))
			assert.Equal(t, err == nil, digestErr == nil)
			assert.Equal(t, err == nil, len(strings.TrimSpace(tt.args)) == 0 || json.Valid([]byte(tt.args)))
		})
	}
}

// TestPlainRun checks the eight-bytes-at-a-time scan of a string's plain
// bytes against a byte-at-a-time one: every byte value at every place of
// inputs long and short, from every start before it.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	plain := func(b byte) bool { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\' }
	for n := range 20 {
		for pos := range n {
			for c := range 256 {
				s := []byte(strings.Repeat("k", n))
				s[pos] = byte(c)
				for start := 0; start <= pos; start++ {
					want := n
					if !plain(byte(c)) {
						want = pos
					}
					if got := toolnexus.PlainRun(s, start); got != want {
						require.Equal(t, want, got, "byte %#x at %d of %d, from %d", c, pos, n, start)
					}
				}
			}
		}
	}
	// A special byte below a byte that a borrow would flag: the lower one
	// is found.
	for _, pair := range []string{"\x00\x01", "\x00!", "\x1f ", "\"#", "\\]", "\x80\x7f", "\x00\"", "\"\x00"} {
		s := []byte("abcdef" + pair + "xyz")
		assert.Equal(t, 6, toolnexus.PlainRun(s, 0), "%q", pair)
	}
	assert.Equal(t, 9, toolnexus.PlainRun([]byte("abcdefgh\x00\x00\x00\"\\"), 9), "a run starting on a special byte is empty")
}

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
			err := toolnexus.CheckNames([]byte(tt.args))
			if tt.msg == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, toolnexus.ErrDuplicateKey)
			assert.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
			assert.Equal(t, tt.msg, err.Error())
			_, err = toolnexus.ArgsBinding([]byte(tt.args))
			assert.ErrorIs(t, err, toolnexus.ErrDuplicateKey, "the binding refuses them")
		})
	}
}
