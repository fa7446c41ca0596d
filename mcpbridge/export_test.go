package mcpbridge

// ClientOf is client, for the tests of package mcpbridge_test.
var ClientOf = client
