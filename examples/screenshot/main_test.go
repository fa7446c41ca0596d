package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, "../../testdata/fixture.png"))
	assert.Equal(t, `ok "fixture.png (image/png, 82 bytes)" parts=[image (image/png, 82 bytes)]
{
  "output": "fixture.png (image/png, 82 bytes)",
  "isError": false,
  "parts": [
    {
      "type": "image",
      "mimeType": "image/png",
      "data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGUlEQVR42mP4z8AARwyrkBAVJZClkAEVJQBm3VpRJDtqMQAAAABJRU5ErkJggg=="
    }
  ]
}
`, out.String())
}

func TestRunMissingFile(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, "../../testdata/missing.png"))
	assert.Equal(t, `error "cannot read missing.png: toolnexus: open ../../testdata/missing.png: no such file or directory"
{
  "output": "cannot read missing.png: toolnexus: open ../../testdata/missing.png: no such file or directory",
  "isError": true
}
`, out.String())
}
