// Command agentry runs, edits and traces LLM agents written as Markdown files.
package main

import (
	"context"
	"os"
)

func main() {
	s := &session{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, env: os.Environ}
	os.Exit(s.main(context.Background(), os.Args[1:]))
}
