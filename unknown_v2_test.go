//go:build goexperiment.jsonv2

package toolnexus_test

// unknownMembers returns what encoding/json leaves in a field tagged
// `json:",unknown"` of a struct it decodes members into: json/v2 puts the
// members no other field takes there.
func unknownMembers(m map[string]any) map[string]any { return m }
