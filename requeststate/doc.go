// Package requeststate seals the state that a suspended tool call hands its
// client, and opens it when the client sends it back with its answers. A
// [Sealer] encrypts and authenticates a [State] (the requests asked and the
// answers given so far) with AES-256-GCM, bound to its [Call] (the tool, the
// arguments by their value, the principal), the Sealer's audience and an
// expiry; the state comes back from a peer, so [Sealer.Open] treats it as
// hostile. Keys rotate through a ring ([Options].Keys, [KeysFromHex]); the
// Runner of package park answers each state once, by its ID. The MCP core, package mcpcall, seals its input_required
// results with it, and [Expiry] tells a host, without the key, until when
// a parked call can be answered.
package requeststate
