// Package interop checks the provider shapes of toolnexus against the
// providers' own SDKs (genai against both its Gemini API and Vertex AI
// backends), and the MCP conversions against MCP's reference server,
// @modelcontextprotocol/server-everything, which everything/ installs with
// npm ci and the tests run over stdio. Its Gemini hand-off goes through
// genaibridge. It is tested with anthropic-sdk-go v2.17.0, openai-go
// v3.103.0, genai v1.79.1 (the Gemini API at v1) and the MCP go-sdk
// v1.8.0.
package interop
