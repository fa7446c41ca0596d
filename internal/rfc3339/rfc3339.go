// Package rfc3339 reads the RFC 3339 date-times of the module: a request's
// expiry and an elicitation's date-time format. It follows the RFC's
// grammar where time.Parse is looser or stricter (a comma for a dot, a
// leap second, an offset's bounds), and reads the UTC form the module
// writes without time.Parse. Users of the module never name it.
package rfc3339

import (
	"strings"
	"time"
)

// Parse reads s, an RFC 3339 date-time as the RFC has it, with "T" and "Z"
// in either case, an offset's hour 00 to 23 and minute 00 to 59, and a leap
// second, 23:59:60 in UTC, read as the second after 23:59:59; it reports
// false for anything else. The form [time.Time.Format] writes with
// [time.RFC3339Nano] in UTC takes a path of its own, about as fast as
// [time.Parse], which checks less; BenchmarkParse pairs the two.
func Parse(s string) (time.Time, bool) {
	if t, ok := parseUTC(s); ok {
		return t, true
	}
	leap, ok := checkGrammar(s)
	if !ok {
		return time.Time{}, false
	}
	var t time.Time
	var err error
	if leap {
		t, err = parseStd(s[:17] + "59" + s[19:])
		t = t.Add(time.Second)
	} else {
		t, err = parseStd(s)
	}
	return t, err == nil
}

// checkGrammar reports whether s is an RFC 3339 date-time, by the grammar
// of its section 5.6 and the rules of 5.7: a day of its month, an hour
// 00-23, a minute 00-59, a second 00-59 or 60 for a leap second, which is
// the last second of a minute 23:59 in UTC once the offset is applied, and
// an offset of hours 00-23 and minutes 00-59. It also reports whether s is
// such a leap second.
func checkGrammar(s string) (leap, ok bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != 't' || s[13] != ':' || s[16] != ':' {
		return false, false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if s[i]-'0' > 9 {
			return false, false
		}
	}
	two := func(i int) int { return int(s[i]-'0')*10 + int(s[i+1]-'0') }
	year, month, day := two(0)*100+two(2), two(5), two(8)
	hour, minute, sec := two(11), two(14), two(17)
	if month == 0 || month > 12 || day == 0 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 60 {
		return false, false
	}
	rest := s[19:]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n]-'0' <= 9 {
			n++
		}
		if n == 1 {
			return false, false
		}
		rest = rest[n:]
	}
	offset := 0 // minutes east of UTC
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
		rest[1]-'0' <= 9 && rest[2]-'0' <= 9 && rest[4]-'0' <= 9 && rest[5]-'0' <= 9:
		oh, om := int(rest[1]-'0')*10+int(rest[2]-'0'), int(rest[4]-'0')*10+int(rest[5]-'0')
		if oh > 23 || om > 59 {
			return false, false
		}
		if offset = oh*60 + om; rest[0] == '-' {
			offset = -offset
		}
	default:
		return false, false
	}
	if sec == 60 {
		utc := ((hour*60+minute-offset)%1440 + 1440) % 1440
		if utc != 23*60+59 {
			return false, false
		}
		return true, true
	}
	return false, true
}

// parseUTC reads, as time.Parse would, the form that a Request's
// WithExpiry writes:
// "2006-01-02T15:04:05Z", with a fraction of at most nine digits before
// the "Z" or none. It reports false for any other string, valid or not.
func parseUTC(s string) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[len(s)-1] != 'Z' ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if s[i]-'0' > 9 {
			return time.Time{}, false
		}
	}
	two := func(i int) int { return int(s[i]-'0')*10 + int(s[i+1]-'0') }
	year, month, day := two(0)*100+two(2), two(5), two(8)
	hour, minute, sec := two(11), two(14), two(17)
	nsec := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		scale := 1_000_000_000
		for _, c := range []byte(frac[1:]) {
			if c-'0' > 9 {
				return time.Time{}, false
			}
			scale /= 10
			nsec += int(c-'0') * scale
		}
	}
	if month == 0 || month > 12 || day == 0 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Unix(unixDays(year, month, day)*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// daysIn returns the number of days of month in year, of the Gregorian
// calendar.
func daysIn(month, year int) int {
	switch {
	case month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0):
		return 29
	case month == 2:
		return 28
	case month == 4 || month == 6 || month == 9 || month == 11:
		return 30
	}
	return 31
}

// unixDays returns the number of days from 1970-01-01 to the date, of the
// proleptic Gregorian calendar, for the years 0 to 9999: the years are
// counted from March, so that a leap day ends its year.
func unixDays(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	year += 400 // from year -400 on, so that nothing is negative
	era, yoe := year/400, year%400
	doy := (153*((month+9)%12)+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64((era-1)*146097 + doe - 719468)
}

// parseStd is Parse with time.Parse only.
func parseStd(s string) (time.Time, error) {
	if len(s) > 10 && s[10] == 't' {
		s = s[:10] + "T" + s[11:]
	}
	if strings.HasSuffix(s, "z") {
		s = s[:len(s)-1] + "Z"
	}
	return time.Parse(time.RFC3339, s)
}
