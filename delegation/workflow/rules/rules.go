// Package rules is the grammar of the deterministic validation rules a
// workflow step may state ("must include a score number", "each risk must
// have name and impact fields", ...): the engine checks outputs against it
// (delegation/workflow), and the demo model answers in its shape
// (delegation/model/demo) without importing the engine. One grammar, so a
// rule the engine learns is a rule the demo answers.
package rules

import (
	"regexp"
	"strings"
)

// The rules, each with its submatches.
var (
	// Include: "must include a NAME KIND" (NAME, KIND: field, array, boolean, object, string, number, list or key).
	Include = regexp.MustCompile(`(?i)must (?:include|contain|have) (?:an? |the )?([A-Za-z_][A-Za-z0-9_]*) (field|array|boolean|bool|object|string|number|list|key)\b`)
	// Exactly: "must list exactly N ITEMS" (N, ITEMS).
	Exactly = regexp.MustCompile(`(?i)must (?:identify|include|contain|have|list|return) exactly (\d+) ([A-Za-z_ ]+)`)
	// Each: "each ITEM must have A, B and C fields" (ITEM, the field list; Names splits it).
	Each = regexp.MustCompile(`(?i)each ([A-Za-z_ ]+?) must (?:have|include|contain) (.+?) fields?\.?$`)
	// Between: "NAME must be between LO and HI" (NAME, LO, HI).
	Between = regexp.MustCompile(`(?i)([A-Za-z_][A-Za-z0-9_]*) must be between (-?\d+(?:\.\d+)?) and (-?\d+(?:\.\d+)?)`)
)

// Names splits "problem, impact, and solution" into its words.
func Names(list string) []string {
	list = strings.NewReplacer(" and ", ",", "&", ",").Replace(list)
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
