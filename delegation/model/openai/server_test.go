package openai_test

import (
	"flag"
	"testing"

	"github.com/agentry/agentry/delegation/model/internal/fakeapi"
)

var update = flag.Bool("update", false, "rewrite the request golden files from what the SDK sends")

// reply is one canned answer of the fake API.
type reply = fakeapi.Reply

// newFakeAPI starts a local server that plays replies in order.
func newFakeAPI(t *testing.T, replies ...reply) *fakeServer { return fakeapi.New(t, replies...) }

// baseURL is the fake API's root as users would configure it.
func baseURL(api *fakeServer) string { return api.URL() + "/v1" }

// assertGolden compares a request body with testdata/name (see fakeapi.AssertGolden).
func assertGolden(t *testing.T, name string, got []byte) { fakeapi.AssertGolden(t, name, got, *update) }

// fakeServer is the fake API the tests talk to.
type fakeServer = fakeapi.Server

// testdata reads testdata/name.
func testdata(t testing.TB, name string) []byte { return fakeapi.Testdata(t, name) }
