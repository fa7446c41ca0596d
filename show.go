package toolnexus

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// This file holds everything about what a value shows when it is printed,
// logged or redacted: no payload, wherever a caller put it, and no walk that
// fails to end, however the values are linked.
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
)

// maxInline is how deeply the walk follows values nested in place.
const maxInline = jsonscan.MaxDepth

// maxShown is the longest string logged or printed whole.
const maxShown = 256

// maxItems is the most items of a slice or map of parts logged or printed
// one by one.
const maxItems = 64

// shownString is a metadata string as it is logged: a data URL without its
// payload, and cut at maxShown bytes.
func shownString(s string) string {
	if isDataURL(s) {
		return redactDataURL(s)
	}
	h, t := msg.Cut(s, maxShown)
	return h + t
}

// logString is a metadata string as it is printed: quoted, a data URL
// without its payload, and cut at maxShown bytes.
func logString(s string) string {
	if isDataURL(s) {
		return strconv.Quote(redactDataURL(s))
	}
	h, t := msg.Cut(s, maxShown)
	return strconv.Quote(h) + t
}

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
		return false
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
	for len(w.fills) > 0 {
		f := w.fills[len(w.fills)-1]
		w.fills = w.fills[:len(w.fills)-1]
		w.fill(f)
	}
	return out
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

// once reports whether the reference v is shown for the first time by this
// walk, and remembers it. Values that are no reference are always new.
func (w *walk) once(v reflect.Value) bool {
	r, ok := refOf(v)
	if !ok {
		return true
	}
	switch {
	case w.first == r || w.shown[r]:
		return false
	case w.first == ref{}:
		w.first = r // most walks show one reference, the metadata: no map
		return true
	case w.shown == nil:
		w.shown = map[ref]bool{}
	}
	w.shown[r] = true
	return true
}

// seenAbove describes a reference shown already, along a cycle or another path.
func seenAbove(v reflect.Value) slog.Value {
	if v.Kind() == reflect.Pointer {
		return slog.StringValue(fmt.Sprintf("%s (seen above)", v.Type()))
	}
	return slog.StringValue(fmt.Sprintf("%s (len %d, seen above)", v.Type(), v.Len()))
}

// logValue is [ToolResult.LogValue], within a walk.
func (r ToolResult) logValue(w *walk, depth int) slog.Value {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, slog.String("output", r.Output), slog.Bool("isError", r.IsError))
	if len(r.Parts) > 0 {
		attrs = append(attrs, slog.Attr{Key: "parts", Value: w.logValue(r.Parts, depth+1)})
	}
	if req, ok := PendingOf(r); ok {
		attrs = append(attrs, slog.Any(MetadataPending, req))
	}
	if len(r.Metadata) > 0 {
		meta := make([]slog.Attr, 0, len(r.Metadata))
		if !w.once(reflect.ValueOf(r.Metadata)) {
			meta = append(meta, slog.Attr{Key: "metadata", Value: seenAbove(reflect.ValueOf(r.Metadata))})
			return slog.GroupValue(append(attrs, meta...)...)
		}
		for _, k := range msg.SortedKeys(r.Metadata) {
			if k != MetadataPending {
				meta = append(meta, slog.Attr{Key: k, Value: w.logValue(r.Metadata[k], depth+1)})
			}
		}
		if len(meta) > 0 {
			attrs = append(attrs, slog.Attr{Key: "metadata", Value: slog.GroupValue(meta...)})
		}
	}
	return slog.GroupValue(attrs...)
}

// logValue logs a metadata value without any payload it may carry: numbers,
// booleans, times and strings (cut) as they are; parts, results and objects
// shaped like parts described; slices, arrays and maps of at most maxItems
// items that hold parts item by item, and others as their type and length;
// a pointer to a value that holds parts as that value; anything else as its
// type. A reference met a second time, along a cycle or another path, is
// logged as its type and "seen above".
func (w *walk) logValue(v any, depth int) slog.Value {
	switch v := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration:
		return slog.AnyValue(v)
	case string:
		return slog.StringValue(shownString(v))
	case map[string]any:
		if looksLikePart(v) {
			mimeType, _ := v["mimeType"].(string)
			data, _ := v["data"].(string)
			return ContentPart{Type: PartType(shownString(fmt.Sprint(v["type"]))), MIMEType: shownString(mimeType), Data: data}.LogValue()
		}
	case ToolResult:
		if depth <= jsonscan.MaxDepth {
			return v.logValue(w, depth+1)
		}
	case *ToolResult:
		if v == nil {
			return slog.StringValue("*toolnexus.ToolResult(nil)")
		}
		if !w.once(reflect.ValueOf(v)) {
			return seenAbove(reflect.ValueOf(v))
		}
		if depth <= jsonscan.MaxDepth {
			return v.logValue(w, depth+1)
		}
	case slog.LogValuer:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			return slog.StringValue(fmt.Sprintf("%T(nil)", v))
		}
		if isWire(rv.Type()) || rv.Kind() == reflect.Pointer && isWire(rv.Type().Elem()) {
			// Logged by this walk, which bounds values that hold
			// results that hold them.
			return w.wireLogValue(rv, depth)
		}
		return v.LogValue()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if depth <= jsonscan.MaxDepth && rv.Len() <= maxItems && w.holdsParts(rv) {
			// Parts hold no reference: a slice of them, logged twice, is
			// logged twice at the same cost.
			if rv.Type().Elem() != partType && !w.once(rv) {
				return seenAbove(rv)
			}
			return w.itemsLogValue(rv, depth)
		}
		return slog.StringValue(fmt.Sprintf("%T (len %d)", v, rv.Len()))
	case reflect.String:
		return slog.StringValue(shownString(rv.String()))
	case reflect.Pointer:
		if depth <= jsonscan.MaxDepth && !rv.IsNil() && w.holdsParts(rv) {
			if !w.once(rv) {
				return seenAbove(rv)
			}
			return w.logValue(rv.Elem().Interface(), depth+1)
		}
	}
	return slog.StringValue(fmt.Sprintf("%T", v))
}

// holdsParts reports whether v holds parts or results, as the value or the
// elements of a slice, array or map, or any payload.
func (w *walk) holdsParts(v reflect.Value) bool {
	t := v.Type()
	if t.Kind() != reflect.Pointer {
		t = t.Elem()
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t == partType || t == resultType || w.holds(v)
}

// itemsLogValue logs each item of a slice, array or map as a metadata value.
func (w *walk) itemsLogValue(v reflect.Value, depth int) slog.Value {
	attrs := make([]slog.Attr, 0, v.Len())
	if v.Kind() == reflect.Map {
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			attrs = append(attrs, slog.Attr{Key: shownString(fmt.Sprint(k)), Value: w.logValue(v.MapIndex(k).Interface(), depth+1)})
		}
		return slog.GroupValue(attrs...)
	}
	for i := range v.Len() {
		attrs = append(attrs, slog.Attr{Key: strconv.Itoa(i), Value: w.logValue(v.Index(i).Interface(), depth+1)})
	}
	return slog.GroupValue(attrs...)
}

// goString is [ToolResult.GoString], within a walk.
func (r ToolResult) goString(w *walk, depth int) string {
	b := fmt.Appendf(nil, "toolnexus.ToolResult{Output:%q, IsError:%t, Parts:%#v, Metadata:", r.Output, r.IsError, r.Parts)
	switch {
	case r.Metadata == nil:
		b = append(b, "map[string]interface {}(nil)"...)
	case depth > jsonscan.MaxDepth || !w.once(reflect.ValueOf(r.Metadata)):
		b = fmt.Appendf(b, "map[string]interface {}(len %d)", len(r.Metadata))
	default:
		b = append(b, "map[string]interface {}{"...)
		for i, k := range msg.SortedKeys(r.Metadata) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%q:%s", k, w.goValue(r.Metadata[k], depth+1))
		}
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// goValue returns the Go syntax of a metadata value for GoString, or its
// type when it may hold a payload the package cannot see.
func (w *walk) goValue(v any, depth int) string {
	switch v := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration, ContentPart:
		return fmt.Sprintf("%#v", v)
	case ToolResult:
		return v.goString(w, depth)
	case *ContentPart:
		if v != nil {
			return "&" + v.GoString()
		}
	case *ToolResult:
		if v != nil && w.once(reflect.ValueOf(v)) {
			return "&" + v.goString(w, depth)
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

// The wire types ([MCPCallToolResult], [AnthropicContentBlock], …) print and
// log as their exported fields, with every payload replaced by its size, and
// Redacted drops their payloads. A new wire type gets an entry in
// wirePayloads naming its payload fields (none is an entry too) and one
// small method set:
//
//	func (v T) String() string                { return showWire(v, false) }
//	func (v T) GoString() string              { return showWire(v, true) }
//	func (v T) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }
//	func (v T) LogValue() slog.Value          { return logWire(v) }
//
// The methods have value receivers and json.Marshal uses none of them, so
// the JSON of a wire value is unchanged. A field whose value is a wire
// value, a part or a slice or map of them is shown by its own methods; a
// string is quoted and cut (a data URL loses its payload); raw JSON and
// bytes show their length; any other value its type.

// wirePayloads names, for each wire type of the package, the fields that
// hold a payload: base64, a data URL, or JSON a tool returned. They are
// registered with internal/wire, where the packages beside this one
// register theirs, and where their print methods find showWire and
// logWire.
var wirePayloads = map[reflect.Type][]string{
	reflect.TypeFor[MCPCallToolResult]():          {"StructuredContent", "RequestState"},
	reflect.TypeFor[MCPInputRequest]():            {"Params"},
	reflect.TypeFor[MCPContent]():                 {"Data"},
	reflect.TypeFor[MCPResource]():                {"Blob"},
	reflect.TypeFor[MCPElicitParams]():            {"RequestedSchema"},
	reflect.TypeFor[MCPElicitResult]():            nil,
	reflect.TypeFor[AnthropicToolResultBlock]():   nil,
	reflect.TypeFor[AnthropicContentBlock]():      nil,
	reflect.TypeFor[AnthropicSource]():            {"Data"},
	reflect.TypeFor[OpenAIChatMessage]():          nil,
	reflect.TypeFor[OpenAIChatContentPart]():      nil,
	reflect.TypeFor[OpenAIImageURL]():             {"URL"},
	reflect.TypeFor[OpenAIFile]():                 {"FileData"},
	reflect.TypeFor[OpenAIInputAudio]():           {"Data"},
	reflect.TypeFor[OpenAIFunctionCallOutput]():   nil,
	reflect.TypeFor[OpenAIResponsesContent]():     {"ImageURL", "FileData"},
	reflect.TypeFor[GeminiFunctionResponse]():     nil,
	reflect.TypeFor[GeminiFunctionResponsePart](): nil,
	reflect.TypeFor[GeminiBlob]():                 {"Data"},
	reflect.TypeFor[GeminiFileData]():             nil,
	reflect.TypeFor[AnthropicMessage]():           nil,
	reflect.TypeFor[GeminiContent]():              nil,
	reflect.TypeFor[GeminiPart]():                 nil,
	reflect.TypeFor[Turn]():                       nil,
	reflect.TypeFor[ToolCall]():                   {"Arguments"},
	reflect.TypeFor[OpenAIAgentsToolResult]():     nil,
	reflect.TypeFor[OpenAIAgentsContent]():        {"ImageURL"},
	reflect.TypeFor[Wait]():                       nil,
	reflect.TypeFor[Request]():                    {"Data"},
	reflect.TypeFor[Answer]():                     {"Data"},
}

func init() {
	for t, fields := range wirePayloads {
		wire.Register(t, fields...)
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
// payload: a field wirePayloads names whose value (a string, raw JSON,
// bytes, a Data map, keys) is not empty, other than an http(s) URL.
func isPayload(t reflect.Type, i int, v reflect.Value) bool {
	names, _ := wire.Payloads(t)
	if names == nil || !slices.Contains(names, t.Field(i).Name) || v.IsZero() {
		return false
	}
	return v.Kind() != reflect.String || !webURL(v.String())
}

// showWire returns v, a wire value, for %v, its non-zero fields, or for %#v
// when goSyntax, all its fields, with the named fields shown as their size.
func showWire(v any, goSyntax bool) string {
	var w walk
	return w.showWire(reflect.ValueOf(v), goSyntax, 0)
}

// isWire reports whether t is a wire type, which internal/wire names.
func isWire(t reflect.Type) bool {
	_, ok := wire.Payloads(t)
	return ok
}

// showWire is showWire for a wire value nested depth deep in what w
// prints: a wire value in another is shown by the same walk, not by its
// String, so that values that hold each other are shown to a bounded
// depth, and each map, slice or pointer once.
func (w *walk) showWire(rv reflect.Value, goSyntax bool, depth int) string {
	t := rv.Type()
	var b strings.Builder
	if goSyntax {
		b.WriteString(t.String())
	}
	b.WriteByte('{')
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		fv := rv.Field(i)
		if !f.IsExported() || !goSyntax && fv.IsZero() {
			continue
		}
		if !first {
			if goSyntax {
				b.WriteString(", ")
			} else {
				b.WriteByte(' ')
			}
		}
		first = false
		b.WriteString(f.Name)
		b.WriteByte(':')
		if isPayload(t, i, fv) {
			b.WriteString(payloadShown(fv))
			continue
		}
		b.WriteString(w.wireField(fv, goSyntax, depth))
	}
	b.WriteByte('}')
	return b.String()
}

// payloadShown is a payload field as a wire value shows it: a string as
// its decoded size, or a data URL without its data; raw JSON and bytes as
// their length; any other value (a map of Data) as its type and length.
func payloadShown(v reflect.Value) string {
	switch {
	case v.Kind() == reflect.String:
		s := v.String()
		if isDataURL(s) {
			return strconv.Quote(redactDataURL(s))
		}
		return "\"<" + strconv.FormatInt(decodedLen(s), 10) + " bytes>\""
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return fmt.Sprintf("%s(%d bytes)", v.Type(), v.Len())
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Map:
		return fmt.Sprintf("%s(len %d)", v.Type(), v.Len())
	}
	return v.Type().String() + "{…}"
}

// payloadLogged is a payload field as a wire value logs it.
func payloadLogged(v reflect.Value) slog.Value {
	if v.Kind() == reflect.String {
		return slog.StringValue(strings.Trim(payloadShown(v), `"`))
	}
	return slog.StringValue(payloadShown(v))
}

// wireField shows one field or element of a wire value, depth deep.
func (w *walk) wireField(v reflect.Value, goSyntax bool, depth int) string {
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		if depth >= maxItems {
			return v.Type().String() + "{…}"
		}
		if v.Kind() == reflect.Interface {
			return w.wireField(v.Elem(), goSyntax, depth+1)
		}
		if !w.once(v) {
			return v.Type().String() + "(seen above)"
		}
		return "&" + w.wireField(v.Elem(), goSyntax, depth+1)
	}
	if isWire(v.Type()) {
		if depth >= maxItems {
			return v.Type().String() + "{…}"
		}
		return w.showWire(v, goSyntax, depth+1)
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%s(%d bytes)", v.Type(), v.Len()) // raw JSON too, which may be a Stringer
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case fmt.GoStringer:
			if goSyntax {
				return x.GoString()
			}
			if s, ok := x.(fmt.Stringer); ok {
				return s.String()
			}
		case fmt.Stringer:
			return x.String()
		}
	}
	switch v.Kind() {
	case reflect.String:
		return logString(v.String())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface())
	case reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		if !w.once(v) {
			return fmt.Sprintf("%s(len %d, seen above)", v.Type(), v.Len())
		}
		fallthrough
	case reflect.Array:
		if depth >= maxItems {
			return fmt.Sprintf("%s(len %d)", v.Type(), v.Len())
		}
		var b strings.Builder
		b.WriteByte('[')
		for i := range min(v.Len(), maxItems) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.wireField(v.Index(i), goSyntax, depth+1))
		}
		if v.Len() > maxItems {
			fmt.Fprintf(&b, ", … (len %d)", v.Len())
		}
		b.WriteByte(']')
		return b.String()
	case reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		if depth >= maxItems || v.Len() > maxItems {
			return fmt.Sprintf("%s(len %d)", v.Type(), v.Len())
		}
		if !w.once(v) {
			return fmt.Sprintf("%s(len %d, seen above)", v.Type(), v.Len())
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		var b strings.Builder
		b.WriteString("map[")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(logString(fmt.Sprint(k)))
			b.WriteByte(':')
			b.WriteString(w.wireField(v.MapIndex(k), goSyntax, depth+1))
		}
		b.WriteByte(']')
		return b.String()
	}
	return v.Type().String() + "{…}"
}

// logWire logs v, a wire value, as a group of its non-zero exported fields
// under their JSON keys, with the named fields logged as their size.
func logWire(v any) slog.Value {
	var w walk
	return w.logWire(reflect.ValueOf(v), 0)
}

// logWire is logWire for a wire value nested depth deep in what w logs:
// wire values and results in it are logged by the same walk, not by their
// LogValue, so that values that hold each other are logged to a bounded
// depth, and each map, slice or pointer once.
func (w *walk) logWire(rv reflect.Value, depth int) slog.Value {
	t := rv.Type()
	attrs := make([]slog.Attr, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		fv := rv.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		key = cmp.Or(key, f.Name)
		if isPayload(t, i, fv) {
			attrs = append(attrs, slog.Attr{Key: key, Value: payloadLogged(fv)})
			continue
		}
		attrs = append(attrs, slog.Attr{Key: key, Value: w.wireLogValue(fv, depth)})
	}
	return slog.GroupValue(attrs...)
}

// wireLogValue logs one field or element of a wire value, depth deep.
func (w *walk) wireLogValue(v reflect.Value, depth int) slog.Value {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return slog.StringValue("nil")
		}
		if depth >= maxItems {
			return slog.StringValue(v.Type().String())
		}
		if v.Kind() == reflect.Pointer && !w.once(v) {
			return seenAbove(v)
		}
		v, depth = v.Elem(), depth+1
	}
	switch {
	case depth >= maxItems && (isWire(v.Type()) || v.Type() == resultType):
		return slog.StringValue(v.Type().String())
	case isWire(v.Type()):
		return w.logWire(v, depth+1)
	case v.Type() == resultType:
		return v.Interface().(ToolResult).logValue(w, depth+1)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return slog.StringValue(fmt.Sprintf("%s (%d bytes)", v.Type(), v.Len()))
	}
	if v.CanInterface() {
		if lv, ok := v.Interface().(slog.LogValuer); ok {
			return lv.LogValue()
		}
	}
	switch v.Kind() {
	case reflect.String:
		return slog.StringValue(shownString(v.String()))
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return slog.AnyValue(v.Interface())
	case reflect.Slice, reflect.Array, reflect.Map:
		if depth >= maxItems || v.Len() > maxItems {
			return slog.StringValue(fmt.Sprintf("%s (len %d)", v.Type(), v.Len()))
		}
		if v.Kind() != reflect.Array && !w.once(v) {
			return seenAbove(v)
		}
		attrs := make([]slog.Attr, 0, v.Len())
		if v.Kind() == reflect.Map {
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			for _, k := range keys {
				attrs = append(attrs, slog.Attr{Key: shownString(fmt.Sprint(k)), Value: w.wireLogValue(v.MapIndex(k), depth+1)})
			}
		} else {
			for i := range v.Len() {
				attrs = append(attrs, slog.Attr{Key: strconv.Itoa(i), Value: w.wireLogValue(v.Index(i), depth+1)})
			}
		}
		return slog.GroupValue(attrs...)
	}
	return slog.StringValue(v.Type().String())
}

// The method sets of the wire types. Each prints its value as a struct of
// its exported fields, without payload: fmt (String, GoString, Format, for
// every verb) and log/slog (LogValue) alike.

// String returns v's fields without payload, for %v.
func (v MCPCallToolResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPCallToolResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPCallToolResult.String] (%#v: [MCPCallToolResult.GoString]).
func (v MCPCallToolResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPCallToolResult) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v MCPInputRequest) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPInputRequest) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPInputRequest.String] (%#v: [MCPInputRequest.GoString]).
func (v MCPInputRequest) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPInputRequest) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v MCPContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPContent.String] (%#v: [MCPContent.GoString]).
func (v MCPContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPContent) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v MCPResource) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPResource) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPResource.String] (%#v: [MCPResource.GoString]).
func (v MCPResource) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPResource) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v MCPElicitParams) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPElicitParams) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPElicitParams.String] (%#v: [MCPElicitParams.GoString]).
func (v MCPElicitParams) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPElicitParams) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v MCPElicitResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v MCPElicitResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [MCPElicitResult.String] (%#v: [MCPElicitResult.GoString]).
func (v MCPElicitResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v MCPElicitResult) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v AnthropicToolResultBlock) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicToolResultBlock) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicToolResultBlock.String] (%#v: [AnthropicToolResultBlock.GoString]).
func (v AnthropicToolResultBlock) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicToolResultBlock) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v AnthropicContentBlock) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicContentBlock) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicContentBlock.String] (%#v: [AnthropicContentBlock.GoString]).
func (v AnthropicContentBlock) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicContentBlock) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v AnthropicSource) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicSource) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicSource.String] (%#v: [AnthropicSource.GoString]).
func (v AnthropicSource) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicSource) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIChatMessage) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIChatMessage) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIChatMessage.String] (%#v: [OpenAIChatMessage.GoString]).
func (v OpenAIChatMessage) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIChatMessage) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIChatContentPart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIChatContentPart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIChatContentPart.String] (%#v: [OpenAIChatContentPart.GoString]).
func (v OpenAIChatContentPart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIChatContentPart) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIImageURL) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIImageURL) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIImageURL.String] (%#v: [OpenAIImageURL.GoString]).
func (v OpenAIImageURL) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIImageURL) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIFile) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIFile) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIFile.String] (%#v: [OpenAIFile.GoString]).
func (v OpenAIFile) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIFile) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIInputAudio) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIInputAudio) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIInputAudio.String] (%#v: [OpenAIInputAudio.GoString]).
func (v OpenAIInputAudio) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIInputAudio) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIFunctionCallOutput) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIFunctionCallOutput) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIFunctionCallOutput.String] (%#v: [OpenAIFunctionCallOutput.GoString]).
func (v OpenAIFunctionCallOutput) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIFunctionCallOutput) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIResponsesContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIResponsesContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIResponsesContent.String] (%#v: [OpenAIResponsesContent.GoString]).
func (v OpenAIResponsesContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIResponsesContent) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiFunctionResponse) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFunctionResponse) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFunctionResponse.String] (%#v: [GeminiFunctionResponse.GoString]).
func (v GeminiFunctionResponse) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFunctionResponse) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiFunctionResponsePart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFunctionResponsePart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFunctionResponsePart.String] (%#v: [GeminiFunctionResponsePart.GoString]).
func (v GeminiFunctionResponsePart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFunctionResponsePart) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiBlob) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiBlob) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiBlob.String] (%#v: [GeminiBlob.GoString]).
func (v GeminiBlob) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiBlob) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiFileData) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiFileData) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiFileData.String] (%#v: [GeminiFileData.GoString]).
func (v GeminiFileData) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiFileData) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v AnthropicMessage) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v AnthropicMessage) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [AnthropicMessage.String] (%#v: [AnthropicMessage.GoString]).
func (v AnthropicMessage) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v AnthropicMessage) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiContent.String] (%#v: [GeminiContent.GoString]).
func (v GeminiContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiContent) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v GeminiPart) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v GeminiPart) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [GeminiPart.String] (%#v: [GeminiPart.GoString]).
func (v GeminiPart) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v GeminiPart) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v Turn) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v Turn) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [Turn.String] (%#v: [Turn.GoString]).
func (v Turn) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v Turn) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v ToolCall) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v ToolCall) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [ToolCall.String] (%#v: [ToolCall.GoString]).
func (v ToolCall) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v ToolCall) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIAgentsToolResult) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIAgentsToolResult) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIAgentsToolResult.String] (%#v: [OpenAIAgentsToolResult.GoString]).
func (v OpenAIAgentsToolResult) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIAgentsToolResult) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v OpenAIAgentsContent) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v OpenAIAgentsContent) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [OpenAIAgentsContent.String] (%#v: [OpenAIAgentsContent.GoString]).
func (v OpenAIAgentsContent) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v OpenAIAgentsContent) LogValue() slog.Value { return logWire(v) }

// String returns v's fields without payload, for %v.
func (v Wait) String() string { return showWire(v, false) }

// GoString returns v in Go syntax without payload, for %#v.
func (v Wait) GoString() string { return showWire(v, true) }

// Format prints v for every verb without payload, as [Wait.String] (%#v: [Wait.GoString]).
func (v Wait) Format(f fmt.State, verb rune) { wire.Format(f, verb, v) }

// LogValue implements [slog.LogValuer]: v logs as a group of its non-empty fields, without payload.
func (v Wait) LogValue() slog.Value { return logWire(v) }

// String returns r's fields, its Data as its size: Data may carry a
// payload, such as the image of a sampling request.
func (r Request) String() string { return showWire(r, false) }

// GoString returns r in Go syntax, its Data as its size, for %#v.
func (r Request) GoString() string { return showWire(r, true) }

// Format prints r for every verb without its Data, as [Request.String] (%#v: [Request.GoString]).
func (r Request) Format(f fmt.State, verb rune) { wire.Format(f, verb, r) }

// String returns a's fields, its Data as its size: Data may carry a
// payload, such as the image of a client's sampling result.
func (a Answer) String() string { return showWire(a, false) }

// GoString returns a in Go syntax, its Data as its size, for %#v.
func (a Answer) GoString() string { return showWire(a, true) }

// Format prints a for every verb without its Data, as [Answer.String] (%#v: [Answer.GoString]).
func (a Answer) Format(f fmt.State, verb rune) { wire.Format(f, verb, a) }

// LogValue implements [slog.LogValuer]: a logs as a group of its non-empty fields, its Data as its size.
func (a Answer) LogValue() slog.Value { return logWire(a) }

// String returns the answers as [Answer.String] writes each.
func (as Answers) String() string {
	var w walk
	return w.wireField(reflect.ValueOf([]Answer(as)), false, 0)
}

// GoString returns the answers in Go syntax, each as [Answer.GoString] writes it.
func (as Answers) GoString() string {
	var w walk
	return "toolnexus.Answers" + w.wireField(reflect.ValueOf([]Answer(as)), true, 0)
}

// Format prints the answers for every verb without their Data, as [Answers.String] (%#v: [Answers.GoString]).
func (as Answers) Format(f fmt.State, verb rune) { wire.Format(f, verb, as) }

// LogValue implements [slog.LogValuer]: the answers log as a group of each, by index, without their Data.
func (as Answers) LogValue() slog.Value {
	var w walk
	return w.wireLogValue(reflect.ValueOf([]Answer(as)), 0)
}
