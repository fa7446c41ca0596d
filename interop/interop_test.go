package interop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolnexus-go/toolnexus"
)

// Payloads: the 82-byte PNG fixture of the parent module, a tiny PDF and a
// tiny WAV header.
var (
	pdfBytes = []byte("%PDF-1.4 tiny")
	wavBytes = []byte("RIFF\x00\x00\x00\x00WAVE")
)

func fixturePNG(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/fixture.png")
	require.NoError(t, err)
	require.Len(t, b, 82)
	return b
}

func part(t *testing.T, b []byte, mimeType string) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromBytes(b, mimeType)
	require.NoError(t, err)
	return p
}

func urlPart(t *testing.T, u, mimeType string) toolnexus.ContentPart {
	t.Helper()
	p, err := toolnexus.PartFromURL(u, mimeType)
	require.NoError(t, err)
	return p
}

// results is every part type, alone and together, each as a success and a
// failure, plus a suspension and parts that some destinations cannot take.
func results(t *testing.T) map[string]toolnexus.ToolResult {
	img := part(t, fixturePNG(t), "image/png")
	imgURL := urlPart(t, "https://example.com/cat.png", "image/png")
	pdf := part(t, pdfBytes, "application/pdf").WithName("report.pdf")
	pdfUnnamed := part(t, pdfBytes, "application/pdf")
	pdfURL := urlPart(t, "https://example.com/report.pdf", "application/pdf")
	wav := part(t, wavBytes, "audio/wav")
	bmp := part(t, []byte("BM"), "image/bmp")
	csv := part(t, []byte("a,b\n1,2"), "text/csv").WithName("data.csv")
	text := toolnexus.TextPart("caption")
	out := map[string]toolnexus.ToolResult{
		"text only":  toolnexus.Ok("eu-west-1"),
		"empty":      toolnexus.Ok(""),
		"suspension": toolnexus.AuthRequired("https://example.com/login", ""),
		"all parts":  toolnexus.Ok("out", text, img, imgURL, pdf, pdfUnnamed, pdfURL, wav, bmp, csv),
	}
	for name, p := range map[string]toolnexus.ContentPart{
		"text": text, "image data": img, "image URL": imgURL, "file with name": pdf,
		"file without name": pdfUnnamed, "file URL": pdfURL, "audio": wav, "bmp image": bmp, "text file": csv,
	} {
		out[name] = toolnexus.Ok("out", p)
		out[name+" error"] = toolnexus.Error("failed", p)
	}
	return out
}

// roundTrip decodes our JSON into the SDK value v, encodes v again and checks
// that the JSON is the same.
func roundTrip(t *testing.T, ours []byte, v any) []byte {
	t.Helper()
	require.NoError(t, json.Unmarshal(ours, v))
	again, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, string(ours), string(again))
	return again
}

func decode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

func TestAnthropic(t *testing.T) {
	for name, r := range results(t) {
		t.Run(name, func(t *testing.T) {
			block := r.AnthropicToolResult("toolu_01")
			ours, err := json.Marshal(block)
			require.NoError(t, err)
			var sdk anthropic.ToolResultBlockParam
			roundTrip(t, ours, &sdk)

			assert.Equal(t, "toolu_01", sdk.ToolUseID)
			assert.Equal(t, r.IsError, sdk.IsError.Value)
			require.Len(t, sdk.Content, len(block.Content))
			for i, b := range block.Content {
				c := sdk.Content[i]
				switch b.Type {
				case "text":
					require.NotNil(t, c.OfText, "block %d", i)
					assert.Equal(t, b.Text, c.OfText.Text)
				case "image":
					require.NotNil(t, c.OfImage, "block %d", i)
					if b.Source.Type == "base64" {
						require.NotNil(t, c.OfImage.Source.OfBase64)
						assert.Equal(t, b.Source.MediaType, string(c.OfImage.Source.OfBase64.MediaType))
						assert.Equal(t, decode(t, b.Source.Data), decode(t, c.OfImage.Source.OfBase64.Data))
					} else {
						require.NotNil(t, c.OfImage.Source.OfURL)
						assert.Equal(t, b.Source.URL, c.OfImage.Source.OfURL.URL)
					}
				case "document":
					require.NotNil(t, c.OfDocument, "block %d", i)
					assert.Equal(t, b.Title, c.OfDocument.Title.Value)
					switch b.Source.Type {
					case "base64":
						require.NotNil(t, c.OfDocument.Source.OfBase64)
						assert.Equal(t, decode(t, b.Source.Data), decode(t, c.OfDocument.Source.OfBase64.Data))
					case "text":
						require.NotNil(t, c.OfDocument.Source.OfText)
						assert.Equal(t, b.Source.Data, c.OfDocument.Source.OfText.Data)
					default:
						require.NotNil(t, c.OfDocument.Source.OfURL)
						assert.Equal(t, b.Source.URL, c.OfDocument.Source.OfURL.URL)
					}
				default:
					t.Fatalf("block %d has type %q", i, b.Type)
				}
			}
		})
	}
}

func TestOpenAIChat(t *testing.T) {
	for name, r := range results(t) {
		t.Run(name, func(t *testing.T) {
			msgs := r.OpenAIChatMessages("call_01", "lookup")
			require.NotEmpty(t, msgs)
			for i, m := range msgs {
				ours, err := json.Marshal(m)
				require.NoError(t, err)
				var sdk openai.ChatCompletionMessageParamUnion
				roundTrip(t, ours, &sdk)
				if i == 0 {
					require.NotNil(t, sdk.OfTool)
					assert.Equal(t, "call_01", sdk.OfTool.ToolCallID)
					switch c := m.Content.(type) {
					case string:
						assert.Equal(t, c, sdk.OfTool.Content.OfString.Value)
					case []toolnexus.OpenAIChatContentPart:
						require.Len(t, sdk.OfTool.Content.OfArrayOfContentParts, len(c))
						for j, p := range c {
							assert.Equal(t, p.Text, sdk.OfTool.Content.OfArrayOfContentParts[j].Text)
						}
					default:
						t.Fatalf("tool content is %T", m.Content)
					}
					continue
				}
				require.Equal(t, 1, i, "at most one user message")
				require.NotNil(t, sdk.OfUser)
				parts := m.Content.([]toolnexus.OpenAIChatContentPart)
				sdkParts := sdk.OfUser.Content.OfArrayOfContentParts
				require.Len(t, sdkParts, len(parts))
				require.NotNil(t, sdkParts[0].OfText)
				assert.Equal(t, "Output of tool lookup (call_01):", sdkParts[0].OfText.Text)
				for j, p := range parts[1:] {
					s := sdkParts[j+1]
					switch p.Type {
					case "image_url":
						require.NotNil(t, s.OfImageURL)
						assert.Equal(t, p.ImageURL.URL, s.OfImageURL.ImageURL.URL)
					case "text":
						require.NotNil(t, s.OfText)
						assert.Equal(t, p.Text, s.OfText.Text)
					case "file":
						require.NotNil(t, s.OfFile)
						assert.Equal(t, "data:application/pdf;base64,"+base64.StdEncoding.EncodeToString(pdfBytes), s.OfFile.File.FileData.Value)
						assert.Equal(t, p.File.Filename, s.OfFile.File.Filename.Value)
					case "input_audio":
						require.NotNil(t, s.OfInputAudio)
						assert.Equal(t, wavBytes, decode(t, s.OfInputAudio.InputAudio.Data))
						assert.Equal(t, "wav", s.OfInputAudio.InputAudio.Format)
					default:
						t.Fatalf("user part %d has type %q", j+1, p.Type)
					}
				}
			}
		})
	}
}

func TestOpenAIResponses(t *testing.T) {
	for name, r := range results(t) {
		t.Run(name, func(t *testing.T) {
			item := r.OpenAIResponsesOutput("call_01")
			ours, err := json.Marshal(item)
			require.NoError(t, err)
			var sdk responses.ResponseInputItemUnionParam
			roundTrip(t, ours, &sdk)
			require.NotNil(t, sdk.OfFunctionCallOutput)
			assert.Equal(t, "call_01", sdk.OfFunctionCallOutput.CallID.Value)
			out := sdk.OfFunctionCallOutput.Output
			switch o := item.Output.(type) {
			case string:
				assert.Equal(t, o, out.OfString.Value)
			case []toolnexus.OpenAIResponsesContent:
				require.Len(t, out.OfResponseFunctionCallOutputItemArray, len(o))
				for i, c := range o {
					s := out.OfResponseFunctionCallOutputItemArray[i]
					switch c.Type {
					case "input_text":
						require.NotNil(t, s.OfInputText)
						assert.Equal(t, c.Text, s.OfInputText.Text)
					case "input_image":
						require.NotNil(t, s.OfInputImage)
						assert.Equal(t, c.ImageURL, s.OfInputImage.ImageURL.Value)
					case "input_file":
						require.NotNil(t, s.OfInputFile)
						assert.Equal(t, c.FileData, s.OfInputFile.FileData.Value)
						assert.Equal(t, c.FileURL, s.OfInputFile.FileURL.Value)
						assert.Equal(t, c.Filename, s.OfInputFile.Filename.Value)
					default:
						t.Fatalf("item %d has type %q", i, c.Type)
					}
				}
			default:
				t.Fatalf("output is %T", item.Output)
			}
		})
	}
}

func TestGemini(t *testing.T) {
	for name, r := range results(t) {
		t.Run(name, func(t *testing.T) {
			fr := r.GeminiFunctionResponse("lookup", "call_01")
			ours, err := json.Marshal(fr)
			require.NoError(t, err)
			var sdk genai.FunctionResponse
			roundTrip(t, ours, &sdk)
			assert.Equal(t, "lookup", sdk.Name)
			assert.Equal(t, "call_01", sdk.ID)
			assert.Equal(t, fr.Response, sdk.Response)
			require.Len(t, sdk.Parts, len(fr.Parts))
			for i, p := range fr.Parts {
				if p.InlineData != nil {
					require.NotNil(t, sdk.Parts[i].InlineData)
					assert.Equal(t, p.InlineData.MIMEType, sdk.Parts[i].InlineData.MIMEType)
					assert.Equal(t, decode(t, p.InlineData.Data), sdk.Parts[i].InlineData.Data)
				} else {
					require.NotNil(t, sdk.Parts[i].FileData)
					assert.Equal(t, p.FileData.FileURI, sdk.Parts[i].FileData.FileURI)
				}
			}
		})
	}
}

// mcpJSONEq compares MCP JSON the SDK wrote with ours: the SDK leaves out
// isError when it is false, which MCP reads as false.
func mcpJSONEq(t *testing.T, ours, sdk []byte) {
	t.Helper()
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(ours, &a))
	require.NoError(t, json.Unmarshal(sdk, &b))
	if a["isError"] == false {
		delete(a, "isError")
	}
	assert.Equal(t, a, b)
}

func TestMCP(t *testing.T) {
	for name, r := range results(t) {
		t.Run(name, func(t *testing.T) {
			res := r.MCPCallToolResult()
			ours, err := json.Marshal(res)
			require.NoError(t, err)
			var sdk mcp.CallToolResult
			require.NoError(t, json.Unmarshal(ours, &sdk))
			again, err := json.Marshal(&sdk)
			require.NoError(t, err)
			mcpJSONEq(t, ours, again)

			assert.Equal(t, r.IsError, sdk.IsError)
			require.Len(t, sdk.Content, len(res.Content))
			for i, c := range res.Content {
				switch s := sdk.Content[i].(type) {
				case *mcp.TextContent:
					assert.Equal(t, "text", c.Type)
					assert.Equal(t, c.Text, s.Text)
				case *mcp.ImageContent:
					assert.Equal(t, "image", c.Type)
					assert.Equal(t, c.MIMEType, s.MIMEType)
					assert.Equal(t, decode(t, c.Data), s.Data)
				case *mcp.AudioContent:
					assert.Equal(t, "audio", c.Type)
					assert.Equal(t, "audio/wav", s.MIMEType)
					assert.Equal(t, wavBytes, s.Data)
				case *mcp.EmbeddedResource:
					assert.Equal(t, "resource", c.Type)
					assert.Equal(t, c.Resource.URI, s.Resource.URI)
					assert.Equal(t, c.Resource.MIMEType, s.Resource.MIMEType)
					assert.Equal(t, c.Resource.Text, s.Resource.Text)
					if c.Resource.Blob == "" {
						assert.Nil(t, s.Resource.Blob)
					} else {
						assert.Equal(t, decode(t, c.Resource.Blob), s.Resource.Blob)
					}
				case *mcp.ResourceLink:
					assert.Equal(t, "resource_link", c.Type)
					assert.Equal(t, c.URI, s.URI)
					assert.Equal(t, c.Name, s.Name)
					assert.Equal(t, c.MIMEType, s.MIMEType)
				default:
					t.Fatalf("content %d is %T", i, s)
				}
			}
		})
	}
}

// TestRoundTripCanFail shows that the round trips above are checks: JSON an
// SDK does not know does not come back the same, so a wrong key or shape in
// our output would fail them.
func TestRoundTripCanFail(t *testing.T) {
	cases := []struct {
		name string
		bad  string
		v    any
	}{
		{"anthropic misspelled key", `{"type":"tool_result","tool_use_id":"t","is_error":false,"content":[{"type":"image","source":{"type":"base64","mediaType":"image/png","data":"AAAA"}}]}`, &anthropic.ToolResultBlockParam{}},
		{"openai image_url as a string", `{"role":"user","content":[{"type":"image_url","image_url":"https://example.com/a.png"}]}`, &openai.ChatCompletionMessageParamUnion{}},
		{"responses unknown item key", `{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","imageUrl":"https://example.com/a.png"}]}`, &responses.ResponseInputItemUnionParam{}},
		{"gemini snake case", `{"name":"n","response":{"output":"x"},"parts":[{"inline_data":{"mime_type":"image/png","data":"AAAA"}}]}`, &genai.FunctionResponse{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(tc.bad), tc.v); err != nil {
				return // refused outright: a check that fails
			}
			again, err := json.Marshal(tc.v)
			require.NoError(t, err)
			var a, b any
			require.NoError(t, json.Unmarshal([]byte(tc.bad), &a))
			require.NoError(t, json.Unmarshal(again, &b))
			assert.NotEqual(t, a, b, "the SDK kept JSON it does not know: %s", again)
		})
	}
	var sdk mcp.CallToolResult
	assert.Error(t, json.Unmarshal([]byte(`{"content":[{"type":"picture","data":"AAAA"}]}`), &sdk),
		"the MCP SDK refuses a content type it does not know")
}

// TestMCPServer runs an MCP server and client of the SDK in memory. One tool
// builds its result with the SDK's own types; the other serves a ToolResult
// sent through MCPCallToolResult. What the client receives, read back with
// FromMCPCallToolResult, has the parts and bytes that were sent.
func TestMCPServer(t *testing.T) {
	png := fixturePNG(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sent := toolnexus.Error("failed halfway",
		part(t, png, "image/png"),
		part(t, wavBytes, "audio/wav"),
		part(t, pdfBytes, "application/pdf").WithName("report.pdf"),
		urlPart(t, "https://example.com/cat.png", "image/png"),
	)
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture-server", Version: "v0.0.1"}, nil)
	schema := json.RawMessage(`{"type":"object"}`)
	server.AddTool(&mcp.Tool{Name: "render", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "rendered"},
				&mcp.ImageContent{Data: png, MIMEType: "image/png"},
				&mcp.AudioContent{Data: wavBytes, MIMEType: "audio/wav"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///reports/report.pdf", MIMEType: "application/pdf", Blob: pdfBytes}},
			},
			IsError: true,
		}, nil
	})
	server.AddTool(&mcp.Tool{Name: "toolnexus", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, err := json.Marshal(sent.MCPCallToolResult())
		if err != nil {
			return nil, err
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(data, &res); err != nil {
			return nil, err
		}
		return &res, nil
	})

	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "fixture-client", Version: "v0.0.1"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	require.NoError(t, err)
	defer func() {
		require.NoError(t, session.Close())
		require.NoError(t, serverSession.Wait())
	}()

	call := func(name string) toolnexus.ToolResult {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		require.NoError(t, err)
		data, err := json.Marshal(res)
		require.NoError(t, err)
		r, err := toolnexus.FromMCPCallToolResult(data)
		require.NoError(t, err)
		require.NoError(t, r.Validate())
		return r
	}

	t.Run("SDK types", func(t *testing.T) {
		r := call("render")
		want := toolnexus.Error("rendered",
			part(t, png, "image/png"),
			part(t, wavBytes, "audio/wav"),
			part(t, pdfBytes, "application/pdf").WithName("report.pdf"),
		).WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"2": "file:///reports/report.pdf"})
		assert.Equal(t, want, r)
		for i, b := range [][]byte{png, wavBytes, pdfBytes} {
			got, err := base64.StdEncoding.DecodeString(r.Parts[i].Data)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(b, got), "part %d bytes", i)
		}
	})
	t.Run("ToolResult sent through MCP", func(t *testing.T) {
		assert.Equal(t, sent, call("toolnexus"))
	})
}
