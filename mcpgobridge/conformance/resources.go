package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// addResources adds the resources the resources scenarios read. Resources
// are no tools: they are mcp-go's own.
func addResources(srv *server.MCPServer) {
	text := func(uri, mimeType, body string) server.ResourceHandlerFunc {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mimeType, Text: body}}, nil
		}
	}
	srv.AddResource(mcp.NewResource("test://static-text", "static-text", mcp.WithResourceDescription("A text resource"), mcp.WithMIMEType("text/plain")),
		text("test://static-text", "text/plain", "This is the content of the static text resource."))
	srv.AddResource(mcp.NewResource("test://static-binary", "static-binary", mcp.WithResourceDescription("A binary resource"), mcp.WithMIMEType("image/png")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: base64.StdEncoding.EncodeToString(pixel)}}, nil
		})
	srv.AddResource(mcp.NewResource("test://watched-resource", "watched-resource", mcp.WithResourceDescription("A resource to subscribe to"), mcp.WithMIMEType("text/plain")),
		text("test://watched-resource", "text/plain", "Watched resource content"))
	srv.AddResourceTemplate(mcp.NewResourceTemplate("test://template/{id}/data", "template",
		mcp.WithTemplateDescription("A resource template"), mcp.WithTemplateMIMEType("application/json")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body := fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: body}}, nil
		})
}

// addPrompts adds the prompts the prompts scenarios get, mcp-go's own too.
func addPrompts(srv *server.MCPServer) {
	user := func(c mcp.Content) []mcp.PromptMessage {
		return []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, c)}
	}
	srv.AddPrompt(mcp.NewPrompt("test_simple_prompt", mcp.WithPromptTitle("Simple Test Prompt"), mcp.WithPromptDescription("A prompt without arguments")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A prompt without arguments", user(mcp.NewTextContent("This is a simple prompt for testing."))), nil
		})
	srv.AddPrompt(mcp.NewPrompt("test_prompt_with_arguments", mcp.WithPromptTitle("Prompt With Arguments"), mcp.WithPromptDescription("A prompt with required arguments"),
		mcp.WithArgument("arg1", mcp.ArgumentDescription("First argument"), mcp.RequiredArgument()),
		mcp.WithArgument("arg2", mcp.ArgumentDescription("Second argument"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return mcp.NewGetPromptResult("A prompt with required arguments",
				user(mcp.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])))), nil
		})
	srv.AddPrompt(mcp.NewPrompt("test_prompt_with_embedded_resource", mcp.WithPromptTitle("Prompt With Embedded Resource"),
		mcp.WithPromptDescription("A prompt with an embedded resource"),
		mcp.WithArgument("resourceUri", mcp.ArgumentDescription("The URI of the resource to embed"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A prompt with an embedded resource", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please process the embedded resource above.")),
			}), nil
		})
	srv.AddPrompt(mcp.NewPrompt("test_prompt_with_image", mcp.WithPromptTitle("Prompt With Image"), mcp.WithPromptDescription("A prompt with an image")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A prompt with an image", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(base64.StdEncoding.EncodeToString(pixel), "image/png")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please analyze the image above.")),
			}), nil
		})
}
