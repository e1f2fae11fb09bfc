package fakeapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// AssertGolden compares a request body with testdata/name as JSON values, so
// key order and spacing do not matter but every field and value does. With
// update set it first rewrites the file from got, normalised.
func AssertGolden(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	gotNorm := normalize(t, got)
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, gotNorm, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := normalize(t, Testdata(t, name))
	if !bytes.Equal(gotNorm, want) {
		t.Errorf("request body differs from %s\ngot:\n%s\nwant:\n%s", path, gotNorm, want)
	}
}

func normalize(t testing.TB, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
