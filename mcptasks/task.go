package mcptasks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
)

// The statuses of a task, as tasks/get reports them.
const (
	StatusWorking       = "working"        // its tool runs
	StatusInputRequired = "input_required" // it waits on answers to its inputRequests
	StatusCompleted     = "completed"      // its tool returned a result, an error result too
	StatusCancelled     = "cancelled"      // the client cancelled it
	StatusFailed        = "failed"         // it ended with a JSON-RPC error, such as a tool that panicked
)

// terminal reports whether status is one a task never leaves.
func terminal(status string) bool {
	return status == StatusCompleted || status == StatusCancelled || status == StatusFailed
}

// idBytes is how many random bytes a task ID holds: 144 bits, written as
// 24 characters of unpadded base64url.
const idBytes = 18

// maxIDLen is the longest task ID a store is asked for: a longer one is
// no ID this package made.
const maxIDLen = 128

// newID returns a fresh task ID, or write token, from crypto/rand, which
// never fails.
func newID() string {
	var b [idBytes]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// record is a task's state, as the store holds it in JSON. Times are Unix
// milliseconds. Poll is the longest poll interval a client is asked for.
// Lease is when the run of a working task lapses unless the instance that
// runs it renews it. Write is the token of the write that stored this
// version, so that a writer whose reply was lost, or whose write a client
// sent twice, knows its own. Park is the parking of the task's last
// suspension: the one its answers answer, claimed when they run the tool.
type record struct {
	Tool       string            `json:"tool"`
	Arguments  json.RawMessage   `json:"arguments"`
	Principal  string            `json:"principal,omitempty"`
	Protocol   string            `json:"protocol"`
	ElicitForm bool              `json:"elicitForm,omitempty"`
	ElicitURL  bool              `json:"elicitURL,omitempty"`
	Sampling   bool              `json:"sampling,omitempty"`
	Roots      bool              `json:"roots,omitempty"`
	Status     string            `json:"status"`
	Message    string            `json:"statusMessage,omitempty"`
	Created    int64             `json:"createdAt"`
	Updated    int64             `json:"lastUpdatedAt"`
	TTL        int64             `json:"ttlMs"`
	Poll       int64             `json:"pollIntervalMs"`
	Run        int64             `json:"run"`
	Lease      int64             `json:"leaseUntil,omitempty"`
	Write      string            `json:"write,omitempty"`
	Park       string            `json:"park,omitempty"`
	Pending    []asked           `json:"pending,omitempty"`
	Keys       []string          `json:"keys,omitempty"`
	Answers    toolnexus.Answers `json:"answers,omitempty"`
	Result     json.RawMessage   `json:"result,omitempty"`
	Error      *rpcError         `json:"error,omitempty"`
}

// asked is a request a task waits on: the key the client answers it
// under, the tool's Request, and the input request that asks it.
type asked struct {
	Key     string                    `json:"key"`
	Request toolnexus.Request         `json:"request"`
	Input   toolnexus.MCPInputRequest `json:"input"`
}

// rpcError is the JSON-RPC error a failed task ended with.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// encode returns r as the store holds it.
func (r *record) encode() []byte {
	b, err := json.Marshal(r)
	if err != nil { // not reached: every field is plain data or checked JSON
		panic(err)
	}
	return b
}

// decodeRecord reads a task's state with exact keys: the store is another
// process, and a key this package does not write is an error.
func decodeRecord(data []byte) (record, error) {
	var r record
	err := readExact(data, map[string]any{
		"tool": &r.Tool, "arguments": &r.Arguments, "principal": &r.Principal, "protocol": &r.Protocol,
		"elicitForm": &r.ElicitForm, "elicitURL": &r.ElicitURL, "sampling": &r.Sampling, "roots": &r.Roots,
		"status": &r.Status, "statusMessage": &r.Message, "createdAt": &r.Created, "lastUpdatedAt": &r.Updated,
		"ttlMs": &r.TTL, "pollIntervalMs": &r.Poll, "run": &r.Run, "leaseUntil": &r.Lease, "write": &r.Write,
		"park": &r.Park, "pending": &r.Pending, "keys": &r.Keys,
		"answers": &r.Answers, "result": &r.Result, "error": &r.Error,
	})
	if err != nil {
		return record{}, fmt.Errorf("mcptasks: stored task: %w", err)
	}
	return r, nil
}

// UnmarshalJSON reads an asked request with exact keys.
func (a *asked) UnmarshalJSON(data []byte) error {
	var params json.RawMessage
	input := json.RawMessage{}
	err := readExact(data, map[string]any{"key": &a.Key, "request": &a.Request, "input": &input})
	if err == nil {
		err = readExact(input, map[string]any{"method": &a.Input.Method, "params": &params})
	}
	if len(params) > 0 && string(params) != "null" {
		a.Input.Params = params
	}
	return err
}

// UnmarshalJSON reads a JSON-RPC error with exact keys.
func (e *rpcError) UnmarshalJSON(data []byte) error {
	return readExact(data, map[string]any{"code": &e.Code, "message": &e.Message, "data": &e.Data})
}

// errNotObject reports JSON that is not an object where one must be.
var errNotObject = errors.New("not a JSON object")

// readExact decodes data, a JSON object, into the targets of fields by
// exact key: a key not in fields is an error, and so is a value that does
// not decode into its target.
func readExact(data []byte, fields map[string]any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		return errNotObject
	}
	for k, raw := range m {
		target, ok := fields[k]
		if !ok {
			return fmt.Errorf("unknown key %q", k)
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// client returns the capabilities r's client declared, as mcp's types
// hold them.
func (r *record) client() clientCaps {
	return clientCaps{form: r.ElicitForm, url: r.ElicitURL, sampling: r.Sampling, roots: r.Roots}
}

// expired reports whether r's time to live has passed at now.
func (r *record) expired(now time.Time) bool {
	return now.UnixMilli() >= r.Created+r.TTL
}

// stamp is the ISO 8601 form of a time of a task, to the millisecond, in
// UTC.
const stamp = "2006-01-02T15:04:05.000Z07:00"

// taskInfo is what every message about a task carries (SEP-2663's Task).
type taskInfo struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// pollInterval returns the poll interval, in milliseconds, that a client
// is asked for at now: half the time since r last changed, so that a task
// that just changed is polled soon and a long one ever less often, at
// least [FirstPollInterval] and at most r.Poll.
func (r *record) pollInterval(now time.Time) int64 {
	return min(r.Poll, max(FirstPollInterval.Milliseconds(), (now.UnixMilli()-r.Updated)/2))
}

// info returns the task id's state r as the wire has it at now.
func (r *record) info(id string, now time.Time) taskInfo {
	return taskInfo{
		TaskID:         id,
		Status:         r.Status,
		StatusMessage:  r.Message,
		CreatedAt:      time.UnixMilli(r.Created).UTC().Format(stamp),
		LastUpdatedAt:  time.UnixMilli(r.Updated).UTC().Format(stamp),
		TTLMs:          r.TTL,
		PollIntervalMs: r.pollInterval(now),
	}
}

// createTaskResult is the CreateTaskResult a tools/call gets once it is a
// task: flat, resultType "task".
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskInfo
}

// getTaskResult is the result of tasks/get (SEP-2663's DetailedTask): the
// task, and what its status carries.
type getTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskInfo
	InputRequests map[string]toolnexus.MCPInputRequest `json:"inputRequests,omitempty"`
	Result        json.RawMessage                      `json:"result,omitempty"`
	Error         *rpcError                            `json:"error,omitempty"`
}

// detailed returns the result of tasks/get for the task id in state r at
// now.
func (r *record) detailed(id string, now time.Time) *getTaskResult {
	res := &getTaskResult{ResultType: "complete", taskInfo: r.info(id, now)}
	switch r.Status {
	case StatusInputRequired:
		res.InputRequests = make(map[string]toolnexus.MCPInputRequest, len(r.Pending))
		for _, a := range r.Pending {
			res.InputRequests[a.Key] = a.Input
		}
	case StatusCompleted:
		res.Result = r.Result
	case StatusFailed:
		res.Error = r.Error
	}
	return res
}

// ackResult is the empty result that acknowledges tasks/update and
// tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// ack returns an acknowledgement.
func ack() *ackResult { return &ackResult{ResultType: "complete"} }
