//lint:file-ignore SA1019 the tests answer sampling and roots, which SEP-2577 deprecates.

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"log/slog"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connect connects a client with opts to a new conformance server, on the
// given protocol version.
func connect(t *testing.T, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	s, err := newServer(bytes.Repeat([]byte{1}, 32), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts).
		Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.NoError(t, ss.Wait())
	})
	return cs
}

func TestMedia(t *testing.T) {
	t.Parallel()
	m, err := newMedia()
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(m.png))
	require.NoError(t, err)
	assert.Equal(t, 1, img.Bounds().Dx())
	require.Len(t, m.wav, 44+8)
	assert.Equal(t, "RIFF", string(m.wav[:4]))
	assert.Equal(t, uint32(len(m.wav)-8), binary.LittleEndian.Uint32(m.wav[4:8]))
	assert.Equal(t, "WAVEfmt ", string(m.wav[8:16]))
	assert.Equal(t, uint32(8000), binary.LittleEndian.Uint32(m.wav[24:28]), "the sample rate")
	assert.Equal(t, "data", string(m.wav[36:40]))
	assert.Equal(t, uint32(8), binary.LittleEndian.Uint32(m.wav[40:44]))
}

// TestTools lists the tools the suites call, and runs the ones that ask in
// sequence, for every kind at once and (test_streaming_elicitation) with a
// toolnexus suspension under the go-sdk's client, which fulfils
// input_required results itself.
func TestTools(t *testing.T) {
	t.Parallel()
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, RootsV2: &mcp.RootCapabilities{}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Message == "Step 2: What is your favorite color?" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "Hi"}}, nil
		},
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, opts, version)
			tools, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range []string{"test_simple_text", "test_elicitation_sep1330_enums", "test_missing_capability",
				"test_input_required_result_multi_round", "test_input_required_result_capabilities"} {
				assert.True(t, slices.Contains(names, want), "no tool %s", want)
			}
			for _, tt := range []struct{ tool, text string }{
				{"test_input_required_result_multi_round", "Multi-round complete: Alice likes blue"},
				{"test_input_required_result_multiple_inputs", "Hi Alice — 0 root(s) visible"},
				{"test_input_required_result_capabilities", "Capability-aware input requests fulfilled"},
				{"test_streaming_elicitation", "Elicitation result: action=accept, content=map[name:Alice]"},
			} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool})
				require.NoError(t, err, tt.tool)
				assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: tt.text}}, res.Content, tt.tool)
			}
		})
	}
}
