package bridgetest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Secret is what the tools of the panic tests of the framework bridges
// panic with: the model must never read it, the log must.
const Secret = "db password is hunter2"

// PanicLogged checks log, what a bridge's JSON slog handler wrote while
// its tool panicked with [Secret]: one record at level ERROR whose message
// is "toolnexus: tool panicked", with the tool's name, the panic value
// and a stack that passes through frame. It returns what differs, or nil.
func PanicLogged(log []byte, tool, frame string) error {
	var entry map[string]any
	if err := json.Unmarshal(log, &entry); err != nil {
		return fmt.Errorf("the log is not one JSON record: %v: %s", err, log)
	}
	want := map[string]any{"level": "ERROR", "msg": "toolnexus: tool panicked", "tool": tool, "panic": Secret}
	for k, v := range want {
		if entry[k] != v {
			return fmt.Errorf("the log's %s is %v, not %v", k, entry[k], v)
		}
	}
	if stack, _ := entry["stack"].(string); !strings.Contains(stack, frame) {
		return fmt.Errorf("the log's stack does not pass through %s", frame)
	}
	return nil
}
