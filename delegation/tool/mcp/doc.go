// Package mcp turns the tools of Model Context Protocol servers into agentry
// tools. Each configured server is a child process spoken to over stdio with
// the official Go SDK; its tools become the tool group named after the server
// (`everything.echo`), so permission patterns treat them like built-in tools.
//
// The adapter keeps to what an agent needs: list the tools once at connect
// time, call them, and hand back text. A result the server flags as an error
// becomes a Go error, which the runtime feeds back to the model as the tool's
// result so it can correct itself.
package mcp
