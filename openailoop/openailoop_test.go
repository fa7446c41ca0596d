package openailoop_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
)

// tools are the tools of the examples and tests: screenshot returns the
// repository's 82-byte PNG fixture, deploy waits for an approval.
var tools = looptest.Tools("../testdata")

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// decode decodes a reply of the API into v as the SDK does.
func decode[T any](t testing.TB, reply string) *T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(reply), &v))
	return &v
}

// hostileCalls checks what a run makes of calls a host must not trust: a
// tool it does not have, arguments that are not JSON, and arguments that
// are not an object. Each is an error result the model reads, and the turn
// is complete.
func hostileCalls(t *testing.T, turn toolnexus.Turn, err error) {
	t.Helper()
	require.NoError(t, err)
	require.True(t, turn.Complete())
	var outputs []string
	for _, c := range turn.Calls {
		assert.True(t, c.Result.IsError, c.ID)
		outputs = append(outputs, c.Result.Output)
	}
	assert.Equal(t, []string{
		`toolnexus: unknown tool "rm -rf"`,
		`toolnexus: arguments of "deploy" are not JSON: invalid character 'p' looking for beginning of value`,
		`toolnexus: arguments of "deploy" are not a JSON object but an array`,
	}, outputs)
	assert.Equal(t, json.RawMessage(`"{\"env\": prod}"`), turn.Calls[1].Arguments, "kept as a JSON string")
	_, err = json.Marshal(turn)
	assert.NoError(t, err, "the turn marshals")
}

// badStored is stored JSON that a conversation's parser refuses with err,
// given the limit max.
type badStored struct {
	data string
	max  int64
	err  error
}

// refused checks that parse, and resume with any answer, refuse each of
// cases with its error.
func refused[C any](t *testing.T, parse func([]byte, int64) (C, error),
	resume func(context.Context, []byte, int64, toolnexus.Answer, map[string]toolnexus.Tool) (C, error), cases map[string]badStored) {
	t.Helper()
	for name, tc := range cases {
		_, err := parse([]byte(tc.data), tc.max)
		require.ErrorIs(t, err, tc.err, name)
		_, err = resume(context.Background(), []byte(tc.data), tc.max, toolnexus.Answer{ID: "pnd-1", OK: true}, tools)
		require.ErrorIs(t, err, tc.err, name)
	}
}
