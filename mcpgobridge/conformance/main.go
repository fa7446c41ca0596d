// Command conformance is an mcp-go server for the official MCP conformance
// suites (@modelcontextprotocol/conformance), serving streamable HTTP on
// -addr at /mcp, whose URL it prints on its first line: sessions for
// clients on 2025-11-25, stateless requests on 2026-07-28. Every tool is a
// toolnexus tool behind mcpgobridge: its result is a toolnexus.ToolResult,
// and a tool that asks the client suspends with toolnexus.Pending or
// PendingAll. Resources and prompts are mcp-go's own. .ci/run starts it
// through run, which runs both suites against it.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the address to serve on (port 0: any free port)")
	flag.Parse()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		log.Fatal(err)
	}
	srv, err := newServer(key)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(srv))
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

// The payloads of the media tools: a 1x1 PNG and a WAV of one silent
// sample.
var (
	pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silence  = []byte("RIFF\x26\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00")
)

// noInput is the input of a tool without arguments.
type noInput struct{}

// newServer returns the server with every tool the suites call.
func newServer(key []byte) (*server.MCPServer, error) {
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}})
	if err != nil {
		return nil, err
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	if err != nil {
		return nil, err
	}
	b, err := mcpgobridge.New(runner, nil)
	if err != nil {
		return nil, err
	}
	// The tool and prompt lists change (test_trigger_tool_change,
	// test_trigger_prompt_change), and mcp-go tells listening clients.
	srv := server.NewMCPServer("toolnexus-mcpgobridge-conformance", "v0.1.0",
		server.WithToolCapabilities(true), server.WithLogging(), server.WithCompletions(),
		server.WithResourceCapabilities(true, false), server.WithPromptCapabilities(true))
	png, err := toolnexus.PartFromBytes(pixel, "image/png")
	if err != nil {
		return nil, err
	}
	wav, err := toolnexus.PartFromBytes(silence, "audio/wav")
	if err != nil {
		return nil, err
	}
	fixed := func(r toolnexus.ToolResult) server.ToolHandlerFunc {
		return mcpgobridge.Handler(b, func(context.Context, noInput, *toolnexus.Answer) toolnexus.ToolResult { return r })
	}
	add := func(name string, h server.ToolHandlerFunc, opts ...mcp.ToolOption) {
		srv.AddTool(mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithDescription("Conformance tool " + name + ".")}, opts...)...), h)
	}

	add("test_simple_text", fixed(toolnexus.Ok("This is a simple text response for testing.")))
	add("test_image_content", fixed(toolnexus.Ok("", png)))
	add("test_audio_content", fixed(toolnexus.Ok("", wav)))
	add("test_error_handling", fixed(toolnexus.Error("This tool intentionally returns an error for testing")))
	// A file part is an embedded resource, at the URI the result's
	// metadata gives its index.
	doc, err := toolnexus.PartFromBytes([]byte("This is an embedded resource content."), "text/plain")
	if err != nil {
		return nil, err
	}
	data, err := toolnexus.PartFromBytes([]byte(`{"test":"data","value":123}`), "application/json")
	if err != nil {
		return nil, err
	}
	add("test_embedded_resource", fixed(toolnexus.Ok("", doc).
		WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"0": "test://embedded-resource"})))
	add("test_multiple_content_types", fixed(toolnexus.Ok("Multiple content types test:", png, data).
		WithMetadata(toolnexus.MetadataResourceURIs, map[string]string{"1": "test://mixed-content-resource"})))
	add("test_tool_with_logging", mcpgobridge.Handler(b, withLogging))
	add("test_tool_with_progress", mcpgobridge.CallHandler(b, withProgress))
	srv.AddTool(mcp.NewToolWithRawSchema("json_schema_2020_12_tool", "Conformance tool json_schema_2020_12_tool.", json.RawMessage(schema2020)),
		fixed(toolnexus.Ok("schema accepted")))
	// region travels in the Mcp-Param-Region header too (SEP-2243), which
	// mcp-go checks against the body before the handler runs.
	add("test_x_mcp_header", mcpgobridge.Handler(b, region),
		mcp.WithString("region", mcp.Description("mirrored into Mcp-Param-Region"), headerParam("Region")),
		mcp.WithInteger("level", mcp.Description("not mirrored")))

	// Tools that ask the client: on 2025-11-25 the bridge sends the request
	// on the session, on 2026-07-28 it returns input_required.
	add("test_sampling", mcpgobridge.Handler(b, sampling), mcp.WithString("prompt", mcp.Required()))
	add("test_elicitation", mcpgobridge.Handler(b, elicitation), mcp.WithString("message", mcp.Required()))
	add("test_elicitation_sep1034_defaults", mcpgobridge.Handler(b, elicitWith(defaultsSchema)))
	add("test_elicitation_sep1330_enums", mcpgobridge.Handler(b, elicitWith(enumsSchema)))
	add("test_input_required_result_elicitation", mcpgobridge.Handler(b, userName))
	add("test_input_required_result_sampling", mcpgobridge.Handler(b, capital))
	add("test_input_required_result_list_roots", mcpgobridge.Handler(b, roots))
	add("test_input_required_result_request_state", mcpgobridge.Handler(b, confirm))
	add("test_input_required_result_multiple_inputs", mcpgobridge.CallHandler(b, multiple))
	add("test_input_required_result_multi_round", mcpgobridge.CallHandler(b, multiRound))
	add("test_input_required_result_tampered_state", mcpgobridge.Handler(b, confirm))
	add("test_input_required_result_capabilities", mcpgobridge.CallHandler(b, declared))
	add("test_missing_capability", mcpgobridge.Handler(b, capital))
	add("test_streaming_elicitation", mcpgobridge.Handler(b, userName))
	add("test_logging_tool", mcpgobridge.Handler(b, withLogging))
	addListChanges(srv, b)

	// prompts/get is no tool: mcp-go's own input requests serve it.
	srv.AddPrompt(mcp.NewPrompt("test_input_required_result_prompt", mcp.WithPromptDescription("A prompt that asks for its context.")),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if answer := server.ElicitationResponse(req.Params.InputResponses, "user_context"); answer != nil {
				return mcp.NewGetPromptResult("A prompt with its context", []mcp.PromptMessage{
					mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Context: %v", answer.Content)))}), nil
			}
			return server.NewInputRequestBuilder("").Elicit("user_context", mcp.ElicitationParams{
				Message:         "What context should the prompt use?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"context": stringType}, "required": []any{"context"}},
			}).PromptResult(), nil
		})
	addResources(srv)
	addPrompts(srv)
	return srv, nil
}

// addListChanges adds the tools that change the server's tool and prompt
// lists, for the list_changed notifications a subscriptions/listen stream
// carries on 2026-07-28: each call adds (or replaces) a tool, or a prompt,
// and mcp-go notifies the streams that asked for that list.
func addListChanges(srv *server.MCPServer, b *mcpgobridge.Bridge) {
	changed := func(name string, change func()) {
		srv.AddTool(mcp.NewTool(name, mcp.WithDescription("Changes a list, for its list_changed notification.")),
			mcpgobridge.Handler(b, func(context.Context, noInput, *toolnexus.Answer) toolnexus.ToolResult {
				change()
				return toolnexus.Ok(name + ": list changed")
			}))
	}
	changed("test_trigger_tool_change", func() {
		srv.AddTool(mcp.NewTool("transient_tool", mcp.WithDescription("Added to change the tool list.")),
			mcpgobridge.Handler(b, func(context.Context, noInput, *toolnexus.Answer) toolnexus.ToolResult {
				return toolnexus.Ok("transient_tool ran")
			}))
	})
	changed("test_trigger_prompt_change", func() {
		srv.AddPrompt(mcp.NewPrompt("transient_prompt", mcp.WithPromptDescription("Added to change the prompt list.")),
			func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return mcp.NewGetPromptResult("Added to change the prompt list.", []mcp.PromptMessage{
					mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("A prompt added at run time."))}), nil
			})
	})
}

// step is how long the logging and progress tools work after each
// notification they send. mcp-go v1.2.1 loses a notification sent just
// before its handler returns more often than not (two goroutines race for
// it: https://github.com/mark3labs/mcp-go/pull/969; 7 of 10 runs of
// tools-call-with-logging here when these tools returned at once), so
// they, like a tool doing real work between its steps, do not return at
// once. mcpgo-limits still allows both checks as flaky: under load the race
// is lost now and then all the same.
const step = 50 * time.Millisecond

// withLogging sends three log messages while it runs.
func withLogging(ctx context.Context, _ noInput, _ *toolnexus.Answer) toolnexus.ToolResult {
	srv := server.ServerFromContext(ctx)
	for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if srv != nil {
			_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "conformance", msg))
		}
		time.Sleep(step)
	}
	return toolnexus.Ok("Tool with logging executed successfully")
}

// withProgress reports its progress to a client that asked for it.
func withProgress(ctx context.Context, c mcpgobridge.Call[noInput]) toolnexus.ToolResult {
	srv := server.ServerFromContext(ctx)
	var token mcp.ProgressToken
	if m := c.Request.Params.Meta; m != nil {
		token = m.ProgressToken
	}
	for _, progress := range []float64{0, 50, 100} {
		if srv != nil && token != nil {
			_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": token, "progress": progress, "total": 100})
		}
		time.Sleep(step)
	}
	return toolnexus.Ok("Tool with progress executed successfully")
}

// headerParam annotates a parameter to be mirrored into the
// Mcp-Param-<name> header (SEP-2243).
func headerParam(name string) mcp.PropertyOption {
	return func(p map[string]any) { p["x-mcp-header"] = name }
}

func region(_ context.Context, in struct {
	Region string `json:"region"`
}, _ *toolnexus.Answer) toolnexus.ToolResult {
	return toolnexus.Ok("region=" + in.Region)
}

// sample returns the request asking the client's model prompt, in at most
// maxTokens tokens.
func sample(id, prompt string, maxTokens int) toolnexus.Request {
	return toolnexus.Request{ID: id, Kind: toolnexus.KindSampling, Prompt: prompt, Data: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": maxTokens,
	}}
}

// sampled returns the text of a sampling answer.
func sampled(a toolnexus.Answer) string {
	if c, ok := a.Data["content"].(map[string]any); ok {
		if t, ok := c["text"].(string); ok {
			return t
		}
	}
	return fmt.Sprint(a.Data["content"])
}

// form returns the request asking message with a form of the given
// properties, all of them required.
func form(id, message string, properties map[string]any) toolnexus.Request {
	var required []any
	for _, name := range slices.Sorted(maps.Keys(properties)) {
		required = append(required, name)
	}
	return toolnexus.Request{ID: id, Kind: toolnexus.KindInput, Prompt: message, Data: map[string]any{"schema": map[string]any{
		"type": "object", "properties": properties, "required": required}}}
}

var stringType = map[string]any{"type": "string"}

func sampling(_ context.Context, in struct {
	Prompt string `json:"prompt"`
}, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.PendingAll(sample("llm", in.Prompt, 100))
	}
	return toolnexus.Ok("LLM response: " + sampled(*a))
}

func elicitation(_ context.Context, in struct {
	Message string `json:"message"`
}, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.Pending(form("user", in.Message, map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		}))
	}
	return toolnexus.Ok(fmt.Sprintf("User response: <action: %s, content: %s>", action(*a), content(*a)))
}

// action returns the elicitation action an answer stands for.
func action(a toolnexus.Answer) string {
	switch {
	case a.OK:
		return "accept"
	case a.Reason == toolnexus.ReasonCancelled:
		return "cancel"
	}
	return "decline"
}

// content returns the JSON of an answer's data.
func content(a toolnexus.Answer) string {
	data, err := json.Marshal(a.Data)
	if err != nil || a.Data == nil {
		return "{}"
	}
	return string(data)
}

// elicitWith returns a tool that asks a form of schema and reports the
// answer.
func elicitWith(schema map[string]any) mcpgobridge.ToolFunc[noInput] {
	return func(_ context.Context, _ noInput, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(toolnexus.Request{ID: "form", Kind: toolnexus.KindInput, Prompt: "Please review and update the form fields", Data: map[string]any{"schema": schema}})
		}
		return toolnexus.Ok(fmt.Sprintf("Elicitation completed: action=%s, content=%s", action(*a), content(*a)))
	}
}

func userName(_ context.Context, _ noInput, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.Pending(form("user_name", "What is your name?", map[string]any{"name": stringType}))
	}
	return toolnexus.Ok(fmt.Sprintf("Hello, %v!", a.Data["name"]))
}

func capital(_ context.Context, _ noInput, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.PendingAll(sample("capital_question", "What is the capital of France?", 100))
	}
	return toolnexus.Ok(sampled(*a))
}

func roots(_ context.Context, _ noInput, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.PendingAll(toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Which roots?"})
	}
	return toolnexus.Ok("Roots: " + content(*a))
}

func confirm(_ context.Context, _ noInput, a *toolnexus.Answer) toolnexus.ToolResult {
	if a == nil {
		return toolnexus.Pending(form("confirm", "Please confirm", map[string]any{"ok": map[string]any{"type": "boolean"}}))
	}
	return toolnexus.Ok("state-ok: confirmed=" + fmt.Sprint(a.Data["ok"]))
}

func multiple(_ context.Context, c mcpgobridge.Call[noInput]) toolnexus.ToolResult {
	name, ok1 := c.Answers.Get("user_name")
	greeting, ok2 := c.Answers.Get("greeting")
	rs, ok3 := c.Answers.Get("client_roots")
	if !ok1 || !ok2 || !ok3 {
		return toolnexus.PendingAll(
			form("user_name", "What is your name?", map[string]any{"name": stringType}),
			sample("greeting", "Generate a greeting", 50),
			toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Which roots?"},
		)
	}
	return toolnexus.Ok(fmt.Sprintf("name=%v greeting=%s roots=%s", name.Data["name"], sampled(greeting), content(rs)))
}

func multiRound(_ context.Context, c mcpgobridge.Call[noInput]) toolnexus.ToolResult {
	name, ok := c.Answers.Get("step1")
	if !ok {
		return toolnexus.Pending(form("step1", "Step 1: What is your name?", map[string]any{"name": stringType}))
	}
	color, ok := c.Answers.Get("step2")
	if !ok {
		return toolnexus.Pending(form("step2", "Step 2: What is your favorite color?", map[string]any{"color": stringType}))
	}
	return toolnexus.Ok(fmt.Sprintf("%v likes %v", name.Data["name"], color.Data["color"]))
}

// declared asks only what the client declared it takes.
func declared(ctx context.Context, c mcpgobridge.Call[noInput]) toolnexus.ToolResult {
	if len(c.Answers) > 0 {
		parts := make([]string, len(c.Answers))
		for i, a := range c.Answers {
			parts[i] = a.ID
		}
		return toolnexus.Ok("answered: " + strings.Join(parts, ", "))
	}
	var caps mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
		caps = *info.ClientCapabilities
	} else if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		caps = s.GetClientCapabilities()
	}
	var reqs []toolnexus.Request
	if caps.Elicitation != nil {
		reqs = append(reqs, form("user_name", "What is your name?", map[string]any{"name": stringType}))
	}
	if caps.Sampling != nil {
		reqs = append(reqs, sample("greeting", "Generate a greeting", 50))
	}
	if caps.Roots != nil {
		reqs = append(reqs, toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Which roots?"})
	}
	if len(reqs) == 0 {
		return toolnexus.Ok("nothing to ask: the client declared no capability")
	}
	return toolnexus.PendingAll(reqs...)
}

// defaultsSchema has a default for every primitive type (SEP-1034).
var defaultsSchema = map[string]any{"type": "object", "properties": map[string]any{
	"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
	"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
	"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
	"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
	"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
}}

// choices returns titled choices: value1 titled first, and so on.
func choices(titles ...string) []any {
	out := make([]any, len(titles))
	for i, t := range titles {
		out[i] = map[string]any{"const": fmt.Sprintf("value%d", i+1), "title": t}
	}
	return out
}

// enumsSchema has every enum form (SEP-1330).
var enumsSchema = map[string]any{"type": "object", "properties": map[string]any{
	"untitledSingle": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}},
	"titledSingle":   map[string]any{"type": "string", "oneOf": choices("First Option", "Second Option", "Third Option")},
	"legacyEnum": map[string]any{"type": "string", "enum": []any{"opt1", "opt2", "opt3"},
		"enumNames": []any{"Option One", "Option Two", "Option Three"}},
	"untitledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}}},
	"titledMulti":   map[string]any{"type": "array", "items": map[string]any{"anyOf": choices("First Choice", "Second Choice", "Third Choice")}},
}}

// schema2020 is the input schema of json_schema_2020_12_tool, with the
// keywords of JSON Schema 2020-12 the suite checks are kept.
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},
"phone":{"type":"string"},"email":{"type":"string"}},
"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},
"additionalProperties":false}`
