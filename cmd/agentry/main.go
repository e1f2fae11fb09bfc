// Command agentry runs, edits and traces LLM agents written as Markdown files.
//
// This package is wiring: a cobra command per file (root.go lists the tree,
// docs/cli.md says how to add one), and the files that build the
// runtime from the configuration. The configuration (config), the CLI's
// answers to asked calls (answer), conversations' follow-ups (followup) and
// progress lines (progress) have packages of their own below it.
package main

import (
	"context"
	"os"
)

func main() {
	s := &session{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, env: os.Environ}
	os.Exit(s.main(context.Background(), os.Args[1:]))
}
