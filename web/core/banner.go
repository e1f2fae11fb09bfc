package core

import "strconv"

// Banner is the one message at the top of a page about what the last
// action did to a file (saved, saved with warnings, not saved) or about
// the file's state, with each problem linked to the field it is about,
// so the answer to a save is where the eye lands after the page loads.
type Banner struct {
	Kind   string // good, warn or bad: the colour and whether it is an alert
	TestID string // data-testid, so tests tell the cases apart
	Title  string // "Not saved: 1 problem", "Saved to x.md with 1 warning"
	Items  []BannerItem
}

// BannerItem is one problem in a banner: Label names where it is (a field,
// a line), linked to it by Href when the page has an element to go to.
type BannerItem struct {
	Href, Label, Text string
}

// Count is n and the noun in the right number: "1 problem", "2 problems".
// Nouns whose plural is not noun+"s" are not used.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (b Banner) role() string {
	if b.Kind == "bad" {
		return "alert"
	}
	return "status"
}
