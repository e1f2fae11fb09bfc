// Package dom finds elements in parsed HTML the way the UI's tests look at
// a page: by data-testid, by text, and as a browser would submit a form.
package dom

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// Find returns the first element with data-testid id, or nil.
func Find(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && Attr(n, "data-testid") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := Find(c, id); f != nil {
			return f
		}
	}
	return nil
}

// FindAll returns every element whose data-testid starts with prefix.
func FindAll(n *html.Node, prefix string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && strings.HasPrefix(Attr(n, "data-testid"), prefix) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func Attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func HasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

// TextOf is the element's text content, spaces collapsed.
func TextOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// CSRFOf reads the token the layout put in its meta tag.
func CSRFOf(doc *html.Node) string {
	var tok string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "meta" && Attr(n, "name") == "csrf-token" {
			tok = Attr(n, "content")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return tok
}

// FormValues collects what a browser would submit for a form: named inputs
// (checkboxes only when checked), textareas and selected options.
func FormValues(form *html.Node) url.Values {
	v := url.Values{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name := Attr(n, "name")
			switch {
			case name == "":
			case n.Data == "input" && (Attr(n, "type") == "checkbox" || Attr(n, "type") == "radio"):
				if HasAttr(n, "checked") {
					v.Add(name, Attr(n, "value"))
				}
			case n.Data == "input":
				v.Add(name, Attr(n, "value"))
			case n.Data == "textarea":
				v.Add(name, rawText(n)) // the parser already dropped the first line break
			case n.Data == "select":
				v.Add(name, selected(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return v
}

func rawText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(c.Data)
	}
	return b.String()
}

func selected(sel *html.Node) string {
	first, found := "", false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "option" {
			if !found && first == "" {
				first = Attr(n, "value")
			}
			if HasAttr(n, "selected") && !found {
				first, found = Attr(n, "value"), true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(sel)
	return first
}
