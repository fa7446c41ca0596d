package jsonscan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// jsonV1 says whether encoding/json is the one of encoding/json's own
// scanner, whose SyntaxError offsets notJSON names, and not the one
// GOEXPERIMENT=jsonv2 builds on encoding/json/v2, whose offsets differ
// (there json.RawMessage is jsontext.Value).
var jsonV1 = reflect.TypeFor[json.RawMessage]().Name() == "RawMessage"

// v1NotJSON is what notJSON said when it asked encoding/json where data
// stops being JSON: the reference the scanner's own answer must match.
func v1NotJSON(data []byte) string {
	if len(strings.TrimLeft(string(data), " \t\r\n")) == 0 {
		return "the input is empty, not JSON"
	}
	var se *json.SyntaxError
	if !errors.As(json.Unmarshal(data, &struct{}{}), &se) || se.Offset <= 0 || se.Offset > int64(len(data)) {
		return "the input is not JSON"
	}
	if strings.HasSuffix(se.Error(), "exceeded max depth") {
		return fmt.Sprintf("the input nests more than 10000 levels deep at byte %d of %d, deeper than JSON is read here", se.Offset, len(data))
	}
	// encoding/json reads a literal cut short, such as "tru", as if a space
	// came after it.
	faked := se.Offset == int64(len(data)) && data[len(data)-1] != ' ' && strings.HasPrefix(se.Error(), "invalid character ' '")
	if faked || strings.HasPrefix(se.Error(), "unexpected end") {
		return fmt.Sprintf("the input is not JSON: it ends after %d bytes, inside a value", len(data))
	}
	return fmt.Sprintf("the input is not JSON: byte %d of %d, %s, cannot be there", se.Offset, len(data), msg.Quote(string(data[se.Offset-1:se.Offset])))
}

// TestNotJSON pins where the scanner says input stops being JSON, in every
// build: the byte encoding/json's scanner stops at.
func TestNotJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":1,}`:                           `byte 8 of 8, "}", cannot be there`,
		`[1,]`:                               `byte 4 of 4, "]", cannot be there`,
		`[1 2]`:                              `byte 4 of 5, "2", cannot be there`,
		`{"a" 1}`:                            `byte 6 of 7, "1", cannot be there`,
		`{1:2}`:                              `byte 2 of 5, "1", cannot be there`,
		`"a\x"`:                              `byte 4 of 5, "x", cannot be there`,
		`"\u12G4"`:                           `byte 6 of 8, "G", cannot be there`,
		"\"a\tb\"":                           `byte 3 of 5, "\t", cannot be there`,
		`01`:                                 `byte 2 of 2, "1", cannot be there`,
		`-x`:                                 `byte 2 of 2, "x", cannot be there`,
		`1.e5`:                               `byte 3 of 4, "e", cannot be there`,
		`1e+`:                                `it ends after 3 bytes, inside a value`,
		`-`:                                  `it ends after 1 bytes, inside a value`,
		`"abc`:                               `it ends after 4 bytes, inside a value`,
		`"\`:                                 `it ends after 2 bytes, inside a value`,
		`{"a":`:                              `it ends after 5 bytes, inside a value`,
		`nul`:                                `it ends after 3 bytes, inside a value`,
		`nulL`:                               `byte 4 of 4, "L", cannot be there`,
		"\xef\xbb\xbf{}":                     `byte 1 of 5, "\xef", cannot be there`,
		`{} x`:                               `byte 4 of 4, "x", cannot be there`,
		strings.Repeat("[", 10000) + "}":     `byte 10001 of 10001, "}", cannot be there`,
		strings.Repeat("[", 10001):           `deep: byte 10001 of 10001`,
		strings.Repeat(`{"a":`, 10000) + `[`: `deep: byte 50001 of 50001`,
		`[` + strings.Repeat(`{"a":`, 9999) + `[`:              `deep: byte 49997 of 49997`,
		`[` + strings.Repeat(`{"a":"[[[[[","b":`, 2000) + `{{`: `byte 34003 of 34003, "{", cannot be there`,
	} {
		if at, ok := strings.CutPrefix(want, "deep: "); ok {
			want = "the input nests more than 10000 levels deep at " + at + ", deeper than JSON is read here"
		} else {
			want = "the input is not JSON: " + want
		}
		assert.Equal(t, want, jsonscan.NotJSON([]byte(in)), "%q", in)
		if jsonV1 {
			assert.Equal(t, v1NotJSON([]byte(in)), jsonscan.NotJSON([]byte(in)), "%q", in)
		}
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	assert.True(t, jsonscan.Valid([]byte(deep)), "10 000 levels are JSON")
}

// FuzzJSONSyntax checks the scanner against encoding/json: it takes what
// json.Valid takes, and, where encoding/json's own scanner reads the input
// (all builds but GOEXPERIMENT=jsonv2), says it stops being JSON where that
// scanner stops.
func FuzzJSONSyntax(f *testing.F) {
	for _, s := range []string{`{"output":"eu-west-1","isError":false}`, `{"output":"x","isError":false,"parts":null,"metadata":null,"extra":[1,{"a":null}]}`,
		`{"output":"\u2028\ud800","isError":false,"metadata":{"n":-0,"big":1e308,"s":"\u0000<>&"}}`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":[1,-2.5e+3,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9"]}`, `[1,]`, `{"a" 1}`, "\"\xff\"", `"\ud800"`,
		`tru`, `-`, `01`, ` `, ``, `{} {}`, `1.5.`, "[\"a\x01\"]", strings.Repeat("[", 10001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := jsonscan.Valid(data)
		require.Equal(t, json.Valid(data), valid)
		if !valid && jsonV1 {
			require.Equal(t, v1NotJSON(data), jsonscan.NotJSON(data))
		}
	})
}

// ends is what PlainRun and TextRun stop at: a byte that ends a run of a
// string's bytes copied as they are.
func ends(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// plainRun is PlainRun a byte at a time.
func plainRun(b []byte, i int) (int, bool) {
	ascii := true
	for ; i < len(b) && !ends(b[i]); i++ {
		ascii = ascii && b[i] < utf8.RuneSelf
	}
	return i, ascii
}

// TestPlainRun checks the sixteen-bytes-at-a-time scan of PlainRun and the
// eight-bytes-at-a-time scan of TextRun against a byte-at-a-time one: every
// byte value at every place of inputs long and short, after ASCII and after
// a rune past it, from every start before it.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	for _, fill := range []string{"k", "é"} {
		for n := range 40 {
			for pos := range n {
				for c := range 256 {
					s := []byte(strings.Repeat(fill, n))
					s[pos] = byte(c)
					for start := 0; start <= pos; start++ {
						want, wantASCII := plainRun(s, start)
						if got, ascii := jsonscan.PlainRun(s, start); got != want || ascii != wantASCII {
							require.Equal(t, []any{want, wantASCII}, []any{got, ascii}, "byte %#x at %d of %q, from %d", c, pos, s, start)
						}
						if wantASCII {
							if got, ok := jsonscan.TextRun(s, start); got != want || !ok {
								require.Equal(t, []any{want, true}, []any{got, ok}, "TextRun: byte %#x at %d of %q, from %d", c, pos, s, start)
							}
						}
					}
				}
			}
		}
	}
	// A special byte below a byte that a borrow would flag: the lower one
	// is found.
	for _, pair := range []string{"\x00\x01", "\x00!", "\x1f ", "\"#", "\\]", "\x00\"", "\"\x00", "\x00\x80", "\x01\xff"} {
		s := []byte("abcdef" + pair + "xyz")
		got, _ := jsonscan.PlainRun(s, 0)
		assert.Equal(t, 6, got, "%q", pair)
		got, _ = jsonscan.TextRun(s, 0)
		assert.Equal(t, 6, got, "%q", pair)
	}
	got, _ := jsonscan.PlainRun([]byte("abcdefgh\x00\x00\x00\"\\"), 9)
	assert.Equal(t, 9, got, "a run starting on a special byte is empty")
}

func TestSplit(t *testing.T) {
	t.Parallel()
	str := func(ss ...string) [][]byte {
		var out [][]byte
		for _, s := range ss {
			out = append(out, []byte(s))
		}
		return out
	}
	tests := []struct {
		name, in      string
		open          byte
		names, values [][]byte
		err           error
	}{
		{"an object", ` {"a": 1 , "b\"":{"c":[1,"]"]}, "a":null} `, '{', str(`"a"`, `"b\""`, `"a"`), str(`1`, `{"c":[1,"]"]}`, `null`), nil},
		{"an array", `[ 1,"x" ,{} ,[]]`, '[', nil, str(`1`, `"x"`, `{}`, `[]`), nil},
		{"empty", `{ }`, '{', nil, nil, nil},
		{"another container", `[]`, '{', nil, nil, jsonscan.ErrSyntax},
		{"a string", `"{}"`, '{', nil, nil, jsonscan.ErrSyntax},
		{"cut short", `{"a":1`, '{', nil, nil, jsonscan.ErrSyntax},
		{"two values", `{} {}`, '{', nil, nil, jsonscan.ErrSyntax},
		{"a key not UTF-8", "{\"\xff\":1}", '{', nil, nil, jsonscan.ErrNotUTF8},
		{"a value not UTF-8", `["\udc00"]`, '[', nil, nil, jsonscan.ErrNotUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			names, values, err := jsonscan.Split([]byte(tt.in), tt.open)
			assert.Equal(t, tt.err, err)
			assert.Equal(t, tt.names, names)
			assert.Equal(t, tt.values, values)
		})
	}
}

// FuzzValidUTF8 checks ValidUTF8 against utf8.Valid.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "café au lait, naïve", "✓😀\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\x80", "abcdefgh\xc3", "abcdefghé" + "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := jsonscan.ValidUTF8(p), utf8.Valid(p); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, utf8.Valid %v", p, got, want)
		}
	})
}

// FuzzTextRun checks TextRun against a reading a rune at a time with
// utf8.DecodeRune: the end of the run, the first '"', '\\' or control byte,
// when all before it is UTF-8, else the first byte that is not.
func FuzzTextRun(f *testing.F) {
	for _, s := range []string{"", "abc\"", "テスト\\n", "✓ passed 😀 café naïve — done.\t", "\xe0\x80\x80", "\xed\xa0\x80", "abcdefghijklmnopé\xff", "\xef\xbf\xbf\xee\x80\x80\xe1\x80"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		want, wantOK := i, true
		for want < len(b) {
			if c := b[want]; c < utf8.RuneSelf {
				if c == '"' || c == '\\' || c < 0x20 {
					break
				}
				want++
				continue
			}
			r, n := utf8.DecodeRune(b[want:])
			if r == utf8.RuneError && n == 1 {
				wantOK = false
				break
			}
			want += n
		}
		got, ok := jsonscan.TextRun(b, i)
		if got != want || ok != wantOK {
			t.Fatalf("TextRun(%q, %d) = %d, %v; want %d, %v", b, i, got, ok, want, wantOK)
		}
	})
}
