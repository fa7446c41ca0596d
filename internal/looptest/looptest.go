// Package looptest holds what the tests of the agent loop modules
// (anthropicloop, openailoop) share: the README's tools, and a provider
// that stands in for a model's API and checks each request body it gets,
// byte for byte.
package looptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolnexus-go/toolnexus"
)

// Deploy is the README's tool that waits for a person: nil on its first
// run, the person's answer on the next.
func Deploy(env string, ans *toolnexus.Answer) toolnexus.ToolResult {
	if ans == nil {
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + env + "?"})
	}
	if !ans.OK {
		return toolnexus.Error("deploy to " + env + " " + ans.Reason)
	}
	return toolnexus.Ok("deployed to " + env)
}

// Tools returns the tools of the loops' tests: screenshot returns the
// repository's 82-byte PNG fixture, read from the testdata folder dir, and
// deploy is [Deploy].
func Tools(dir string) map[string]toolnexus.Tool {
	return map[string]toolnexus.Tool{
		"screenshot": func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
			img, err := toolnexus.PartFromFile(filepath.Join(dir, "fixture.png"))
			if err != nil {
				return toolnexus.Error(err.Error())
			}
			return toolnexus.Ok("fixture.png (image/png, 82 bytes)", img)
		},
		"deploy": toolnexus.ToolFor(func(_ context.Context, in struct {
			Env string `json:"env"`
			// The odd inputs of the tests carry keys of their own.
			Extra map[string]any `json:",unknown"`
		}, answers toolnexus.Answers) toolnexus.ToolResult {
			return Deploy(in.Env, answers.Latest())
		}),
	}
}

// GoldenPNG returns the base64 of the fixture in the testdata folder dir,
// as the main module keeps it.
func GoldenPNG(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "fixture.png.base64"))
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(b))
}

// Exchange is one request a [Provider] expects at Path, its body Want byte
// for byte, and its Reply.
type Exchange struct{ Path, Want, Reply string }

// Provider stands in for a model's API: it answers the requests in the
// order of its exchanges, and keeps every request that was not the one it
// expected.
type Provider struct {
	*httptest.Server
	mu        sync.Mutex
	exchanges []Exchange
	n         int
	wrong     []string
}

// NewProvider starts a Provider on 127.0.0.1; Close stops it.
func NewProvider(exchanges ...Exchange) *Provider {
	p := &Provider{exchanges: exchanges}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil || p.n >= len(p.exchanges) {
			p.wrong = append(p.wrong, fmt.Sprintf("request %d: unexpected", p.n+1))
			http.Error(w, `{"error":{"type":"invalid_request_error","message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		x := p.exchanges[p.n]
		p.n++
		if r.URL.Path != x.Path || string(body) != x.Want {
			p.wrong = append(p.wrong, fmt.Sprintf("request %d to %s:\n got %s\nwant %s", p.n, r.URL.Path, body, x.Want))
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, x.Reply)
	}))
	return p
}

// Verify says how many requests came and whether each was as expected.
func (p *Provider) Verify() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.wrong) > 0 {
		return strings.Join(p.wrong, "\n")
	}
	return fmt.Sprintf("%d requests, each body as expected", p.n)
}

// Shown returns all that v shows of itself, for a test to check that it
// holds no payload: every fmt verb, and its slog JSON and text.
func Shown(v any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %+v %#v %s %q %x\n", v, v, v, v, v, v)
	slog.New(slog.NewJSONHandler(&b, nil)).Info("shown", "v", v)
	slog.New(slog.NewTextHandler(&b, nil)).Info("shown", "v", v)
	return b.String()
}

// Reread reads data with parse, as a fuzz target does: data it refuses is
// fine, and a conversation it reads must marshal and read back to the same
// JSON, else Reread says what went wrong.
func Reread[C any](data []byte, parse func([]byte, int64) (C, error)) error {
	c, err := parse(data, 1<<16)
	if err != nil {
		return nil
	}
	again, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("a conversation read back does not marshal: %w", err)
	}
	back, err := parse(again, 0)
	if err != nil {
		return fmt.Errorf("a conversation read back does not read back again: %w", err)
	}
	if twice, err := json.Marshal(back); err != nil || string(twice) != string(again) {
		return fmt.Errorf("a conversation read back twice differs: %s, then %s", again, twice)
	}
	return nil
}
