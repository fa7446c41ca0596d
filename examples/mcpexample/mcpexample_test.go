package mcpexample_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/examples/mcpexample"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

var (
	key1 = strings.Repeat("01", 32)
	key2 = strings.Repeat("ab", 32)
)

func TestFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    mcpexample.Config
		wantErr string
	}{
		{name: "one key", env: map[string]string{"TOOLNEXUS_STATE_KEY": key1},
			want: mcpexample.Config{State: requeststate.Options{Audience: "toolnexus-example", Keys: [][]byte{[]byte(strings.Repeat("\x01", 32))}}}},
		{name: "ring", env: map[string]string{"TOOLNEXUS_STATE_KEYS": key2 + "," + key1, "TOOLNEXUS_SINGLE_USE": "1"},
			want: mcpexample.Config{State: requeststate.Options{Audience: "toolnexus-example", Keys: [][]byte{[]byte(strings.Repeat("\xab", 32)), []byte(strings.Repeat("\x01", 32))}}}},
		{name: "expiry short", env: map[string]string{"TOOLNEXUS_STATE_KEY": key1, "TOOLNEXUS_EXPIRY": "2h"},
			want: mcpexample.Config{State: requeststate.Options{Audience: "toolnexus-example", Keys: [][]byte{[]byte(strings.Repeat("\x01", 32))}, MaxAge: requeststate.DefaultMaxAge},
				Runner: mcpcall.Options{Park: park.Runner{Expiry: 2 * time.Hour}}}},
		{name: "expiry long", env: map[string]string{"TOOLNEXUS_STATE_KEY": key1, "TOOLNEXUS_EXPIRY": "48h"},
			want: mcpexample.Config{State: requeststate.Options{Audience: "toolnexus-example", Keys: [][]byte{[]byte(strings.Repeat("\x01", 32))}, MaxAge: 48 * time.Hour},
				Runner: mcpcall.Options{Park: park.Runner{Expiry: 48 * time.Hour}}}},
		{name: "audience", env: map[string]string{"TOOLNEXUS_STATE_KEY": key1, "TOOLNEXUS_AUDIENCE": "https://deploy.example.com/mcp"},
			want: mcpexample.Config{State: requeststate.Options{Audience: "https://deploy.example.com/mcp", Keys: [][]byte{[]byte(strings.Repeat("\x01", 32))}}}},
		{name: "not hex", env: map[string]string{"TOOLNEXUS_STATE_KEY": "zz"},
			wantErr: "TOOLNEXUS_STATE_KEYS: toolnexus: invalid request state key: key 1 of 1 is not hex"},
		{name: "short", env: map[string]string{"TOOLNEXUS_STATE_KEYS": key1 + ",abcd"},
			wantErr: "TOOLNEXUS_STATE_KEYS: toolnexus: request state key too short: key 2 of 2: 2 bytes, want at least 32"},
		{name: "both", env: map[string]string{"TOOLNEXUS_STATE_KEY": key1, "TOOLNEXUS_STATE_KEYS": key1},
			wantErr: "both TOOLNEXUS_STATE_KEYS and TOOLNEXUS_STATE_KEY are set: set one"},
		{name: "single use", env: map[string]string{"TOOLNEXUS_SINGLE_USE": "yes"},
			wantErr: `TOOLNEXUS_SINGLE_USE is "yes", not 1 or 0`},
		{name: "single use off", env: map[string]string{"TOOLNEXUS_SINGLE_USE": "0"},
			wantErr: "TOOLNEXUS_SINGLE_USE is 0, but each state is answered once: unset it"},
		{name: "redis", env: map[string]string{"TOOLNEXUS_REDIS_URL": "http://localhost"},
			wantErr: "TOOLNEXUS_REDIS_URL: redis: invalid URL scheme: http"},
		{name: "expiry", env: map[string]string{"TOOLNEXUS_EXPIRY": "0s"},
			wantErr: `TOOLNEXUS_EXPIRY is "0s", not a positive duration such as 2h`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcpexample.FromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestFromEnvClaims checks that every configuration answers a state once:
// with no store of its own (the process's, in memory), the Runner of
// FromEnv runs Deploy once for one answer, and the retries of the answered
// state get the first reply.
func TestFromEnvClaims(t *testing.T) {
	t.Parallel()
	random, err := mcpexample.FromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Len(t, random.State.Keys, 1)
	assert.Len(t, random.State.Keys[0], 32)
	assert.Nil(t, random.Runner.Park.Store)
	r, err := random.NewRunner()
	require.NoError(t, err)
	assert.NotNil(t, r)
	single, err := mcpexample.FromEnv(func(k string) string { return map[string]string{"TOOLNEXUS_SINGLE_USE": "1"}[k] })
	require.NoError(t, err)
	assert.Nil(t, single.Runner.Park.Store)
	r, err = single.NewRunner()
	require.NoError(t, err)

	var runs atomic.Int32
	deploy := toolnexus.ToolFor(func(ctx context.Context, in mcpexample.DeployInput, as toolnexus.Answers) toolnexus.ToolResult {
		if as.Latest() != nil {
			runs.Add(1)
		}
		return mcpexample.Deploy(ctx, in, as.Latest())
	})
	call := mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`),
		Client: mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}}
	asked, err := r.Run(context.Background(), call, deploy)
	require.NoError(t, err)
	require.Equal(t, "input_required", asked.ResultType)
	require.Len(t, asked.InputRequests, 1)
	call.RequestState = asked.RequestState
	for id := range asked.InputRequests {
		call.InputResponses = map[string]json.RawMessage{id: json.RawMessage(`{"action":"accept"}`)}
	}
	var replies []string
	for range 3 {
		res, err := r.Run(context.Background(), call, deploy)
		require.NoError(t, err)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		replies = append(replies, string(b))
	}
	want := `{"content":[{"type":"text","text":"deployed to prod"}],"isError":false,"resultType":"complete"}`
	assert.Equal(t, []string{want, want, want}, replies)
	assert.Equal(t, int32(1), runs.Load(), "Deploy runs once for one answer")
}

func TestTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prod := mcpexample.DeployInput{Env: "prod"}
	tests := []struct {
		name string
		run  func() toolnexus.ToolResult
		want toolnexus.ToolResult
	}{
		{"deploy asks", func() toolnexus.ToolResult { return mcpexample.Deploy(ctx, prod, nil) },
			toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"})},
		{"deploy approved", func() toolnexus.ToolResult { return mcpexample.Deploy(ctx, prod, &toolnexus.Answer{OK: true}) },
			toolnexus.Ok("deployed to prod")},
		{"deploy cancelled", func() toolnexus.ToolResult {
			return mcpexample.Deploy(ctx, prod, &toolnexus.Answer{Reason: toolnexus.ReasonCancelled})
		}, toolnexus.Error("deploy to prod cancelled")},
		{"deploy declined", func() toolnexus.ToolResult { return mcpexample.Deploy(ctx, prod, &toolnexus.Answer{}) },
			toolnexus.Error("deploy to prod declined")},
		{"login asks", func() toolnexus.ToolResult { return mcpexample.Login(ctx, struct{}{}, nil) },
			toolnexus.AuthRequired("https://example.com/login", "")},
		{"login done", func() toolnexus.ToolResult { return mcpexample.Login(ctx, struct{}{}, &toolnexus.Answer{OK: true}) },
			toolnexus.Ok("signed in")},
		{"login declined", func() toolnexus.ToolResult { return mcpexample.Login(ctx, struct{}{}, &toolnexus.Answer{}) },
			toolnexus.Error("login declined")},
		{"pick asks", func() toolnexus.ToolResult { return mcpexample.Pick(ctx, struct{}{}, nil) },
			toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})},
		{"picked", func() toolnexus.ToolResult {
			return mcpexample.Pick(ctx, struct{}{}, &toolnexus.Answer{OK: true, Data: map[string]any{"answer": "staging"}})
		}, toolnexus.Ok("picked staging")},
		{"pick empty", func() toolnexus.ToolResult {
			return mcpexample.Pick(ctx, struct{}{}, &toolnexus.Answer{OK: true, Data: map[string]any{"answer": ""}})
		}, toolnexus.Error("nothing picked")},
		{"pick declined", func() toolnexus.ToolResult { return mcpexample.Pick(ctx, struct{}{}, &toolnexus.Answer{}) },
			toolnexus.Error("nothing picked")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, want := tt.run(), tt.want
			if wr, ok := toolnexus.PendingOf(want); ok {
				// Each Request gets a fresh ID: compare without it.
				gr, ok := toolnexus.PendingOf(got)
				require.True(t, ok, "not pending: %v", got)
				gr.ID, wr.ID = "", ""
				assert.Equal(t, wr, gr)
				return
			}
			assert.Equal(t, want, got)
		})
	}
}
