package toolnexus_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// maxMessage bounds every error message: an error names the value it refuses
// by a short prefix, never by the whole of it.
const maxMessage = 256

// sentinels are the exported errors, each with its message.
var sentinels = []struct {
	err error
	msg string
}{
	{toolnexus.ErrUnknownPartType, "toolnexus: unknown part type"},
	{toolnexus.ErrUnknownExtension, "toolnexus: unknown file extension"},
	{toolnexus.ErrMissingMIMEType, "toolnexus: missing MIME type"},
	{toolnexus.ErrInvalidMIMEType, "toolnexus: invalid MIME type"},
	{toolnexus.ErrInvalidPart, "toolnexus: invalid part"},
	{toolnexus.ErrInvalidBase64, "toolnexus: invalid base64"},
	{toolnexus.ErrInvalidDataURL, "toolnexus: invalid data URL"},
	{toolnexus.ErrPartTooLarge, "toolnexus: part too large"},
	{toolnexus.ErrFileChanged, "toolnexus: size changed while read"},
	{toolnexus.ErrRead, "toolnexus: cannot read"},
	{toolnexus.ErrInvalidRequest, "toolnexus: invalid request"},
	{toolnexus.ErrInvalidExpiry, "toolnexus: invalid expiresAt"},
	{toolnexus.ErrAnswerMismatch, "toolnexus: answer does not match request"},
	{toolnexus.ErrExpired, "toolnexus: request expired"},
	{toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON"},
	{toolnexus.ErrInvalidMCP, "toolnexus: invalid MCP result"},
	{toolnexus.ErrInvalidTurn, "toolnexus: invalid turn"},
	{toolnexus.ErrIncompleteTurn, "toolnexus: turn not complete"},
	{toolnexus.ErrToolPanicked, "toolnexus: tool panicked"},
	{toolnexus.ErrPending, "toolnexus: result is a suspension"},
	{toolnexus.ErrInvalidArguments, "toolnexus: invalid arguments"},
}

// sentinelOf returns the first sentinel err matches, or nil.
func sentinelOf(err error) error {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.err
		}
	}
	return nil
}

// assertErr checks err against a table row: no error when want is nil;
// otherwise an error that reads like every error of the package (prefixed
// "toolnexus: ", at most maxMessage bytes), matches want with errors.Is and,
// when msg is not empty, reads exactly msg.
func assertErr(t testing.TB, err, want error, msg string) {
	t.Helper()
	if want == nil {
		assert.NoError(t, err)
		return
	}
	if !assert.Error(t, err, "want %v", want) {
		return
	}
	assert.True(t, strings.HasPrefix(err.Error(), "toolnexus: "), "error %q lacks the toolnexus: prefix", err)
	assert.LessOrEqual(t, len(err.Error()), maxMessage, "error message too long: %q", err)
	assert.ErrorIs(t, err, want)
	if msg != "" {
		assert.EqualError(t, err, msg)
	}
}

func TestSentinels(t *testing.T) {
	t.Parallel()
	seen := map[error]bool{}
	for _, s := range sentinels {
		assert.EqualError(t, s.err, s.msg)
		assert.False(t, seen[s.err])
		seen[s.err] = true
		for _, other := range sentinels {
			if other.err != s.err {
				assert.NotErrorIs(t, s.err, other.err)
			}
		}
	}
}

// TestErrInvalidAnswer checks the one sentinel that matches another: an
// answer off what was asked is also invalid MCP, and matches no other
// sentinel.
func TestErrInvalidAnswer(t *testing.T) {
	t.Parallel()
	assert.EqualError(t, toolnexus.ErrInvalidAnswer, "toolnexus: invalid answer")
	wrapped := fmt.Errorf("reading: %w", toolnexus.ErrInvalidAnswer)
	assert.ErrorIs(t, wrapped, toolnexus.ErrInvalidAnswer)
	assert.ErrorIs(t, wrapped, toolnexus.ErrInvalidMCP)
	assert.NotErrorIs(t, toolnexus.ErrInvalidMCP, toolnexus.ErrInvalidAnswer)
	for _, s := range sentinels {
		if s.err != toolnexus.ErrInvalidMCP {
			assert.NotErrorIs(t, wrapped, s.err)
		}
	}
}

func TestPartTooLargeError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("reading: %w", &toolnexus.PartTooLargeError{Limit: 10, Size: 11})
	assert.EqualError(t, err, "reading: toolnexus: part too large: 11 bytes, over the limit of 10 bytes: send a smaller one, or a link to it")
	assert.ErrorIs(t, err, toolnexus.ErrPartTooLarge)
	assert.Equal(t, toolnexus.ErrPartTooLarge, sentinelOf(err), "it matches no other sentinel")
	var tooLarge *toolnexus.PartTooLargeError
	if assert.ErrorAs(t, err, &tooLarge) {
		assert.Equal(t, toolnexus.PartTooLargeError{Limit: 10, Size: 11}, *tooLarge)
	}
}

// TestErrorQuotesLongValues checks that an error names a long value by its
// first 40 bytes and its length.
func TestErrorQuotesLongValues(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("A", 1<<20)
	tests := []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"part type", toolnexus.ContentPart{Type: toolnexus.PartType(strings.Repeat("x", 1024)), MIMEType: "image/png", Data: "AAAA"}.Validate(),
			toolnexus.ErrUnknownPartType, `toolnexus: unknown part type: "` + strings.Repeat("x", 40) + `"… (1024 bytes)`},
		{"base64", second(toolnexus.PartFromBase64(long[:len(long)-4]+"AA*A", "image/png")),
			toolnexus.ErrInvalidBase64, `toolnexus: invalid base64: byte '*' at offset 1048574 of "` + long[:40] + `"… (1048576 bytes)`},
		{"data URL", second(toolnexus.PartFromURL("data:image/png;base64"+long, "")),
			toolnexus.ErrInvalidDataURL, `toolnexus: invalid data URL: "data:image/png;base64` + long[:19] + `"… (1048597 bytes) has no comma`},
		{"file name", second(toolnexus.MIMETypeOf(long)),
			toolnexus.ErrUnknownExtension, `toolnexus: unknown file extension: "` + long[:40] + `"… (1048576 bytes) has no extension: send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`},
		{"MIME type", second(toolnexus.PartFromBytes([]byte("x"), long)),
			toolnexus.ErrInvalidMIMEType, `toolnexus: invalid MIME type: "` + long[:40] + `"… (1048576 bytes) is not type/subtype`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.err, tt.want, tt.msg)
		})
	}
}

// TestErrorsCarryNoPayload checks that no error, whatever it refuses, carries
// a window of a payload longer than what an error quotes.
func TestErrorsCarryNoPayload(t *testing.T) {
	t.Parallel()
	data := secretPayload()
	bad := data[:len(data)-4] + "AA*A"
	dataURL := "data:image/png;base64," + data
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	const kib = 1 << 10
	errs := map[string]error{
		"base64 over limit":        second(toolnexus.PartReader{MaxBytes: kib, MIMEType: "image/png"}.Base64(data)),
		"data URL over limit":      second(toolnexus.PartReader{MaxBytes: kib}.URL(dataURL)),
		"reader over limit":        second(toolnexus.PartReader{MaxBytes: kib, MIMEType: "image/png"}.Reader(strings.NewReader(data))),
		"data URL MIME mismatch":   second(toolnexus.PartFromURL(dataURL, "image/jpeg")),
		"data URL not base64":      second(toolnexus.PartFromURL("data:image/png,"+data, "")),
		"data URL bad base64":      second(toolnexus.PartFromURL("data:image/png;base64,"+bad, "")),
		"base64 bad byte at end":   second(toolnexus.PartFromBase64(bad, "image/png")),
		"base64 bad length":        second(toolnexus.PartFromBase64(data+"A", "image/png")),
		"base64 bad padding bits":  second(toolnexus.PartFromBase64(data[:len(data)-4]+"AB==", "image/png")),
		"MIME type holding it":     second(toolnexus.PartFromBytes([]byte("x"), data)),
		"name holding it":          second(toolnexus.MIMETypeOf(data)),
		"Validate bad base64":      toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: bad}.Validate(),
		"Validate data URL in url": toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", URL: dataURL}.Validate(),
		"Validate both":            toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data, URL: "https://example.com/a.png"}.Validate(),
		"Validate wrong MIME":      toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "image/png", Data: data}.Validate(),
		"Validate text with data":  toolnexus.ContentPart{Type: toolnexus.PartText, Data: data}.Validate(),
		"Validate unknown type":    toolnexus.ContentPart{Type: toolnexus.PartType(data), Data: data}.Validate(),
		"result Validate":          toolnexus.Ok("x", img, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: bad}).Validate(),
		"SHA256 bad base64":        second(toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: bad}.SHA256()),
		"request url holding it": toolnexus.Ok("w").WithMetadata(toolnexus.MetadataPending,
			toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", URL: dataURL + " x"}).Validate(),
		"expiry holding it": toolnexus.Ok("w").WithMetadata(toolnexus.MetadataPending,
			toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", ExpiresAt: data}).Validate(),
		"decoding a part":      second(toolnexus.ParseToolResult([]byte(`{"output":"x","parts":[{"type":"image","data":7,"mimeType":"`+data+`"}]}`), 0)),
		"MCP not JSON":         second(toolnexus.FromMCPCallToolResult([]byte(data))),
		"MCP content a string": second(toolnexus.FromMCPCallToolResult([]byte(`{"content":"` + data + `"}`))),
		"MCP block of a wrong type": second(toolnexus.FromMCPCallToolResult([]byte(
			`{"content":[{"type":"image","data":"` + data + `","mimeType":7}]}`))),
		"elicitation action": second(toolnexus.AnswerFromMCPElicitResult("r", toolnexus.MCPElicitResult{Action: data})),
		"elicitation schema": second(toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p",
			Data: map[string]any{"schema": map[string]any{"type": "object", "properties": map[string]any{data: map[string]any{"type": "object"}}}}}.MCPElicitParams()),
		"answer data": toolnexus.Answer{ID: "r", OK: true, Data: map[string]any{"n": data}}.DecodeData(new(struct {
			N int `json:"n"`
		})),
		"answer check": toolnexus.Answer{ID: data}.Check(toolnexus.Request{ID: "r"}, time.Now()),
	}
	for name, err := range errs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, err, sentinelOf(err), "")
			// 64 > 40: a quoted prefix never holds a 64-byte window.
			assertNoPayload(t, err.Error(), data, 64)
			assertNoPayload(t, fmt.Sprintf("%+v", err), data, 64)
		})
	}
}

// quoted is a value as an error quotes it, by the package's own quote,
// which TestErrorQuotesLongValues pins: no copy of it to keep in step.
var quoted = msg.Quote

func second[T any](_ T, err error) error { return err }
