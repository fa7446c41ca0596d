package jsonscan_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
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
			got, err := bindingOf([]byte(` { "k" : "` + strings.Repeat("x", n) + `" } `))
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
			a, err := bindingOf([]byte(tt.a))
			require.NoError(t, err)
			b, err := bindingOf([]byte(tt.b))
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
			assert.Equal(t, tt.canonical, jsonscan.IsCanonical([]byte(tt.args)))
			form, err := jsonscan.CanonicalValue([]byte(tt.args))
			if tt.canonical {
				require.NoError(t, err)
				assert.Equal(t, tt.args, string(form))
			} else if err == nil {
				assert.NotEqual(t, tt.args, string(form))
				assert.True(t, jsonscan.IsCanonical(form), "%s", form)
			}
		})
	}
	// Deeper than the parser goes, the form is not checked but written
	// again, by encoding/json's path: the same.
	deep := strings.Repeat("[", 257) + strings.Repeat("]", 257)
	assert.False(t, jsonscan.IsCanonical([]byte(deep)))
	form, err := jsonscan.CanonicalValue([]byte(deep))
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
			got, parsed := jsonscan.CanonicalArgs([]byte(tt.args))
			assert.Equal(t, tt.parsed, parsed)
			want, err := jsonscan.CanonicalValue([]byte(tt.args))
			if parsed {
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
			_, digestErr := bindingOf([]byte(tt.args))
			assert.Equal(t, err == nil, digestErr == nil)
			assert.Equal(t, err == nil, len(strings.TrimSpace(tt.args)) == 0 || json.Valid([]byte(tt.args)))
		})
	}
}

// bindingOf returns what a state holds of args: their canonical form, or
// the digest of a long one.
func bindingOf(args []byte) ([]byte, error) {
	b, err := jsonscan.AppendBinding(nil, args)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// TestBindObject checks which arguments are read once, and bound as
// AppendBinding binds them: JSON objects of UTF-8 whose names do not
// repeat, even folded; every other input is left to the slow path.
func TestBindObject(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, args string
		ok         bool
	}{
		{"sorted", `{"a":1,"b":"x"}`, true},
		{"unsorted, escapes", ` {"z":"\t\"q\"\n","a":[{"y":1,"x":"\u00e9\/"}]} `, true},
		{"long", `{"k":"` + strings.Repeat(`a\n`, 100) + `","a":1}`, true},
		{"many names", `{` + manyNames(20) + `}`, true},
		{"empty", ``, false},
		{"null", `null`, false},
		{"an array", `[1]`, false},
		{"not JSON", `{"a":1`, false},
		{"a name twice", `{"a":1,"a":2}`, false},
		{"names one folded", `{"Env":"prod","env":"staging"}`, false},
		{"Kelvin sign", `{"k":1,"\u212a":2}`, false},
		{"folded, past the map size", `{` + manyNames(20) + `,"N0":1}`, false},
		{"nested twice", `{"o":{"b":1,"b":2}}`, false},
		{"a surrogate pair", `{"k":"\ud83d\ude00"}`, false},
		{"invalid UTF-8", "{\"k\":\"\xff\"}", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := jsonscan.BindObject([]byte(tt.args))
			require.Equal(t, tt.ok, ok)
			if ok {
				want, err := jsonscan.AppendBinding(nil, []byte(tt.args))
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
}

// manyNames returns n members named n0, n1, …, joined by commas.
func manyNames(n int) string {
	m := make([]string, n)
	for i := range m {
		m[i] = `"n` + strconv.Itoa(i) + `":` + strconv.Itoa(i)
	}
	return strings.Join(m, ",")
}
