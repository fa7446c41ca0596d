package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
)

// A limit is one thing an implementation cannot do, with the checks it
// makes fail: why, and where the limit is written down (an SDK's issue or
// line of code).
type limit struct {
	N      int // its place in the limits file, from 1
	Reason string
	Links  []string
}

// An allowance lets one check of one scenario of one protocol version's
// suite end with Status instead of SUCCESS, for the reason of its limit.
// A flaky allowance lets the check fail now and then: its scenario is run
// again, and passes only once the check passes too.
type allowance struct {
	Version, Scenario, Check string
	Status                   string // FAILURE, WARNING or SKIPPED; FAILURE when Flaky
	Flaky                    bool
	Limit                    *limit
	File                     string // the limits file that names it
	Line                     int    // and its line there
}

// key names the check an allowance is for.
func (a allowance) key() checkKey { return checkKey{a.Version, a.Scenario, a.Check} }

type checkKey struct{ version, scenario, check string }

// limits are the allowances of a limits file, by the check they are for.
type limits map[checkKey]*allowance

var (
	errLimits = errors.New("score: bad limits file")

	versionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_./:-]*$`)
)

// parseLimits reads the limits file named name from r and adds its
// allowances to ls, numbering its limits on from those of ls. The file is
// lines of a keyword and its words; blank lines and lines starting with #
// are left out.
//
//	reason  WORDS...             why (consecutive reason lines are one text)
//	link    URL                  where the limit is written down (one or more)
//	allow   VERSION SCENARIO CHECK STATUS
//	flaky   VERSION SCENARIO CHECK
//
// Each allow or flaky line belongs to the reason and links above it; a
// reason line after an allow or flaky line starts the next limit. STATUS is
// the status the suite reports the check with: FAILURE, WARNING or SKIPPED.
// Every limit has a reason, a link and a check, and no check is named
// twice, in one file or across files.
func parseLimits(ls limits, name string, r io.Reader) error {
	var cur *limit
	checks := 0 // the checks of cur
	nlimits := 0
	for _, a := range ls {
		nlimits = max(nlimits, a.Limit.N)
	}
	sc := bufio.NewScanner(r)
	n := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", errLimits, name, n, fmt.Sprintf(format, args...))
	}
	done := func() error { // checks cur is whole
		switch {
		case cur == nil:
			return nil
		case len(cur.Links) == 0:
			return bad("the limit %q has no link", short(cur.Reason, 40))
		case checks == 0:
			return bad("the limit %q allows no check", short(cur.Reason, 40))
		}
		return nil
	}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "reason":
			if rest == "" {
				return bad("reason without words")
			}
			if cur != nil && checks == 0 && len(cur.Links) == 0 {
				cur.Reason += " " + rest
				continue
			}
			if cur != nil && checks == 0 {
				return bad("a reason after the link of %q, before any check", short(cur.Reason, 40))
			}
			if err := done(); err != nil {
				return err
			}
			nlimits++
			cur, checks = &limit{N: nlimits, Reason: rest}, 0
		case "link":
			if cur == nil {
				return bad("a link before any reason")
			}
			if checks > 0 {
				return bad("a link after the checks of %q", short(cur.Reason, 40))
			}
			u, err := url.Parse(rest)
			if err != nil || u.Scheme != "https" || u.Host == "" || strings.ContainsAny(rest, " \t") {
				return bad("link %q is not an https URL", rest)
			}
			cur.Links = append(cur.Links, rest)
		case "allow", "flaky":
			if cur == nil {
				return bad("%s before any reason", word)
			}
			if len(cur.Links) == 0 {
				return bad("the limit %q has no link", short(cur.Reason, 40))
			}
			f := strings.Fields(rest)
			a := &allowance{Limit: cur, File: name, Line: n, Flaky: word == "flaky", Status: "FAILURE"}
			switch {
			case word == "allow" && len(f) == 4:
				a.Status = f[3]
				if a.Status != "FAILURE" && a.Status != "WARNING" && a.Status != "SKIPPED" {
					return bad("status %q is none of FAILURE, WARNING, SKIPPED", a.Status)
				}
			case word == "flaky" && len(f) == 3:
			default:
				return bad("%s takes VERSION SCENARIO CHECK%s", word, map[bool]string{true: " STATUS"}[word == "allow"])
			}
			a.Version, a.Scenario, a.Check = f[0], f[1], f[2]
			if !versionRE.MatchString(a.Version) {
				return bad("version %q is not a date", a.Version)
			}
			if !nameRE.MatchString(a.Scenario) || !nameRE.MatchString(a.Check) {
				return bad("scenario %q or check %q is not a name", a.Scenario, a.Check)
			}
			if prev, ok := ls[a.key()]; ok {
				return bad("%s %s %s is named at %s:%d already", a.Version, a.Scenario, a.Check, prev.File, prev.Line)
			}
			ls[a.key()] = a
			checks++
		default:
			return bad("unknown keyword %q", word)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %s: %w", errLimits, name, err)
	}
	return done()
}

// short returns the first n characters of s, with … when there are more.
func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
