package toolnexus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// MIME types are case-insensitive (RFC 2045): the part type follows the
// MIME type whatever its case, and the type is kept as given.
func TestMIMETypeCaseInsensitive(t *testing.T) {
	t.Parallel()
	p, err := toolnexus.PartFromBytes([]byte{1, 2, 3}, "Image/PNG")
	require.NoError(t, err)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "Image/PNG", Data: "AQID"}, p)
	require.NoError(t, p.Validate())

	p, err = toolnexus.PartFromURL("data:AUDIO/WAV;base64,AQID", "audio/wav")
	require.NoError(t, err)
	assert.Equal(t, toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "AUDIO/WAV", Data: "AQID"}, p)

	_, err = toolnexus.PartFromURL("data:image/png;base64,AQID", "image/jpeg")
	assert.ErrorIs(t, err, toolnexus.ErrInvalidMIMEType)
}
