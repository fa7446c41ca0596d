package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain makes the test binary stand in for Node.js when score runs it
// as such (see fakeNode).
func TestMain(m *testing.M) {
	if os.Getenv("SCORE_TEST_NODE") != "" {
		os.Exit(fakeNode(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeNode replays a recorded run of a suite, as node would print and save
// it: args are the suite's script, "server", and its arguments. The run
// is testdata/PACKAGE/NAME, NAME the folder its -o folder is in ("all", or
// SCENARIO-ATTEMPT for a scenario run alone). Like the suite, it makes an
// empty folder for a scenario it could not run, and exits 1.
func fakeNode(args []string) int {
	if len(args) < 2 || args[1] != "server" {
		return 9
	}
	pkg := filepath.Base(filepath.Dir(filepath.Dir(args[0])))
	var out string
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			out = args[i+1]
		}
	}
	rec := filepath.Join(os.Getenv("SCORE_TEST_NODE"), pkg, filepath.Base(filepath.Dir(out)))
	output, err := os.ReadFile(filepath.Join(rec, "output.txt"))
	if err != nil {
		fmt.Println(err)
		return 9
	}
	if err := os.CopyFS(out, os.DirFS(filepath.Join(rec, "checks"))); err != nil {
		fmt.Println(err)
		return 9
	}
	for _, m := range regexp.MustCompile(`(?m)^Failed to run scenario (\S+):`).FindAllStringSubmatch(string(output), -1) {
		if err := os.Mkdir(filepath.Join(out, "server-"+m[1]+"-2026-12-01T19-59-59-999Z"), 0o755); err != nil {
			fmt.Println(err)
			return 9
		}
	}
	os.Stdout.Write(output)
	return 1
}

// score runs the command on the recorded runs of testdata, with the fake
// Node.js, and returns its exit status, standard output and error.
func score(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return scoreRecorded(t, "testdata", args...)
}

// scoreRecorded is score on the recorded runs of the folder recorded.
func scoreRecorded(t *testing.T, recorded string, args ...string) (int, string, string) {
	t.Helper()
	data, err := filepath.Abs(recorded)
	require.NoError(t, err)
	t.Setenv("SCORE_TEST_NODE", data)
	var stdout, stderr bytes.Buffer
	args = append([]string{"-modules", "testdata/modules", "-node", os.Args[0], "-out", t.TempDir()}, args...)
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestScoreRecordedRun scores a recorded run with a check that fails, one
// that is skipped, allowed ones (a FAILURE and a WARNING), flaky ones (one
// that passes on a retry, one that never does, one whose retry fails
// another check), a scenario the suite could not run and two allowances
// that no longer stand: the exact counts, each verdict and exit status 1.
func TestScoreRecordedRun(t *testing.T) {
	code, stdout, stderr := score(t, "-limits", "testdata/limits", "2026-07-28=http://127.0.0.1:1/mcp")
	assert.Empty(t, stderr)
	assert.Equal(t, 1, code)
	want := `-- protocol 2026-07-28 (conformance-2026-07-28, 9 scenarios)
✓ tools-call-simple-text: 2 passed, 0 failed, 0 allowed, 0 skipped
✗ server-stateless: 3 passed, 0 failed, 2 allowed, 1 skipped
    allowed sep-2575-server-rejects-undeclared-capability (FAILURE: "Expected MissingRequiredClientCapabilityError (-32021), got …"): limit 1: The server answers a missing client capability with -32603. https://example.com/server/handler_errors.go#L24
    allowed sep-2575-missing-capability-http-400 (FAILURE: "Not testable: server did not return MissingRequiredClientCap…"): limit 1, above
    SKIPPED sep-2575-server-sends-tools-list-changed-on-subscription, and no limit allows it
✓ tools-call-with-progress: 2 passed, 0 failed, 0 allowed, 0 skipped (attempt 3 of at most 4)
    retried: attempt 1: flaky tools-call-with-progress failed: "Expected at least 3 progress notifications, got 2"
    retried: attempt 2: flaky tools-call-with-progress failed: "Expected at least 3 progress notifications, got 2"
✗ tools-call-with-logging: 1 passed, 1 failed, 0 allowed, 0 skipped (attempt 4 of at most 4)
    retried: attempt 1: flaky tools-call-with-logging failed: "Expected at least 3 log messages, got 2"
    retried: attempt 2: flaky tools-call-with-logging failed: "Expected at least 3 log messages, got 2"
    retried: attempt 3: flaky tools-call-with-logging failed: "Expected at least 3 log messages, got 2"
    FAILED tools-call-with-logging (FAILURE): "flaky, and it failed in 4 attempt(s) of 4: Expected at least 3 log messages, got 2"
✗ tools-call-audio: 1 passed, 1 failed, 0 allowed, 0 skipped (attempt 2 of at most 4)
    retried: attempt 1: flaky tools-call-audio failed: "Expected 1 audio block, got 0"
    FAILED wire-schema-valid (FAILURE): "1 message violates the schema"
✗ tools-call-error: 1 passed, 1 failed, 0 allowed, 0 skipped
    FAILED tools-call-error (FAILURE): "Expected isError: true\x1b[31m (red)\x1b[0m"
✓ sep-2164-resource-not-found: 2 passed, 0 failed, 1 allowed, 0 skipped
    allowed sep-2164-data-uri (WARNING: "Error data.uri is undefined. This is a SHOULD requirement."): limit 3: An unknown resource's error carries no data. https://example.com/server/server.go#L1749
✗ caching: 0 passed, 1 failed, 0 allowed, 0 skipped
    FAILED caching (FAILURE): "the suite could not run the scenario: TypeError: fetch failed"
✓ prompts-list: 2 passed, 0 failed, 0 allowed, 0 skipped
stale: limits:22: prompts-list prompts-list: the check passes now; remove it from the list
stale: limits:23: tools-list tools-list: no such check was reported; remove it from the list
2026-07-28: 14 passed, 4 failed, 3 allowed, 1 skipped
total: 14 passed, 4 failed, 3 allowed, 1 skipped
`
	assert.Equal(t, want, strings.Split(stdout, "conformance: FAILED")[0])
	assert.Contains(t, stdout, "conformance: FAILED (the output of each suite is under ")
}

// TestScoreGoSDKRun scores a whole run of the 2026-07-28 suite as it was
// recorded against mcpbridge's conformance server (testdata/gosdk) with
// the tasks-limits that its run reads: every check but the tasks
// extension's passes, and the extension's are allowed by id.
func TestScoreGoSDKRun(t *testing.T) {
	code, stdout, stderr := scoreRecorded(t, "testdata/gosdk", "-limits", "../tasks-limits", "2026-07-28=http://127.0.0.1:1")
	assert.Empty(t, stderr)
	assert.Equal(t, 0, code)
	lines := strings.Split(stdout, "\n")
	assert.Equal(t, "-- protocol 2026-07-28 (conformance-2026-07-28, 50 scenarios)", lines[0])
	var scenarios, allowed int
	for _, l := range lines {
		if strings.HasPrefix(l, "✓ ") {
			scenarios++
		}
		if strings.HasPrefix(l, "    allowed ") {
			allowed++
		}
	}
	assert.Equal(t, 50, scenarios)
	assert.Equal(t, 31, allowed)
	for _, want := range []string{
		"✓ server-stateless: 30 passed, 0 failed, 0 allowed, 0 skipped",
		"✓ tasks-lifecycle: 1 passed, 0 failed, 8 allowed, 0 skipped",
		"✓ tasks-status-notifications: 0 passed, 0 failed, 1 allowed, 0 skipped",
		"2026-07-28: 165 passed, 0 failed, 31 allowed, 0 skipped",
		"total: 165 passed, 0 failed, 31 allowed, 0 skipped",
	} {
		assert.Contains(t, lines, want)
	}
}

// TestScoreFlakyPasses scores a run whose one failure is a flaky check
// that passes on its retry: it passes, and says it retried.
func TestScoreFlakyPasses(t *testing.T) {
	code, stdout, stderr := score(t, "-limits", "testdata/limits", "2025-11-25=http://127.0.0.1:1/mcp")
	assert.Empty(t, stderr)
	assert.Equal(t, 0, code)
	assert.Equal(t, `-- protocol 2025-11-25 (conformance-2025-11-25, 3 scenarios)
✓ ping: 1 passed, 0 failed, 0 allowed, 0 skipped
✓ tools-call-with-logging: 1 passed, 0 failed, 0 allowed, 0 skipped (attempt 2 of at most 4)
    retried: attempt 1: flaky tools-call-with-logging failed: "Expected at least 3 log messages, got 2"
✓ dns-rebinding-protection: 2 passed, 0 failed, 0 allowed, 0 skipped
2025-11-25: 4 passed, 0 failed, 0 allowed, 0 skipped
total: 4 passed, 0 failed, 0 allowed, 0 skipped
`, stdout)
}

// TestScoreAttempts bounds the retries: with one attempt a flaky check
// that fails is a failure, and nothing is run again.
func TestScoreAttempts(t *testing.T) {
	code, stdout, _ := score(t, "-limits", "testdata/limits", "-attempts", "1", "2025-11-25=http://127.0.0.1:1/mcp")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "✗ tools-call-with-logging: 0 passed, 1 failed, 0 allowed, 0 skipped\n"+
		`    FAILED tools-call-with-logging (FAILURE): "flaky, and it failed in 1 attempt(s) of 1: Expected at least 3 log messages, got 2"`+"\n")
	assert.NotContains(t, stdout, "retried")
}

// TestScoreWithoutLimits fails every check that is not a pass.
func TestScoreWithoutLimits(t *testing.T) {
	code, stdout, _ := score(t, "2026-07-28=http://127.0.0.1:1/mcp")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "2026-07-28: 13 passed, 8 failed, 0 allowed, 1 skipped\n")
	assert.Contains(t, stdout, `    FAILED sep-2164-data-uri (WARNING): "Error data.uri is undefined. This is a SHOULD requirement."`)
}

func TestScoreUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"2024-01-01=http://127.0.0.1:1"},
		{"2026-07-28"},
		{"-limits", "testdata/missing", "2026-07-28=http://127.0.0.1:1"},
		{"-attempts", "0", "2026-07-28=http://127.0.0.1:1"},
	} {
		code, stdout, stderr := score(t, args...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, stdout, args)
		assert.NotEmpty(t, stderr, args)
	}
}

func TestParseLimits(t *testing.T) {
	ls := limits{}
	require.NoError(t, parseLimits(ls, "a", strings.NewReader(`
# comment
reason One
reason two.
link https://example.com/1
link https://example.com/2
allow 2026-07-28 s c FAILURE
flaky 2025-11-25 s c
reason Three.
link https://example.com/3
allow 2026-07-28 s d SKIPPED
`)))
	require.NoError(t, parseLimits(ls, "b", strings.NewReader("reason Four.\nlink https://example.com/4\nallow 2026-07-28 t c WARNING\n")))
	one := &limit{N: 1, Reason: "One two.", Links: []string{"https://example.com/1", "https://example.com/2"}}
	assert.Equal(t, limits{
		{"2026-07-28", "s", "c"}: {Version: "2026-07-28", Scenario: "s", Check: "c", Status: "FAILURE", Limit: one, File: "a", Line: 7},
		{"2025-11-25", "s", "c"}: {Version: "2025-11-25", Scenario: "s", Check: "c", Status: "FAILURE", Flaky: true, Limit: one, File: "a", Line: 8},
		{"2026-07-28", "s", "d"}: {Version: "2026-07-28", Scenario: "s", Check: "d", Status: "SKIPPED",
			Limit: &limit{N: 2, Reason: "Three.", Links: []string{"https://example.com/3"}}, File: "a", Line: 11},
		{"2026-07-28", "t", "c"}: {Version: "2026-07-28", Scenario: "t", Check: "c", Status: "WARNING",
			Limit: &limit{N: 3, Reason: "Four.", Links: []string{"https://example.com/4"}}, File: "b", Line: 3},
	}, ls)
}

func TestParseLimitsErrors(t *testing.T) {
	const head = "reason R.\nlink https://example.com/x\n"
	for text, want := range map[string]string{
		"allow 2026-07-28 s c FAILURE\n":                                    "f:1: allow before any reason",
		"link https://example.com/x\n":                                      "f:1: a link before any reason",
		"reason R.\nallow 2026-07-28 s c FAILURE\n":                         `f:2: the limit "R." has no link`,
		"reason R.\nlink http://example.com/x\n":                            `f:2: link "http://example.com/x" is not an https URL`,
		head:                                                                `f:2: the limit "R." allows no check`,
		head + "reason S.\n":                                                `f:3: a reason after the link of "R.", before any check`,
		head + "allow 2026-07-28 s c PASSED\n":                              `f:3: status "PASSED" is none of FAILURE, WARNING, SKIPPED`,
		head + "allow 2026-07-28 s c\n":                                     "f:3: allow takes VERSION SCENARIO CHECK STATUS",
		head + "flaky 2026-07-28 s c FAILURE\n":                             "f:3: flaky takes VERSION SCENARIO CHECK",
		head + "allow latest s c FAILURE\n":                                 `f:3: version "latest" is not a date`,
		head + "allow 2026-07-28 s c\x1b FAILURE\n":                         `f:3: scenario "s" or check "c\x1b" is not a name`,
		head + "allow 2026-07-28 s c FAILURE\nflaky 2026-07-28 s c\n":       "f:4: 2026-07-28 s c is named at f:3 already",
		head + "allow 2026-07-28 s c FAILURE\nlink https://example.com/y\n": `f:4: a link after the checks of "R."`,
		head + "allow 2026-07-28 s c FAILURE\nreason S.\n":                  `f:4: the limit "S." has no link`,
		head + "allows 2026-07-28 s c FAILURE\n":                            `f:3: unknown keyword "allows"`,
		"reason\n":                                                          "f:1: reason without words",
	} {
		err := parseLimits(limits{}, "f", strings.NewReader(text))
		require.ErrorIs(t, err, errLimits, text)
		assert.Equal(t, "score: bad limits file: "+want, err.Error(), text)
	}
}

// TestReadRunRefuses checks that a suite's output that cannot be scored
// exactly is an error, never a guess.
func TestReadRunRefuses(t *testing.T) {
	// saved returns the lines of a run of scenario that saved body as its
	// checks.json in dir.
	saved := func(dir, scenario, body string) string {
		base := "server-" + scenario + "-2026-12-01T19-03-00-000Z"
		require.NoError(t, os.MkdirAll(filepath.Join(dir, base), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, base, "checks.json"), []byte(body), 0o644))
		return "=== Running scenario: " + scenario + " ===\nResults saved to /x/" + base + "\n"
	}
	const ok = `[{"id":"a","status":"SUCCESS"},{"id":"b","status":"FAILURE","errorMessage":"no"}]`
	for name, tc := range map[string]struct {
		output func(dir string) string
		want   string
	}{
		"no summary": {func(d string) string { return saved(d, "s", ok) }, "the suite printed no results (1 scenarios started)"},
		"summary disagrees": {func(d string) string { return saved(d, "s", ok) + "=== SUMMARY ===\n✗ s: 2 passed, 0 failed\n" },
			"scenario s: the suite printed 2 passed, 0 failed; its checks.json holds 1, 1"},
		"summary lacks one": {func(d string) string { return saved(d, "s", ok) + "=== SUMMARY ===\n" }, "1 scenarios ran, the summary names 0"},
		"no checks": {func(string) string {
			return "=== Running scenario: s ===\n=== SUMMARY ===\n✗ s: 0 passed, 1 failed\n"
		},
			"scenario s saved no checks"},
		"stray folder": {func(d string) string {
			saved(d, "t", ok)
			return saved(d, "s", ok) + "=== SUMMARY ===\n✗ s: 1 passed, 1 failed\n"
		}, `holds "server-t-2026-12-01T19-03-00-000Z", which the output does not name`},
		"keys are exact": {func(d string) string { return saved(d, "s", `[{"ID":"a","status":"SUCCESS"}]`) }, `check 0 has no string "id"`},
		"null message": {func(d string) string { return saved(d, "s", `[{"id":"a","status":"FAILURE","errorMessage":null}]`) },
			`check 0 has no string "errorMessage"`},
		"bad name":  {func(string) string { return "=== Running scenario: ../x ===\n" }, `scenario name "../x"`},
		"ran twice": {func(string) string { return "=== Running scenario: s ===\n=== Running scenario: s ===\n" }, "scenario s ran twice"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := readRun([]byte(tc.output(dir)), dir)
			require.ErrorIs(t, err, errOutput)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestReadRunCrashed reads a run with a scenario the suite could not run:
// it counts as one failure, as the suite counts it, and its empty folder
// is no stray.
func TestReadRunCrashed(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "server-s-2026-12-01T19-03-00-000Z"), 0o755))
	runs, err := readRun([]byte("=== Running scenario: s ===\nFailed to run scenario s: Error: boom\n=== SUMMARY ===\n✗ s: 0 passed, 1 failed\n"), dir)
	require.NoError(t, err)
	assert.Equal(t, []scenarioRun{{Name: "s", Checks: []check{{ID: "s", Status: "FAILURE", Message: "the suite could not run the scenario: Error: boom"}}}}, runs)
}

// TestScoreScenarios runs the scenarios named alone, and scores only
// them.
func TestScoreScenarios(t *testing.T) {
	code, stdout, stderr := score(t, "-scenario", "tools-call-with-logging", "2025-11-25=http://127.0.0.1:1/mcp")
	assert.Empty(t, stderr)
	assert.Equal(t, 0, code)
	assert.Equal(t, `-- protocol 2025-11-25 (conformance-2025-11-25, 1 scenarios)
✓ tools-call-with-logging: 1 passed, 0 failed, 0 allowed, 0 skipped
2025-11-25: 1 passed, 0 failed, 0 allowed, 0 skipped
total: 1 passed, 0 failed, 0 allowed, 0 skipped
`, stdout)

	code, stdout, stderr = score(t, "-scenario", "../x", "2025-11-25=http://127.0.0.1:1/mcp")
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `"../x" is not a scenario name`)
}
