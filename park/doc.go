// Package park runs tool calls that may park: a tool that cannot finish
// until a person logs in, approves or answers returns a suspension
// ([toolnexus.Pending]), the host puts its requests to the person, and
// the call runs again with the answers. [Runner] holds the rules of that
// on every carrier (a [toolnexus.Turn] a host stores, MCP, tasks, the
// framework adapters and the SDK loops): the clock, the expiry of a
// request asked without one, the logger, the [Store] in which each
// answered parking is claimed so that it runs once, panics, progress and
// what an [Observer] sees.
//
// For a Turn, [RunTurn] runs a model's calls and [Resume] runs the call an
// answer resumes, with the Runner that [NewContext] put in the context, or
// the zero Runner:
//
//	turn, err := park.RunTurn(ctx, tools, calls...)
//	// store the turn (json.Marshal); read it back (toolnexus.ParseTurn)
//	w := turn.Waiting()[0]
//	turn, err = park.Resume(ctx, tools, turn, w.Request.Resolve(nil))
//
// When a parked Turn expires: each request carries its ExpiresAt, the
// tool's own or, for one asked without, [Runner.Expiry] ([DefaultExpiry])
// from the run that asked it, and stored with the turn. An answer is
// checked against it at the Runner's time when [Resume] is called; an
// expired request can no longer be answered (toolnexus.ErrExpired), and
// the host records a result of its own to finish the call. A request
// without ExpiresAt (a negative Expiry) never expires. The claim of an
// answered parking is kept in the Store until the parking expires, plus
// [ClockSkew]; one that never expires is kept for as long as the Store
// keeps it.
package park
