package core

import (
	"bytes"
	"fmt"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// markdown renders what people wrote in Markdown: agent prompts, a
// workflow explained in words. It is built without html.WithUnsafe, so raw
// HTML is dropped and javascript: links are emptied: rendered text can
// never run script. goldmark is safe for concurrent use.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Markdown turns src into HTML that is safe to embed as is.
func Markdown(src string) (templ.Component, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return templ.Raw(buf.String()), nil
}
