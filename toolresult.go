package toolnexus

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
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
// keys exactly, limits the input and validates what it read (BENCH.md's
// BenchmarkReadResult measures it next to json.Unmarshal). json.Unmarshal
// itself keeps encoding/json's keys: an UnmarshalJSON method would add to
// the two scans encoding/json makes of the input.
//
// Metadata's values come back from JSON as encoding/json decodes into any:
// a number is a float64, an object a map[string]any, a list a []any, so a
// host reads a count it wrote as an int back as a float64.
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

// EstimatedTokens returns the toolnexus estimate of the tokens r costs a
// model, the same in every port: a quarter of its Output's length, in
// UTF-16 code units, rounded down, plus each part's
// [ContentPart.EstimatedTokens]. It is what compaction and a budget that
// cannot run a model's tokenizer go by.
func (r ToolResult) EstimatedTokens() int {
	n := utf16Len(r.Output) / 4
	for _, p := range r.Parts {
		n += p.EstimatedTokens()
	}
	return n
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
func (r ToolResult) Validate() error { return r.validate(nil) }

// validate is Validate for a result whose i'th part's data is known to be
// canonical base64 when canonical[i] is true.
func (r ToolResult) validate(canonical []bool) error {
	if err := validatePendingMore(r.Metadata); err != nil {
		return err
	}
	for i, p := range r.Parts {
		if err := p.validate(i < len(canonical) && canonical[i]); err != nil {
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
// from JSON that have the shape of a part and every member of those, the
// payloads of the MCP and provider values ([MCPContent], …), and strings
// holding a data: URL. Raw JSON ([json.RawMessage]) and any value that
// writes its own JSON (a [json.Marshaler] or [encoding.TextMarshaler], such
// as a type that marshals a part it keeps unexported) are taken as the JSON
// they write: read with exact keys, redacted as objects decoded from JSON
// are, and written again as a json.RawMessage (keys sorted, numbers as
// written) where one fits, else dropped (its type's zero value); one that
// holds no payload is kept as it is, and JSON that cannot be read, or a
// value whose MarshalJSON fails, becomes a JSON string describing it,
// "[json.RawMessage: not JSON, 26 bytes]". A value nested in place, with
// no map, slice or pointer between, more than 10 000 levels deep is
// dropped. A value reached twice, along a cycle or two
// paths, is copied once, so the copy links as r does, and the cost is linear
// in the number of distinct values. The copy shares nothing that it changes
// with r.
func (r ToolResult) Redacted() ToolResult {
	return r.redacted()
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
			b = append(b, msg.Printable(k)...)
		}
		b = append(b, ']')
	}
	if req, ok := PendingOf(r); ok {
		b = append(b, " pending="...)
		b = append(b, msg.Printable(req.Kind)...)
		b = append(b, ':')
		b = append(b, msg.Printable(req.ID)...)
	}
	return string(b)
}

// GoString returns a Go-syntax form of r for %#v in which each part's data
// is replaced by its size and each metadata value that is not a number, a
// boolean, a string, a time, a part or a result by its type (and length).
func (r ToolResult) GoString() string {
	var w walk
	return r.goString(&w, 0)
}

// Format prints r for every verb without part data: %#v is
// [ToolResult.GoString], %q the quoted [ToolResult.String], every other verb
// the String.
func (r ToolResult) Format(f fmt.State, verb rune) {
	wire.Format(f, verb, r)
}

// LogValue implements [slog.LogValuer]. A result logs as a group of its
// output, error flag, parts (described, never their data), the Request of a
// suspension, and its metadata. In the metadata, numbers, booleans, times
// and short strings are logged as they are; parts and results, wherever
// [ToolResult.Redacted] finds them, are described; a data: URL loses its
// payload and other strings are cut at 256 bytes; any other value is logged
// as its type and length. A map, slice or pointer met a second time, along a
// cycle or another path, is logged as its type and "seen above".
func (r ToolResult) LogValue() slog.Value {
	var w walk
	return r.logValue(&w, 0)
}
