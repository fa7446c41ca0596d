// Package mcpexample is what the two example MCP servers share, the one on
// the go-sdk (examples/mcpserver) and the one on mcp-go
// (examples/mcpgoserver): the environment that configures their request
// states and their core, and their three tools deploy, login and pick. Each
// server adds only its SDK's wiring; see either for how to run it.
//
// It lives in the examples module, so that the Redis client it can use is
// no dependency of toolnexus or of either bridge.
package mcpexample

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/redisclaims"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// The name and version of both example servers, and the audience of their
// states when TOOLNEXUS_AUDIENCE does not name another.
const (
	Name     = "toolnexus-example"
	Version  = "v0.1.0"
	Audience = "toolnexus-example"
)

// The descriptions of the three tools.
const (
	DeployDescription = "Deploy to an environment once a person approves."
	LoginDescription  = "Sign in to example.com."
	PickDescription   = "Ask a person which environment to use."
)

// Config is what the environment asks of a server: the options of the
// Sealer of its request states and of its MCP core, each knob declared
// where it lives. [Config.NewRunner] makes the core the server's bridge runs
// its calls with.
type Config struct {
	// State configures the Sealer: its keys (the first seals, all open),
	// its audience and its maximum age.
	State requeststate.Options
	// Runner configures the core: through its park.Runner, how long a
	// parked call stays answerable and the store in which each answered
	// state is claimed with its result (nil: the process's, in memory).
	Runner mcpcall.Options
}

// NewRunner returns the MCP core of c, whose Sealer seals with c's keys.
func (c Config) NewRunner() (*mcpcall.Runner, error) {
	sealer, err := requeststate.NewSealer(c.State)
	if err != nil {
		return nil, err
	}
	return mcpcall.NewRunner(sealer, c.Runner)
}

// FromEnv returns the Config that the environment, read with getenv, asks
// for:
//
//   - TOOLNEXUS_AUDIENCE: the State's Audience, such as the service's URL;
//     [Audience] when it is empty. Give each service its own.
//   - TOOLNEXUS_STATE_KEYS: comma-separated hex keys, the State's Keys, the
//     first of which seals, all open.
//   - TOOLNEXUS_STATE_KEY: one hex key, when there is no ring; without
//     either, the one key is random.
//   - TOOLNEXUS_SINGLE_USE: 1 or empty. Each state is answered once
//     whatever it says, its claim kept in memory, for one process, unless
//     TOOLNEXUS_REDIS_URL says otherwise; 0, which used to let a retry
//     run the tool again, is an error, so that a server that relied on it
//     does not start as if it still did.
//   - TOOLNEXUS_REDIS_URL=redis://host:port/db: claims kept in the Redis,
//     the Store of the Runner's park.Runner, whose configuration is
//     checked ([redisclaims.Store.Check]): what makes "once" less durable
//     is logged as a warning.
//   - TOOLNEXUS_EXPIRY: a positive Go duration such as 2h, the Expiry of
//     the Runner's park.Runner; the State's MaxAge is then the longer of
//     it and [requeststate.DefaultMaxAge].
//
// A value that does not parse is an error naming its variable.
func FromEnv(getenv func(string) string) (Config, error) {
	keys, err := stateKeys(getenv("TOOLNEXUS_STATE_KEYS"), getenv("TOOLNEXUS_STATE_KEY"))
	if err != nil {
		return Config{}, err
	}
	c := Config{State: requeststate.Options{Keys: keys, Audience: Audience}}
	if a := getenv("TOOLNEXUS_AUDIENCE"); a != "" {
		c.State.Audience = a
	}
	switch v := getenv("TOOLNEXUS_SINGLE_USE"); v {
	case "", "1":
		// Once is the default: the zero park.Runner claims each answered
		// state in the process's store.
	case "0":
		return Config{}, errors.New("TOOLNEXUS_SINGLE_USE is 0, but each state is answered once: unset it")
	default:
		return Config{}, fmt.Errorf("TOOLNEXUS_SINGLE_USE is %q, not 1 or 0", v)
	}
	if u := getenv("TOOLNEXUS_REDIS_URL"); u != "" {
		ro, err := redis.ParseURL(u)
		if err != nil {
			return Config{}, fmt.Errorf("TOOLNEXUS_REDIS_URL: %w", err)
		}
		store, err := redisclaims.New(redis.NewClient(ro), nil)
		if err != nil {
			return Config{}, err
		}
		// Once is as durable as the Redis: say at start what in its
		// configuration makes it less so.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := store.Check(ctx); err != nil {
			slog.Warn("TOOLNEXUS_REDIS_URL: once is less durable than it should be", "err", err)
		}
		c.Runner.Park.Store = store
	}
	if v := getenv("TOOLNEXUS_EXPIRY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("TOOLNEXUS_EXPIRY is %q, not a positive duration such as 2h", v)
		}
		c.Runner.Park.Expiry = d
		// A state lives no longer than its maximum age: a day unless the
		// expiry asks for more.
		c.State.MaxAge = max(d, requeststate.DefaultMaxAge)
	}
	return c, nil
}

// stateKeys returns the keys of TOOLNEXUS_STATE_KEYS (list), or else the
// one of TOOLNEXUS_STATE_KEY (one), or else a random key.
func stateKeys(list, one string) ([][]byte, error) {
	switch {
	case list != "" && one != "":
		return nil, fmt.Errorf("both TOOLNEXUS_STATE_KEYS and TOOLNEXUS_STATE_KEY are set: set one")
	case one != "":
		list = one
	case list == "":
		key := make([]byte, 32)
		_, err := rand.Read(key)
		return [][]byte{key}, err
	}
	keys, err := requeststate.KeysFromHex(list)
	if err != nil {
		return nil, fmt.Errorf("TOOLNEXUS_STATE_KEYS: %w", err)
	}
	return keys, nil
}

// DeployInput is the input of [Deploy].
type DeployInput struct {
	Env string `json:"env" jsonschema:"the environment to deploy to"`
}

// Deploy asks a person to approve deploying to in.Env, and then reports
// it deployed, or declined or cancelled.
func Deploy(_ context.Context, in DeployInput, answer *toolnexus.Answer) toolnexus.ToolResult {
	switch {
	case answer == nil:
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case answer.OK:
		return toolnexus.Ok("deployed to " + in.Env)
	case answer.Reason == toolnexus.ReasonCancelled:
		return toolnexus.Error("deploy to " + in.Env + " cancelled")
	}
	return toolnexus.Error("deploy to " + in.Env + " declined")
}

// Login asks a person to sign in at https://example.com/login. It trusts
// the client's word that the person signed in; a real tool checks with
// its identity provider that the login with the request's ID has
// completed.
func Login(_ context.Context, _ struct{}, answer *toolnexus.Answer) toolnexus.ToolResult {
	switch {
	case answer == nil:
		return toolnexus.AuthRequired("https://example.com/login", "")
	case answer.OK:
		return toolnexus.Ok("signed in")
	}
	return toolnexus.Error("login declined")
}

// Pick asks a person to type which environment to use, and reports it.
func Pick(_ context.Context, _ struct{}, answer *toolnexus.Answer) toolnexus.ToolResult {
	if answer == nil {
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindInput, Prompt: "Which environment?"})
	}
	env, _ := answer.Data["answer"].(string)
	if !answer.OK || env == "" {
		return toolnexus.Error("nothing picked")
	}
	return toolnexus.Ok("picked " + env)
}
