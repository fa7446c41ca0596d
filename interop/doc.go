// Package interop checks the provider shapes of toolnexus against the
// providers' own SDKs (genai against both its Gemini API and Vertex AI
// backends), and the MCP conversions against MCP's reference server,
// @modelcontextprotocol/server-everything, which everything/ installs with
// npm ci and the tests run over stdio.
package interop
