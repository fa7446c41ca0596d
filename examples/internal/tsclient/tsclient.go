// Package tsclient finds mcpbridge/tsclient, the official TypeScript MCP
// SDK run as a client by client.mjs, for the tests of the example servers,
// and installs the SDK there with npm ci when it is missing.
package tsclient

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// installed holds what Dir returns, found and installed once a process.
var installed = sync.OnceValues(install)

// Dir returns the absolute directory of mcpbridge/tsclient, found above the
// working directory, with the SDK installed in its node_modules. It
// installs at most once a process. go test runs the packages of a module
// as processes at once, so an install never writes node_modules in place:
// it runs npm ci in a folder of its own beside it and renames its
// node_modules into place, and a process whose rename finds one there
// already uses that one.
func Dir() (string, error) {
	return installed()
}

// install finds the directory and installs the SDK there if it is missing.
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
