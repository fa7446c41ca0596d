package toolnexus

import (
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
)

// DefaultAuthPrompt is the prompt [AuthRequired] uses when it is given none.
const DefaultAuthPrompt = "Authorization required to continue"

// Pending returns a suspension: a failed result whose output is the
// request's prompt, followed by a line with its URL when it has one, and
// whose metadata holds the request under [MetadataPending]. A request without
// an ID gets a fresh one, "pnd-" followed by a random UUID.
func Pending(req Request) ToolResult {
	if req.ID == "" {
		req.ID = newID()
	}
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
	if prompt == "" {
		prompt = DefaultAuthPrompt
	}
	return Pending(Request{Kind: KindAuthorization, Prompt: prompt, URL: url})
}

// PendingOf returns the [Request] of a suspension and true, or false when r
// is not one. It finds the request whether r was built in this process or
// decoded from JSON, where the value under [MetadataPending] is a
// map[string]any: a JSON object with a non-empty string "kind" is a
// suspension, and its string fields id, kind, prompt, url and expiresAt and
// its object data are read into the Request (other keys are ignored). Any
// other value under the key, such as a string, true, or an object without
// kind, is not a suspension. A suspension without an id or prompt is still
// returned; [ToolResult.Validate] refuses it.
func PendingOf(r ToolResult) (Request, bool) {
	return requestOf(r.Metadata[MetadataPending])
}

// requestOf reads a Request from a value under MetadataPending.
func requestOf(v any) (Request, bool) {
	switch v := v.(type) {
	case Request:
		return v, true
	case *Request:
		if v != nil {
			return *v, true
		}
	case map[string]any:
		if kind, _ := v["kind"].(string); kind != "" {
			return requestFromMap(v), true
		}
	}
	return Request{}, false
}

func requestFromMap(m map[string]any) Request {
	var req Request
	req.ID, _ = m["id"].(string)
	req.Kind, _ = m["kind"].(string)
	req.Prompt, _ = m["prompt"].(string)
	req.URL, _ = m["url"].(string)
	req.Data, _ = m["data"].(map[string]any)
	req.ExpiresAt, _ = m["expiresAt"].(string)
	return req
}

// validatePending checks the value under MetadataPending: a Request, or a
// JSON object whose known fields have the types a Request gives them.
func validatePending(v any) error {
	req, ok := requestOf(v)
	if !ok {
		return errorf(ErrInvalidRequest, "metadata %q holds %s, not a request", MetadataPending, describeValue(v))
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range [...]string{"id", "kind", "prompt", "url", "expiresAt"} {
			if f, ok := m[k]; ok {
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
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["kind"]; !ok {
			return "an object without kind"
		}
		return "an object whose kind is not a non-empty string"
	}
	return fmt.Sprintf("%T", v)
}

// newID returns "pnd-" followed by a random (version 4) UUID.
func newID() string {
	u := uuid.New()
	var b [4 + 36]byte
	copy(b[:], "pnd-")
	hex.Encode(b[4:12], u[0:4])
	b[12] = '-'
	hex.Encode(b[13:17], u[4:6])
	b[17] = '-'
	hex.Encode(b[18:22], u[6:8])
	b[22] = '-'
	hex.Encode(b[23:27], u[8:10])
	b[27] = '-'
	hex.Encode(b[28:40], u[10:16])
	return string(b[:])
}
