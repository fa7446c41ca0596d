package toolnexus

import (
	"bytes"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// This file holds the walk behind what a value shows when it is printed,
// logged or redacted (each type's String, GoString, Format and LogValue sit
// beside its declaration and call it): no payload, wherever a caller put
// it, and no walk that fails to end, however the values are linked.
//
// Metadata is walked by a [walk]. Values reached through a reference (a map,
// a slice or a pointer) are remembered by their address, so that a value
// reached twice, along a cycle or along two paths, is looked at once: the
// walk costs time and memory linear in the number of distinct values.
// References are followed from a list, not from the Go stack, so that
// metadata nested as deeply as [ParseToolResult] reads it (or deeper) is
// walked whole. Only values nested in place, with no address (a struct in an
// interface in a struct…), are followed on the Go stack, maxInline deep; a
// value nested deeper is dropped by Redacted and described by LogValue, never
// shown.

var (
	partType   = reflect.TypeFor[ContentPart]()
	resultType = reflect.TypeFor[ToolResult]()
	objectType = reflect.TypeFor[map[string]any]()
	rawType    = reflect.TypeFor[json.RawMessage]()
	timeType   = reflect.TypeFor[time.Time]()
)

// A value that writes its own JSON (raw JSON, a [json.Marshaler], an
// [encoding.TextMarshaler]) may hold a payload the walk cannot see in its
// fields: a part's base64 in the messages a loop stores as raw JSON, or a
// type that marshals a part it keeps unexported. The walk takes such a value
// as the JSON it writes: read with the exact-key reader of json.go, checked
// and redacted as JSON-decoded metadata is, and written again
// (redactMarshaled). JSON that cannot be read, or a value that fails to
// write its JSON, is replaced by a description of it, never kept.

// writesJSON reports whether a value of type t writes its own JSON, so that
// the walk takes it as that JSON. Times write a timestamp, and the types of
// the package are walked by their fields.
func writesJSON(t reflect.Type) bool {
	if t.NumMethod() == 0 || t == timeType || t == partType || t == resultType {
		return false
	}
	if t.Kind() == reflect.Pointer && t.Elem() == timeType {
		return false
	}
	return t.Implements(reflect.TypeFor[json.Marshaler]()) || t.Implements(reflect.TypeFor[encoding.TextMarshaler]())
}

// ownJSON returns the JSON v writes, and false when it writes none: raw
// JSON as it is, any other value as json.Marshal writes it, a panic of its
// method caught.
func ownJSON(v reflect.Value) (b []byte, ok bool) {
	if v.Type() == rawType {
		return v.Bytes(), true
	}
	if !v.CanInterface() {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			b, ok = nil, false
		}
	}()
	b, err := json.Marshal(v.Interface())
	return b, err == nil
}

// readOwnJSON returns the JSON v writes, read, and whether it is JSON. A
// nil or empty json.RawMessage holds nothing: it is null.
func readOwnJSON(v reflect.Value) (any, bool) {
	b, ok := ownJSON(v)
	switch {
	case !ok:
		return nil, false
	case len(b) == 0 && v.Type() == rawType:
		return nil, true
	}
	return readRawJSON(b)
}

// ownJSONHolds reports whether the JSON v writes holds a payload, or is
// not JSON, which Redacted replaces.
func ownJSONHolds(v reflect.Value) bool {
	decoded, ok := readOwnJSON(v)
	if !ok {
		return true
	}
	var sub walk
	return sub.holds(reflect.ValueOf(decoded))
}

// redactMarshaled returns the JSON v writes without its payloads, as raw
// JSON, and true; or false when that JSON holds none. JSON that cannot be
// read, or a value that fails to write its JSON, is a JSON string that
// describes it.
func redactMarshaled(v reflect.Value) (json.RawMessage, bool) {
	decoded, ok := readOwnJSON(v)
	if !ok {
		return notJSONDescription(v), true
	}
	var sub walk
	dv := reflect.ValueOf(decoded)
	if !sub.holds(dv) {
		return nil, false
	}
	red, _ := sub.redact(dv, 0)
	sub.fillAll()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(red.Interface()); err != nil {
		return notJSONDescription(v), true
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}

// notJSONDescription describes v, which writes no JSON that can be read,
// as a JSON string: "[json.RawMessage: not JSON, 5 bytes]", "[*pkg.T: no
// JSON]".
func notJSONDescription(v reflect.Value) json.RawMessage {
	d := fmt.Sprintf("[%s: no JSON]", typeName(v.Type()))
	if v.Type() == rawType {
		d = fmt.Sprintf("[%s: not JSON, %d bytes]", typeName(v.Type()), v.Len())
	}
	b, _ := json.Marshal(d)
	return b
}

// redactOwnJSON is redact for v, a value that writes its own JSON, which
// is replaced, in a place of its type, by the zero value when it holds a
// payload (raw JSON by itself redacted); or, in an interface of type to
// that raw JSON satisfies, by that JSON redacted.
func redactOwnJSON(v reflect.Value, to reflect.Type) (reflect.Value, bool) {
	raw, changed := redactMarshaled(v)
	switch {
	case !changed:
		return v, false
	case to == rawType || to.Kind() == reflect.Interface && rawType.Implements(to):
		c := reflect.New(to).Elem()
		c.Set(reflect.ValueOf(raw))
		return c, true
	}
	return reflect.Zero(to), true
}

// maxInline is how deeply the walk follows values nested in place.
const maxInline = jsonscan.MaxDepth

// redactDataURL cuts the payload off a data URL: "data:image/png;base64,…".
func redactDataURL(u string) string {
	meta, _, _ := strings.Cut(u, ",")
	h, t := msg.Cut(meta, maxShown)
	return h + t + ",…"
}

// printedURL is u as a part prints it: a data URL, which was put wrongly in
// URL, without its payload.
func printedURL(u string) string {
	if isDataURL(u) {
		return redactDataURL(u)
	}
	return u
}

// withoutPayload returns p without its data, or a data: URL in its URL.
func (p ContentPart) withoutPayload() ContentPart {
	p.Data = ""
	if isDataURL(p.URL) {
		p.URL = ""
	}
	return p
}

// hasPayload reports whether p holds data or a data URL.
func (p ContentPart) hasPayload() bool {
	return p.Data != "" || isDataURL(p.URL)
}

// looksLikePart reports whether m, an object decoded from JSON, is a part
// holding a payload: a "type" of image, file or audio with data or a data:
// URL.
func looksLikePart(m map[string]any) bool {
	switch m["type"] {
	case string(PartImage), string(PartFile), string(PartAudio):
	default:
		return false
	}
	_, hasData := m["data"]
	return hasData || isDataURLValue(m["url"])
}

func isDataURLValue(v any) bool {
	s, ok := v.(string)
	return ok && isDataURL(s)
}

// ref names a value that may be reached more than once: a map, a non-empty
// slice (its first element and length) or a pointer, with its type. A
// result's metadata, redacted with the notes of its parts, is named by the
// result type, the map and the parts.
type ref struct {
	t    reflect.Type
	p, q uintptr
	n    int
}

func refOf(v reflect.Value) (ref, bool) {
	switch v.Kind() {
	case reflect.Map, reflect.Pointer:
		if v.IsNil() {
			return ref{}, false
		}
		return ref{t: v.Type(), p: v.Pointer()}, true
	case reflect.Slice:
		if v.Len() == 0 {
			return ref{}, false
		}
		return ref{t: v.Type(), p: v.Pointer(), n: v.Len()}, true
	}
	return ref{}, false
}

// node is what a walk knows of a reference.
type node struct {
	holds   bool    // a payload can be reached from it
	direct  bool    // it holds a payload, or a reference that holds one, in place
	scanned bool    // its scan has ended: holds is final
	parents []*node // while it is scanned, the nodes that reach it
}

// fill is a copy made by a walk, to fill from the value it copies.
type fill struct {
	from, to reflect.Value
	notes    []string // for the metadata of a result, what its parts were
}

// walk walks metadata for one call of Redacted, LogValue or GoString. Its
// zero value is ready to use and allocates nothing until it meets a
// reference.
type walk struct {
	nodes  map[ref]*node
	types  map[reflect.Type]bool
	fresh  []*node         // the nodes found by the scan under way
	todo   []reflect.Value // references found and not yet scanned
	todoN  []*node
	copies map[ref]reflect.Value
	fills  []fill
	first  ref          // the first reference logged or printed
	shown  map[ref]bool // the others
}

// holds reports whether a payload can be reached from v. Every reference it
// meets is scanned once, for all the calls of a walk.
func (w *walk) holds(v reflect.Value) bool {
	root := &node{}
	w.fresh = append(w.fresh[:0], root)
	w.inline(v, root, 0)
	for len(w.todo) > 0 {
		i := len(w.todo) - 1
		rv, n := w.todo[i], w.todoN[i]
		w.todo, w.todoN = w.todo[:i], w.todoN[:i]
		w.contents(rv, n)
	}
	var queue []*node
	for _, n := range w.fresh {
		if n.direct {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if !n.holds {
			n.holds = true
			queue = append(queue, n.parents...)
		}
	}
	for _, n := range w.fresh {
		n.scanned, n.parents = true, nil
	}
	return root.holds
}

// inline scans v, a value held in place by n.
func (w *walk) inline(v reflect.Value, n *node, depth int) {
	if !v.IsValid() || !w.mayHold(v.Type()) {
		return
	}
	if depth > maxInline {
		n.direct = true // too deep to tell: counted as holding a payload
		return
	}
	switch v.Type() {
	case partType:
		if v.Interface().(ContentPart).hasPayload() {
			n.direct = true
		}
		return
	case resultType:
		n.direct = true
		w.edge(n, reflect.ValueOf(v.Interface().(ToolResult).Metadata))
		return
	}
	if writesJSON(v.Type()) {
		if ownJSONHolds(v) {
			n.direct = true
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		if isDataURL(v.String()) {
			n.direct = true
		}
	case reflect.Interface:
		if !v.IsNil() {
			w.inline(v.Elem(), n, depth+1)
		}
	case reflect.Pointer, reflect.Map, reflect.Slice:
		w.edge(n, v)
	case reflect.Array:
		for i := range v.Len() {
			w.inline(v.Index(i), n, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			switch {
			case isDropped(v.Type(), i, v.Field(i)):
				n.direct = true
			case v.Type().Field(i).IsExported():
				w.inline(v.Field(i), n, depth+1)
			}
		}
	}
}

// edge records that from reaches the reference v.
func (w *walk) edge(from *node, v reflect.Value) {
	r, ok := refOf(v)
	if !ok {
		return
	}
	if w.nodes == nil {
		w.nodes = map[ref]*node{}
	}
	n := w.nodes[r]
	if n == nil {
		n = &node{}
		w.nodes[r] = n
		w.fresh = append(w.fresh, n)
		w.todo, w.todoN = append(w.todo, v), append(w.todoN, n)
	}
	if n.scanned {
		from.direct = from.direct || n.holds
		return
	}
	n.parents = append(n.parents, from)
}

// contents scans what the reference v, known as n, refers to.
func (w *walk) contents(v reflect.Value, n *node) {
	switch v.Kind() {
	case reflect.Pointer:
		w.inline(v.Elem(), n, 0)
	case reflect.Slice:
		for i := range v.Len() {
			w.inline(v.Index(i), n, 0)
		}
	case reflect.Map:
		if v.Type() == objectType && looksLikePart(v.Interface().(map[string]any)) {
			n.direct = true
		}
		stringKeys := v.Type().Key().Kind() == reflect.String
		for it := v.MapRange(); it.Next(); {
			if stringKeys && isDataURL(it.Key().String()) {
				n.direct = true
			}
			w.inline(it.Value(), n, 0)
		}
	}
}

// mayHold reports whether a value of type t can hold a payload: a string or
// an interface, in place or behind exported fields, elements and
// references.
func (w *walk) mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if t.NumMethod() == 0 {
			return false
		}
	}
	if h, ok := w.types[t]; ok {
		return h
	}
	h := typeMayHold(t, map[reflect.Type]bool{})
	if w.types == nil {
		w.types = map[reflect.Type]bool{}
	}
	w.types[t] = h
	return h
}

func typeMayHold(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // another path decides
	}
	seen[t] = true
	if writesJSON(t) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return typeMayHold(t.Elem(), seen)
	case reflect.Map:
		return typeMayHold(t.Key(), seen) || typeMayHold(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && typeMayHold(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// redacted returns r without payloads, as [ToolResult.Redacted] documents.
func (r ToolResult) redacted() ToolResult {
	var w walk
	w.holds(reflect.ValueOf(r))
	out := w.result(r)
	w.fillAll()
	return out
}

// fillAll fills every copy the walk has made.
func (w *walk) fillAll() {
	for len(w.fills) > 0 {
		f := w.fills[len(w.fills)-1]
		w.fills = w.fills[:len(w.fills)-1]
		w.fill(f)
	}
}

// result returns r redacted; its metadata is filled later.
func (w *walk) result(r ToolResult) ToolResult {
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
	switch {
	case r.Metadata == nil && notes == nil:
		return out
	case r.Metadata == nil:
		out.Metadata = map[string]any{MetadataRedacted: notes}
		return out
	}
	var parts uintptr
	if len(r.Parts) > 0 {
		parts = reflect.ValueOf(r.Parts).Pointer()
	}
	key := ref{t: resultType, p: reflect.ValueOf(r.Metadata).Pointer(), q: parts, n: len(r.Parts)}
	if c, ok := w.copies[key]; ok {
		out.Metadata = c.Interface().(map[string]any)
		return out
	}
	out.Metadata = make(map[string]any, len(r.Metadata)+1)
	c := reflect.ValueOf(out.Metadata)
	w.copy(key, c, fill{from: reflect.ValueOf(r.Metadata), to: c, notes: notes})
	return out
}

// copy remembers c, the copy named key, to fill as f says.
func (w *walk) copy(key ref, c reflect.Value, f fill) {
	if w.copies == nil {
		w.copies = map[ref]reflect.Value{}
	}
	w.copies[key] = c
	w.fills = append(w.fills, f)
}

// redact returns v without the payloads it holds and true, or v and false
// when it holds none. Only what changes is copied; a reference is copied
// once, and filled later.
func (w *walk) redact(v reflect.Value, depth int) (reflect.Value, bool) {
	if !v.IsValid() || !w.mayHold(v.Type()) {
		return v, false
	}
	if depth > maxInline {
		return reflect.Zero(v.Type()), true
	}
	switch v.Type() {
	case partType:
		p := v.Interface().(ContentPart)
		if !p.hasPayload() {
			return v, false
		}
		return reflect.ValueOf(p.withoutPayload()), true
	case resultType:
		return reflect.ValueOf(w.result(v.Interface().(ToolResult))), true
	}
	if writesJSON(v.Type()) {
		return redactOwnJSON(v, v.Type())
	}
	switch v.Kind() {
	case reflect.String:
		if !isDataURL(v.String()) {
			return v, false
		}
		c := reflect.New(v.Type()).Elem()
		c.SetString(redactDataURL(v.String()))
		return c, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		if e := v.Elem(); writesJSON(e.Type()) {
			if c, changed := redactOwnJSON(e, v.Type()); changed {
				return c, true
			}
			return v, false
		}
		e, changed := w.redact(v.Elem(), depth+1)
		if !changed {
			return v, false
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(e)
		return c, true
	case reflect.Pointer, reflect.Map, reflect.Slice:
		return w.redactRef(v)
	case reflect.Array, reflect.Struct:
		// Copied on the first element or exported field that changes.
		var c reflect.Value
		n, elem := v.Len, v.Index
		if v.Kind() == reflect.Struct {
			n, elem = v.NumField, v.Field
		}
		for i := range n() {
			if v.Kind() == reflect.Struct && !v.Type().Field(i).IsExported() {
				continue
			}
			e, changed := w.redact(elem(i), depth+1)
			if v.Kind() == reflect.Struct && isDropped(v.Type(), i, e) {
				e, changed = reflect.Zero(e.Type()), true // a wire value's payload
			}
			if !changed {
				continue
			}
			if !c.IsValid() {
				c = reflect.New(v.Type()).Elem()
				c.Set(v)
			}
			if v.Kind() == reflect.Struct {
				c.Field(i).Set(e)
			} else {
				c.Index(i).Set(e)
			}
		}
		if !c.IsValid() {
			return v, false
		}
		return c, true
	}
	return v, false
}

// redactRef returns the copy of the reference v, empty until it is filled,
// when it holds a payload.
func (w *walk) redactRef(v reflect.Value) (reflect.Value, bool) {
	r, ok := refOf(v)
	if !ok {
		return v, false
	}
	if n := w.nodes[r]; n != nil && !n.holds {
		return v, false
	} // a reference the scan did not meet is copied, to be safe
	if c, ok := w.copies[r]; ok {
		return c, true
	}
	var c reflect.Value
	switch v.Kind() {
	case reflect.Pointer:
		c = reflect.New(v.Type().Elem()).Convert(v.Type())
	case reflect.Slice:
		c = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
	default:
		c = reflect.MakeMapWithSize(v.Type(), v.Len())
	}
	w.copy(r, c, fill{from: v, to: c})
	return c, true
}

// fill fills a copy from the value it copies, redacted.
func (w *walk) fill(f fill) {
	switch f.from.Kind() {
	case reflect.Pointer:
		e, _ := w.redact(f.from.Elem(), 0)
		f.to.Elem().Set(e)
	case reflect.Slice:
		for i := range f.from.Len() {
			e, _ := w.redact(f.from.Index(i), 0)
			f.to.Index(i).Set(e)
		}
	case reflect.Map:
		part := f.notes == nil && f.from.Type() == objectType && looksLikePart(f.from.Interface().(map[string]any))
		for it := f.from.MapRange(); it.Next(); {
			k, v := it.Key(), it.Value()
			if part && (k.String() == "data" || k.String() == "url" && isDataURLValue(v.Interface())) {
				continue
			}
			if k.Kind() == reflect.String && isDataURL(k.String()) {
				c := reflect.New(k.Type()).Elem()
				c.SetString(redactDataURL(k.String()))
				k = c
			}
			e, _ := w.redact(v, 0)
			f.to.SetMapIndex(k, e)
		}
		if f.notes != nil {
			f.to.SetMapIndex(reflect.ValueOf(MetadataRedacted), reflect.ValueOf(f.notes))
		}
	}
}

// wireTypes are the wire types of the package: structs whose fields print
// as they are but for those tagged toolnexus:"payload" (base64, a data
// URL, JSON a tool returned), which print as their size. They are
// registered with internal/wire, where the packages beside this one
// register theirs, and where their print methods find showWire and
// logWire.
var wireTypes = []reflect.Type{
	reflect.TypeFor[MCPCallToolResult](),
	reflect.TypeFor[MCPInputRequest](),
	reflect.TypeFor[MCPContent](),
	reflect.TypeFor[MCPResource](),
	reflect.TypeFor[MCPElicitParams](),
	reflect.TypeFor[MCPElicitResult](),
	reflect.TypeFor[AnthropicToolResultBlock](),
	reflect.TypeFor[AnthropicContentBlock](),
	reflect.TypeFor[AnthropicSource](),
	reflect.TypeFor[OpenAIChatMessage](),
	reflect.TypeFor[OpenAIChatContentPart](),
	reflect.TypeFor[OpenAIImageURL](),
	reflect.TypeFor[OpenAIFile](),
	reflect.TypeFor[OpenAIInputAudio](),
	reflect.TypeFor[OpenAIFunctionCallOutput](),
	reflect.TypeFor[OpenAIResponsesContent](),
	reflect.TypeFor[GeminiFunctionResponse](),
	reflect.TypeFor[GeminiFunctionResponsePart](),
	reflect.TypeFor[GeminiBlob](),
	reflect.TypeFor[GeminiFileData](),
	reflect.TypeFor[AnthropicMessage](),
	reflect.TypeFor[GeminiContent](),
	reflect.TypeFor[GeminiPart](),
	reflect.TypeFor[Turn](),
	reflect.TypeFor[ToolCall](),
	reflect.TypeFor[OpenAIAgentsToolResult](),
	reflect.TypeFor[OpenAIAgentsContent](),
	reflect.TypeFor[Wait](),
	reflect.TypeFor[Request](),
	reflect.TypeFor[Answer](),
}

func init() {
	for _, t := range wireTypes {
		wire.Register(t)
	}
	wire.Show, wire.Log = showWire, logWire
}

// redactedInside names the payload fields of wire types that print as their
// size but that Redacted keeps, with the payloads in them redacted: the
// Data of a Request or an Answer, which a suspension needs (an
// elicitation's schema) and which holds parts only where it holds them.
var redactedInside = map[reflect.Type]string{
	reflect.TypeFor[Request](): "Data",
	reflect.TypeFor[Answer]():  "Data",
}

// isDropped reports whether Redacted drops the i'th field of the struct
// type t, a payload it does not redact in place.
func isDropped(t reflect.Type, i int, v reflect.Value) bool {
	return isPayload(t, i, v) && redactedInside[t] != t.Field(i).Name
}

// isPayload reports whether the i'th field of the struct type t holds a
// payload: a field tagged toolnexus:"payload" whose value (a string, raw JSON,
// bytes, a Data map, keys) is not empty, other than an http(s) URL.
func isPayload(t reflect.Type, i int, v reflect.Value) bool {
	names, _ := wire.Payloads(t)
	if names == nil || !slices.Contains(names, t.Field(i).Name) || v.IsZero() {
		return false
	}
	return v.Kind() != reflect.String || !webURL(v.String())
}

// isWire reports whether t is a wire type, which internal/wire names.
func isWire(t reflect.Type) bool {
	_, ok := wire.Payloads(t)
	return ok
}
