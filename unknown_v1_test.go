//go:build !goexperiment.jsonv2

package toolnexus_test

// unknownMembers returns what encoding/json leaves in a field tagged
// `json:",unknown"` of a struct it decodes members into: encoding/json
// (v1) knows no such option, and leaves it as it was.
func unknownMembers(map[string]any) map[string]any { return nil }
