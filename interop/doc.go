// Package interop checks the provider shapes of toolnexus against the
// providers' own SDKs.
package interop
