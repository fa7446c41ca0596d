// Package toolnexus holds what an LLM tool call returned, as plain values: a
// [ToolResult] with the text the model reads next, whether the call failed,
// non-text [ContentPart] values such as images, PDFs and audio, and metadata
// for the host's code, never the model. A tool that cannot finish until a
// person logs in, approves or answers returns a suspension: a [Request] the
// host puts to the person, and an [Answer] it runs the tool again with, in
// this process or in another one after the result went through JSON:
//
//	img, err := toolnexus.PartFromFile("chart.png")
//	if err != nil {
//		return toolnexus.Error(err.Error()) // the model reads it and recovers
//	}
//	done := toolnexus.Ok("chart.png (image/png, 82 bytes)", img)
//
//	parked := toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"})
//	stored, _ := json.Marshal(parked) // a database, a queue, a file
//	var read toolnexus.ToolResult
//	_ = json.Unmarshal(stored, &read)
//	if req, ok := toolnexus.PendingOf(read); ok {
//		ans := req.Resolve(nil) // the person said yes
//		_ = ans.Check(req, time.Now())
//	}
//
// JSON that another process wrote, which a peer may craft, is read with
// [ParseToolResult] (and MCP's with [ParseMCPCallToolResult]): exact keys, a
// size limit, a valid result. A part read from a source the caller does not
// control is read with a [PartReader], which carries a size limit and a MIME
// type for every kind of source.
//
// One method per destination turns a result into what a model provider
// takes ([ToolResult.AnthropicToolResult], [ToolResult.OpenAIChatMessages],
// [ToolResult.OpenAIResponsesOutput], [ToolResult.GeminiFunctionResponse],
// [ToolResult.MCPCallToolResult]), and a [Turn] holds all the calls of one
// model turn until each has finished. A part a destination cannot carry
// becomes placeholder text, never a silent drop, and
// [ToolResult.Unsupported] says which and why. The types named after a
// provider or MCP (AnthropicToolResultBlock, OpenAIChatMessage, MCPContent
// and the like) are those methods' return shapes, whose JSON is what the
// destination takes: hand them to an SDK, rarely build one.
//
// Over MCP, a suspension becomes input requests (elicitation, sampling,
// roots) that the client fulfils before it retries the call: package
// mcpcall is the transport-free core that does it, package requeststate
// seals the state the client holds in between, and the nested modules
// mcpbridge (the official go-sdk) and mcpgobridge (mark3labs/mcp-go) serve
// it.
package toolnexus
