// Command conformance is the MCP server that the official conformance
// suite's tasks scenarios (@modelcontextprotocol/conformance, protocol
// 2026-07-28) test, with the tools of its input_required scenarios beside
// them: every tool is a toolnexus tool, served by mcptasks (the ones that
// may run as tasks) or by its mcpbridge bridge. It serves stateless
// streamable HTTP at the address of -http and prints the URL it serves at
// on its first line of standard output:
//
//	go run ./conformance -http 127.0.0.1:0
//
// Its tasks are kept in memory, or with -redis in a Redis that several
// instances share, each started with the same -key, so that any of them
// serves a task another created:
//
//	go run ./conformance -redis redis://127.0.0.1:6379/0 -key $(openssl rand -hex 32)
//
// The script run next to it starts it and runs the scenarios; .ci/run
// calls that script.
//
//lint:file-ignore SA1019 the input_required scenarios ask for sampling and roots, which SEP-2577 deprecates.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/redistasks"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/redisclaims"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

func main() {
	addr, key, opts, claims, err := parse(os.Args[1:])
	if err != nil {
		log.Fatal(err)
	}
	server, _, err := newServer(key, opts, park.Runner{Store: claims, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, handler(server)))
}

// parse reads the command line args: the address to serve at, the key
// that seals the multi round trips (random without -key), the options of
// the tasks, kept in the Redis of -redis, or in memory without it, and the
// store of the claims of answered parkings, in the same Redis (nil: the
// process's memory), so that instances sharing it answer each once.
func parse(args []string) (string, []byte, *mcptasks.Options, park.Store, error) {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	addr := fs.String("http", "127.0.0.1:0", "the address to serve stateless streamable HTTP at (port 0: any free port)")
	keyHex := fs.String("key", "", "the key, in hex, that seals the multi round trips: the same on every instance (default: a random one)")
	redisURL := fs.String("redis", "", "a Redis URL (redis://host:port/db) to keep the tasks in, shared by the instances that use it (default: memory)")
	if err := fs.Parse(args); err != nil {
		return "", nil, nil, nil, err
	}
	key := make([]byte, 32)
	rand.Read(key)
	if *keyHex != "" {
		var err error
		if key, err = hex.DecodeString(*keyHex); err != nil {
			return "", nil, nil, nil, fmt.Errorf("-key: %v", err)
		}
	}
	opts := &mcptasks.Options{}
	var claims park.Store
	if *redisURL != "" {
		ro, err := redis.ParseURL(*redisURL)
		if err != nil {
			return "", nil, nil, nil, fmt.Errorf("-redis: %v", err)
		}
		client := redis.NewClient(ro)
		opts.Store = &redistasks.Store{Client: client}
		store, err := redisclaims.New(client, nil)
		if err != nil {
			return "", nil, nil, nil, fmt.Errorf("-redis: %v", err)
		}
		claims = store
	}
	return *addr, key, opts, claims, nil
}

// handler returns the stateless streamable HTTP handler of server, with
// the task methods' Mcp-Name checked.
func handler(server *mcp.Server) http.Handler {
	return mcptasks.RoutingHandler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
}

// newServer returns the server with every tool and the prompt the
// scenarios use, the state of its multi round trips sealed with key, and
// the tasks of its tools, which run through r.
func newServer(key []byte, opts *mcptasks.Options, r park.Runner) (*mcp.Server, *mcptasks.Server, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "toolnexus-mcptasks-conformance", Version: "v0.1.0"}, nil)
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}})
	if err != nil {
		return nil, nil, err
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: r})
	if err != nil {
		return nil, nil, err
	}
	tasks, err := mcptasks.New(server, runner, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range append(taskTools(), inputTools()...) {
		if err := tasks.AddTool(t); err != nil {
			return nil, nil, err
		}
	}
	addSyncTools(server, tasks.Bridge())
	addPrompt(server)
	return server, tasks, nil
}

// form returns the data of a request that asks a person for a form of the
// given properties, all required.
func form(props map[string]string) map[string]any {
	properties := map[string]any{}
	required := []any{}
	for name, typ := range props {
		properties[name] = map[string]any{"type": typ}
		required = append(required, name)
	}
	return map[string]any{"schema": map[string]any{"type": "object", "properties": properties, "required": required}}
}

// schema returns an input schema of the given properties.
func schema(props string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
}

// field returns the member name of a tool's JSON arguments, or the zero
// T when it is absent or of another type.
func field[T any](args json.RawMessage, name string) T {
	var m map[string]json.RawMessage
	var v T
	if json.Unmarshal(args, &m) == nil {
		json.Unmarshal(m[name], &v)
	}
	return v
}

// sleep waits d, or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// accepted returns the data of the answer to id among answers, and
// whether the person accepted it.
func accepted(answers toolnexus.Answers, id string) (map[string]any, bool) {
	a, ok := answers.Get(id)
	return a.Data, ok && a.OK
}

// taskTools returns the tools of the tasks scenarios.
func taskTools() []mcptasks.Tool {
	askName := toolnexus.Request{ID: "user_name", Kind: toolnexus.KindInput, Prompt: "What is your name?",
		Data: form(map[string]string{"name": "string"})}
	return []mcptasks.Tool{
		{
			Tool: &mcp.Tool{Name: "slow_compute", Description: "Waits the given seconds, then reports its label",
				InputSchema: schema(`"seconds":{"type":"number"},"label":{"type":"string"}`)},
			Run: func(ctx context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
				seconds := field[float64](args, "seconds")
				if !sleep(ctx, time.Duration(seconds*float64(time.Second))) {
					return toolnexus.Error("cancelled")
				}
				return toolnexus.Ok(fmt.Sprintf("%s: computed in %gs", field[string](args, "label"), seconds))
			},
		},
		{
			Tool:    &mcp.Tool{Name: "failing_job", Description: "Fails as a tool fails, after a second; runs only as a task"},
			Support: mcptasks.TaskRequired,
			Run: func(ctx context.Context, _ json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
				sleep(ctx, time.Second)
				return toolnexus.Error("failing_job failed, as it always does")
			},
		},
		{
			Tool:    &mcp.Tool{Name: "protocol_error_job", Description: "Panics, which fails its task with a JSON-RPC error"},
			Support: mcptasks.TaskRequired,
			Run: func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
				panic("protocol_error_job fails with a protocol error")
			},
		},
		{
			Tool: &mcp.Tool{Name: "confirm_delete", Description: "Asks before it deletes a file",
				InputSchema: schema(`"filename":{"type":"string"}`)},
			Run: func(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
				file := field[string](args, "filename")
				if _, asked := answers.Get("confirm"); !asked {
					return toolnexus.Pending(toolnexus.Request{ID: "confirm", Kind: toolnexus.KindInput,
						Prompt: "Delete " + file + "?", Data: form(map[string]string{"confirm": "boolean"})})
				}
				if data, ok := accepted(answers, "confirm"); ok && data["confirm"] == true {
					return toolnexus.Ok("Deleted " + file)
				}
				return toolnexus.Ok("Kept " + file)
			},
		},
		{
			Tool: &mcp.Tool{Name: "multi_input", Description: "Asks for a name and a confirmation at once"},
			Run: func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
				var missing []toolnexus.Request
				for _, r := range []toolnexus.Request{
					{ID: "name", Kind: toolnexus.KindInput, Prompt: "Your name?", Data: form(map[string]string{"name": "string"})},
					{ID: "confirm", Kind: toolnexus.KindInput, Prompt: "Go on?", Data: form(map[string]string{"confirm": "boolean"})},
				} {
					if _, ok := answers.Get(r.ID); !ok {
						missing = append(missing, r)
					}
				}
				if len(missing) > 0 {
					return toolnexus.PendingAll(missing...)
				}
				name, _ := accepted(answers, "name")
				ok, _ := accepted(answers, "confirm")
				return toolnexus.Ok(fmt.Sprintf("name=%v confirm=%v", name["name"], ok["confirm"]))
			},
		},
		{
			Tool:    &mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name within the call, then greets as a task"},
			Support: mcptasks.TaskRequired,
			Prepare: func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
				if _, ok := answers.Get(askName.ID); !ok {
					return toolnexus.Pending(askName)
				}
				return toolnexus.Ok("")
			},
			Run: func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
				data, _ := accepted(answers, askName.ID)
				return toolnexus.Ok(fmt.Sprintf("Hello, %v! (greeted by a task)", data["name"]))
			},
		},
	}
}

// sampling returns a request of id asking the client's model for text.
func sampling(id, text string, maxTokens int) toolnexus.Request {
	return toolnexus.Request{ID: id, Kind: toolnexus.KindSampling, Prompt: text, Data: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

// text returns the first text of a sampling answer's content: one block,
// or a list of them.
func text(a toolnexus.Answer) string {
	content := a.Data["content"]
	if list, ok := content.([]any); ok && len(list) > 0 {
		content = list[0]
	}
	block, _ := content.(map[string]any)
	s, _ := block["text"].(string)
	return s
}

// roots returns the URIs of a roots answer.
func roots(a toolnexus.Answer) []string {
	var uris []string
	list, _ := a.Data["roots"].([]any)
	for _, r := range list {
		root, _ := r.(map[string]any)
		uri, _ := root["uri"].(string)
		uris = append(uris, uri)
	}
	return uris
}

// asking returns the Run of a tool that asks at once those of reqs not
// answered yet, then returns what done makes of the answers; one at a
// time, with oneByOne.
func asking(oneByOne bool, done func(toolnexus.Answers) string, reqs ...toolnexus.Request) toolnexus.Tool {
	return func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		var left []toolnexus.Request
		for _, r := range reqs {
			if _, ok := answers.Get(r.ID); !ok {
				left = append(left, r)
			}
		}
		switch {
		case len(left) == 0:
			return toolnexus.Ok(done(answers))
		case oneByOne:
			return toolnexus.Pending(left[0])
		}
		return toolnexus.PendingAll(left...)
	}
}

// inputTools returns the tools of the input_required scenarios, which run
// within their calls for a client without the tasks extension.
func inputTools() []mcptasks.Tool {
	name := toolnexus.Request{ID: "user_name", Kind: toolnexus.KindInput, Prompt: "What is your name?",
		Data: form(map[string]string{"name": "string"})}
	confirm := toolnexus.Request{ID: "confirm", Kind: toolnexus.KindInput, Prompt: "Please confirm",
		Data: form(map[string]string{"ok": "boolean"})}
	rootsReq := toolnexus.Request{ID: "client_roots", Kind: toolnexus.KindRoots, Prompt: "Which roots can the server see?"}
	answer := func(as toolnexus.Answers, id, key string) any {
		a, _ := as.Get(id)
		return a.Data[key]
	}
	stateOK := func(toolnexus.Answers) string { return "state-ok: requestState received and confirmation accepted" }
	tools := map[string]toolnexus.Tool{
		"elicitation": asking(false, func(as toolnexus.Answers) string { return fmt.Sprintf("Hello, %v!", answer(as, "user_name", "name")) }, name),
		"sampling": asking(false, func(as toolnexus.Answers) string {
			a, _ := as.Get("capital_question")
			return "Sampling response: " + text(a)
		}, sampling("capital_question", "What is the capital of France?", 100)),
		"list_roots": asking(false, func(as toolnexus.Answers) string {
			a, _ := as.Get("client_roots")
			uris := roots(a)
			return fmt.Sprintf("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", "))
		}, rootsReq),
		"request_state":  asking(false, stateOK, confirm),
		"tampered_state": asking(false, stateOK, confirm),
		"multiple_inputs": asking(false, func(as toolnexus.Answers) string {
			g, _ := as.Get("greeting")
			r, _ := as.Get("client_roots")
			return fmt.Sprintf("%s %v, %d root(s) visible", text(g), answer(as, "user_name", "name"), len(roots(r)))
		}, name, sampling("greeting", "Generate a greeting", 50), rootsReq),
		"multi_round": asking(true, func(as toolnexus.Answers) string {
			return fmt.Sprintf("Multi-round complete: %v likes %v", answer(as, "step1", "name"), answer(as, "step2", "color"))
		},
			toolnexus.Request{ID: "step1", Kind: toolnexus.KindInput, Prompt: "Step 1: What is your name?", Data: form(map[string]string{"name": "string"})},
			toolnexus.Request{ID: "step2", Kind: toolnexus.KindInput, Prompt: "Step 2: What is your favorite color?", Data: form(map[string]string{"color": "string"})}),
	}
	var out []mcptasks.Tool
	for suffix, run := range tools {
		out = append(out, mcptasks.Tool{Tool: &mcp.Tool{Name: "test_input_required_result_" + suffix, Description: "Asks, as the input_required scenario " + suffix + " expects"}, Run: run})
	}
	return out
}

// addSyncTools adds the tools that never run as tasks: greet, and the tool
// that asks only what its client declared it takes.
func addSyncTools(s *mcp.Server, b *mcpbridge.Bridge) {
	type greetInput struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets, within the call"},
		mcpbridge.Handler(b, func(_ context.Context, in greetInput, _ *toolnexus.Answer) toolnexus.ToolResult {
			return toolnexus.Ok("Hello, " + in.Name + "!")
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only for what the client declared it takes"},
		mcpbridge.CallHandler(b, func(_ context.Context, c mcpbridge.Call[struct{}]) toolnexus.ToolResult {
			if len(c.Answers) > 0 {
				return toolnexus.Ok("Capability-aware input requests fulfilled")
			}
			caps := c.Request.ClientCapabilities()
			var reqs []toolnexus.Request
			if caps != nil && caps.Elicitation != nil {
				reqs = append(reqs, toolnexus.Request{ID: "user_name", Kind: toolnexus.KindInput, Prompt: "What is your name?",
					Data: form(map[string]string{"name": "string"})})
			}
			if caps != nil && caps.Sampling != nil {
				reqs = append(reqs, sampling("greeting", "Generate a short greeting", 50))
			}
			if len(reqs) == 0 {
				return toolnexus.Ok("No declared client capability takes an input request")
			}
			return toolnexus.PendingAll(reqs...)
		}))
}

// addPrompt adds the prompt of the input_required scenario on a request
// that is not a tool call; a prompt is the SDK's, no toolnexus tool.
func addPrompt(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks for its context first"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			r, ok := req.Params.InputResponses["user_context"].(*mcp.ElicitResult)
			if !ok || r.Action != "accept" {
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": &mcp.ElicitParams{
					Message:         "Which context should the prompt use?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`),
				}}}, nil
			}
			return &mcp.GetPromptResult{Description: "A prompt with the context it asked for", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Context: %v", r.Content["context"])}},
			}}, nil
		})
}
