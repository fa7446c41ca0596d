package toolnexus_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// chatWith is the OpenAI Chat messages of Ok("out", p): with a user message
// holding part, or, for a placeholder, a tool message holding it.
func chatWith(part string) string {
	if strings.HasPrefix(part, "[") {
		return `[{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"out"},{"type":"text","text":"` + part + `"}]}]`
	}
	return `[{"role":"tool","tool_call_id":"call_1","content":"out"},{"role":"user","content":[{"type":"text","text":"Output of tool lookup (call_1):"},` + part + `]}]`
}

// responsesWith is the function_call_output of Ok("out", p) whose second
// item is item, or an input_text holding a placeholder.
func responsesWith(item string) string {
	if strings.HasPrefix(item, "[") {
		item = `{"type":"input_text","text":"` + item + `"}`
	}
	return `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"out"},` + item + `]}`
}

func TestOpenAIChatDelivery(t *testing.T) {
	t.Parallel()
	png := `{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}`
	want := map[string]string{
		"png":                 png,
		"png mixed case":      png,
		"png with parameters": png,
		"pdf mixed case":      `{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}}`,
		"pdf unnamed":         `{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}}`,
		"wav mixed case":      `{"type":"input_audio","input_audio":{"data":"UklGRgAAAABXQVZF","format":"wav"}}`,
		"mp3":                 `{"type":"input_audio","input_audio":{"data":"SUQz","format":"mp3"}}`,
		"jpeg https":          `{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}`,
		"jpeg HTTPS":          `{"type":"image_url","image_url":{"url":"HTTPS://example.com/cat.jpg"}}`,
		"jpeg http":           `{"type":"image_url","image_url":{"url":"http://example.com/cat.jpg"}}`,
		"jpeg s3":             `[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]`,
		"jpeg gs":             `[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]`,
		"jpeg file":           `[unsupported image part (image/jpeg, url file:///tmp/cat.jpg)]`,
		"jpeg ftp":            `[unsupported image part (image/jpeg, url ftp://example.com/cat.jpg)]`,
		"pdf https":           `[unsupported file part (application/pdf, url https://example.com/report.pdf)]`,
		"pdf s3":              `[unsupported file part (application/pdf, url s3://bucket/report.pdf)]`,
		"pdf gs":              `[unsupported file part (application/pdf, url gs://bucket/report.pdf)]`,
		"wav https":           `[unsupported audio part (audio/wav, url https://example.com/a.wav)]`,
		"txt":                 `{"type":"text","text":"hello"}`,
		"txt not UTF-8":       `[unsupported file part (text/plain, 1 bytes)]`,
		"md":                  `{"type":"text","text":"# Title"}`,
		"csv":                 `{"type":"text","text":"a,b\n1,2"}`,
		"json":                `{"type":"text","text":"{\"a\":1}"}`,
		"ogg":                 `[unsupported audio part (audio/ogg, 4 bytes)]`,
		"flac":                `[unsupported audio part (audio/flac, 4 bytes)]`,
		"m4a":                 `[unsupported audio part (audio/mp4, 4 bytes)]`,
		"heic":                `[unsupported image part (image/heic, 4 bytes)]`,
		"gif":                 `{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lGODlh"}}`,
		"bmp":                 `[unsupported image part (image/bmp, 2 bytes)]`,
	}
	for name, part := range want {
		want[name] = chatWith(part)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.OpenAIChatMessages("call_1", "lookup") })
}

func TestOpenAIResponsesDelivery(t *testing.T) {
	t.Parallel()
	png := `{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}`
	want := map[string]string{
		"png":                 png,
		"png mixed case":      png,
		"png with parameters": png,
		"pdf mixed case":      `{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"report.pdf"}`,
		"pdf unnamed":         `{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQgdGlueQ==","filename":"file.pdf"}`,
		"wav mixed case":      `[unsupported audio part (audio/WAV, 12 bytes)]`,
		"mp3":                 `[unsupported audio part (audio/mpeg, 3 bytes)]`,
		"jpeg https":          `{"type":"input_image","image_url":"https://example.com/cat.jpg"}`,
		"jpeg HTTPS":          `{"type":"input_image","image_url":"HTTPS://example.com/cat.jpg"}`,
		"jpeg http":           `{"type":"input_image","image_url":"http://example.com/cat.jpg"}`,
		"jpeg s3":             `[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]`,
		"jpeg gs":             `[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]`,
		"jpeg file":           `[unsupported image part (image/jpeg, url file:///tmp/cat.jpg)]`,
		"jpeg ftp":            `[unsupported image part (image/jpeg, url ftp://example.com/cat.jpg)]`,
		"pdf https":           `{"type":"input_file","file_url":"https://example.com/report.pdf"}`,
		"pdf s3":              `[unsupported file part (application/pdf, url s3://bucket/report.pdf)]`,
		"pdf gs":              `[unsupported file part (application/pdf, url gs://bucket/report.pdf)]`,
		"wav https":           `[unsupported audio part (audio/wav, url https://example.com/a.wav)]`,
		"txt":                 `{"type":"input_file","file_data":"data:text/plain;base64,aGVsbG8=","filename":"notes.txt"}`,
		"txt not UTF-8":       `{"type":"input_file","file_data":"data:text/plain;base64,/w==","filename":"bad.txt"}`,
		"md":                  `{"type":"input_file","file_data":"data:text/markdown;base64,IyBUaXRsZQ==","filename":"README.md"}`,
		"csv":                 `{"type":"input_file","file_data":"data:text/csv;base64,YSxiCjEsMg==","filename":"data.csv"}`,
		"json":                `{"type":"input_file","file_data":"data:application/json;base64,eyJhIjoxfQ==","filename":"data.json"}`,
		"ogg":                 `[unsupported audio part (audio/ogg, 4 bytes)]`,
		"flac":                `[unsupported audio part (audio/flac, 4 bytes)]`,
		"m4a":                 `[unsupported audio part (audio/mp4, 4 bytes)]`,
		"heic":                `[unsupported image part (image/heic, 4 bytes)]`,
		"gif":                 `{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlh"}`,
		"bmp":                 `[unsupported image part (image/bmp, 2 bytes)]`,
	}
	for name, item := range want {
		want[name] = responsesWith(item)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return r.OpenAIResponsesOutput("call_1") })
}

// TestOpenAIResponsesFileTypes checks each type of the extension table as
// a Responses input_file, unnamed (named after its type) and by URL, and
// the types the file inputs guide does not list, which stay placeholders.
func TestOpenAIResponsesFileTypes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mimeType string
		filename string // "" when Responses does not take the type as a file
	}{
		{"application/pdf", "file.pdf"},
		{"text/plain", "file.txt"},
		{"Text/Markdown; charset=utf-8", "file.md"},
		{"text/csv", "file.csv"},
		{"application/json", "file.json"},
		{"application/octet-stream", ""},
		{"text/html", ""},
		{"application/zip", ""},
	}
	for _, tc := range cases {
		t.Run(tc.mimeType, func(t *testing.T) {
			t.Parallel()
			data := file(tc.mimeType, "AAAA", "")
			byURL := part(toolnexus.PartFile, tc.mimeType, "", "https://example.com/f", "")
			got := mustJSON(t, toolnexus.Ok("out", data, byURL).OpenAIResponsesOutput("c"))
			want := `{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"out"},` +
				`{"type":"input_file","file_data":"data:` + strings.ToLower(strings.Split(tc.mimeType, ";")[0]) + `;base64,AAAA","filename":"` + tc.filename + `"},` +
				`{"type":"input_file","file_url":"https://example.com/f"}]}`
			if tc.filename == "" {
				want = `{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"out"},` +
					`{"type":"input_text","text":"[unsupported file part (` + tc.mimeType + `, 3 bytes)]"},` +
					`{"type":"input_text","text":"[unsupported file part (` + tc.mimeType + `, url https://example.com/f)]"}]}`
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestOpenAIChatAudioFormats checks the audio media types OpenAI Chat takes
// and the format each is sent as.
func TestOpenAIChatAudioFormats(t *testing.T) {
	t.Parallel()
	for mimeType, format := range map[string]string{
		"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3",
		"Audio/X-WAV": "wav", "audio/flac": "", "audio/webm": "",
	} {
		t.Run(mimeType, func(t *testing.T) {
			t.Parallel()
			msgs := toolnexus.Ok("", audio(mimeType, "AAAA")).OpenAIChatMessages("c", "n")
			if format == "" {
				require.Len(t, msgs, 1)
				return
			}
			require.Len(t, msgs, 2)
			assert.Equal(t, &toolnexus.OpenAIInputAudio{Data: "AAAA", AudioFormat: format},
				msgs[1].Content.([]toolnexus.OpenAIChatContentPart)[1].InputAudio)
		})
	}
}

// TestOpenAISizeLimits checks the limits the OpenAI API documents: 20 MB in
// an image, 32 MB of files in a request, counted in bytes of the file.
func TestOpenAISizeLimits(t *testing.T) {
	t.Parallel()
	big := bigBase64(42_666_672)   // 32_000_004 bytes decoded
	imageLimit := big[:26_666_668] // 20_000_001 bytes decoded
	cases := []struct {
		name    string
		part    toolnexus.ContentPart
		tooBig  bool
		because string
	}{
		{"image at the limit", image("image/png", imageLimit[:26_666_664]), false, ""},
		{"image over the limit", image("image/png", imageLimit), true, "larger than the 20 MB OpenAI takes in an image"},
		{"pdf at the limit", file("application/pdf", big[:42_666_664], "a.pdf"), false, ""},
		{"pdf over the limit", file("application/pdf", big, "a.pdf"), true, "larger than the 32 MB OpenAI takes in a request's files"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := toolnexus.Ok("", tc.part)
			placeholder := fmt.Sprintf("[unsupported %s part (%s, %d bytes): %s]", tc.part.Type, tc.part.MIMEType, tc.part.Size(), tc.because)
			chat := r.OpenAIChatMessages("c", "n")
			items := r.OpenAIResponsesOutput("c").Output.([]toolnexus.OpenAIResponsesContent)
			if tc.tooBig {
				require.Len(t, chat, 1)
				assert.Equal(t, placeholder, chat[0].Content.([]toolnexus.OpenAIChatContentPart)[0].Text)
				assert.Equal(t, []toolnexus.OpenAIResponsesContent{{Type: "input_text", Text: placeholder}}, items)
				return
			}
			require.Len(t, chat, 2)
			require.Len(t, items, 1)
			assert.NotEqual(t, "input_text", items[0].Type)
		})
	}
}

// agentsWith is the tool_result event of Ok("out", p) whose second item is
// item, or an input_text holding a placeholder.
func agentsWith(item string) string {
	if strings.HasPrefix(item, "[") {
		item = `{"type":"input_text","text":"` + item + `"}`
	}
	return `{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":[{"type":"input_text","text":"out"},` + item + `]}`
}

// agentsResult is OpenAIAgentsToolResult for the ids the tests use, which
// must not fail.
func agentsResult(t testing.TB, r toolnexus.ToolResult) toolnexus.OpenAIAgentsToolResult {
	t.Helper()
	o, err := r.OpenAIAgentsToolResult("call_1", "turn_1")
	require.NoError(t, err)
	return o
}

func TestOpenAIAgentsDelivery(t *testing.T) {
	t.Parallel()
	png := `{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}`
	want := map[string]string{
		"png":                 png,
		"png mixed case":      png,
		"png with parameters": png,
		"pdf mixed case":      `[unsupported file part (Application/PDF, 13 bytes)]`,
		"pdf unnamed":         `[unsupported file part (application/pdf, 13 bytes)]`,
		"wav mixed case":      `[unsupported audio part (audio/WAV, 12 bytes)]`,
		"mp3":                 `[unsupported audio part (audio/mpeg, 3 bytes)]`,
		"jpeg https":          `{"type":"input_image","image_url":"https://example.com/cat.jpg"}`,
		"jpeg HTTPS":          `{"type":"input_image","image_url":"HTTPS://example.com/cat.jpg"}`,
		"jpeg http":           `{"type":"input_image","image_url":"http://example.com/cat.jpg"}`,
		"jpeg s3":             `[unsupported image part (image/jpeg, url s3://bucket/cat.jpg)]`,
		"jpeg gs":             `[unsupported image part (image/jpeg, url gs://bucket/cat.jpg)]`,
		"jpeg file":           `[unsupported image part (image/jpeg, url file:///tmp/cat.jpg)]`,
		"jpeg ftp":            `[unsupported image part (image/jpeg, url ftp://example.com/cat.jpg)]`,
		"pdf https":           `[unsupported file part (application/pdf, url https://example.com/report.pdf)]`,
		"pdf s3":              `[unsupported file part (application/pdf, url s3://bucket/report.pdf)]`,
		"pdf gs":              `[unsupported file part (application/pdf, url gs://bucket/report.pdf)]`,
		"wav https":           `[unsupported audio part (audio/wav, url https://example.com/a.wav)]`,
		"txt":                 `[unsupported file part (text/plain, 5 bytes)]`,
		"txt not UTF-8":       `[unsupported file part (text/plain, 1 bytes)]`,
		"md":                  `[unsupported file part (text/markdown, 7 bytes)]`,
		"csv":                 `[unsupported file part (text/csv, 7 bytes)]`,
		"json":                `[unsupported file part (application/json, 7 bytes)]`,
		"ogg":                 `[unsupported audio part (audio/ogg, 4 bytes)]`,
		"flac":                `[unsupported audio part (audio/flac, 4 bytes)]`,
		"m4a":                 `[unsupported audio part (audio/mp4, 4 bytes)]`,
		"heic":                `[unsupported image part (image/heic, 4 bytes)]`,
		"gif":                 `{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlh"}`,
		"bmp":                 `[unsupported image part (image/bmp, 2 bytes)]`,
	}
	for name, item := range want {
		want[name] = agentsWith(item)
	}
	checkDelivery(t, want, func(r toolnexus.ToolResult) any { return agentsResult(t, r) })
}

// TestOpenAIAgentsToolResult checks the shapes of the event: an output
// string, an error message with every part as text, and no suspension.
func TestOpenAIAgentsToolResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    toolnexus.ToolResult
		want string
	}{
		{"text", toolnexus.Ok("eu-west-1"),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":"eu-west-1"}`},
		{"empty", toolnexus.Ok(""),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":""}`},
		{"text parts", toolnexus.Ok("out", textNote),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":[{"type":"input_text","text":"out"},{"type":"input_text","text":"note"}]}`},
		{"image only", toolnexus.Ok("", imagePNG),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`},
		{"failed", toolnexus.Error("No such config key: nope"),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":false,"error":"No such config key: nope"}`},
		{"failed with parts", toolnexus.Error("lookup failed", textNote, imagePNG),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":false,"error":"lookup failed\nnote\n[unsupported image part (image/png, 8 bytes)]"}`},
		{"failed without text", toolnexus.Error(""),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":false}`},
		{"metadata is never sent", toolnexus.Ok("x").WithMetadata("secret", "s3cr3t"),
			`{"type":"agent.session.input.tool_result","call_id":"call_1","turn_id":"turn_1","success":true,"output":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, mustJSON(t, agentsResult(t, tt.r)))
		})
	}
	for _, r := range []toolnexus.ToolResult{
		toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}),
		toolnexus.AuthRequired("https://example.com/login", ""),
		toolnexus.PendingAll(toolnexus.Request{ID: "req-1", Prompt: "A?"}, toolnexus.Request{ID: "req-2", Prompt: "B?"}),
	} {
		o, err := r.OpenAIAgentsToolResult("call_1", "turn_1")
		require.ErrorIs(t, err, toolnexus.ErrPending)
		assert.Contains(t, err.Error(), `toolnexus: result is a suspension: call "call_1" waits on request "`)
		assert.Zero(t, o)
	}
}

// TestOpenAIAgentsUnsupported checks what a failed result cannot carry:
// any part but text, each as its placeholder in the error message.
func TestOpenAIAgentsUnsupported(t *testing.T) {
	t.Parallel()
	r := toolnexus.Error("failed", textNote, imagePNG, audioWAV)
	assert.Equal(t, `[{"index":1,"part":"image (image/png, 8 bytes)","reason":"failed","placeholder":"[unsupported image part (image/png, 8 bytes)]"},`+
		`{"index":2,"part":"audio (audio/wav, 12 bytes)","reason":"failed","placeholder":"[unsupported audio part (audio/wav, 12 bytes)]"}]`,
		mustJSON(t, r.Unsupported(toolnexus.DestinationOpenAIAgents)))
	assert.Equal(t, "failed\nnote\n[unsupported image part (image/png, 8 bytes)]\n[unsupported audio part (audio/wav, 12 bytes)]", agentsResult(t, r).Error)
	ok := toolnexus.Ok("done", imagePNG, audioWAV)
	assert.Equal(t, `[{"index":1,"part":"audio (audio/wav, 12 bytes)","reason":"type","placeholder":"[unsupported audio part (audio/wav, 12 bytes)]"}]`,
		mustJSON(t, ok.Unsupported(toolnexus.DestinationOpenAIAgents)))
}
