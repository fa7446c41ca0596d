package rfc3339

// ParseUTC and ParseStd are the two ways Parse reads a time: its fast path
// for the UTC form, and time.Parse.
var ParseUTC, ParseStd = parseUTC, parseStd
