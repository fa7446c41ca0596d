package toolnexus_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/b64"
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
	return fmt.Sprintf("the input is not JSON: byte %d of %d, %s, cannot be there", se.Offset, len(data), toolnexus.Quote(string(data[se.Offset-1:se.Offset])))
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
		assert.Equal(t, want, toolnexus.NotJSON([]byte(in)), "%q", in)
		if jsonV1 {
			assert.Equal(t, v1NotJSON([]byte(in)), toolnexus.NotJSON([]byte(in)), "%q", in)
		}
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	assert.True(t, toolnexus.ValidJSON([]byte(deep)), "10 000 levels are JSON")
}

// FuzzJSONSyntax checks the scanner against encoding/json: it takes what
// json.Valid takes, and, where encoding/json's own scanner reads the input
// (all builds but GOEXPERIMENT=jsonv2), says it stops being JSON where that
// scanner stops.
func FuzzJSONSyntax(f *testing.F) {
	for _, s := range wireResults {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":[1,-2.5e+3,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9"]}`, `[1,]`, `{"a" 1}`, "\"\xff\"", `"\ud800"`,
		`tru`, `-`, `01`, ` `, ``, `{} {}`, `1.5.`, "[\"a\x01\"]", strings.Repeat("[", 10001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := toolnexus.ValidJSON(data)
		require.Equal(t, json.Valid(data), valid)
		if !valid && jsonV1 {
			require.Equal(t, v1NotJSON(data), toolnexus.NotJSON(data))
		}
	})
}

// isPlain is what stringRun stops at: a byte of a string copied as it is.
func isPlain(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }

// isBase64 is what base64Run stops at: a byte of the standard alphabet.
func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// firstNot is the index of the first byte of b from i on that is not
// plain, or len(b).
func firstNot(b []byte, i int, plain func(byte) bool) int {
	for ; i < len(b) && plain(b[i]); i++ {
	}
	return i
}

// TestScannerRuns checks the runs the scanner reads eight bytes at a time,
// and the vector kernels 32 or 64, for every byte at every place of a
// block: each stops at the first byte that ends its run.
func TestScannerRuns(t *testing.T) {
	t.Parallel()
	for n := 0; n < 140; n++ {
		for c := 0; c < 256; c++ {
			b := []byte(strings.Repeat("Q", n) + string([]byte{byte(c)}) + strings.Repeat("a", 70))
			require.Equal(t, firstNot(b, 0, isPlain), toolnexus.StringRun(b, 0), "byte %#x after %d", c, n)
		}
	}
}

// FuzzJSONString checks the decoding of strings against encoding/json: a
// string that is JSON and UTF-8 reads as json.Unmarshal reads it, one that
// is not UTF-8 is refused, and a part's data reads the same, found
// canonical base64 only when checkBase64 takes it. (FuzzJSONReader checks
// that what is not JSON is refused.)
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`a\"b\\`, `\ud800`, "\xff", `\ud83d\ude00 é ✓`, `line\nnext\ttab \u003c\u0026`, `\ud800\n`,
		`iVBORw0KGgo=`, `AA==`, `AAB=`, `AA\u003d\u003d`, `QUJD` + strings.Repeat("QUJD", 30) + `=`, "caf\xc3\xa9", "\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, in := range [][]byte{append(append([]byte(`"`), raw...), '"'), []byte(mustJSON(t, string(raw)))} {
			require.Equal(t, firstNot(in, 1, isPlain), toolnexus.StringRun(in, 1))
			require.Equal(t, firstNot(in, 1, isBase64)-1, b64.Run(in[1:]))
			s, err := toolnexus.JSONString(in)
			data, canonical, dataErr := toolnexus.JSONBase64(in)
			require.Equal(t, err, dataErr)
			if !json.Valid(in) { // a quote in raw may end the string early
				continue
			}
			var want string
			require.NoError(t, json.Unmarshal(in, &want))
			switch notUTF8(in) {
			case yes:
				require.EqualError(t, err, "a string is not valid UTF-8")
				continue
			case maybe:
				if err != nil {
					continue
				}
			}
			require.NoError(t, err)
			require.Equal(t, want, s)
			require.Equal(t, want, data)
			if canonical {
				require.NoError(t, b64.Check(data))
			} else if !strings.Contains(string(in), `\`) {
				require.Error(t, b64.Check(data), "%q is canonical", data)
			}
		}
	})
}

// TestDecodeLongStrings reads strings with escapes longer than the buffer
// short ones are decoded in, before and after other long values, as
// json.Unmarshal reads them.
func TestDecodeLongStrings(t *testing.T) {
	t.Parallel()
	for _, n := range []int{60 << 10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 300 << 10, 3 << 20} {
		text := toolText(n)
		for _, r := range []toolnexus.ToolResult{
			toolnexus.Ok(text),
			toolnexus.Ok(text, toolnexus.TextPart(toolText(2*n))),
			toolnexus.Ok("x", toolnexus.TextPart("a\n"), toolnexus.TextPart(text)),
		} {
			data := []byte(mustJSON(t, r))
			got, err := toolnexus.ParseToolResult(data, 0)
			require.NoError(t, err)
			var want toolnexus.ToolResult
			require.NoError(t, json.Unmarshal(data, &want))
			require.Equal(t, want, got, "%d bytes", n)
			mcp := []byte(mustJSON(t, r.MCPCallToolResult()))
			fromMCP, err := toolnexus.FromMCPCallToolResult(mcp)
			require.NoError(t, err)
			require.Equal(t, want.Output, fromMCP.Output[:len(want.Output)])
		}
	}
}

// TestDecodeLongData reads parts' data longer than what is checked before
// it is copied, canonical or not, last in the input or before more of it,
// as json.Unmarshal reads it.
func TestDecodeLongData(t *testing.T) {
	t.Parallel()
	for _, n := range []int{48<<10 - 1, 48 << 10, 48<<10 + 1, 1 << 20} {
		data := base64.StdEncoding.EncodeToString(payload(n))
		for _, d := range []string{data, data[:len(data)-4] + `\u0041AAA`, data[:len(data)*3/4] + "\n" + data[len(data)*3/4:], data[:len(data)-1]} {
			for _, in := range []string{
				`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":` + mustJSON(t, d) + `}]}`,
				`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":` + mustJSON(t, d) + `}],"metadata":{"d":` + mustJSON(t, data+data) + `}}`,
			} {
				got, err := toolnexus.DecodeExact([]byte(in))
				require.NoError(t, err)
				var want toolnexus.ToolResult
				require.NoError(t, json.Unmarshal([]byte(in), &want))
				require.Equal(t, want, got, "%d bytes", n)
				_, err = toolnexus.ParseToolResult([]byte(in), 0)
				require.Equal(t, b64.Check(want.Parts[0].Data) == nil, err == nil, "%d bytes: %v", n, err)
			}
		}
	}
}
