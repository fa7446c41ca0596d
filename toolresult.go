// Package toolnexus holds what an LLM tool call returns: a [ToolResult] with
// the text the model reads next, whether the call failed, optional non-text
// [ContentPart] values such as images, PDFs and audio, and metadata for the
// host's code. A tool that cannot finish until something happens out of band,
// such as a login, an approval or an answer from a person, returns a
// suspension built by [Pending]; the host reads it back with [PendingOf],
// even after the result has been stored as JSON and read by another process.
//
// A result goes to a model provider through one method per destination
// (Anthropic, OpenAI Chat and Responses, Gemini, MCP), which all follow the
// same rules: the text comes first, Output and then each text part in order,
// and the media after it, in order; an empty text is never sent as a block of
// its own; metadata never reaches a provider, so a suspension is sent as its
// Output text. A part the destination cannot carry (a type or media type it
// does not read, a URL scheme it does not fetch, a size over the limits its
// API documents, or a part that fails [ContentPart.Validate]) becomes a
// placeholder text such as "[unsupported audio part (audio/wav, 12 bytes)]",
// never a silent drop and never a block the provider would refuse. Media
// types are written in lower case without parameters.
package toolnexus

import (
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MetadataPending is the reserved metadata key whose value, a [Request], makes
// a result a suspension. See [Pending] and [PendingOf].
const MetadataPending = "pending"

// MetadataRedacted is the metadata key under which [ToolResult.Redacted]
// describes the parts whose data it removed.
const MetadataRedacted = "redacted"

// ToolResult is what a tool returns: Output is the text the model reads,
// IsError says the call failed (a failure is fed back to the model, never
// thrown), Parts carries non-text output and Metadata is for the host's code,
// never the model.
//
// Output stays required when there are parts: it is what text-only models,
// transcripts and logs see, so a tool returning an image describes it there.
// A text-only result has nil Parts and its JSON has no "parts" key. The
// metadata key [MetadataPending] is reserved for suspensions.
//
// json.Marshal writes a ToolResult as every toolnexus port does, and
// json.Unmarshal reads it back as encoding/json reads any struct: keys match
// without regard to case, so {"isError":true,"ISERROR":false} is a success.
// That is fine for JSON this process wrote; JSON from another process, which
// a peer may craft, should be read with [ParseToolResult], which matches
// keys exactly, limits the input and validates what it read. (Exact keys in
// json.Unmarshal itself cost up to 1.16× the time of encoding/json alone on
// large results, for the second scan encoding/json makes before it calls an
// UnmarshalJSON method.)
//
// The zero ToolResult is a successful result with empty output. A ToolResult
// is a value: the With methods return modified copies and never change the
// maps or slices they were given, so results that share a part or metadata can
// be used from several goroutines as long as no one writes to those directly.
type ToolResult struct {
	Output   string         `json:"output"`
	IsError  bool           `json:"isError"`
	Parts    []ContentPart  `json:"parts,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Ok returns a successful result with the given output and parts. With no
// parts, Parts is nil.
func Ok(output string, parts ...ContentPart) ToolResult {
	return ToolResult{Output: output, Parts: cloneParts(parts)}
}

// Error returns a failed result with the given output, which the model reads
// to recover, and parts. With no parts, Parts is nil.
func Error(output string, parts ...ContentPart) ToolResult {
	return ToolResult{Output: output, IsError: true, Parts: cloneParts(parts)}
}

// Errorf returns a failed result whose output is formatted as by [fmt.Sprintf].
func Errorf(format string, args ...any) ToolResult {
	return ToolResult{Output: fmt.Sprintf(format, args...), IsError: true}
}

func cloneParts(parts []ContentPart) []ContentPart {
	if len(parts) == 0 {
		return nil
	}
	return slices.Clone(parts)
}

// WithMetadata returns a copy of r whose metadata also maps key to value. The
// map is cloned, never shared with r. Setting [MetadataPending] to a [Request]
// makes the copy a suspension; prefer [Pending] for that.
func (r ToolResult) WithMetadata(key string, value any) ToolResult {
	m := make(map[string]any, len(r.Metadata)+1)
	maps.Copy(m, r.Metadata)
	m[key] = value
	r.Metadata = m
	return r
}

// IsPending reports whether r is a suspension, that is whether [PendingOf]
// finds a [Request] in it.
func (r ToolResult) IsPending() bool {
	_, ok := PendingOf(r)
	return ok
}

// Validate reports whether r is well formed: every part passes
// [ContentPart.Validate] and, when the [MetadataPending] key is present, its
// value is a Request that passes [Request.Validate] (as is each request
// under [MetadataPendingMore], each with an ID of its own).
func (r ToolResult) Validate() error {
	if err := validatePendingMore(r.Metadata); err != nil {
		return err
	}
	for i, p := range r.Parts {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("%w (part %d)", err, i)
		}
	}
	if v, ok := r.Metadata[MetadataPending]; ok {
		return validatePending(v)
	}
	return nil
}

// Redacted returns a copy of r without payloads, for transcripts and audit
// logs that must not store them: each part keeps its type, MIME type, URL and
// name but loses its data (and a data: URL, if one was put in URL), and the
// metadata key [MetadataRedacted] lists, part by part, the description of what
// was there, with the SHA-256 of the content for parts that had data
// ("image (image/png, 82 bytes) sha256:e050…"). Whatever the metadata holds
// is redacted too, at any depth: parts and results (values or pointers, in
// slices, arrays, maps and the exported fields of structs), objects decoded
// from JSON that have the shape of a part, and strings holding a data: URL.
// The copy shares nothing that it changes with r.
func (r ToolResult) Redacted() ToolResult {
	return r.redacted(0)
}

func (r ToolResult) redacted(depth int) ToolResult {
	out := r
	var notes []string
	if r.Parts != nil {
		out.Parts = make([]ContentPart, len(r.Parts))
		notes = make([]string, len(r.Parts))
		for i, p := range r.Parts {
			notes[i] = p.String()
			if p.Data != "" {
				if sum, err := p.SHA256(); err == nil {
					notes[i] += " sha256:" + hex.EncodeToString(sum[:])
				} else {
					notes[i] += " (invalid base64)"
				}
			}
			out.Parts[i] = p.withoutPayload()
		}
	}
	if r.Metadata == nil && notes == nil {
		return out
	}
	out.Metadata = make(map[string]any, len(r.Metadata)+1)
	for k, v := range r.Metadata {
		if red, changed := redact(reflect.ValueOf(v), depth+1); changed {
			v = red.Interface()
		}
		out.Metadata[k] = v
	}
	if notes != nil {
		out.Metadata[MetadataRedacted] = notes
	}
	return out
}

// String describes r for people without any part data: its status, its
// output quoted, a description of each part, its metadata keys and, for a
// suspension, the kind and id of the Request:
//
//	ok "fixture.png (image/png, 82 bytes)" parts=[image (image/png, 82 bytes)]
//	error "Which environment?" metadata=[pending] pending=input:req-1
//
// A key, kind, id, type or MIME type holding anything but graphic
// characters, such as a newline from a peer, is printed quoted.
func (r ToolResult) String() string {
	b := make([]byte, 0, 32+len(r.Output))
	if r.IsError {
		b = append(b, "error "...)
	} else {
		b = append(b, "ok "...)
	}
	b = strconv.AppendQuote(b, r.Output)
	if len(r.Parts) > 0 {
		b = append(b, " parts=["...)
		for i, p := range r.Parts {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = p.appendDescription(b)
		}
		b = append(b, ']')
	}
	if len(r.Metadata) > 0 {
		b = append(b, " metadata=["...)
		for i, k := range slices.Sorted(maps.Keys(r.Metadata)) {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, printable(k)...)
		}
		b = append(b, ']')
	}
	if req, ok := PendingOf(r); ok {
		b = append(b, " pending="...)
		b = append(b, printable(req.Kind)...)
		b = append(b, ':')
		b = append(b, printable(req.ID)...)
	}
	return string(b)
}

// printable returns s as it is when it holds only graphic characters and no
// space, else quoted, so that text from a peer cannot forge a line of a log.
func printable(s string) string {
	for _, c := range s {
		if c == utf8.RuneError || c == ' ' || !unicode.IsGraphic(c) {
			return strconv.Quote(s)
		}
	}
	return s
}

// GoString returns a Go-syntax form of r for %#v in which each part's data
// is replaced by its size and each metadata value that is not a number, a
// boolean, a string, a time, a part or a result by its type (and length).
func (r ToolResult) GoString() string {
	b := fmt.Appendf(nil, "toolnexus.ToolResult{Output:%q, IsError:%t, Parts:%#v, Metadata:", r.Output, r.IsError, r.Parts)
	if r.Metadata == nil {
		b = append(b, "map[string]interface {}(nil)"...)
	} else {
		b = append(b, "map[string]interface {}{"...)
		for i, k := range slices.Sorted(maps.Keys(r.Metadata)) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%q:%s", k, goValue(r.Metadata[k]))
		}
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// goValue returns the Go syntax of a metadata value for GoString, or its
// type when it may hold a payload the package cannot see.
func goValue(v any) string {
	switch v := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration, ContentPart, ToolResult:
		return fmt.Sprintf("%#v", v)
	case *ContentPart:
		if v != nil {
			return "&" + v.GoString()
		}
	case *ToolResult:
		if v != nil {
			return "&" + v.GoString()
		}
	case string:
		return logString(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return fmt.Sprintf("%T(len %d)", v, rv.Len())
	}
	return fmt.Sprintf("%T{…}", v)
}

// Format prints r for every verb without part data: %#v is
// [ToolResult.GoString], %q the quoted [ToolResult.String], every other verb
// the String.
func (r ToolResult) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		io.WriteString(f, r.GoString())
	case verb == 'q':
		io.WriteString(f, strconv.Quote(r.String()))
	default:
		io.WriteString(f, r.String())
	}
}

// LogValue implements [slog.LogValuer]. A result logs as a group of its
// output, error flag, parts (described, never their data), the Request of a
// suspension, and its metadata. In the metadata, numbers, booleans, times
// and short strings are logged as they are; parts and results, wherever
// [ToolResult.Redacted] finds them, are described; a data: URL loses its
// payload and other strings are cut at 256 bytes; any other value is logged
// as its type and length.
func (r ToolResult) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, slog.String("output", r.Output), slog.Bool("isError", r.IsError))
	if len(r.Parts) > 0 {
		attrs = append(attrs, slog.Attr{Key: "parts", Value: metadataLogValue(r.Parts)})
	}
	if req, ok := PendingOf(r); ok {
		attrs = append(attrs, slog.Any(MetadataPending, req))
	}
	if len(r.Metadata) > 0 {
		meta := make([]slog.Attr, 0, len(r.Metadata))
		for _, k := range slices.Sorted(maps.Keys(r.Metadata)) {
			if k != MetadataPending {
				meta = append(meta, slog.Attr{Key: k, Value: metadataLogValue(r.Metadata[k])})
			}
		}
		if len(meta) > 0 {
			attrs = append(attrs, slog.Attr{Key: "metadata", Value: slog.GroupValue(meta...)})
		}
	}
	return slog.GroupValue(attrs...)
}

// maxLoggedString is the longest metadata string logged whole.
const maxLoggedString = 256

// logString is a metadata string as it is logged or printed: quoted, a data
// URL without its payload, and cut at maxLoggedString bytes.
func logString(s string) string {
	switch {
	case isDataURL(s):
		return strconv.Quote(redactDataURL(s))
	case len(s) > maxLoggedString:
		return strconv.Quote(s[:maxLoggedString]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.Quote(s)
}

// metadataLogValue logs a metadata value without any payload it may carry.
func metadataLogValue(v any) slog.Value {
	switch v := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration:
		return slog.AnyValue(v)
	case string:
		if isDataURL(v) {
			return slog.StringValue(redactDataURL(v))
		}
		if len(v) > maxLoggedString {
			return slog.StringValue(v[:maxLoggedString] + "… (" + strconv.Itoa(len(v)) + " bytes)")
		}
		return slog.StringValue(v)
	case map[string]any:
		if looksLikePart(v) {
			mimeType, _ := v["mimeType"].(string)
			data, _ := v["data"].(string)
			return ContentPart{Type: PartType(fmt.Sprint(v["type"])), MIMEType: mimeType, Data: data}.LogValue()
		}
	case slog.LogValuer:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return slog.StringValue(fmt.Sprintf("%T(nil)", v))
		}
		return v.LogValue()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if rv.Len() <= maxLoggedItems && holdsParts(rv) {
			return itemsLogValue(rv)
		}
		return slog.StringValue(fmt.Sprintf("%T (len %d)", v, rv.Len()))
	case reflect.String:
		return metadataLogValue(rv.String())
	case reflect.Pointer:
		if !rv.IsNil() && holdsParts(rv) {
			return metadataLogValue(rv.Elem().Interface())
		}
	}
	return slog.StringValue(fmt.Sprintf("%T", v))
}

// maxLoggedItems is the most items of a slice or map of parts logged one by
// one.
const maxLoggedItems = 64

// holdsParts reports whether v holds parts or results, as the value or the
// elements of a slice, array or map.
func holdsParts(v reflect.Value) bool {
	t := v.Type()
	if t.Kind() != reflect.Pointer {
		t = t.Elem()
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == partType || t == resultType {
		return true
	}
	_, changed := redact(v, 0)
	return changed
}

// itemsLogValue logs each item of a slice, array or map as a metadata value.
func itemsLogValue(v reflect.Value) slog.Value {
	attrs := make([]slog.Attr, 0, v.Len())
	if v.Kind() == reflect.Map {
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			attrs = append(attrs, slog.Attr{Key: fmt.Sprint(k), Value: metadataLogValue(v.MapIndex(k).Interface())})
		}
		return slog.GroupValue(attrs...)
	}
	for i := range v.Len() {
		attrs = append(attrs, slog.Attr{Key: strconv.Itoa(i), Value: metadataLogValue(v.Index(i).Interface())})
	}
	return slog.GroupValue(attrs...)
}
