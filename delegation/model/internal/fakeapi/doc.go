// Package fakeapi is a local HTTP server for the provider tests: it plays
// canned answers from testdata/ in a provider's real wire format and records
// every request, so a test can check both what the SDK sent (against a
// golden file) and what the adapter made of the answer. Only tests import it.
package fakeapi
