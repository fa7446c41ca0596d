package toolnexus

import (
	"reflect"
	"strings"
)

// This file finds payloads wherever a caller may have put them in metadata,
// for [ToolResult.Redacted] and [ToolResult.LogValue].

var (
	partType   = reflect.TypeFor[ContentPart]()
	resultType = reflect.TypeFor[ToolResult]()
	objectType = reflect.TypeFor[map[string]any]()
)

// maxRedactDepth bounds how deep redact looks, so that a cycle of pointers
// ends.
const maxRedactDepth = 64

// withoutPayload returns p without its data, or a data: URL in its URL.
func (p ContentPart) withoutPayload() ContentPart {
	p.Data = ""
	if isDataURL(p.URL) {
		p.URL = ""
	}
	return p
}

// redact returns a copy of v without the payloads it holds and true, or v
// and false when it holds none. Only what changes is copied.
func redact(v reflect.Value, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > maxRedactDepth {
		return v, false
	}
	switch v.Type() {
	case partType:
		p := v.Interface().(ContentPart)
		if p.Data == "" && !isDataURL(p.URL) {
			return v, false
		}
		return reflect.ValueOf(p.withoutPayload()), true
	case resultType:
		return reflect.ValueOf(v.Interface().(ToolResult).redacted(depth)), true
	case objectType:
		if m := v.Interface().(map[string]any); looksLikePart(m) {
			c := make(map[string]any, len(m))
			for k, e := range m {
				if k != "data" && !(k == "url" && isDataURLValue(e)) {
					c[k] = e
				}
			}
			return reflect.ValueOf(c), true
		}
	}
	switch v.Kind() {
	case reflect.String:
		if !isDataURL(v.String()) {
			return v, false
		}
		c := reflect.New(v.Type()).Elem()
		c.SetString(redactDataURL(v.String()))
		return c, true
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := redact(v.Elem(), depth+1)
		if !changed {
			return v, false
		}
		if v.Kind() == reflect.Interface {
			c := reflect.New(v.Type()).Elem()
			c.Set(e)
			return c, true
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(e)
		return c, true
	case reflect.Slice, reflect.Array:
		var c reflect.Value
		for i := range v.Len() {
			e, changed := redact(v.Index(i), depth+1)
			if !changed {
				continue
			}
			if !c.IsValid() {
				if v.Kind() == reflect.Slice {
					c = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				} else {
					c = reflect.New(v.Type()).Elem()
				}
				reflect.Copy(c, v)
			}
			c.Index(i).Set(e)
		}
		return c, c.IsValid()
	case reflect.Map:
		var c reflect.Value
		for it := v.MapRange(); it.Next(); {
			e, changed := redact(it.Value(), depth+1)
			if !changed {
				continue
			}
			if !c.IsValid() {
				c = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it2 := v.MapRange(); it2.Next(); {
					c.SetMapIndex(it2.Key(), it2.Value())
				}
			}
			c.SetMapIndex(it.Key(), e)
		}
		return c, c.IsValid()
	case reflect.Struct:
		var c reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			e, changed := redact(v.Field(i), depth+1)
			if !changed {
				continue
			}
			if !c.IsValid() {
				c = reflect.New(v.Type()).Elem()
				c.Set(v)
			}
			c.Field(i).Set(e)
		}
		return c, c.IsValid()
	}
	return v, false
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

// redactDataURL cuts the payload off a data URL: "data:image/png;base64,…".
func redactDataURL(u string) string {
	meta, _, _ := strings.Cut(u, ",")
	return meta + ",…"
}
