package toolnexus

import (
	"cmp"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus/internal/jsonscan"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// This file prints and logs values of the package without their payloads,
// through the walk of redact.go: a result's metadata for LogValue and
// GoString, and the wire types for every method of fmt and log/slog.
//
// The wire types ([MCPCallToolResult], [AnthropicContentBlock], …) print and
// log as their exported fields, with every payload replaced by its size, and
// Redacted drops their payloads. A new wire type gets an entry in
// wireTypes, its payload fields tagged toolnexus:"payload" (as
// encoding/json reads its own tag: a renamed field stays a payload), and
// one small method set:
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
		return slog.StringValue(fmt.Sprintf("%s (seen above)", typeName(v.Type())))
	}
	return slog.StringValue(fmt.Sprintf("%s (len %d, seen above)", typeName(v.Type()), v.Len()))
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
	if writesJSON(rv.Type()) {
		// Raw JSON, or a value that writes its own: what it holds is
		// JSON, which only Redacted reads.
		return slog.StringValue(typeAndLen(rv))
	}
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
		return slog.StringValue(fmt.Sprintf("%s (len %d)", typeName(rv.Type()), rv.Len()))
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
	return slog.StringValue(typeName(rv.Type()))
}

// typeAndLen describes v by its type, and its length when it has one.
func typeAndLen(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return fmt.Sprintf("%s (len %d)", typeName(v.Type()), v.Len())
	}
	return typeName(v.Type())
}

// typeName names t as its Go type, with json.RawMessage named so in both
// builds of encoding/json: with GOEXPERIMENT=jsonv2 it is an alias of
// jsontext.Value, the name reflect gives it ("*jsontext.Value",
// "[]jsontext.Value").
func typeName(t reflect.Type) string {
	if t == rawType {
		return "json.RawMessage"
	}
	return strings.ReplaceAll(t.String(), "jsontext.Value", "json.RawMessage")
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
		return fmt.Sprintf("%s(len %d)", typeName(rv.Type()), rv.Len())
	}
	return fmt.Sprintf("%s{…}", typeName(rv.Type()))
}

// showWire returns v, a wire value, for %v, its non-zero fields, or for %#v
// when goSyntax, all its fields, with the named fields shown as their size.
func showWire(v any, goSyntax bool) string {
	var w walk
	return w.showWire(reflect.ValueOf(v), goSyntax, 0)
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
		return fmt.Sprintf("%s(%d bytes)", typeName(v.Type()), v.Len())
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Map:
		return fmt.Sprintf("%s(len %d)", typeName(v.Type()), v.Len())
	}
	return typeName(v.Type()) + "{…}"
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
			return typeName(v.Type()) + "{…}"
		}
		if v.Kind() == reflect.Interface {
			return w.wireField(v.Elem(), goSyntax, depth+1)
		}
		if !w.once(v) {
			return typeName(v.Type()) + "(seen above)"
		}
		return "&" + w.wireField(v.Elem(), goSyntax, depth+1)
	}
	if isWire(v.Type()) {
		if depth >= maxItems {
			return typeName(v.Type()) + "{…}"
		}
		return w.showWire(v, goSyntax, depth+1)
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%s(%d bytes)", typeName(v.Type()), v.Len()) // raw JSON too, which may be a Stringer
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
			return fmt.Sprintf("%s(len %d, seen above)", typeName(v.Type()), v.Len())
		}
		fallthrough
	case reflect.Array:
		if depth >= maxItems {
			return fmt.Sprintf("%s(len %d)", typeName(v.Type()), v.Len())
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
			return fmt.Sprintf("%s(len %d)", typeName(v.Type()), v.Len())
		}
		if !w.once(v) {
			return fmt.Sprintf("%s(len %d, seen above)", typeName(v.Type()), v.Len())
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
	return typeName(v.Type()) + "{…}"
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
			return slog.StringValue(typeName(v.Type()))
		}
		if v.Kind() == reflect.Pointer && !w.once(v) {
			return seenAbove(v)
		}
		v, depth = v.Elem(), depth+1
	}
	switch {
	case depth >= maxItems && (isWire(v.Type()) || v.Type() == resultType):
		return slog.StringValue(typeName(v.Type()))
	case isWire(v.Type()):
		return w.logWire(v, depth+1)
	case v.Type() == resultType:
		return v.Interface().(ToolResult).logValue(w, depth+1)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return slog.StringValue(fmt.Sprintf("%s (%d bytes)", typeName(v.Type()), v.Len()))
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
			return slog.StringValue(fmt.Sprintf("%s (len %d)", typeName(v.Type()), v.Len()))
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
	return slog.StringValue(typeName(v.Type()))
}
