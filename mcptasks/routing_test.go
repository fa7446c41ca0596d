package mcptasks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus/mcptasks"
)

func TestRoutingHandler(t *testing.T) {
	t.Parallel()
	var got string
	h := mcptasks.RoutingHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.WriteHeader(http.StatusTeapot)
	}))
	serve := func(body string, headers map[string]string) *httptest.ResponseRecorder {
		got = ""
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	get := `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"A"}}`
	task := func(name string) map[string]string {
		return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": name}
	}
	for _, tt := range []struct {
		name, body string
		headers    map[string]string
		status     int
		response   string
	}{
		{"the task", get, task("A"), http.StatusTeapot, ""},
		{"another task", get, task("B"), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"header mismatch: Mcp-Name header does not match params.taskId"}}`},
		{"no name", get, task(""), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"missing required Mcp-Name header for method tasks/get"}}`},
		{"a name that is bad base64", get, task("=?base64?***?="), http.StatusBadRequest, ""},
		{"a key in another case", `{"id":"x","method":"tasks/get","params":{"taskId":"A","TASKID":"B"}}`, task("B"), http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32020,"message":"header mismatch: Mcp-Name header does not match params.taskId"}}`},
		{"a body of another method, for the SDK to refuse", `{"method":"tools/call","params":{"taskId":"A"}}`, task("B"), http.StatusTeapot, ""},
		{"a body that does not read, for the SDK", `{"method":`, task("B"), http.StatusTeapot, ""},
		{"an older protocol", get, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tasks/get", "Mcp-Name": "B"}, http.StatusTeapot, ""},
		{"another method", `{"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, http.StatusTeapot, ""},
	} {
		w := serve(tt.body, tt.headers)
		assert.Equal(t, tt.status, w.Code, tt.name)
		if tt.status == http.StatusTeapot {
			assert.Equal(t, tt.body, got, "%s: the body is passed on as it came", tt.name)
		} else {
			assert.Empty(t, got, "%s: not passed on", tt.name)
		}
		if tt.response != "" {
			assert.Equal(t, tt.response, w.Body.String(), tt.name)
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"), tt.name)
		}
	}
	big := `{"method":"tasks/get","params":{"taskId":"A","pad":"` + strings.Repeat("x", mcp.DefaultMaxRequestBodyBytes) + `"}}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, serve(big, task("A")).Code)
}
