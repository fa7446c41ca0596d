package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
)

// FuzzArgsBinding checks the parser that canonicalizes arguments against
// encoding/json: what it parses, it writes as the value encoding/json
// decodes; what it cannot parse, encoding/json refuses or it leaves to it.
func FuzzArgsBinding(f *testing.F) {
	for _, s := range []string{`{"env":"staging","replicas":3}`, `{"b":1,"a":[true,false,null,{"c":"\u00e9\n"}]}`, ` null `, ``,
		`{"a":1,"a":2}`, `{"o":{"b":1,"a":0,"b":3},"c":[{"y":1,"x":2}]}`, `[-0.5e+10,1E-2,0]`, `"\ud83d\ude00"`, "\"\xff\"", `{"a":1} x`, `[1,]`, `{"a":01}`,
		`{"a":1,"b":[true,{"c":"\u001f\n"}]}`, `{"a!":1,"a":{"b ":2,"b":"\ud83d"}}`, "{\"k\":\"\x7f\u2028\"}", `{"k":"\u001F\/"}`,
		`{"Env":"prod","env":"staging"}`, `{"k":1,"\u212a":2}`, `{"s":{"\u017f":1,"S":2}}`, `{"\ud800":1,"\udbff":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		got, parsed := jsonscan.CanonicalArgs(args)
		want, err := jsonscan.CanonicalValue(args)
		if parsed {
			require.NoError(t, err, "the parser took arguments that encoding/json refuses")
			require.Equal(t, want, got)
		}
		if jsonscan.IsCanonical(args) && string(args) != "null" {
			require.NoError(t, err)
			require.Equal(t, string(args), string(want), "arguments in canonical form are not their own form")
		}
		if err == nil {
			deep := bytes.Count(want, []byte("["))+bytes.Count(want, []byte("{")) > 256 // maybe deeper than the parser goes
			require.True(t, deep || jsonscan.IsCanonical(want), "the canonical form %q is not canonical", want)
			if len(bytes.Trim(args, " \t\r\n")) > 0 && string(bytes.Trim(args, " \t\r\n")) != "null" {
				require.Equal(t, decodeNumbers(t, args), decodeNumbers(t, want), "the canonical form %q is another value", want)
			}
		}
		namesErr := jsonscan.CheckNames(args)
		if err == nil {
			require.Equal(t, foldedTwice(t, args), namesErr != nil, "CheckNames: %v", namesErr)
		}
		binding, bindErr := bindingOf(args)
		if b, ok := jsonscan.BindObject(args); ok {
			// Read once: a JSON object of UTF-8, names not repeated, bound alike.
			require.NoError(t, namesErr)
			require.NoError(t, bindErr)
			require.Equal(t, binding, b)
			i := jsonscan.SkipSpace(args, 0)
			end, err := jsonscan.ScanValue(args, i, 0, true)
			require.NoError(t, err)
			require.Equal(t, len(args), jsonscan.SkipSpace(args, end))
			require.Equal(t, byte('{'), args[i])
		}
		if namesErr != nil {
			require.ErrorIs(t, bindErr, jsonscan.ErrDuplicateKey)
			return
		}
		require.Equal(t, err == nil, bindErr == nil)
		if bindErr != nil {
			require.ErrorIs(t, bindErr, jsonscan.ErrInvalidJSON)
			return
		}
		require.Equal(t, wantBinding(want), binding)
	})
}

// foldedTwice reports whether an object of data, valid JSON, has two
// member names that strings.EqualFold finds equal, as encoding/json's
// tokenizer decodes them: the reference of CheckNames.
func foldedTwice(t *testing.T, data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	type frame struct {
		object, atKey bool
		names         []string
	}
	var stack []frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return false
		}
		require.NoError(t, err)
		top := len(stack) - 1
		if name, ok := tok.(string); ok && top >= 0 && stack[top].object && stack[top].atKey {
			for _, prev := range stack[top].names {
				if strings.EqualFold(prev, name) {
					return true
				}
			}
			stack[top].names = append(stack[top].names, name)
			stack[top].atKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{object: tok == json.Delim('{'), atKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
		}
		if top := len(stack) - 1; top >= 0 && stack[top].object {
			stack[top].atKey = true
		}
	}
}

// decodeNumbers decodes data as encoding/json does, numbers kept as written.
func decodeNumbers(t *testing.T, data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}
