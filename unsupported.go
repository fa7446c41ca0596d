package toolnexus

import "github.com/toolnexus-go/toolnexus/internal/msg"

// The destinations the converters of [ToolResult] write for, by the name
// [ToolResult.Unsupported] takes: a provider's API, through the method of
// ToolResult that converts to it, or MCP.
const (
	DestinationAnthropic       = "anthropic"        // [ToolResult.AnthropicToolResult]
	DestinationOpenAIChat      = "openai-chat"      // [ToolResult.OpenAIChatMessages]
	DestinationOpenAIResponses = "openai-responses" // [ToolResult.OpenAIResponsesOutput]
	DestinationGemini          = "gemini"           // [ToolResult.GeminiFunctionResponse]
	DestinationVertex          = "vertex"           // [ToolResult.VertexFunctionResponse]
	DestinationMCP             = "mcp"              // [ToolResult.MCPCallToolResult]
	DestinationOpenAIAgents    = "openai-agents"    // [ToolResult.OpenAIAgentsToolResult]
)

// The reasons a destination does not carry a part, as
// [UnsupportedPart].Reason says them.
const (
	// UnsupportedInvalid means the part fails [ContentPart.Validate].
	UnsupportedInvalid = "invalid"
	// UnsupportedType means the destination takes no part of this type, as
	// Anthropic and OpenAI Responses take no audio.
	UnsupportedType = "type"
	// UnsupportedMediaType means the destination takes parts of this type, but
	// not of this media type.
	UnsupportedMediaType = "mediaType"
	// UnsupportedURL means the destination takes this part as data only, never by
	// URL, as OpenAI Chat takes a PDF or audio.
	UnsupportedURL = "url"
	// UnsupportedURLScheme means the destination fetches no URL of this scheme.
	UnsupportedURLScheme = "urlScheme"
	// UnsupportedSize means the part is over a size limit of the destination,
	// the one Limit names.
	UnsupportedSize = "size"
	// UnsupportedEncoding means the destination takes this text file as text,
	// and its data is not UTF-8.
	UnsupportedEncoding = "encoding"
	// UnsupportedDestination means the destination is not one this package knows.
	UnsupportedDestination = "destination"
	// UnsupportedFailed means the destination takes no part in a failed
	// result, only its text, as OpenAI Agents takes an error message.
	UnsupportedFailed = "failed"
)

// SizeLimit is a size limit of a destination: Bytes bytes of the part's
// data, counted on its base64 when Base64 is set and on the decoded bytes
// otherwise. What says which limit it is, as the placeholder names it ("the
// 5 MiB (5242880 bytes) of base64 Anthropic takes in an image").
type SizeLimit struct {
	Bytes  int64  `json:"bytes"`
	Base64 bool   `json:"base64"`
	What   string `json:"what"`
}

// UnsupportedPart is a part a destination would not carry: Index is its
// index in the result's Parts, Part its description (as
// [ContentPart.String] gives it, without its data), Reason why, and Limit,
// for [UnsupportedSize], the limit it is over. Placeholder is the text the
// destination is sent in its place.
type UnsupportedPart struct {
	Index       int       `json:"index"`
	Part        string    `json:"part"`
	Reason      string    `json:"reason"`
	Limit       SizeLimit `json:"limit,omitzero"`
	Placeholder string    `json:"placeholder"`
}

// Unsupported returns the parts of r that the destination d would not
// carry, in order, each with the reason, as its converter decides it: the
// converter makes the same decision, through the same code, and sends each
// of these parts as the Placeholder reported here. It converts nothing, so a
// host may ask before converting (to shrink an image and try again, say) as
// well as after. Text parts are always carried. An unknown destination
// carries no other part.
func (r ToolResult) Unsupported(d string) []UnsupportedPart {
	return r.unsupported(d)
}

// Carried reports [ErrNotCarried] for the first part of r that the
// destination d would not carry, naming it and why (an Unsupported
// reason); nil when d carries every part. A host that would
// rather fail than have the model read a placeholder calls it before
// converting: the converters themselves always send the placeholder.
func (r ToolResult) Carried(d string) error {
	parts := r.unsupported(d)
	if len(parts) == 0 {
		return nil
	}
	p := parts[0]
	return msg.Errorf(ErrNotCarried, "%s does not carry part %d, %s, for the reason %s", msg.Quote(d), p.Index, p.Part, msg.Quote(p.Reason))
}

// unsupported is [ToolResult.Unsupported].
func (r ToolResult) unsupported(d string) []UnsupportedPart {
	carries := carriesFor(d, r)
	var out []UnsupportedPart
	for i, p := range r.Parts {
		if p.Type == PartText {
			continue
		}
		why := carryOf(p, carries)
		if why.reason == "" {
			continue
		}
		out = append(out, UnsupportedPart{Index: i, Part: p.String(), Reason: why.reason, Limit: why.limit, Placeholder: why.placeholder(p)})
	}
	return out
}

// carriesFor returns the decision of d for the parts of r: a destination
// that takes a failed call's text only carries none of a failed r.
func carriesFor(d string, r ToolResult) func(ContentPart) carry {
	if d == DestinationOpenAIAgents && r.IsError {
		return func(ContentPart) carry { return refusedFor(UnsupportedFailed) }
	}
	return carries(d)
}

// carries returns the decision of d: why it does not carry a valid part.
func carries(d string) func(ContentPart) carry {
	switch d {
	case DestinationAnthropic:
		return anthropicCarries
	case DestinationOpenAIChat:
		return openAIChatCarries
	case DestinationOpenAIResponses:
		return openAIResponsesCarries
	case DestinationGemini:
		return geminiCarries
	case DestinationVertex:
		return vertexCarries
	case DestinationMCP:
		return mcpCarries
	case DestinationOpenAIAgents:
		return openAIAgentsCarries
	}
	return func(ContentPart) carry { return refusedFor(UnsupportedDestination) }
}

// carry is whether a destination carries a part, and if not, why; the zero carry
// carries it.
type carry struct {
	reason string
	limit  SizeLimit
}

// refusedFor returns the carry that refuses a part for reason.
func refusedFor(reason string) carry { return carry{reason: reason} }

// overLimit returns the carry that refuses a part over limit.
func overLimit(limit SizeLimit) carry { return carry{reason: UnsupportedSize, limit: limit} }

// carryOf returns why carries, the decision of a destination, does not
// carry the non-text part p: an invalid part is never carried, and carries
// decides on valid parts only.
func carryOf(p ContentPart, carries func(ContentPart) carry) carry {
	if p.Validate() != nil {
		return refusedFor(UnsupportedInvalid)
	}
	return carries(p)
}

// placeholderText returns the text that stands for p, refused for why.
func (why carry) placeholder(p ContentPart) string {
	switch {
	case why.reason == UnsupportedSize && why.limit.Base64:
		return tooLargeBase64(p, why.limit.What)
	case why.reason == UnsupportedSize:
		return tooLarge(p, why.limit.What)
	}
	return placeholderText(p)
}
