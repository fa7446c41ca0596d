package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

func TestRun(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	require.NoError(t, run(&out, t.TempDir(), now))
	assert.Regexp(t, `^parked: input "Which environment should billing go to\?" \(id pnd-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\)
restored: input, choices \[dev prod\], same id true
ok "deployed billing to prod"
late answer refused: true
$`, out.String())
}

func TestDeployDeclined(t *testing.T) {
	ans := toolnexus.Answer{ID: "x", Reason: toolnexus.ReasonDeclined}
	assert.Equal(t, toolnexus.Errorf("deploy of billing cancelled: declined"), deploy("billing", &ans, time.Now()))
}
