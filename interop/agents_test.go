package interop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	openaiparam "github.com/openai/openai-go/v3/packages/param"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolnexus-go/toolnexus"
)

// agentsCase is a result, and the SDK's own tool_result param that says
// the same, built with the SDK's own types.
type agentsCase struct {
	name   string
	result toolnexus.ToolResult
	sdk    func(golden string) openai.AgentSessionInputParamAgentSessionInputToolResult
}

func agentsCases() []agentsCase {
	return []agentsCase{
		{"text", toolnexus.Ok("eu-west-1"), func(string) openai.AgentSessionInputParamAgentSessionInputToolResult {
			return openai.AgentSessionInputParamAgentSessionInputToolResult{CallID: "call_01", TurnID: "turn_01", Success: true,
				Output: openai.AgentFunctionCallOutputParamUnion{OfString: openaiparam.NewOpt("eu-west-1")}}
		}},
		{"image", screenshot(), func(golden string) openai.AgentSessionInputParamAgentSessionInputToolResult {
			return openai.AgentSessionInputParamAgentSessionInputToolResult{CallID: "call_01", TurnID: "turn_01", Success: true,
				Output: openai.AgentFunctionCallOutputParamUnion{OfArrayOfInputContents: []openai.InputContentParamUnion{
					{OfParamInputText: &openai.InputContentParamInputText{Text: "A test card, 8 by 8 pixels."}},
					{OfParamInputImage: &openai.InputContentParamInputImage{ImageURL: "data:image/png;base64," + golden}},
				}}}
		}},
		{"failed", toolnexus.Error("No such config key: nope"), func(string) openai.AgentSessionInputParamAgentSessionInputToolResult {
			return openai.AgentSessionInputParamAgentSessionInputToolResult{CallID: "call_01", TurnID: "turn_01",
				Error: openaiparam.NewOpt("No such config key: nope")}
		}},
		{"failed with an image", toolnexus.Error("render failed", screenshot().Parts...), func(string) openai.AgentSessionInputParamAgentSessionInputToolResult {
			return openai.AgentSessionInputParamAgentSessionInputToolResult{CallID: "call_01", TurnID: "turn_01",
				Error: openaiparam.NewOpt("render failed\n[unsupported image part (image/png, 82 bytes)]")}
		}},
	}
}

// TestOpenAIAgentsToolResult sends each event through the SDK's client to a
// fake Agents API: put into the SDK's own input union with param.Override,
// it is sent as it is, and the body is what the SDK writes for its own
// tool_result param saying the same. Read back by the SDK's own decoder,
// every key lands in the field of the SDK's type.
func TestOpenAIAgentsToolResult(t *testing.T) {
	t.Parallel()
	golden := goldenPNG(t)
	for _, c := range agentsCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			event, err := c.result.OpenAIAgentsToolResult("call_01", "turn_01")
			require.NoError(t, err)
			api := newFakeAPI(`{}`)
			defer api.Close()
			client := openai.NewClient(openaioption.WithBaseURL(api.URL), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0))
			err = client.Beta.Agents.Sessions.Events.New(context.Background(), "sess_01", openai.BetaAgentSessionEventNewParams{
				Events: []openai.AgentSessionInputParamUnion{openaiparam.Override[openai.AgentSessionInputParamUnion](event)},
			})
			require.NoError(t, err)
			assert.Equal(t, "/agents/sessions/sess_01/events", api.lastPath())

			own, err := json.Marshal(openai.BetaAgentSessionEventNewParams{
				Events: []openai.AgentSessionInputParamUnion{{OfParamAgentSessionInputToolResult: new(c.sdk(golden))}},
			})
			require.NoError(t, err)
			assert.JSONEq(t, string(own), string(api.lastBody()))

			ours, err := json.Marshal(event)
			require.NoError(t, err)
			var back openai.AgentSessionInputParamAgentSessionInputToolResult
			require.NoError(t, json.Unmarshal(ours, &back))
			want := c.sdk(golden)
			assert.Equal(t, want.CallID, back.CallID)
			assert.Equal(t, want.TurnID, back.TurnID)
			assert.Equal(t, want.Success, back.Success)
			assert.Equal(t, want.Error.Value, back.Error.Value)
			assert.Equal(t, want.Output.OfString.Value, back.Output.OfString.Value)
			require.Len(t, back.Output.OfArrayOfInputContents, len(want.Output.OfArrayOfInputContents))
			for i, w := range want.Output.OfArrayOfInputContents {
				got := back.Output.OfArrayOfInputContents[i]
				assert.Equal(t, w.OfParamInputText != nil, got.OfParamInputText != nil, "item %d is input_text", i)
				assert.Equal(t, w.OfParamInputImage != nil, got.OfParamInputImage != nil, "item %d is input_image", i)
				assert.Equal(t, w.GetText(), got.GetText(), "item %d", i)
				assert.Equal(t, w.GetImageURL(), got.GetImageURL(), "item %d", i)
			}
		})
	}
}

// TestOpenAIAgentsRefusesSuspension checks that a suspension never reaches
// a session: the session takes a call's result once.
func TestOpenAIAgentsRefusesSuspension(t *testing.T) {
	t.Parallel()
	_, err := toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}).OpenAIAgentsToolResult("call_01", "turn_01")
	assert.ErrorIs(t, err, toolnexus.ErrPending)
}
