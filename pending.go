package toolnexus

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
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
	return suspend(req)
}

// suspend returns the suspension of req as it is.
func suspend(req Request) ToolResult {
	output := req.Prompt
	if req.URL != "" {
		output += "\n" + req.URL
	}
	return ToolResult{
		Output:   output,
		IsError:  true,
		Metadata: map[string]any{MetadataPending: req},
	}
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
	b, err := json.Marshal(v)
	if err != nil {
		return Request{}, false
	}
	var m map[string]any
	if (&jsonReader{data: b}).peek() != '{' || json.Unmarshal(b, &m) != nil {
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
// decodes into an any.
func isJSONAny(v any) bool {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return true
	case []any:
		for _, e := range v {
			if !isJSONAny(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !isJSONAny(e) {
				return false
			}
		}
		return true
	}
	return false
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
		return errorf(ErrInvalidRequest, "metadata %q holds %s, not a request", MetadataPending, describeValue(v))
	}
	if m, ok := v.(map[string]any); ok {
		// A null member is an absent one, as other ports write them
		// ("url":null, "id":null).
		for _, k := range [...]string{"id", "kind", "prompt", "url", "expiresAt"} {
			if f, ok := m[k]; ok && f != nil {
				if _, ok := f.(string); !ok {
					return errorf(ErrInvalidRequest, "pending %s is %T, not a string", k, f)
				}
			}
		}
		if f, ok := m["data"]; ok && f != nil {
			if _, ok := f.(map[string]any); !ok {
				return errorf(ErrInvalidRequest, "pending data is %T, not an object", f)
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

// newID returns "pnd-" followed by a random (version 4) UUID.
func newID() string {
	return "pnd-" + uuid.NewString()
}
