// Command conformance is the MCP server that the official conformance
// suites (@modelcontextprotocol/conformance) test: every tool the server
// scenarios call is a toolnexus tool behind mcpbridge, and the resources
// and prompts they read are served by the go-sdk directly. It serves
// streamable HTTP at the address of -http, stateful for the 2025-11-25
// suite and, with -stateless, stateless for 2026-07-28, and prints the URL
// it serves at on its first line of standard output:
//
//	go run ./conformance -http 127.0.0.1:0 -stateless
//
// The script run next to it starts it twice and runs both suites against
// it; .ci/run calls that script.
//
//lint:file-ignore SA1019 the suites exercise sampling, roots and logging, which SEP-2577 deprecates.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "the address to serve streamable HTTP at (port 0: any free port)")
	stateless := flag.Bool("stateless", false, "serve stateless streamable HTTP, as protocol 2026-07-28 asks")
	flag.Parse()

	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		log.Fatal(err)
	}
	server, err := newServer(key, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		log.Fatal(err)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: *stateless})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}

// newServer returns the server with every tool, resource and prompt the
// scenarios use, its request states sealed with key.
func newServer(key []byte, logger *slog.Logger) (*mcp.Server, error) {
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}, Audience: "toolnexus-conformance"})
	if err != nil {
		return nil, err
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: park.Runner{Logger: logger}})
	if err != nil {
		return nil, err
	}
	bridge, err := mcpbridge.New(runner, nil)
	if err != nil {
		return nil, err
	}
	media, err := newMedia()
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "toolnexus-conformance", Version: "v0.1.0"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	addContentTools(server, bridge, media)
	addSessionTools(server, bridge)
	addElicitationTools(server, bridge)
	addInputRequiredTools(server, bridge)
	addResources(server, media)
	addPrompts(server, media)
	return server, nil
}

// media holds the image and audio the tools and resources return: a red
// pixel as PNG and a few samples of silence as WAV.
type media struct {
	png, wav []byte
}

func newMedia() (media, error) {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 0xff, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return media{}, err
	}
	return media{png: buf.Bytes(), wav: silence(8000, 4)}, nil
}

// silence returns a mono 16-bit PCM WAV file of n silent samples at rate.
func silence(rate, n uint32) []byte {
	const bytesPerSample = 2
	data := n * bytesPerSample
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, 36+data)
	b.WriteString("WAVEfmt ")
	// The fmt chunk: its size, PCM, one channel, the rate, bytes a second,
	// bytes a frame, bits a sample.
	for _, v := range []any{uint32(16), uint16(1), uint16(1), rate, rate * bytesPerSample, uint16(bytesPerSample), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, data)
	b.Write(make([]byte, data))
	return b.Bytes()
}

// none is the input of a tool without arguments.
type none struct{}

// done returns a tool that needs neither its input nor an answer.
func done[In any](r func(In) toolnexus.ToolResult) mcpbridge.ToolFunc[In] {
	return func(_ context.Context, in In, _ *toolnexus.Answer) toolnexus.ToolResult { return r(in) }
}

// addContentTools adds the tools that return each kind of content.
func addContentTools(s *mcp.Server, b *mcpbridge.Bridge, m media) {
	part := func(data []byte, mime, name string) toolnexus.ContentPart {
		p, err := toolnexus.PartFromBytes(data, mime)
		if err != nil {
			log.Fatal(err)
		}
		return p.WithName(name)
	}
	pixel := part(m.png, "image/png", "")
	tone := part(m.wav, "audio/wav", "")
	doc := part([]byte("This is an embedded resource"), "text/plain", "embedded-resource.txt")

	mcp.AddTool(s, &mcp.Tool{Name: "test_simple_text", Description: "Returns one text block"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok("This is a simple text response for testing.") })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_image_content", Description: "Returns an image"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok(pixel.String(), pixel) })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_audio_content", Description: "Returns audio"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok(tone.String(), tone) })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_embedded_resource", Description: "Returns an embedded resource"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok(doc.String(), doc) })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok("Multiple content types test:", pixel, doc) })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_error_handling", Description: "Fails, as a tool reports a failure"},
		mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult {
			return toolnexus.Error("This tool intentionally returns an error for testing")
		})))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Takes an input schema with JSON Schema 2020-12 features",
		InputSchema: json.RawMessage(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"$defs": {"address": {"$anchor": "addressDef", "type": "object",
				"properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
			"properties": {
				"name": {"type": "string"},
				"address": {"$ref": "#/$defs/address"},
				"contactMethod": {"type": "string", "enum": ["phone", "email"]},
				"phone": {"type": "string"},
				"email": {"type": "string"}
			},
			"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
			"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
			"then": {"required": ["phone"]},
			"else": {"required": ["email"]},
			"additionalProperties": false
		}`),
	}, mcpbridge.Handler(b, done(func(in json.RawMessage) toolnexus.ToolResult {
		return toolnexus.Ok("JSON Schema 2020-12 tool called with: " + string(in))
	})))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "test_x_mcp_header",
		Description: "Takes an argument mirrored into the Mcp-Param-Region header",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {
			"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
			"level": {"type": "integer", "description": "not mirrored"}}}`),
	}, mcpbridge.Handler(b, done(func(in regionInput) toolnexus.ToolResult { return toolnexus.Ok("region=" + in.Region) })))
}

type regionInput struct {
	Region string `json:"region,omitempty"`
	Level  int    `json:"level,omitempty"`
}

// addSessionTools adds the tools that use the session of their request:
// logging, progress, a stream closed mid-call, list changes.
func addSessionTools(s *mcp.Server, b *mcpbridge.Bridge) {
	logs := func(ctx context.Context, c mcpbridge.Call[none], messages ...string) {
		for i, m := range messages {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			c.Request.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: m})
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_logging", Description: "Logs three messages while it runs"},
		mcpbridge.CallHandler(b, func(ctx context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			logs(ctx, c, "Tool execution started", "Tool processing data", "Tool execution completed")
			return toolnexus.Ok("Tool with logging executed successfully")
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_logging_tool", Description: "Logs a message, which the SDK drops unless the client asked for a level"},
		mcpbridge.CallHandler(b, func(ctx context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			logs(ctx, c, "test_logging_tool executed")
			return toolnexus.Ok("Log attempted; the SDK gates it on the request's log level.")
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress at 0, 50 and 100 of 100"},
		mcpbridge.CallHandler(b, func(ctx context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			token := c.Request.Params.GetProgressToken()
			for _, p := range []float64{0, 50, 100} {
				c.Request.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 100,
					Message: fmt.Sprintf("step %.0f of 100", p)})
				time.Sleep(50 * time.Millisecond)
			}
			return toolnexus.Ok(fmt.Sprint(token))
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_reconnection", Description: "Closes its SSE stream mid-call and answers once the client is back"},
		mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			if c.Request.Extra != nil && c.Request.Extra.CloseSSEStream != nil {
				c.Request.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
			}
			time.Sleep(100 * time.Millisecond)
			return toolnexus.Ok("Reconnection test completed successfully.")
		}))
	changed := func(name string, change func()) {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Changes a list, for the list_changed notifications"},
			mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult {
				change()
				return toolnexus.Ok(name + ": list changed")
			})))
	}
	changed("test_trigger_tool_change", func() {
		mcp.AddTool(s, &mcp.Tool{Name: "transient_tool", Description: "Added to change the tool list"},
			mcpbridge.Handler(b, done(func(none) toolnexus.ToolResult { return toolnexus.Ok("") })))
	})
	changed("test_trigger_prompt_change", func() {
		s.AddPrompt(&mcp.Prompt{Name: "transient_prompt", Description: "Added to change the prompt list"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
	})
}

// schema returns the form schema of a Request's data: an object of the
// given properties, those named required.
func schema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		r := make([]any, len(required))
		for i, n := range required {
			r[i] = n
		}
		s["required"] = r
	}
	return map[string]any{"schema": s}
}

// str is a string property of a form schema.
func str() map[string]any { return map[string]any{"type": "string"} }

// elicited returns the text the elicitation tools of the 2025-11-25 suite
// end with: how the person answered, and what.
func elicited(a toolnexus.Answer) toolnexus.ToolResult {
	action := "accept"
	if !a.OK {
		action = map[string]string{toolnexus.ReasonDeclined: "decline", toolnexus.ReasonCancelled: "cancel"}[a.Reason]
	}
	return toolnexus.Ok(fmt.Sprintf("Elicitation result: action=%s, content=%v", action, a.Data))
}

// ask returns a tool that asks req and reports its answer with report.
func ask[In any](req func(In) toolnexus.Request, report func(toolnexus.Answer) toolnexus.ToolResult) mcpbridge.ToolFunc[In] {
	return func(_ context.Context, in In, a *toolnexus.Answer) toolnexus.ToolResult {
		if a == nil {
			return toolnexus.Pending(req(in))
		}
		return report(*a)
	}
}

type messageInput struct {
	Message string `json:"message" jsonschema:"the message to show the person"`
}

type promptInput struct {
	Prompt string `json:"prompt" jsonschema:"the prompt to send to the client's model"`
}

// addElicitationTools adds the tools that ask a person (or the client's
// model) once, as the 2025-11-25 suite calls them.
func addElicitationTools(s *mcp.Server, b *mcpbridge.Bridge) {
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Asks the person for a username"},
		mcpbridge.Handler(b, ask(func(in messageInput) toolnexus.Request {
			return toolnexus.Request{Kind: toolnexus.KindInput, Prompt: in.Message, Data: schema(map[string]any{
				"username": map[string]any{"type": "string", "description": "Your preferred username"}}, "username")}
		}, elicited)))
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Asks with a default for every kind of field (SEP-1034)"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request {
			return toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Test defaults for primitives", Data: schema(map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			})}
		}, elicited)))
	titled := func() []any {
		return []any{
			map[string]any{"const": "value1", "title": "First Option"},
			map[string]any{"const": "value2", "title": "Second Option"},
			map[string]any{"const": "value3", "title": "Third Option"},
		}
	}
	options := []any{"option1", "option2", "option3"}
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Asks with every form of choice (SEP-1330)"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request {
			return toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Test enum schemas", Data: schema(map[string]any{
				"untitledSingle": map[string]any{"type": "string", "enum": options},
				"titledSingle":   map[string]any{"type": "string", "oneOf": titled()},
				"legacyEnum":     map[string]any{"type": "string", "enum": []any{"opt1", "opt2", "opt3"}, "enumNames": []any{"Option One", "Option Two", "Option Three"}},
				"untitledMulti":  map[string]any{"type": "array", "minItems": 1, "maxItems": 3, "items": map[string]any{"type": "string", "enum": options}},
				"titledMulti":    map[string]any{"type": "array", "minItems": 1, "maxItems": 3, "items": map[string]any{"anyOf": titled()}},
			})}
		}, elicited)))
	mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Asks the client's model to complete a prompt"},
		mcpbridge.Handler(b, ask(func(in promptInput) toolnexus.Request {
			return sampling("", in.Prompt, 100)
		}, func(a toolnexus.Answer) toolnexus.ToolResult { return toolnexus.Ok("LLM response: " + sampled(a)) })))
	// On 2026-07-28 its question is an input_required result, so the
	// response stream of the call carries no request of the server's own.
	mcp.AddTool(s, &mcp.Tool{Name: "test_streaming_elicitation", Description: "Asks the person for their name"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request { return askName }, elicited)))
	mcp.AddTool(s, &mcp.Tool{Name: "test_missing_capability", Description: "Asks the client's model, so it needs the sampling capability (SEP-2575)"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request {
			return sampling("", "Say hello", 20)
		}, func(a toolnexus.Answer) toolnexus.ToolResult {
			return toolnexus.Ok("The client declared sampling; its model said: " + sampled(a))
		})))
}

// sampling returns a request with id (a fresh one if empty) that asks the
// client's model to answer text in at most maxTokens tokens.
func sampling(id, text string, maxTokens int) toolnexus.Request {
	return toolnexus.Request{ID: id, Kind: toolnexus.KindSampling, Prompt: text, Data: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

// sampled returns the text of the answer to a sampling request: that of
// its content block, or the first text block of its content list.
func sampled(a toolnexus.Answer) string {
	blocks, ok := a.Data["content"].([]any)
	if !ok {
		blocks = []any{a.Data["content"]}
	}
	for _, b := range blocks {
		if m, ok := b.(map[string]any); ok && m["type"] == "text" {
			text, _ := m["text"].(string)
			return text
		}
	}
	return "(no text)"
}

// The requests of the input_required tools, under the IDs the 2026-07-28
// suite expects.
var (
	askName = toolnexus.Request{ID: "user_name", Kind: toolnexus.KindInput, Prompt: "What is your name?",
		Data: schema(map[string]any{"name": str()}, "name")}
	askConfirm = toolnexus.Request{ID: "confirm", Kind: toolnexus.KindInput, Prompt: "Please confirm",
		Data: schema(map[string]any{"ok": map[string]any{"type": "boolean"}}, "ok")}
	askRoots = toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Which roots can the server see?"}
)

// rootURIs returns the URIs of the roots of an answer to a roots request.
func rootURIs(a toolnexus.Answer) []string {
	roots, _ := a.Data["roots"].([]any)
	uris := make([]string, 0, len(roots))
	for _, r := range roots {
		if m, ok := r.(map[string]any); ok {
			uri, _ := m["uri"].(string)
			uris = append(uris, uri)
		}
	}
	return uris
}

// addInputRequiredTools adds the tools of the 2026-07-28 suite's
// input_required scenarios.
func addInputRequiredTools(s *mcp.Server, b *mcpbridge.Bridge) {
	name := func(a toolnexus.Answer) string {
		n, _ := a.Data["name"].(string)
		return n
	}
	stateOK := func(toolnexus.Answer) toolnexus.ToolResult {
		// The bridge opened the state, or the call would not have run.
		return toolnexus.Ok("state-ok: requestState received and confirmation accepted")
	}
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_elicitation", Description: "Asks for the caller's name"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request { return askName },
			func(a toolnexus.Answer) toolnexus.ToolResult { return toolnexus.Ok("Hello, " + name(a) + "!") })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_sampling", Description: "Asks the client's model a question"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request {
			return sampling("capital_question", "What is the capital of France?", 100)
		},
			func(a toolnexus.Answer) toolnexus.ToolResult { return toolnexus.Ok("Sampling response: " + sampled(a)) })))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_list_roots", Description: "Asks for the client's roots"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request { return askRoots }, func(a toolnexus.Answer) toolnexus.ToolResult {
			uris := rootURIs(a)
			return toolnexus.Ok(fmt.Sprintf("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", ")))
		})))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_request_state", Description: "Asks for a confirmation; its state is sealed"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request { return askConfirm }, stateOK)))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_tampered_state", Description: "Asks for a confirmation; an altered state is refused"},
		mcpbridge.Handler(b, ask(func(none) toolnexus.Request { return askConfirm }, stateOK)))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_multiple_inputs", Description: "Asks for a name, a greeting from the model and the roots at once"},
		mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			n, ok1 := c.Answers.Get("user_name")
			g, ok2 := c.Answers.Get("greeting")
			r, ok3 := c.Answers.Get("client_roots")
			if !ok1 || !ok2 || !ok3 {
				return toolnexus.PendingAll(askName, sampling("greeting", "Generate a greeting", 50), askRoots)
			}
			return toolnexus.Ok(fmt.Sprintf("%s %s — %d root(s) visible", sampled(g), name(n), len(rootURIs(r))))
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_multi_round", Description: "Asks for a name, then for a color"},
		mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			n, ok := c.Answers.Get("step1")
			if !ok {
				return toolnexus.Pending(toolnexus.Request{ID: "step1", Kind: toolnexus.KindInput, Prompt: "Step 1: What is your name?",
					Data: schema(map[string]any{"name": str()}, "name")})
			}
			color, ok := c.Answers.Get("step2")
			if !ok {
				return toolnexus.Pending(toolnexus.Request{ID: "step2", Kind: toolnexus.KindInput, Prompt: "Step 2: What is your favorite color?",
					Data: schema(map[string]any{"color": str()}, "color")})
			}
			return toolnexus.Ok(fmt.Sprintf("Multi-round complete: %s likes %v", name(n), color.Data["color"]))
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only for what the client declared it takes"},
		mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[none]) toolnexus.ToolResult {
			if len(c.Answers) > 0 {
				return toolnexus.Ok("Capability-aware input requests fulfilled")
			}
			var reqs []toolnexus.Request
			if caps := c.Request.ClientCapabilities(); caps != nil {
				if caps.Elicitation != nil {
					reqs = append(reqs, askName)
				}
				if caps.Sampling != nil {
					reqs = append(reqs, sampling("greeting", "Generate a short greeting", 50))
				}
				if caps.RootsV2 != nil || caps.Roots.ListChanged {
					reqs = append(reqs, askRoots)
				}
			}
			if len(reqs) == 0 {
				return toolnexus.Ok("No declared client capability supports an input request")
			}
			return toolnexus.PendingAll(reqs...)
		}))
}

// addResources adds the resources the resources scenarios read.
func addResources(s *mcp.Server, m media) {
	text := func(uri, mime, body string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{Name: "static-text", Description: "A text resource", MIMEType: "text/plain", URI: "test://static-text"},
		text("test://static-text", "text/plain", "This is the content of the static text resource."))
	s.AddResource(&mcp.Resource{Name: "static-binary", Description: "A binary resource", MIMEType: "image/png", URI: "test://static-binary"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: m.png}}}, nil
		})
	s.AddResource(&mcp.Resource{Name: "watched-resource", Description: "A resource to subscribe to", MIMEType: "text/plain", URI: "test://watched-resource"},
		text("test://watched-resource", "text/plain", "Watched resource content"))
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "template", Description: "A resource template", MIMEType: "application/json",
		URITemplate: "test://template/{id}/data"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
		})
}

// addPrompts adds the prompts the prompts scenarios get.
func addPrompts(s *mcp.Server, m media) {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	prompt := func(p *mcp.Prompt, messages func(args map[string]string) []*mcp.PromptMessage) {
		s.AddPrompt(p, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: p.Description, Messages: messages(req.Params.Arguments)}, nil
		})
	}
	prompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments"},
		func(map[string]string) []*mcp.PromptMessage {
			return []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}
		})
	prompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*mcp.PromptArgument{{Name: "arg1", Description: "First argument", Required: true}, {Name: "arg2", Description: "Second argument", Required: true}}},
		func(args map[string]string) []*mcp.PromptMessage {
			return []*mcp.PromptMessage{user(&mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])})}
		})
	prompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt with an embedded resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "The URI of the resource to embed", Required: true}}},
		func(args map[string]string) []*mcp.PromptMessage {
			return []*mcp.PromptMessage{
				user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
			}
		})
	prompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt with an image"},
		func(map[string]string) []*mcp.PromptMessage {
			return []*mcp.PromptMessage{
				user(&mcp.ImageContent{Data: m.png, MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}
		})
	// The SDK's own input_required prompt: a prompt is no toolnexus tool.
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks for context before it is given"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["user_context"].(*mcp.ElicitResult); ok && r.Action == "accept" {
				return &mcp.GetPromptResult{Description: "A prompt with elicited context",
					Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: fmt.Sprintf("Context: %v", r.Content["context"])})}}, nil
			}
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": &mcp.ElicitParams{
				Message:         "What context should the prompt use?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`),
			}}}, nil
		})
}
