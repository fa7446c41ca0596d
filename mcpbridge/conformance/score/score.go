package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// counts are a scenario's checks, each in one column: passed (SUCCESS);
// failed (a FAILURE, or a WARNING, that no limit allows); allowed (a
// FAILURE, WARNING or SKIPPED that a limit allows); skipped (a SKIPPED
// that no limit allows). INFO checks are in none, as the suites count
// them in none. A run passes when failed and skipped are 0.
type counts struct {
	Passed, Failed, Allowed, Skipped int
}

func (c *counts) add(d counts) {
	c.Passed += d.Passed
	c.Failed += d.Failed
	c.Allowed += d.Allowed
	c.Skipped += d.Skipped
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d allowed, %d skipped", c.Passed, c.Failed, c.Allowed, c.Skipped)
}

// A suite runs one protocol version's conformance suite against a server:
// every scenario, or one of them alone.
type suite interface {
	runAll(ctx context.Context) ([]scenarioRun, error)
	runScenario(ctx context.Context, name string, attempt int) (scenarioRun, error)
}

// A verdict is what became of one check occurrence.
type verdict struct {
	check
	column string // passed, failed, allowed, skipped or "" (INFO)
	allow  *allowance
	note   string // why a check failed or was allowed, when it is not the check's own message
}

// judge puts each check of r in its column, under the allowances of ls
// for version. Allowed are a check whose allowance names its status, and
// a FAILURE of a flaky check; flakyFailed says whether one of those failed.
func judge(version string, r scenarioRun, ls limits) (vs []verdict, c counts, flakyFailed bool) {
	for _, ch := range r.Checks {
		v := verdict{check: ch}
		a := ls[checkKey{version, r.Name, ch.ID}]
		switch ch.Status {
		case "INFO":
		case "SUCCESS":
			v.column = "passed"
		case "FAILURE", "WARNING", "SKIPPED":
			switch {
			case a != nil && a.Status == ch.Status:
				v.column, v.allow = "allowed", a
				flakyFailed = flakyFailed || a.Flaky
			case ch.Status == "SKIPPED":
				v.column = "skipped"
			default:
				v.column = "failed"
			}
			if v.column != "allowed" && a != nil {
				v.note = fmt.Sprintf("allowed as %s at %s:%d, reported %s", a.Status, a.File, a.Line, ch.Status)
			}
		default:
			v.column = "failed"
			v.note = "unknown status " + quote(ch.Status)
		}
		switch v.column {
		case "passed":
			c.Passed++
		case "failed":
			c.Failed++
		case "allowed":
			c.Allowed++
		case "skipped":
			c.Skipped++
		}
		vs = append(vs, v)
	}
	return vs, c, flakyFailed
}

// A scored scenario is the attempt of a scenario that counts, and what
// the attempts before it showed.
type scored struct {
	name     string
	verdicts []verdict
	counts   counts
	attempt  int      // the attempt that counts, from 1
	retried  []string // what each earlier attempt showed
}

// scoreSuite runs s, retrying a scenario whose only failures are allowed,
// some of them flaky, up to attempts times in all; it prints each
// scenario's counts and what was not a pass, then the suite's total, and
// returns the total and whether the suite passed: nothing failed or was
// skipped without an allowance, every flaky check passed in one attempt,
// and every allowance of version matched a check of its status (a flaky
// one, a check of any status).
func scoreSuite(ctx context.Context, w io.Writer, version, label string, s suite, ls limits, attempts int) (counts, bool, error) {
	runs, err := s.runAll(ctx)
	if err != nil {
		return counts{}, false, err
	}
	var results []scored
	for _, r := range runs {
		vs, c, flaky := judge(version, r, ls)
		sc := scored{name: r.Name, verdicts: vs, counts: c, attempt: 1}
		for flaky && sc.counts.Failed == 0 && sc.counts.Skipped == 0 && sc.attempt < attempts {
			sc.retried = append(sc.retried, fmt.Sprintf("attempt %d: %s", sc.attempt, flakyFailures(vs)))
			r, err := s.runScenario(ctx, r.Name, sc.attempt+1)
			if err != nil {
				return counts{}, false, err
			}
			vs, c, flaky = judge(version, r, ls)
			sc.verdicts, sc.counts = vs, c
			sc.attempt++
		}
		if flaky { // a flaky check still failed: it counts as a failure
			for i, v := range sc.verdicts {
				if v.column == "allowed" && v.allow.Flaky {
					sc.verdicts[i].column = "failed"
					sc.verdicts[i].note = fmt.Sprintf("flaky, and it failed in %d attempt(s) of %d", sc.attempt, attempts)
					sc.counts.Allowed--
					sc.counts.Failed++
				}
			}
		}
		results = append(results, sc)
	}

	ok := true
	var total counts
	shown := map[*limit]bool{} // the limits whose reason is printed already
	fmt.Fprintf(w, "-- protocol %s (%s, %d scenarios)\n", version, label, len(results))
	for _, sc := range results {
		total.add(sc.counts)
		mark := "✓"
		if sc.counts.Failed > 0 || sc.counts.Skipped > 0 {
			mark, ok = "✗", false
		}
		suffix := ""
		if sc.attempt > 1 {
			suffix = fmt.Sprintf(" (attempt %d of at most %d)", sc.attempt, attempts)
		}
		fmt.Fprintf(w, "%s %s: %s%s\n", mark, sc.name, sc.counts, suffix)
		for _, r := range sc.retried {
			fmt.Fprintf(w, "    retried: %s\n", r)
		}
		for _, v := range sc.verdicts {
			if line := v.line(shown); line != "" {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
	for _, msg := range stale(version, results, ls) {
		fmt.Fprintf(w, "stale: %s\n", msg)
		ok = false
	}
	fmt.Fprintf(w, "%s: %s\n", version, total)
	return total, ok, nil
}

// line returns what a verdict prints under its scenario: nothing for a
// pass. An allowed check names its limit, with the limit's reason and
// links unless shown says they are printed above already.
func (v verdict) line(shown map[*limit]bool) string {
	msg := strings.TrimSpace(v.Message)
	if v.column == "allowed" {
		msg = short(msg, 60)
	}
	if v.note != "" {
		msg = strings.TrimSuffix(v.note+": "+msg, ": ")
	}
	said := "" // what the check said, if anything
	if msg != "" {
		said = ": " + quote(msg)
	}
	switch v.column {
	case "failed":
		return fmt.Sprintf("FAILED %s (%s)%s", v.ID, v.Status, said)
	case "skipped":
		return fmt.Sprintf("SKIPPED %s, and no limit allows it%s", v.ID, said)
	case "allowed":
		kind := "allowed"
		if v.allow.Flaky {
			kind = "allowed as flaky"
		}
		l := v.allow.Limit
		if shown[l] {
			return fmt.Sprintf("%s %s (%s%s): limit %d, above", kind, v.ID, v.Status, said, l.N)
		}
		shown[l] = true
		return fmt.Sprintf("%s %s (%s%s): limit %d: %s %s", kind, v.ID, v.Status, said, l.N, l.Reason, strings.Join(l.Links, " "))
	}
	return ""
}

// flakyFailures names the flaky checks that failed among vs.
func flakyFailures(vs []verdict) string {
	var names []string
	for _, v := range vs {
		if v.column == "allowed" && v.allow.Flaky {
			names = append(names, fmt.Sprintf("flaky %s failed: %s", v.ID, quote(v.Message)))
		}
	}
	return strings.Join(names, "; ")
}

// stale returns what is wrong with the allowances of version against the
// checks that counted: an allowance whose check passed (or is no longer
// reported, or is reported with another status) no longer stands for
// anything, and the list must say so.
func stale(version string, results []scored, ls limits) []string {
	statuses := map[checkKey][]string{}
	for _, sc := range results {
		for _, v := range sc.verdicts {
			k := checkKey{version, sc.name, v.ID}
			statuses[k] = append(statuses[k], v.Status)
		}
	}
	var msgs []string
	for _, a := range sortedAllowances(ls) {
		if a.Version != version {
			continue
		}
		got, reported := statuses[a.key()]
		where := fmt.Sprintf("%s:%d: %s %s", a.File, a.Line, a.Scenario, a.Check)
		switch {
		case !reported:
			msgs = append(msgs, where+": no such check was reported; remove it from the list")
		case a.Flaky, slices.Contains(got, a.Status):
		case !slices.ContainsFunc(got, func(s string) bool { return s != "SUCCESS" }):
			msgs = append(msgs, where+": the check passes now; remove it from the list")
		default:
			msgs = append(msgs, fmt.Sprintf("%s: allowed as %s, reported %s; correct the list", where, a.Status, strings.Join(got, ", ")))
		}
	}
	return msgs
}

// sortedAllowances returns the allowances of ls in the order of the file.
func sortedAllowances(ls limits) []*allowance {
	as := slices.Collect(maps.Values(ls))
	slices.SortFunc(as, func(a, b *allowance) int {
		return cmp.Or(a.Limit.N-b.Limit.N, a.Line-b.Line)
	})
	return as
}
