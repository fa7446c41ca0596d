package toolnexus_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

var config = map[string]string{"region": "eu-west-1"}

// readConfig is a tool that succeeds or fails. A failure is a result the
// model reads and recovers from, not a Go error.
func readConfig(key string) toolnexus.ToolResult {
	v, ok := config[key]
	if !ok {
		return toolnexus.Error("No such config key: " + key)
	}
	return toolnexus.Ok(v)
}

// A tool returns Ok on success and Error when the model should try again.
func Example() {
	found := readConfig("region")
	missing := readConfig("nope")
	fmt.Println(found.Output, found.IsError)
	fmt.Println(missing.Output, missing.IsError)
	// Output:
	// eu-west-1 false
	// No such config key: nope true
}

type hit struct {
	ID    int
	Title string
}

// search returns legible text for the model and metadata for the host.
func search(q string) toolnexus.ToolResult {
	hits := []hit{{1, "Getting started"}, {2, "Advanced usage"}}
	lines := make([]string, len(hits))
	ids := make([]int, len(hits))
	for i, h := range hits {
		lines[i] = fmt.Sprintf("#%d %s", h.ID, h.Title)
		ids[i] = h.ID
	}
	// The model reads Output; the metadata is for the host's code only.
	return toolnexus.Ok(strings.Join(lines, "\n")).
		WithMetadata("title", "search: "+q).
		WithMetadata("count", len(hits)).
		WithMetadata("ids", ids)
}

// Structured output is serialised deliberately into Output; bookkeeping rides
// in Metadata, which the model never sees.
func Example_metadata() {
	res := search("usage")
	fmt.Println(res.Output)
	fmt.Println(res.Metadata["title"], res.Metadata["count"], res.Metadata["ids"])
	// Output:
	// #1 Getting started
	// #2 Advanced usage
	// search: usage 2 [1 2]
}

// Java's ok(output, metadata) and error(output, metadata), with a whole
// metadata map, are one struct literal each in Go: the fields are the value.
func ExampleToolResult_metadataMap() {
	meta := map[string]any{"durationMs": 42, "region": "eu"}
	ok := toolnexus.ToolResult{Output: "deployed", Metadata: meta}
	failed := toolnexus.ToolResult{Output: "deploy failed: quota", IsError: true, Metadata: meta}
	b, _ := json.Marshal(ok)
	fmt.Println(string(b))
	b, _ = json.Marshal(failed)
	fmt.Println(string(b), failed.Validate())
	// Output:
	// {"output":"deployed","isError":false,"metadata":{"durationMs":42,"region":"eu"}}
	// {"output":"deploy failed: quota","isError":true,"metadata":{"durationMs":42,"region":"eu"}} <nil>
}

// screenshot returns an image part and an Output that describes it, for
// models that cannot see images.
func screenshot(path string) toolnexus.ToolResult {
	part, err := toolnexus.PartFromFile(path)
	if err != nil {
		return toolnexus.Error(err.Error())
	}
	return toolnexus.Ok(fmt.Sprintf("%s (%s, %d bytes)", "fixture.png", part.MIMEType, part.Size()), part)
}

// A tool that returns an image sets Output to a description and Parts to the
// image, read from a file.
func Example_image() {
	res := screenshot("testdata/fixture.png")
	golden, _ := os.ReadFile("testdata/fixture.png.base64")

	fmt.Println(res.Output)
	fmt.Println(res.Parts[0])
	fmt.Println(res.Parts[0].Data == strings.TrimSpace(string(golden)))
	fmt.Println(toolnexus.Ok("done").Parts == nil) // text-only: no parts at all
	// Output:
	// fixture.png (image/png, 82 bytes)
	// image (image/png, 82 bytes)
	// true
	// true
}

// A tool that cannot finish parks with Pending; the host reads the Request
// back with PendingOf, even from JSON stored by another process.
func Example_pending() {
	res := toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})
	stored, _ := json.Marshal(res)

	var loaded toolnexus.ToolResult
	_ = json.Unmarshal(stored, &loaded)
	req, ok := toolnexus.PendingOf(loaded)
	fmt.Println(ok, loaded.IsError, req.Kind, req.Prompt, strings.HasPrefix(req.ID, "pnd-"))

	auth, _ := toolnexus.PendingOf(toolnexus.AuthRequired("https://example.com/login", ""))
	fmt.Println(auth.Kind, auth.URL, auth.Prompt)

	_, ok = toolnexus.PendingOf(toolnexus.Ok("done"))
	fmt.Println(ok)
	// Output:
	// true true input Which environment? true
	// authorization https://example.com/login Authorization required to continue
	// false
}

func ExampleOk() {
	res := toolnexus.Ok("eu-west-1")
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output: {"output":"eu-west-1","isError":false}
}

func ExampleError() {
	res := toolnexus.Error("No such config key: nope")
	fmt.Println(res)
	// Output: error "No such config key: nope"
}

func ExampleErrorf() {
	res := toolnexus.Errorf("no such file: %s", "notes.txt")
	fmt.Println(res.Output, res.IsError)
	// Output: no such file: notes.txt true
}

func ExampleToolResult_WithMetadata() {
	base := toolnexus.Ok("2 results")
	res := base.WithMetadata("count", 2)
	fmt.Println(base.Metadata == nil, res.Metadata["count"])
	// Output: true 2
}

func ExampleToolResult_String() {
	part, _ := toolnexus.PartFromFile("testdata/fixture.png")
	fmt.Println(toolnexus.Ok("a screenshot", part).WithMetadata("page", 1))
	// Output: ok "a screenshot" parts=[image (image/png, 82 bytes)] metadata=[page]
}

func ExampleToolResult_Redacted() {
	part, _ := toolnexus.PartFromFile("testdata/fixture.png")
	res := toolnexus.Ok("a screenshot", part).Redacted()
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output: {"output":"a screenshot","isError":false,"parts":[{"type":"image","mimeType":"image/png"}],"metadata":{"redacted":["image (image/png, 82 bytes) sha256:e050dce0dfb38ac05f5b99c16c209fe8b43b0ac5569fcc992069b23f3caa6923"]}}
}

func ExamplePartFromFile() {
	part, err := toolnexus.PartFromFile("testdata/fixture.png")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part.Type, part.MIMEType, part.Size())

	_, err = toolnexus.PartFromFile("page.html")
	fmt.Println(err)
	// Output:
	// image image/png 82
	// toolnexus: unknown file extension: ".html" in "page.html": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type
}

func ExamplePartFromFS() {
	// An embed.FS works the same way; os.DirFS keeps the example short.
	part, err := toolnexus.PartFromFS(os.DirFS("testdata"), "fixture.png")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part)
	// Output: image (image/png, 82 bytes)
}

// A tool that reads a file the model named reads it with a limit, through an
// os.Root, so that the name cannot reach outside the directory.
func ExamplePartReader() {
	root, err := os.OpenRoot("testdata")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer root.Close()
	read := toolnexus.PartReader{MaxBytes: 1 << 20}

	part, err := read.FS(root.FS(), "fixture.png")
	fmt.Println(part, err)

	_, err = read.FS(root.FS(), "../go.mod.png")
	fmt.Println(err)

	_, err = toolnexus.PartReader{MaxBytes: 64}.FS(root.FS(), "fixture.png")
	fmt.Println(err, errors.Is(err, toolnexus.ErrPartTooLarge))
	// Output:
	// image (image/png, 82 bytes) <nil>
	// toolnexus: invalid path: "../go.mod.png" is outside the files this tool reads: send a path inside them, without ".."
	// toolnexus: part too large: 82 bytes, over the limit of 64 bytes: send a smaller one, or a link to it true
}

// A file whose extension is not in the table is read with its MIME type.
func ExamplePartReader_File() {
	part, err := toolnexus.PartReader{MIMEType: "text/plain; charset=utf-8"}.File("testdata/fixture.png.base64")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part, part.Name)
	// Output: file (text/plain, 113 bytes) fixture.png.base64
}

func ExamplePartFromReader() {
	part, err := toolnexus.PartFromReader(strings.NewReader("%PDF-1.4 tiny"), "application/pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part.WithName("report.pdf"))
	// Output: file (application/pdf, 13 bytes)
}

// A reader from elsewhere, such as an HTTP body, is read with a limit: the
// read stops one byte past it.
func ExamplePartReader_Reader() {
	body := io.MultiReader(strings.NewReader("0123456789"), strings.NewReader("more"))
	_, err := toolnexus.PartReader{MaxBytes: 4, MIMEType: "audio/wav"}.Reader(body)
	fmt.Println(err)
	// Output: toolnexus: part too large: 5 bytes, over the limit of 4 bytes: send a smaller one, or a link to it
}

func ExamplePartFromBytes() {
	part, _ := toolnexus.PartFromBytes([]byte("%PDF-1.4 tiny"), "application/pdf")
	out, _ := json.Marshal(part.WithName("report.pdf"))
	fmt.Println(string(out))
	// Output: {"type":"file","mimeType":"application/pdf","data":"JVBERi0xLjQgdGlueQ==","name":"report.pdf"}
}

func ExamplePartFromBase64() {
	part, err := toolnexus.PartFromBase64("UklGRgAAAABXQVZF", "audio/wav")
	fmt.Println(part, err)

	_, err = toolnexus.PartFromBase64("UklGRgAA\nAABXQVZF", "audio/wav")
	fmt.Println(err)
	// Output:
	// audio (audio/wav, 12 bytes) <nil>
	// toolnexus: invalid base64: byte '\n' at offset 8 of "UklGRgAA\nAABXQVZF"
}

func ExamplePartFromURL() {
	remote, _ := toolnexus.PartFromURL("https://example.com/cat.png", "image/png")
	inline, _ := toolnexus.PartFromURL("data:image/png;base64,iVBORw0KGgo=", "")
	for _, p := range []toolnexus.ContentPart{remote, inline} {
		out, _ := json.Marshal(p)
		fmt.Println(string(out))
	}
	// Output:
	// {"type":"image","mimeType":"image/png","url":"https://example.com/cat.png"}
	// {"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}
}

func ExampleTextPart() {
	out, _ := json.Marshal(toolnexus.TextPart("hello"))
	fmt.Println(string(out))
	// Output: {"type":"text","text":"hello"}
}

func ExampleContentPart_Validate() {
	part := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png"}
	fmt.Println(part.Validate())
	// Output: toolnexus: invalid part: image part has neither data nor url
}

func ExampleContentPart_Size() {
	part := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: "JVBERi0xLjQgdGlueQ=="}
	fmt.Println(part.Size())
	// Output: 13
}

func ExamplePending() {
	res := toolnexus.Pending(toolnexus.Request{
		ID:     "req-1",
		Kind:   toolnexus.KindInput,
		Prompt: "Which environment?",
	})
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output: {"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}
}

func ExampleAuthRequired() {
	res := toolnexus.AuthRequired("https://example.com/login", "Log in to read your calendar")
	fmt.Println(res.Output)
	// Output:
	// Log in to read your calendar
	// https://example.com/login
}

func ExamplePendingOf() {
	// A suspension stored as JSON by another process.
	stored := `{"output":"Which environment?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"input","prompt":"Which environment?"}}}`
	var res toolnexus.ToolResult
	if err := json.Unmarshal([]byte(stored), &res); err != nil {
		fmt.Println(err)
		return
	}
	if req, ok := toolnexus.PendingOf(res); ok {
		fmt.Println(req.ID, req.Kind, req.Prompt)
	}
	// Output: req-1 input Which environment?
}

// JSON a peer sent is read strictly: its keys exactly, as the other ports
// read them, with a limit, and validated.
func ExampleParseToolResult() {
	crafted := []byte(`{"output":"rm -rf done","isError":true,"ISERROR":false}`)

	var lenient toolnexus.ToolResult
	_ = json.Unmarshal(crafted, &lenient) // encoding/json folds ISERROR onto isError
	strict, err := toolnexus.ParseToolResult(crafted, 1<<20)
	fmt.Println(lenient.IsError, strict.IsError, err)

	_, err = toolnexus.ParseToolResult([]byte(`{"output":"x","parts":[{"type":"image","mimeType":"image/png","data":"AA=A"}]}`), 1<<20)
	fmt.Println(err)
	// Output:
	// false true <nil>
	// toolnexus: invalid base64: padding at offset 2 of "AA=A" is not at the end (part 0)
}

// The JSON of an MCP CallToolResult from another process is read with a
// limit on its bytes; over it, nothing is decoded.
func ExampleParseMCPCallToolResult() {
	data := []byte(`{"content":[{"type":"text","text":"deployed"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}`)
	r, err := toolnexus.ParseMCPCallToolResult(data, 1<<20)
	fmt.Println(r.Output, r.Parts[0].Type, r.Parts[0].MIMEType, r.Parts[0].Size(), err)

	_, err = toolnexus.ParseMCPCallToolResult(data, 64)
	fmt.Println(err, errors.Is(err, toolnexus.ErrPartTooLarge))
	_, err = toolnexus.ParseMCPCallToolResult([]byte("nope"), 1<<20)
	fmt.Println(err)
	// Output:
	// deployed image image/png 8 <nil>
	// toolnexus: JSON document too large: 109 bytes, over the limit of 64 bytes true
	// toolnexus: invalid MCP result: the input is not JSON: byte 2 of 4, "o", cannot be there
}

func ExampleAnswer_Check() {
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", ExpiresAt: "2026-12-01T00:00:00Z"}
	ans := req.Resolve(map[string]any{"choice": "prod"})

	before, _ := time.Parse(time.RFC3339, "2026-11-30T12:00:00Z")
	after, _ := time.Parse(time.RFC3339, "2026-12-02T00:00:00Z")
	fmt.Println(ans.Check(req, before))
	fmt.Println(ans.Check(req, after))
	fmt.Println(toolnexus.Answer{ID: "req-9", OK: true}.Check(req, before))
	// Output:
	// <nil>
	// toolnexus: request expired: request "req-2" expired at 2026-12-01T00:00:00Z
	// toolnexus: answer does not match request: answer id "req-9", request id "req-2"
}

// An answer's data, which went through JSON, is read into a struct; keys
// are matched exactly.
func ExampleAnswer_DecodeData() {
	var ans toolnexus.Answer
	_ = json.Unmarshal([]byte(`{"id":"req-2","ok":true,"data":{"env":"prod","replicas":3}}`), &ans)

	var choice struct {
		Env      string `json:"env"`
		Replicas int    `json:"replicas"`
	}
	if err := ans.DecodeData(&choice); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", choice)
	// Output: {Env:prod Replicas:3}
}

// A suspension asks the person through an MCP client as an elicitation.
func ExampleRequest_MCPElicitParams() {
	approve := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"}
	login := toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindAuthorization, Prompt: "Sign in", URL: "https://example.com/login"}
	for _, req := range []toolnexus.Request{approve, login} {
		params, err := req.MCPElicitParams()
		if err != nil {
			fmt.Println(err)
			return
		}
		out, _ := json.Marshal(params)
		fmt.Println(string(out))
	}
	// Output:
	// {"mode":"form","message":"Deploy to prod?","requestedSchema":{"type":"object","properties":{}}}
	// {"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"pnd-2"}
}

// What the person did in an MCP client becomes the Answer the tool reads.
func ExampleAnswerFromMCPElicitResult() {
	ans, _ := toolnexus.AnswerFromMCPElicitResult("pnd-1", toolnexus.MCPElicitResult{Action: "decline"})
	fmt.Println(ans.OK, ans.Reason)
	// Output: false declined
}

// A tool asks for several things at once: an approval and the client's
// roots. PendingOf sees the first, PendingAllOf every one.
func ExamplePendingAll() {
	r := toolnexus.PendingAll(
		toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"},
		toolnexus.Request{ID: "roots", Kind: toolnexus.KindRoots, Prompt: "Which folders may I read?"},
	)
	fmt.Println(r.Output)
	first, _ := toolnexus.PendingOf(r)
	fmt.Println("first:", first.ID)
	out, _ := json.Marshal(r.Metadata)
	fmt.Println(string(out))
	// Output:
	// Deploy to prod?
	// Which folders may I read?
	// first: approve
	// {"pending":{"id":"approve","kind":"approval","prompt":"Deploy to prod?"},"pendingMore":[{"id":"roots","kind":"roots","prompt":"Which folders may I read?"}]}
}

// A host answers every request of a suspension, whether one or several
// were asked, and the tool finds each answer by its request's id.
func ExamplePendingAllOf() {
	r := toolnexus.PendingAll(
		toolnexus.Request{ID: "env", Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"choices": []string{"dev", "prod"}}},
		toolnexus.Request{ID: "ok", Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
	)
	reqs, _ := toolnexus.PendingAllOf(r)
	var answers toolnexus.Answers
	for _, req := range reqs {
		if req.Kind == toolnexus.KindApproval {
			answers = append(answers, req.Resolve(nil))
			continue
		}
		answers = append(answers, req.Resolve(map[string]any{"answer": "prod"}))
	}
	env, _ := answers.Get("env")
	ok, _ := answers.Get("ok")
	fmt.Println(len(reqs), env.Data["answer"], ok.OK)
	// Output: 2 prod true
}

// A choice without JSON Schema: the choices under Data's "choices" become
// an MCP form with one required string "answer" whose enum they are.
func ExampleRequest_MCPElicitParams_choices() {
	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Which environment?",
		Data: map[string]any{"choices": []string{"dev", "prod"}}}
	params, err := req.MCPElicitParams()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(params.RequestedSchema))
	// Output:
	// {"type":"object","properties":{"answer":{"type":"string","description":"Which environment?","enum":["dev","prod"]}},"required":["answer"]}
}

// The client's response becomes the tool's Answer only when it fits what
// was asked: here, one of the choices.
func ExampleRequest_AnswerFromMCP() {
	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Which environment?",
		Data: map[string]any{"choices": []string{"dev", "prod"}}}
	ans, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"answer":"prod"}}`))
	fmt.Println(ans.OK, ans.Data["answer"], err)

	_, err = req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"answer":{"$ne":""}}}`))
	fmt.Println(errors.Is(err, toolnexus.ErrInvalidAnswer), err)

	ans, _ = req.AnswerFromMCP(json.RawMessage(`{"action":"decline"}`))
	fmt.Println(ans.OK, ans.Reason)
	// Output:
	// true prod <nil>
	// true toolnexus: invalid answer: request "pnd-1": property "answer" is an object, not a string
	// false declined
}

// A tool asks the client's model, through the MCP client, and reads its
// message from the answer.
func ExampleRequest_MCPInputRequest() {
	req := toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindSampling, Prompt: "Ask the model for the capital",
		Data: map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Capital of France?"}}},
			"maxTokens": 100,
		}}
	ir, err := req.MCPInputRequest()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(ir)
	fmt.Println(string(out))
	ans, _ := req.AnswerFromMCP(json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"m"}`))
	fmt.Println(ans.Data["content"].(map[string]any)["text"])
	// Output:
	// {"method":"sampling/createMessage","params":{"maxTokens":100,"messages":[{"content":{"text":"Capital of France?","type":"text"},"role":"user"}]}}
	// Paris.
}

func ExampleRequest_WithExpiry() {
	at, _ := time.Parse(time.RFC3339, "2026-12-01T01:00:00+01:00")
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}.WithExpiry(at)
	fmt.Println(req.ExpiresAt)
	// Output: 2026-12-01T00:00:00Z
}

// A result's token estimate is the same in every toolnexus port: what
// compaction and a budget go by, without a model's tokenizer.
func ExampleToolResult_EstimatedTokens() {
	png, err := toolnexus.PartFromFile("testdata/fixture.png")
	if err != nil {
		panic(err)
	}
	r := toolnexus.Ok("fixture.png (image/png, 82 bytes)", png)
	fmt.Println(png.EstimatedTokens(), r.EstimatedTokens())
	// Output: 85 93
}
