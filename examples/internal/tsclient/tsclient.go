// Package tsclient runs mcpbridge/tsclient's client.mjs, the official
// TypeScript MCP SDK as a client, for the tests of the example servers,
// and installs the SDK there with npm ci when it is missing.
package tsclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Line is what client.mjs prints for one call: the tool and the action
// that answered each question, the result's content, what the server
// asked, and the JSON-RPC error of a call that failed.
type Line struct {
	Tool    string `json:"tool"`
	Action  string `json:"action"`
	IsError bool   `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Asked []struct {
		Mode    string `json:"mode"`
		Message string `json:"message"`
		URL     string `json:"url"`
	} `json:"asked"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// Run runs client.mjs against target, a server's binary (run over stdio
// with env added to the SDK's default environment) or a URL, through
// scenarios, one call each, and returns the Line of each call and what
// client.mjs printed.
func Run(ctx context.Context, target string, scenarios any, env map[string]string) ([]Line, []byte, error) {
	dir, err := installed()
	if err != nil {
		return nil, nil, err
	}
	args, err := json.Marshal(scenarios)
	if err != nil {
		return nil, nil, err
	}
	envArg, err := json.Marshal(env)
	if err != nil {
		return nil, nil, err
	}
	node := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), target, string(args), string(envArg))
	var stderr bytes.Buffer
	node.Stderr = &stderr
	stdout, err := node.Output()
	if err != nil {
		return nil, stdout, fmt.Errorf("node client.mjs: %v\n%s", err, stderr.Bytes())
	}
	var lines []Line
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, stdout, fmt.Errorf("client.mjs printed %s: %v", sc.Bytes(), err)
		}
		lines = append(lines, l)
	}
	return lines, stdout, sc.Err()
}

// installed returns what install returns, installing at most once a
// process.
var installed = sync.OnceValues(install)

// install returns the absolute directory of mcpbridge/tsclient, found
// above the working directory, with the SDK installed in its node_modules.
// go test runs the packages of a module as processes at once, so an
// install never writes node_modules in place: it runs npm ci in a folder
// of its own beside it and renames its node_modules into place, and a
// process whose rename finds one there already uses that one.
func install() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	dir := wd
	for {
		if _, err := os.Stat(filepath.Join(dir, "mcpbridge", "tsclient", "package.json")); err == nil {
			dir = filepath.Join(dir, "mcpbridge", "tsclient")
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no mcpbridge/tsclient above %s", wd)
		}
		dir = up
	}
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(modules); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(dir, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "node_modules"), modules); err != nil {
		if _, statErr := os.Stat(modules); statErr == nil {
			return dir, nil // another process installed it first
		}
		return "", err
	}
	return dir, nil
}
