package adkbridge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/toolnexus-go/toolnexus"
	"google.golang.org/genai"
)

// mediaKey is the key of a function response, as Run returns it and the
// session keeps it, under which the media of the result wait until
// ProcessRequest moves them into the response's parts: ADK builds the
// function response from the map a tool returns, which cannot hold parts.
const mediaKey = "toolnexus.media"

// response returns r as the response map of a function response: Gemini's
// {"output": text} or {"error": text}, and its media under mediaKey.
func (t *Tool) response(r toolnexus.ToolResult) map[string]any {
	g := r.GeminiFunctionResponse(t.name, "")
	if len(g.Parts) > 0 {
		g.Response[mediaKey] = g.Parts
	}
	return g.Response
}

// attachMedia moves the media of t's function responses in contents, the
// contents of a request to the model that ADK built afresh from the
// session, into the parts of those responses.
func (t *Tool) attachMedia(contents []*genai.Content) error {
	for _, c := range contents {
		if c == nil {
			continue
		}
		cloned := false
		for i, p := range c.Parts {
			if p == nil || p.FunctionResponse == nil || p.FunctionResponse.Name != t.name {
				continue
			}
			v, ok := p.FunctionResponse.Response[mediaKey]
			if !ok {
				continue
			}
			media, err := mediaParts(v)
			if err != nil {
				return fmt.Errorf("%w (a response of tool %s)", err, strconv.Quote(t.name))
			}
			fr := *p.FunctionResponse
			fr.Response = maps.Clone(fr.Response)
			delete(fr.Response, mediaKey)
			fr.Parts = append(slices.Clone(fr.Parts), media...)
			np := *p
			np.FunctionResponse = &fr
			if !cloned {
				c.Parts, cloned = slices.Clone(c.Parts), true
			}
			c.Parts[i] = &np
		}
	}
	return nil
}

// mediaParts returns v, the media a function response keeps under
// mediaKey, as genai parts: inline data decoded from canonical base64, or
// a file's URI.
func mediaParts(v any) ([]*genai.FunctionResponsePart, error) {
	var kept struct {
		Media []toolnexus.GeminiFunctionResponsePart `json:"media"`
	}
	b, err := json.Marshal(map[string]any{"media": v})
	if err == nil {
		err = toolnexus.DecodeArguments(b, &kept)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the media kept in a function response are not parts", toolnexus.ErrInvalidPart)
	}
	parts := make([]*genai.FunctionResponsePart, len(kept.Media))
	for i, m := range kept.Media {
		switch {
		case m.InlineData != nil && m.FileData == nil:
			data, err := base64.StdEncoding.DecodeString(m.InlineData.Data)
			if err != nil || base64.StdEncoding.EncodeToString(data) != m.InlineData.Data {
				return nil, fmt.Errorf("%w: medium %d of a function response", toolnexus.ErrInvalidBase64, i)
			}
			parts[i] = &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: m.InlineData.MIMEType, Data: data}}
		case m.FileData != nil && m.InlineData == nil:
			parts[i] = genai.NewFunctionResponsePartFromURI(m.FileData.FileURI, m.FileData.MIMEType)
		default:
			return nil, fmt.Errorf("%w: medium %d of a function response holds neither or both of inline data and a file", toolnexus.ErrInvalidPart, i)
		}
	}
	return parts, nil
}
