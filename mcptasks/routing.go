package mcptasks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RoutingHandler returns h, a streamable HTTP handler of the SDK, checking
// first the Mcp-Name header of tasks/get, tasks/update and tasks/cancel: on
// protocol 2026-07-28 and later a client sets it to the request's taskId,
// so that a load balancer can route the request to the instance that holds
// the task, and a request whose header is missing or names another task is
// refused, as the SDK refuses the other headers that disagree with the
// body: HTTP 400 with the JSON-RPC error -32020. A base64 header value
// (=?base64?…?=) is decoded first.
//
// Only a request whose Mcp-Method header names one of the three methods is
// read: its body, at most [mcp.DefaultMaxRequestBodyBytes] (a longer one
// is refused with HTTP 413), is read with exact keys and passed on to h as
// it came. The SDK refuses a request whose Mcp-Method header is not its
// method.
func RoutingHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		method := req.Header.Get("Mcp-Method")
		if req.Method != http.MethodPost || req.Body == nil || req.Header.Get("Mcp-Protocol-Version") < firstProtocol ||
			method != methodGet && method != methodUpdate && method != methodCancel {
			h.ServeHTTP(w, req)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, mcp.DefaultMaxRequestBodyBytes))
		if err != nil {
			status := http.StatusBadRequest
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, "mcptasks: cannot read the request body", status)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		id, bodyMethod, taskID, ok := readTaskRequest(body)
		if !ok || bodyMethod != method {
			h.ServeHTTP(w, req) // the SDK answers what does not read, or disagrees
			return
		}
		name, named := headerValue(req.Header.Get("Mcp-Name"))
		if named && name == taskID {
			h.ServeHTTP(w, req)
			return
		}
		msg := "header mismatch: Mcp-Name header does not match params.taskId"
		if req.Header.Get("Mcp-Name") == "" {
			msg = "missing required Mcp-Name header for method " + method
		}
		writeError(w, id, mcp.CodeHeaderMismatch, msg)
	})
}

// readTaskRequest reads body, a JSON-RPC request of a task method, with
// exact keys, and returns its id, method and params.taskId, or false when
// it is no such request.
func readTaskRequest(body []byte) (id json.RawMessage, method, taskID string, ok bool) {
	var msg, params map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || msg == nil {
		return nil, "", "", false
	}
	if json.Unmarshal(msg["method"], &method) != nil || json.Unmarshal(msg["params"], &params) != nil {
		return nil, "", "", false
	}
	if json.Unmarshal(params["taskId"], &taskID) != nil {
		return nil, "", "", false
	}
	return msg["id"], method, taskID, true
}

// headerValue returns the value of an Mcp-Name header as SEP-2243 writes
// it, decoding a base64 one, and false when it is empty or does not
// decode.
func headerValue(v string) (string, bool) {
	inner, wrapped := strings.CutPrefix(v, "=?base64?")
	if inner, ok := strings.CutSuffix(inner, "?="); wrapped && ok {
		b, err := base64.StdEncoding.DecodeString(inner)
		return string(b), err == nil
	}
	return v, v != ""
}

// errorResponse is a JSON-RPC error response.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

// errorObject is the error of an errorResponse.
type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeError writes the JSON-RPC error code with msg for the request id,
// with HTTP status 400.
func writeError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: errorObject{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(b)
}
