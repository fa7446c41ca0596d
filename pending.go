package toolnexus

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/uuid"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// DefaultAuthPrompt is the prompt [AuthRequired] uses when it is given none.
const DefaultAuthPrompt = "Authorization required to continue"

// Pending returns a suspension: a failed result whose output is the
// request's prompt, followed by a line with its URL when it has one, and
// whose metadata holds the request under [MetadataPending]. A request without
// an ID gets a fresh one, "pnd-" followed by a random UUID, and one without a
// Kind gets [KindInput]: a suspension has both, so that [PendingOf] finds it
// in this process and after the result went through JSON alike.
func Pending(req Request) ToolResult {
	if req.ID == "" {
		req.ID = newID()
	}
	req.Kind = cmp.Or(req.Kind, KindInput)
	return suspensionOf(req)
}

// suspensionOf returns the suspension of req as it is.
func suspensionOf(req Request) ToolResult {
	return ToolResult{
		Output:   requestText(req),
		IsError:  true,
		Metadata: map[string]any{MetadataPending: req},
	}
}

// requestText is the text of a suspension on req: its prompt, followed by
// a line with its URL when it has one.
func requestText(req Request) string {
	if req.URL != "" {
		return req.Prompt + "\n" + req.URL
	}
	return req.Prompt
}

// MetadataPendingMore is the reserved metadata key under which a suspension
// made by [PendingAll] holds its requests after the first, as a list. The
// first stays under [MetadataPending], so that a port or a host that knows
// only one request per suspension still finds a suspension, and that of a
// single request has no MetadataPendingMore at all.
const MetadataPendingMore = "pendingMore"

// noRequest is the output of PendingAll given no request.
const noRequest = "[the tool suspended without a request; nothing to answer]"

// PendingAll returns one suspension asking every request at once, such as
// an approval and the client's roots. Each request without an ID or Kind
// gets one as [Pending] gives it. The result's output is the text of each
// request, as Pending writes it, one after the other on separate lines;
// its metadata holds the first request under [MetadataPending], as Pending
// does, and the others, in order, under [MetadataPendingMore]. So
// PendingAll of one request is Pending of it, [PendingOf] returns the first
// request of any suspension, and [PendingAllOf] returns them all.
//
// Given no request, PendingAll returns a failed result that is not a
// suspension. Requests that share an ID make a result that
// [ToolResult.Validate] refuses: each answer names the request it answers.
func PendingAll(reqs ...Request) ToolResult {
	if len(reqs) == 0 {
		return Error(noRequest)
	}
	filled := make([]Request, len(reqs))
	for i, req := range reqs {
		if req.ID == "" {
			req.ID = newID()
		}
		req.Kind = cmp.Or(req.Kind, KindInput)
		filled[i] = req
	}
	return suspendAll(filled)
}

// suspendAll returns the suspension on reqs, one or more, as they are: the
// first under MetadataPending, the others under MetadataPendingMore.
func suspendAll(reqs []Request) ToolResult {
	r := suspensionOf(reqs[0])
	if len(reqs) > 1 {
		texts := make([]string, len(reqs))
		for i, req := range reqs {
			texts[i] = requestText(req)
		}
		r.Output = strings.Join(texts, "\n")
		r.Metadata[MetadataPendingMore] = reqs[1:]
	}
	return r
}

// PendingAllOf returns every request of a suspension, the first one first,
// and true, or false when r is not a suspension ([PendingOf] finds none).
// A suspension made by [Pending] has one request; one made by [PendingAll]
// has those it was given. The list under [MetadataPendingMore] is read as
// [PendingOf] reads the first request, as it reads after JSON; an element
// that is not a request is left out, and [ToolResult.Validate] refuses it.
func PendingAllOf(r ToolResult) ([]Request, bool) {
	first, ok := PendingOf(r)
	if !ok {
		return nil, false
	}
	elems, _ := listOf(r.Metadata[MetadataPendingMore])
	reqs := make([]Request, 1, 1+len(elems))
	reqs[0] = first
	for _, e := range elems {
		if req, ok := requestOf(e); ok {
			reqs = append(reqs, req)
		}
	}
	return reqs, true
}

// listOf returns the elements of v, a list of requests or any value whose
// JSON is an array, and true, or false for any other value.
func listOf(v any) ([]any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case []Request:
		elems := make([]any, len(v))
		for i, req := range v {
			elems[i] = req
		}
		return elems, true
	case []any:
		return v, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var elems []any
	if b[0] != '[' || json.Unmarshal(b, &elems) != nil { // json.Marshal writes no leading space
		return nil, false
	}
	return elems, true
}

// validatePendingMore checks the list under MetadataPendingMore: requests
// that each pass [Request.Validate], after a first request under
// MetadataPending, with IDs that differ from each other and from its.
func validatePendingMore(m map[string]any) error {
	v, ok := m[MetadataPendingMore]
	if !ok || v == nil {
		return nil
	}
	first, ok := requestOf(m[MetadataPending])
	if !ok {
		return msg.Errorf(ErrInvalidRequest, "metadata %q without a request under %q", MetadataPendingMore, MetadataPending)
	}
	elems, ok := listOf(v)
	if !ok {
		return msg.Errorf(ErrInvalidRequest, "metadata %q holds %T, not a list of requests", MetadataPendingMore, v)
	}
	seen := map[string]bool{first.ID: true}
	for i, e := range elems {
		req, ok := requestOf(e)
		if !ok {
			return msg.Errorf(ErrInvalidRequest, "metadata %q holds %s at %d, not a request", MetadataPendingMore, describeValue(e), i)
		}
		if err := validatePending(e); err != nil {
			return fmt.Errorf("%w (%s %d)", err, MetadataPendingMore, i)
		}
		if seen[req.ID] {
			return msg.Errorf(ErrInvalidRequest, "request id %s repeats (%s %d)", msg.Quote(req.ID), MetadataPendingMore, i)
		}
		seen[req.ID] = true
	}
	return nil
}

// AuthRequired returns a suspension asking the person to log in at url, a
// [Pending] request of kind [KindAuthorization]. An empty prompt means
// [DefaultAuthPrompt].
func AuthRequired(url, prompt string) ToolResult {
	return Pending(Request{Kind: KindAuthorization, Prompt: cmp.Or(prompt, DefaultAuthPrompt), URL: url})
}

// PendingOf returns the [Request] of a suspension and true, or false when r
// is not one. The value under [MetadataPending] is read as it reads after
// the result goes through JSON, so that PendingOf answers the same before and
// after: a Request, or any value whose JSON is an object with a non-empty
// string "kind" (such as the map[string]any that decoding gives), is a
// suspension, and its string fields id, kind, prompt, url and expiresAt and
// its object data are read into the Request (other keys are ignored; a
// member that is null, as other ports write an absent one, is absent). Any
// other value, such as a string, true, a Request without a Kind or an object
// without kind, is not one. A suspension without an id or prompt is still
// returned; [ToolResult.Validate] refuses it.
func PendingOf(r ToolResult) (Request, bool) {
	return requestOf(r.Metadata[MetadataPending])
}

// requestOf reads a Request from a value under MetadataPending.
func requestOf(v any) (Request, bool) {
	switch v := v.(type) {
	case nil:
		return Request{}, false
	case Request:
		if v.Kind == "" {
			return Request{}, false
		}
		return v, true
	case *Request:
		if v == nil || v.Kind == "" {
			return Request{}, false
		}
		return *v, true
	case map[string]any:
		if isJSONValue(v) {
			return requestFromMap(v)
		}
	}
	// Any other value is read as it will be after JSON.
	if !unfoldsWithin(reflect.ValueOf(v), maxRequestValues) {
		return Request{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Request{}, false
	}
	var m map[string]any
	if b[0] != '{' || json.Unmarshal(b, &m) != nil { // json.Marshal writes no leading space
		return Request{}, false
	}
	return requestFromMap(m)
}

// isJSONValue reports whether the fields a Request reads from m hold the
// types JSON decodes to, so that m reads the same before and after JSON.
func isJSONValue(m map[string]any) bool {
	for _, k := range [...]string{"id", "kind", "prompt", "url", "expiresAt"} {
		switch m[k].(type) {
		case nil, string, float64, bool, []any, map[string]any:
		default:
			return false
		}
	}
	switch d := m["data"].(type) {
	case nil, string, float64, bool, []any:
	case map[string]any:
		for _, v := range d {
			if !isJSONAny(v) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// isJSONAny reports whether v is made only of the types encoding/json
// decodes into an any, and is a tree, as JSON decodes to, or unfolds into at
// most maxRequestValues values: metadata that links back to itself is not.
func isJSONAny(v any) bool {
	type container struct {
		p uintptr
		n int
	}
	var seen map[container]bool
	shared := false
	stack := []any{v}
	for n := 0; len(stack) > 0; n++ {
		if shared && n > maxRequestValues {
			return false
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var c container
		switch v := v.(type) {
		case nil, string, float64, bool:
			continue
		case []any:
			stack = append(stack, v...)
			c = container{reflect.ValueOf(v).Pointer(), len(v)}
		case map[string]any:
			for _, e := range v {
				stack = append(stack, e)
			}
			c = container{reflect.ValueOf(v).Pointer(), -1}
		default:
			return false
		}
		if c.n == 0 {
			continue
		}
		if seen == nil {
			seen = map[container]bool{}
		}
		shared = shared || seen[c]
		seen[c] = true
	}
	return true
}

// maxRequestValues bounds the values of a request read from metadata: a
// value whose JSON would hold more, such as one that links back to itself,
// which JSON would unfold without end, is no request.
const maxRequestValues = 1 << 16

// unfoldsWithin reports whether v, unfolded as JSON writes it, holds at most
// max values.
func unfoldsWithin(v reflect.Value, max int) bool {
	stack := []reflect.Value{v}
	for n := 0; len(stack) > 0; n++ {
		if n > max {
			return false
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				stack = append(stack, v.Elem())
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				continue // written as one string
			}
			for i := range v.Len() {
				stack = append(stack, v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				stack = append(stack, it.Value())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					stack = append(stack, v.Field(i))
				}
			}
		}
	}
	return true
}

func requestFromMap(m map[string]any) (Request, bool) {
	var req Request
	req.Kind, _ = m["kind"].(string)
	if req.Kind == "" {
		return Request{}, false
	}
	req.ID, _ = m["id"].(string)
	req.Prompt, _ = m["prompt"].(string)
	req.URL, _ = m["url"].(string)
	req.Data, _ = m["data"].(map[string]any)
	req.ExpiresAt, _ = m["expiresAt"].(string)
	return req, true
}

// validatePending checks the value under MetadataPending: a Request, or a
// JSON object whose known fields have the types a Request gives them.
func validatePending(v any) error {
	req, ok := requestOf(v)
	if !ok {
		return msg.Errorf(ErrInvalidRequest, "metadata %q holds %s, not a request", MetadataPending, describeValue(v))
	}
	if m, ok := v.(map[string]any); ok {
		// A null member is an absent one, as other ports write them
		// ("url":null, "id":null).
		for _, k := range [...]string{"id", "kind", "prompt", "url", "expiresAt"} {
			if f, ok := m[k]; ok && f != nil {
				if _, ok := f.(string); !ok {
					return msg.Errorf(ErrInvalidRequest, "pending %s is %T, not a string", k, f)
				}
			}
		}
		if f, ok := m["data"]; ok && f != nil {
			if _, ok := f.(map[string]any); !ok {
				return msg.Errorf(ErrInvalidRequest, "pending data is %T, not an object", f)
			}
		}
	}
	return req.Validate()
}

// describeValue names the type of a value without printing it.
func describeValue(v any) string {
	switch v := v.(type) {
	case Request:
		return "a request without kind"
	case *Request:
		if v != nil {
			return "a request without kind"
		}
	case map[string]any:
		if _, ok := v["kind"]; !ok {
			return "an object without kind"
		}
		return "an object whose kind is not a non-empty string"
	}
	return fmt.Sprintf("%T", v)
}

// newID returns "pnd-" followed by a random (version 4) UUID, written
// once into the string it returns.
func newID() string {
	var u uuid.UUID
	rand.Read(u[:])         // never fails: it crashes the program instead
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	var id [len("pnd-") + 36]byte
	copy(id[:], "pnd-")
	b := id[len("pnd-"):]
	for i, j := 0, 0; i < len(u); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		hex.Encode(b[j:j+2], u[i:i+1])
		j += 2
	}
	return string(id[:])
}
