package mcptasks_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/mcptasks/internal/tasktest"
)

// BenchmarkDecodeRecord reads a stored task with exact keys, against
// encoding/json's case-folding reading of the same bytes, the baseline:
//
//	go test -run '^$' -bench DecodeRecord -benchmem .
func BenchmarkDecodeRecord(b *testing.B) {
	data := mcptasks.FullRecord()
	b.Run("exact", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := mcptasks.DecodeRecord(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := mcptasks.DecodeRecordStdlib(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRoutingHandler is the cost of the Mcp-Name check on a
// tasks/get, against the same request passed to the handler without it,
// the baseline; the handler reads the body in both.
//
//	go test -run '^$' -bench RoutingHandler -benchmem .
func BenchmarkRoutingHandler(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"bI2kQ3n0ZpX8yJc1vT6sWq4e","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf [4096]byte
		for {
			if _, err := r.Body.Read(buf[:]); err != nil {
				return
			}
		}
	})
	run := func(b *testing.B, h http.Handler) {
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tasks/get")
			req.Header.Set("Mcp-Name", "bI2kQ3n0ZpX8yJc1vT6sWq4e")
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	b.Run("routed", func(b *testing.B) { run(b, mcptasks.RoutingHandler(next)) })
	b.Run("bare", func(b *testing.B) { run(b, next) })
}

// BenchmarkQuickTask is the time a client that honours pollIntervalMs
// waits for a tool that returns at once: answered within the call, and as
// a task it must poll ("required"), sleeping pollIntervalMs before each
// tasks/get:
//
//	go test -run '^$' -bench QuickTask .
func BenchmarkQuickTask(b *testing.B) {
	c := tasktest.Start(b, nil, nil).Client()
	b.Run("inline", func(b *testing.B) {
		for b.Loop() {
			if res := c.Call(b, "tools/call", map[string]any{"name": "fail"}); res["resultType"] != "complete" {
				b.Fatalf("got %v", res)
			}
		}
	})
	b.Run("task", func(b *testing.B) {
		for b.Loop() {
			task := c.Call(b, "tools/call", map[string]any{"name": "required"})
			for task["status"] != "completed" {
				time.Sleep(time.Duration(task["pollIntervalMs"].(float64)) * time.Millisecond)
				task = c.Call(b, "tasks/get", map[string]any{"taskId": task["taskId"]})
			}
		}
	})
}
