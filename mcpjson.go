package toolnexus

import (
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// AppendJSON appends the JSON of c to b and returns the extended buffer:
// the bytes json.Marshal writes for c, written in one pass into a buffer
// grown once to their exact size. For a result that carries a large file
// it is the way to MCP JSON that keeps one copy of the payload beside the
// result (json.Marshal grows a buffer as it goes, then copies it out). The
// small members, structuredContent and inputRequests, are those of
// json.Marshal; it reports its error for structured content that is not
// JSON, and then returns b unchanged.
func (c MCPCallToolResult) AppendJSON(b []byte) ([]byte, error) {
	var buf [128]byte
	tail := buf[:0] // what follows the content
	if len(c.StructuredContent) > 0 {
		sc, err := json.Marshal(c.StructuredContent)
		if err != nil {
			return b, err
		}
		tail = append(append(tail, `,"structuredContent":`...), sc...)
	}
	tail = append(tail, `,"isError":`...)
	if c.IsError {
		tail = append(tail, "true"...)
	} else {
		tail = append(tail, "false"...)
	}
	if c.ResultType != "" {
		tail = appendJSONString(append(tail, `,"resultType":`...), c.ResultType)
	}
	if len(c.InputRequests) > 0 {
		ir, err := json.Marshal(c.InputRequests)
		if err != nil {
			return b, err
		}
		tail = append(append(tail, `,"inputRequests":`...), ir...)
	}
	if c.RequestState != "" {
		tail = appendJSONString(append(tail, `,"requestState":`...), c.RequestState)
	}

	size := len(`{"content":[]}`) + len(tail)
	if c.Content == nil {
		size += len("null") - len("[]")
	}
	for i, m := range c.Content {
		if i > 0 {
			size++
		}
		size += mcpContentJSONLen(m)
	}
	b = growBytes(b, size)
	b = append(b, `{"content":`...)
	if c.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range c.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMCPContentJSON(b, m)
		}
		b = append(b, ']')
	}
	b = append(b, tail...)
	return append(b, '}'), nil
}

// growBytes returns b with room for n more bytes, growing it once.
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	grown := make([]byte, len(b), len(b)+n)
	copy(grown, b)
	return grown
}

// mcpContentJSONLen returns the length of the JSON appendMCPContentJSON
// writes for m.
func mcpContentJSONLen(m MCPContent) int {
	n := len(`{"type":}`) + jsonStringLen(m.Type)
	for _, f := range [...]struct{ key, v string }{{"text", m.Text}, {"data", m.Data}, {"mimeType", m.MIMEType}, {"uri", m.URI}, {"name", m.Name}} {
		if f.v != "" {
			n += len(`,"":`) + len(f.key) + jsonStringLen(f.v)
		}
	}
	if r := m.Resource; r != nil {
		n += len(`,"resource":{"uri":}`) + jsonStringLen(r.URI)
		for _, f := range [...]struct{ key, v string }{{"mimeType", r.MIMEType}, {"text", r.Text}, {"blob", r.Blob}} {
			if f.v != "" {
				n += len(`,"":`) + len(f.key) + jsonStringLen(f.v)
			}
		}
	}
	return n
}

// appendMCPContentJSON appends the JSON of m, its members in the order of
// its fields and empty ones left out, as json.Marshal writes it.
func appendMCPContentJSON(b []byte, m MCPContent) []byte {
	b = appendJSONString(append(b, `{"type":`...), m.Type)
	b = appendJSONMember(b, "text", m.Text)
	b = appendJSONMember(b, "data", m.Data)
	b = appendJSONMember(b, "mimeType", m.MIMEType)
	b = appendJSONMember(b, "uri", m.URI)
	b = appendJSONMember(b, "name", m.Name)
	if r := m.Resource; r != nil {
		b = appendJSONString(append(b, `,"resource":{"uri":`...), r.URI)
		b = appendJSONMember(b, "mimeType", r.MIMEType)
		b = appendJSONMember(b, "text", r.Text)
		b = appendJSONMember(b, "blob", r.Blob)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSONMember appends ,"key":v unless v is empty, as omitempty does.
func appendJSONMember(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return appendJSONString(b, v)
}

// jsonEscapeLen is, for each ASCII byte, how many bytes its JSON escape
// takes beyond the byte itself, as encoding/json escapes it (HTML's <, >
// and & included): 0 for the bytes written as they are.
var jsonEscapeLen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 1 // \" \\ \b \f \n \r \t
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[c] = 5 // \u00XX
		}
	}
	return t
}()

// jsonInvalidUTF8 is what json.Marshal writes for a byte that is not
// UTF-8: the escape \ufffd, or under GOEXPERIMENT=jsonv2 the rune U+FFFD
// itself, so that AppendJSON writes the bytes of the build it runs in.
var jsonInvalidUTF8 = sync.OnceValue(func() string {
	b, _ := json.Marshal("\xff")
	return string(b[1 : len(b)-1])
})

// jsonStringLen returns the length of s as appendJSONString writes it.
func jsonStringLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(jsonEscapeLen[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(jsonInvalidUTF8()) - 1
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`) - size
		}
		i += size
	}
	return n
}

// appendJSONString appends s as a JSON string, escaped as json.Marshal
// escapes it: \" \\ \b \f \n \r \t, other control bytes and HTML's <, >
// and & as \u00XX, U+2028 and U+2029 as \u2028 and \u2029, and each byte
// that is not UTF-8 as jsonInvalidUTF8.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonEscapeLen[c] == 0 {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), jsonInvalidUTF8()...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
