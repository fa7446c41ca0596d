package jsonscan

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// ErrTooDeep reports a value nested deeper than [MaxDepth], such as the
// Data of a request; its message is a detail for a sentinel to wrap.
var ErrTooDeep = fmt.Errorf("nests deeper than %d levels, or holds itself", MaxDepth)

// CheckDepth reports [ErrTooDeep] for v, a Data or a value in one, when it
// nests deeper than MaxDepth. It follows v depth first and stops at
// the first level too deep, so that a value that holds itself is refused
// after MaxDepth steps; it walks the values JSON decodes to without
// reflection, and allocates nothing for them.
func CheckDepth(v any) error {
	if depthWithin(v, 0) {
		return nil
	}
	return ErrTooDeep
}

// depthWithin reports whether v, at depth, nests at most MaxDepth deep.
func depthWithin(v any, depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch v := v.(type) {
	case nil, bool, float64, string, json.Number:
		return true
	case map[string]any:
		for _, e := range v {
			if !depthWithin(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !depthWithin(e, depth+1) {
				return false
			}
		}
		return true
	}
	return valueWithin(reflect.ValueOf(v), depth)
}

// valueWithin is depthWithin for a Go value of any other type.
func valueWithin(v reflect.Value, depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		return v.IsNil() || valueWithin(v.Elem(), depth+1)
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !valueWithin(it.Value(), depth+1) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return true // bytes, which JSON writes as one string
		}
		for i := range v.Len() {
			if !valueWithin(v.Index(i), depth+1) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !valueWithin(v.Field(i), depth+1) {
				return false
			}
		}
	}
	return true
}
