package mcptasks_test

import (
	"bytes"
	"encoding/json"
	"testing"

	segmentio "github.com/segmentio/encoding/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/mcptasks"
)

// FuzzDecodeRecord reads any data as a stored task: a task that reads
// encodes to what reads as the same task.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(mcptasks.FullRecord())
	f.Add([]byte(`{"tool":"x","pending":[{"key":"k","request":{"id":"k","kind":"input","prompt":"?"},"input":{"method":"m"}}]}`))
	f.Add([]byte(`{"error":{"code":1,"message":"m","data":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		once, err := mcptasks.Reencode(data)
		if err != nil {
			return
		}
		twice, err := mcptasks.Reencode(once)
		require.NoError(t, err)
		assert.JSONEq(t, string(once), string(twice))
	})
}

// FuzzReadTaskRequest reads any body as the routing check reads it, and
// as the go-sdk's decoder reads it (segmentio's, with exact keys): what
// the check reads is what the SDK serves.
func FuzzReadTaskRequest(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"a"}}`))
	f.Add([]byte(`{"method":"tasks/get","params":{"taskId":"a","TASKID":"b"}}`))
	f.Add([]byte(`{"method":"tasks/get","params":{"taskId":"a","taskId":"b"}}`))
	f.Add([]byte(`{"method":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		id, method, taskID, ok := mcptasks.ReadTaskRequest(body)
		if !ok {
			return
		}
		var msg struct {
			Method string `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
		}
		d := segmentio.NewDecoder(bytes.NewReader(body))
		d.DontMatchCaseInsensitiveStructFields()
		require.NoError(t, d.Decode(&msg))
		assert.Equal(t, msg.Method, method)
		assert.Equal(t, msg.Params.TaskID, taskID)
		if len(id) > 0 {
			assert.True(t, json.Valid(id))
		}
	})
}
