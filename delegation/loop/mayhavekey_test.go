package loop

import (
	"encoding/json"
	"testing"
)

// mayHaveKey may say yes where the key is absent, never no where
// encoding/json would find a background key.
func TestMayHaveKeyMissesNoKeyJSONMatches(t *testing.T) {
	for _, args := range []string{
		`{"agent":"a","task":"t"}`,
		`{"agent":"a","task":"t","background":true}`,
		`{"agent":"a","task":"t","BackGround":true}`,
		`{"agent":"a","task":"t","BACKGROUND":true}`,
		`{"agent":"a","task":"t","\u0062ackground":true}`,
		"{\"agent\":\"a\",\"task\":\"t\",\"bac\u212aground\":true}", // Kelvin sign
		`{"agent":"a","task":"background work","background":false}`,
		`{"agent":"a","task":"t","back ground":true}`,
		`[1,2`,
		``,
	} {
		var a struct {
			Background bool `json:"background"`
		}
		matched := json.Unmarshal([]byte(args), &a) == nil && a.Background
		if matched && !mayHaveKey([]byte(args), "background") {
			t.Errorf("%s: encoding/json finds background, mayHaveKey says it cannot be there", args)
		}
	}
	if mayHaveKey([]byte(`{"agent":"a","task":"t"}`), "background") {
		t.Error("a plain call without the key may have it, so every call is decoded twice")
	}
}
