// Package mcpcall runs MCP tools/call requests whose tool may suspend, for
// any MCP server code: a [Runner] takes a [Call] as the transport read it,
// runs a [toolnexus.Tool] with the call's arguments and every answer so
// far, and returns the result to send or the JSON-RPC [*Error] to answer
// with. A suspension becomes input requests (elicitation, sampling,
// roots) that the client fulfils before it retries the call, with a
// requestState that a [requeststate.Sealer] seals; on a protocol older
// than [MultiRoundTrip], the Runner asks the client within the call
// instead. It has no transport: the mcpbridge (the official go-sdk) and
// mcpgobridge (mark3labs/mcp-go) modules adapt it to their SDKs.
package mcpcall
