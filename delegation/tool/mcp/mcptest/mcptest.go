// Package mcptest finds the real MCP servers that tests run against. They are
// npm packages installed by `make deps`; a test that needs one fails with
// instructions when it is missing, because a skipped test would prove nothing.
package mcptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/delegation/tool/mcp"
)

// NodeModulesEnv names the variable that points at the node_modules folder
// holding the test servers; `make deps` installs them and the Makefile sets it.
const NodeModulesEnv = "MCP_TEST_NODE_MODULES"

// NodeModules is the folder the test servers are installed in:
// $MCP_TEST_NODE_MODULES, else ~/.cache/agentry-mcp/node_modules.
func NodeModules() string {
	if dir := os.Getenv(NodeModulesEnv); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "agentry-mcp", "node_modules")
	}
	return filepath.Join(home, ".cache", "agentry-mcp", "node_modules")
}

// Everything returns a Server named name that runs the reference server
// @modelcontextprotocol/server-everything (tools echo, get-sum, ...) with node.
func Everything(tb testing.TB, name string) mcp.Server {
	tb.Helper()
	script := filepath.Join(NodeModules(), "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		tb.Fatalf("the MCP test server is not installed (%v).\nRun `make deps`, which runs\n"+
			"  npm install --prefix ~/.cache/agentry-mcp @modelcontextprotocol/server-everything@<pinned version>\n"+
			"or point %s at a node_modules folder that has it.", err, NodeModulesEnv)
	}
	return mcp.Server{Name: name, Command: "node", Args: []string{script}}
}
