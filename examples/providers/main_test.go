package main

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, testCard, "fixture.png"))
	assert.Equal(t, `== Anthropic Messages, a tool_result block
{
  "type": "tool_result",
  "tool_use_id": "toolu_01",
  "is_error": false,
  "content": [
    {
      "type": "text",
      "text": "fixture.png (image/png, 82 bytes)"
    },
    {
      "type": "text",
      "text": "A test card, 8 by 8 pixels."
    },
    {
      "type": "image",
      "source": {
        "type": "base64",
        "media_type": "image/png",
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="
      }
    }
  ]
}
== OpenAI Chat Completions, messages
[
  {
    "role": "tool",
    "tool_call_id": "call_01",
    "content": [
      {
        "type": "text",
        "text": "fixture.png (image/png, 82 bytes)"
      },
      {
        "type": "text",
        "text": "A test card, 8 by 8 pixels."
      }
    ]
  },
  {
    "role": "user",
    "content": [
      {
        "type": "text",
        "text": "Output of tool screenshot (call_01):"
      },
      {
        "type": "image_url",
        "image_url": {
          "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="
        }
      }
    ]
  }
]
== OpenAI Responses, a function_call_output item
{
  "type": "function_call_output",
  "call_id": "call_01",
  "output": [
    {
      "type": "input_text",
      "text": "fixture.png (image/png, 82 bytes)"
    },
    {
      "type": "input_text",
      "text": "A test card, 8 by 8 pixels."
    },
    {
      "type": "input_image",
      "image_url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="
    }
  ]
}
== MCP, a CallToolResult
{
  "content": [
    {
      "type": "text",
      "text": "fixture.png (image/png, 82 bytes)"
    },
    {
      "type": "text",
      "text": "A test card, 8 by 8 pixels."
    },
    {
      "type": "image",
      "data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg==",
      "mimeType": "image/png"
    }
  ],
  "isError": false
}
== Gemini, a functionResponse
{
  "id": "call_01",
  "name": "screenshot",
  "response": {
    "output": "fixture.png (image/png, 82 bytes)\nA test card, 8 by 8 pixels."
  },
  "parts": [
    {
      "inlineData": {
        "mimeType": "image/png",
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="
      }
    }
  ]
}
`, out.String())
}

func TestRunMissingFile(t *testing.T) {
	var out bytes.Buffer
	err := run(&out, testCard, "missing.png")
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	assert.Empty(t, out.String())
}
