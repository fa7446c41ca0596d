// Package toolnexus holds what an LLM tool call returns: a [ToolResult] with
// the text the model reads next, whether the call failed, optional non-text
// [ContentPart] values such as images, PDFs and audio, and metadata for the
// host's code. A tool that cannot finish until something happens out of band,
// such as a login, an approval or an answer from a person, returns a
// suspension built by [Pending]; the host reads it back with [PendingOf],
// even after the result has been stored as JSON and read by another process.
// The types are plain values whose JSON is the one every toolnexus port and
// the MCP content blocks speak.
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
// value is a Request that passes [Request.Validate].
func (r ToolResult) Validate() error {
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
// name but loses its data, and the metadata key [MetadataRedacted] lists, part
// by part, the description of what was there, with the SHA-256 of the content
// for parts that had data ("image (image/png, 82 bytes) sha256:e050…"). Parts
// stored as metadata values (a ContentPart, a *ContentPart or a []ContentPart)
// lose their data too, and a ToolResult stored there is redacted in turn; a
// part decoded from JSON into a map is not recognised. The copy shares nothing
// that it changes with r.
func (r ToolResult) Redacted() ToolResult {
	out := r
	cloned := false
	if r.Parts != nil {
		out.Parts = make([]ContentPart, len(r.Parts))
		notes := make([]string, len(r.Parts))
		for i, p := range r.Parts {
			notes[i] = p.String()
			if p.Data != "" {
				if sum, err := p.SHA256(); err == nil {
					notes[i] += " sha256:" + hex.EncodeToString(sum[:])
				} else {
					notes[i] += " (invalid base64)"
				}
				p.Data = ""
			}
			out.Parts[i] = p
		}
		out = out.WithMetadata(MetadataRedacted, notes)
		cloned = true
	}
	for k, v := range r.Metadata {
		var red any
		switch v := v.(type) {
		case ContentPart:
			v.Data = ""
			red = v
		case *ContentPart:
			if v == nil {
				continue
			}
			c := *v
			c.Data = ""
			red = &c
		case ToolResult:
			red = v.Redacted()
		case []ContentPart:
			parts := slices.Clone(v)
			for i := range parts {
				parts[i].Data = ""
			}
			red = parts
		default:
			continue
		}
		if !cloned {
			out.Metadata = maps.Clone(r.Metadata)
			cloned = true
		}
		out.Metadata[k] = red
	}
	return out
}

// String describes r for people without any part data: its status, its
// output quoted, a description of each part, its metadata keys and, for a
// suspension, the kind and id of the Request:
//
//	ok "fixture.png (image/png, 82 bytes)" parts=[image (image/png, 82 bytes)]
//	error "Which environment?" metadata=[pending] pending=input:req-1
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
		b = append(b, strings.Join(slices.Sorted(maps.Keys(r.Metadata)), " ")...)
		b = append(b, ']')
	}
	if req, ok := PendingOf(r); ok {
		b = append(b, " pending="...)
		b = append(b, req.Kind...)
		b = append(b, ':')
		b = append(b, req.ID...)
	}
	return string(b)
}

// GoString returns a Go-syntax form of r for %#v in which each part's data
// is replaced by its size.
func (r ToolResult) GoString() string {
	return fmt.Sprintf("toolnexus.ToolResult{Output:%q, IsError:%t, Parts:%#v, Metadata:%#v}",
		r.Output, r.IsError, r.Parts, r.Metadata)
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
// suspension, and its metadata, in which numbers, booleans, times and short
// strings are logged as they are, parts and results are described, strings
// are cut at 256 bytes and any other value is logged as its type and length.
func (r ToolResult) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, slog.String("output", r.Output), slog.Bool("isError", r.IsError))
	if len(r.Parts) > 0 {
		attrs = append(attrs, slog.Attr{Key: "parts", Value: partsLogValue(r.Parts)})
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

func partsLogValue(parts []ContentPart) slog.Value {
	attrs := make([]slog.Attr, len(parts))
	for i, p := range parts {
		attrs[i] = slog.Attr{Key: strconv.Itoa(i), Value: p.LogValue()}
	}
	return slog.GroupValue(attrs...)
}

// maxLoggedString is the longest metadata string logged whole.
const maxLoggedString = 256

// metadataLogValue logs a metadata value without any payload it may carry.
func metadataLogValue(v any) slog.Value {
	switch v := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration:
		return slog.AnyValue(v)
	case string:
		if len(v) > maxLoggedString {
			return slog.StringValue(v[:maxLoggedString] + "… (" + strconv.Itoa(len(v)) + " bytes)")
		}
		return slog.StringValue(v)
	case []ContentPart:
		return partsLogValue(v)
	case slog.LogValuer:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return slog.StringValue(fmt.Sprintf("%T(nil)", v))
		}
		return v.LogValue()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return slog.StringValue(fmt.Sprintf("%T (len %d)", v, rv.Len()))
	}
	return slog.StringValue(fmt.Sprintf("%T", v))
}
