package mcptasks

import (
	"encoding/json"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// NewMemoryStoreAt returns a memory store that reads the time from now,
// and a function that returns how many tasks it holds.
func NewMemoryStoreAt(now func() time.Time) (TaskStore, func() int) {
	m := newMemoryStore(now)
	return m, m.held
}

// ReadTaskRequest is readTaskRequest.
var ReadTaskRequest = readTaskRequest

// FullRecord returns the JSON of a task's state with every field set.
func FullRecord() []byte {
	r := record{
		Tool: "t", Arguments: []byte(`{"a":1}`), Principal: "p", Protocol: "2026-07-28",
		ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true,
		Status: StatusFailed, Message: "m", Created: 1, Updated: 2, TTL: 3, Poll: 4, Run: 5, Lease: 6, Write: "w", Park: "pk",
		Pending: []asked{{Key: "k~2", Request: toolnexus.Request{ID: "k", Kind: "input", Prompt: "?"},
			Input: toolnexus.MCPInputRequest{Method: "elicitation/create", Params: []byte(`{"mode":"form"}`)}}},
		Keys:    []string{"k", "k~2"},
		Answers: toolnexus.Answers{{ID: "k", OK: true, Data: map[string]any{"x": "y"}}},
		Result:  []byte(`{"content":[],"isError":false}`),
		Error:   &rpcError{Code: -32603, Message: "Internal error", Data: []byte(`{"d":1}`)},
	}
	return r.encode()
}

// Reencode decodes a task's state and encodes it again.
func Reencode(data []byte) ([]byte, error) {
	r, err := decodeRecord(data)
	if err != nil {
		return nil, err
	}
	return r.encode(), nil
}

// DecodeRecord decodes a task's state as the Server reads it.
func DecodeRecord(data []byte) error {
	_, err := decodeRecord(data)
	return err
}

// DecodeRecordStdlib decodes a task's state with encoding/json alone, the
// baseline of the exact reading.
func DecodeRecordStdlib(data []byte) error {
	var r record
	return json.Unmarshal(data, &r)
}
