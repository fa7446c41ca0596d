package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, testCard, "fixture.png"))
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

// TestScreenshotFailures checks that what the model reads when a file
// cannot be had names only what the model gave: no path of the host's.
func TestScreenshotFailures(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.png"), make([]byte, 10<<20+1), 0o600))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	for name, want := range map[string]string{
		"missing.png":    "no screenshot: toolnexus: cannot read: openat missing.png: no such file or directory",
		"../secret.png":  `no screenshot: toolnexus: invalid path: "../secret.png" is outside the files this tool reads: send a path inside them, without ".."`,
		"big.png":        "no screenshot: toolnexus: part too large: 10485761 bytes, over the limit of 10485760 bytes: send a smaller one, or a link to it",
		"notes.exe":      `no screenshot: toolnexus: unknown file extension: ".exe" in "notes.exe": send a csv, flac, gif, heic, jpg, json, m4a, md, mp3, ogg, pdf, png, txt, wav, webp file, or pass its MIME type`,
		"fixture.png/..": `no screenshot: toolnexus: invalid path: "fixture.png/.." names no file: send the path of a file`,
	} {
		t.Run(name, func(t *testing.T) {
			res := screenshot(root.FS(), name)
			assert.True(t, res.IsError)
			assert.Equal(t, want, res.Output)
			assert.NotContains(t, res.Output, dir)
		})
	}
}
