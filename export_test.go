package toolnexus

// The internals that the external tests need, as net/netip's export_test.go
// has them: the parsers that fuzz_test.go checks against the standard
// library, and the exact-key reader's parts.

var (
	ParseDataURL = parseDataURL
)

// JSONSkip moves the exact-key reader past the first JSON value of data and
// returns that value's bytes and the offset where reading stopped.
func JSONSkip(data []byte) ([]byte, int, error) {
	r := jsonReader{data: data}
	v, err := r.skip()
	return v, r.pos, err
}

// JSONString reads the first JSON value of data as the exact-key reader
// reads a string value.
func JSONString(data []byte) (string, error) {
	r := jsonReader{data: data}
	return r.str("s")
}

// JSONBase64 reads the first JSON value of data as the exact-key reader
// reads a part's data, and says whether it found it canonical base64.
func JSONBase64(data []byte) (string, bool, error) {
	r := jsonReader{data: data}
	return r.base64Str("data")
}

// DecodeExact reads data as ParseToolResult does, without its limit and
// without validating the result: the exact-key reader alone, as an
// UnmarshalJSON method would call it.
func DecodeExact(data []byte) (ToolResult, error) {
	var r ToolResult
	err := unmarshalExact(data, &r, (*jsonReader).toolResult)
	return r, err
}

// DecodeExactPart reads one part as DecodeExact reads the parts of a result.
func DecodeExactPart(data []byte) (ContentPart, error) {
	var p ContentPart
	err := unmarshalExact(data, &p, (*jsonReader).part)
	return p, err
}
