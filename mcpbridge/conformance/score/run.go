package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A check is one check a suite reported: its id, its status (SUCCESS,
// FAILURE, WARNING, SKIPPED or INFO) and its error message, if any.
type check struct {
	ID, Status, Message string
}

// A scenarioRun is a scenario as one run of a suite reported it: its
// checks in the order the suite gave them.
type scenarioRun struct {
	Name   string
	Checks []check
}

// errOutput is the error of a suite's output that this program cannot
// read: a suite that crashed, or whose checks and summary disagree.
var errOutput = errors.New("score: unreadable suite output")

// maxChecksFile bounds what is read of one checks.json.
const maxChecksFile = 16 << 20

var (
	runningRE = regexp.MustCompile(`^=== Running scenario: (\S+) ===$`)
	singleRE  = regexp.MustCompile(`^Running client scenario '([^']+)' against server`)
	savedRE   = regexp.MustCompile(`^Results saved to (.+)$`)
	crashedRE = regexp.MustCompile(`^Failed to run scenario (\S+?):(.*)$`)
	summaryRE = regexp.MustCompile(`^[✓✗] (\S+): (\d+) passed, (\d+) failed$`)
	resultsRE = regexp.MustCompile(`^Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings$`)
	stampRE   = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)
	scenRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// readRun reads one run of a server suite of @modelcontextprotocol/conformance
// run with -o outDir: its standard output and error, as one text, and the
// checks.json it wrote for each scenario. A whole run ends with its
// summary, one line a scenario; a run of one scenario ends with its
// counts. The checks read must match those counts (SUCCESS as passed,
// FAILURE as failed), or readRun fails. A scenario that the suite could
// not run has no checks.json, and the summary counts it as one failure:
// readRun gives it that failure, under the scenario's name as its id.
func readRun(output []byte, outDir string) ([]scenarioRun, error) {
	var (
		runs     []scenarioRun
		index    = map[string]int{}
		current  = -1
		crashed  = map[string]string{}
		summary  = map[string][2]int{}
		order    []string // of the summary
		inSum    bool
		results  *[2]int // passed, failed of a run of one scenario
		haveDirs = map[string]bool{}
	)
	start := func(name string) error {
		if !scenRE.MatchString(name) {
			return fmt.Errorf("%w: scenario name %s", errOutput, quote(name))
		}
		if _, ok := index[name]; ok {
			return fmt.Errorf("%w: scenario %s ran twice", errOutput, name)
		}
		index[name] = len(runs)
		current = len(runs)
		runs = append(runs, scenarioRun{Name: name})
		return nil
	}
	for line := range strings.Lines(string(output)) {
		line = strings.TrimRight(line, "\r\n")
		if line == "=== SUMMARY ===" {
			inSum = true
			continue
		}
		if inSum {
			if m := summaryRE.FindStringSubmatch(line); m != nil {
				if _, ok := summary[m[1]]; ok {
					return nil, fmt.Errorf("%w: the summary names %s twice", errOutput, m[1])
				}
				summary[m[1]] = [2]int{atoi(m[2]), atoi(m[3])}
				order = append(order, m[1])
			}
			continue
		}
		if m := runningRE.FindStringSubmatch(line); m != nil {
			if err := start(m[1]); err != nil {
				return nil, err
			}
			continue
		}
		if m := singleRE.FindStringSubmatch(line); m != nil {
			if current >= 0 && runs[current].Name == m[1] {
				continue // the line a whole run prints too
			}
			if len(runs) > 0 {
				return nil, fmt.Errorf("%w: scenario %s started outside a scenario", errOutput, quote(m[1]))
			}
			if err := start(m[1]); err != nil {
				return nil, err
			}
			continue
		}
		if m := crashedRE.FindStringSubmatch(line); m != nil {
			crashed[m[1]] = strings.TrimSpace(m[2])
			continue
		}
		if m := resultsRE.FindStringSubmatch(line); m != nil {
			results = &[2]int{atoi(m[1]), atoi(m[3])}
			continue
		}
		if m := savedRE.FindStringSubmatch(line); m != nil && current >= 0 {
			r := &runs[current]
			base := filepath.Base(m[1])
			if r.Checks != nil || !strings.HasPrefix(base, "server-"+r.Name+"-") || !stampRE.MatchString(base) ||
				len(base) != len("server-"+r.Name)+len("-2006-01-02T15-04-05-000Z") {
				return nil, fmt.Errorf("%w: scenario %s saved to %s", errOutput, r.Name, quote(base))
			}
			checks, err := readChecks(filepath.Join(outDir, base, "checks.json"))
			if err != nil {
				return nil, fmt.Errorf("scenario %s: %w", r.Name, err)
			}
			r.Checks = checks
			haveDirs[base] = true
		}
	}
	if err := noStrayDirs(outDir, haveDirs, crashed); err != nil {
		return nil, err
	}
	for i := range runs {
		r := &runs[i]
		if r.Checks != nil {
			continue
		}
		msg, ok := crashed[r.Name]
		if !ok {
			return nil, fmt.Errorf("%w: scenario %s saved no checks", errOutput, r.Name)
		}
		// As the suite counts it: one failure under the scenario's name.
		r.Checks = []check{{ID: r.Name, Status: "FAILURE", Message: "the suite could not run the scenario: " + msg}}
	}
	switch {
	case inSum:
		if len(order) != len(runs) {
			return nil, fmt.Errorf("%w: %d scenarios ran, the summary names %d", errOutput, len(runs), len(order))
		}
		for i, name := range order {
			if runs[i].Name != name {
				return nil, fmt.Errorf("%w: the summary names %s where %s ran", errOutput, name, runs[i].Name)
			}
			if err := agree(runs[i], summary[name]); err != nil {
				return nil, err
			}
		}
	case results != nil && len(runs) == 1:
		if err := agree(runs[0], *results); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: the suite printed no results (%d scenarios started)", errOutput, len(runs))
	}
	return runs, nil
}

// agree checks that the checks of r count what the suite printed for it.
func agree(r scenarioRun, printed [2]int) error {
	var passed, failed int
	for _, c := range r.Checks {
		switch c.Status {
		case "SUCCESS":
			passed++
		case "FAILURE":
			failed++
		}
	}
	if passed != printed[0] || failed != printed[1] {
		return fmt.Errorf("%w: scenario %s: the suite printed %d passed, %d failed; its checks.json holds %d, %d",
			errOutput, r.Name, printed[0], printed[1], passed, failed)
	}
	return nil
}

// noStrayDirs fails when outDir holds a folder that no line of the output
// named, but for the empty folder of a scenario that the suite could not
// run (it makes the folder before it runs the scenario).
func noStrayDirs(outDir string, named map[string]bool, crashed map[string]string) error {
	entries, err := os.ReadDir(outDir)
	if errors.Is(err, os.ErrNotExist) && len(named) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if named[e.Name()] {
			continue
		}
		name := strings.TrimPrefix(stampRE.ReplaceAllString(e.Name(), ""), "server-")
		if _, ok := crashed[name]; ok && e.IsDir() && stampRE.MatchString(e.Name()) {
			if inside, err := os.ReadDir(filepath.Join(outDir, e.Name())); err == nil && len(inside) == 0 {
				continue
			}
		}
		return fmt.Errorf("%w: %s holds %s, which the output does not name", errOutput, outDir, quote(e.Name()))
	}
	return nil
}

// readChecks reads a checks.json: an array of checks, each an object whose
// "id" and "status" are strings, and whose "errorMessage" is a string when
// present. Keys are matched exactly; other members are left unread.
func readChecks(path string) ([]check, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxChecksFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxChecksFile {
		return nil, fmt.Errorf("%w: %s is over %d bytes", errOutput, path, maxChecksFile)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errOutput, path, err)
	}
	checks := make([]check, 0, len(raw))
	for i, m := range raw {
		var c check
		for _, f := range []struct {
			key      string
			to       *string
			optional bool
		}{{"id", &c.ID, false}, {"status", &c.Status, false}, {"errorMessage", &c.Message, true}} {
			v, ok := m[f.key]
			if !ok && f.optional {
				continue
			}
			if !ok || json.Unmarshal(v, f.to) != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				return nil, fmt.Errorf("%w: %s: check %d has no string %q", errOutput, path, i, f.key)
			}
		}
		if c.ID == "" {
			return nil, fmt.Errorf("%w: %s: check %d has an empty id", errOutput, path, i)
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1 // matched \d+: only a number too large for int
	}
	return n
}

// quote returns s as a Go string literal of printable characters, for
// text that another process wrote.
func quote(s string) string {
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return strconv.QuoteToGraphic(s)
}
