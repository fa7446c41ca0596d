// Package genaibridge hands a toolnexus result to Google's Gen AI SDK for
// Go (google.golang.org/genai), on the Gemini API and on Vertex AI. The
// main module writes Gemini's functionResponse as its wire JSON, whose
// inline media are base64 strings; genai holds them as bytes and encodes
// them itself. [Part] and [Content] give genai's own values for a result
// and for a turn on the backend of a client, and [FunctionResponse] reads
// the wire value. It is tested with genai v1.79.1, which sends to the
// Gemini API at v1 and to Vertex AI at v1beta1.
package genaibridge

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"google.golang.org/genai"
)

// ErrUnknownBackend reports a genai backend other than
// genai.BackendGeminiAPI, genai.BackendVertexAI and
// genai.BackendEnterprise, such as the zero genai.BackendUnspecified,
// which genai.NewClient resolves from the environment: which parts a
// response carries depends on it, so pass the Backend of the client's
// config (genai.Client.ClientConfig).
var ErrUnknownBackend = errors.New("toolnexus: unknown genai backend")

// FunctionResponse returns fr as genai's FunctionResponse: the same id,
// name and response, and each part in order, inline data decoded from its
// base64 to bytes and file data kept as its URI. Data that is not
// canonical standard base64 reports [toolnexus.ErrInvalidBase64]; a part
// with neither inline nor file data [toolnexus.ErrInvalidPart].
//
// Display names are left unset: genai documents them as read only when
// server-side tools are on, and the wire value has none.
func FunctionResponse(fr toolnexus.GeminiFunctionResponse) (*genai.FunctionResponse, error) {
	out := &genai.FunctionResponse{ID: fr.ID, Name: fr.Name, Response: fr.Response}
	if len(fr.Parts) > 0 {
		out.Parts = make([]*genai.FunctionResponsePart, len(fr.Parts))
	}
	for i, p := range fr.Parts {
		switch {
		case p.InlineData != nil && p.FileData == nil:
			if err := b64.Check(p.InlineData.Data); err != nil {
				return nil, fmt.Errorf("toolnexus: part %d of the response of %s: %w", i, msg.Quote(fr.Name), err)
			}
			data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
			if err != nil {
				return nil, msg.Errorf(toolnexus.ErrInvalidBase64, "part %d of the response of %s: %v", i, msg.Quote(fr.Name), err)
			}
			out.Parts[i] = &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.InlineData.MIMEType, Data: data}}
		case p.FileData != nil && p.InlineData == nil:
			out.Parts[i] = &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{MIMEType: p.FileData.MIMEType, FileURI: p.FileData.FileURI}}
		default:
			return nil, msg.Errorf(toolnexus.ErrInvalidPart, "part %d of the response of %s holds %s", i, msg.Quote(fr.Name), holds(p))
		}
	}
	return out, nil
}

// holds says what p, a part that is neither inline nor file data alone,
// holds.
func holds(p toolnexus.GeminiFunctionResponsePart) string {
	if p.InlineData == nil {
		return "no data"
	}
	return "both inline and file data"
}

// Part returns r, the result of the call id of the function name, as the
// genai part that answers that call on backend, the Backend of the
// client's config (genai.Client.ClientConfig): its FunctionResponse is
// [toolnexus.ToolResult.GeminiFunctionResponse] for genai.BackendGeminiAPI
// and [toolnexus.ToolResult.VertexFunctionResponse] for
// genai.BackendVertexAI and genai.BackendEnterprise (which genai sends to
// Vertex AI), read by [FunctionResponse]. Vertex AI takes a
// part by a Cloud Storage or HTTP URL as file data; the Gemini API takes
// none, and such a part is a placeholder in the response's text. A result
// that fails [toolnexus.ToolResult.Validate] reports that error; another
// backend [ErrUnknownBackend].
func Part(backend genai.Backend, r toolnexus.ToolResult, name, id string) (*genai.Part, error) {
	response, err := responder(backend)
	if err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	fr, err := FunctionResponse(response(r, name, id))
	if err != nil {
		return nil, err
	}
	return &genai.Part{FunctionResponse: fr}, nil
}

// Content returns the user content that answers the calls of t, a turn
// whose calls have all run, on backend, as [Part] makes each call's part,
// in call order: the content to send after the model's content that made
// the calls. A turn that [toolnexus.Turn.GeminiContent] refuses reports
// its error ([toolnexus.ErrInvalidTurn], [toolnexus.ErrIncompleteTurn]);
// another backend [ErrUnknownBackend].
func Content(backend genai.Backend, t toolnexus.Turn) (*genai.Content, error) {
	if _, err := responder(backend); err != nil {
		return nil, err
	}
	if _, err := t.GeminiContent(); err != nil {
		return nil, err
	}
	c := &genai.Content{Role: genai.RoleUser, Parts: make([]*genai.Part, len(t.Calls))}
	for i, call := range t.Calls {
		p, err := Part(backend, call.Result, call.Name, call.ID)
		if err != nil {
			return nil, err
		}
		c.Parts[i] = p
	}
	return c, nil
}

// responder returns the method of toolnexus.ToolResult that writes the
// functionResponse backend takes.
func responder(backend genai.Backend) (func(toolnexus.ToolResult, string, string) toolnexus.GeminiFunctionResponse, error) {
	switch backend {
	case genai.BackendGeminiAPI:
		return toolnexus.ToolResult.GeminiFunctionResponse, nil
	case genai.BackendVertexAI, genai.BackendEnterprise:
		return toolnexus.ToolResult.VertexFunctionResponse, nil
	}
	return nil, msg.Errorf(ErrUnknownBackend, "genai.Backend(%d)", int(backend))
}
