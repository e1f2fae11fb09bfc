// Package clienttest runs the clients that are not agentry's own against
// agentry's MCP server, A2A server and API in tests: the official
// TypeScript MCP SDK, the MCP Inspector's CLI and the A2A JS SDK, npm
// packages run with the machine's node. `make deps` installs them, pinned,
// into ~/.cache/agentry-clients; a test that needs one fails with
// instructions when it is missing, because a skipped test would prove
// nothing.
package clienttest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeModulesEnv names the variable that points at the node_modules folder
// holding the clients; the Makefile sets it. Not AGENTRY_*: every such
// variable is a configuration key, and agentry refuses unknown ones.
const NodeModulesEnv = "TEST_CLIENTS_NODE_MODULES"

// Packages are the npm packages `make deps` installs for these tests.
var Packages = []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/inspector", "@a2a-js/sdk"}

// NodeModules is the folder the clients are installed in:
// $TEST_CLIENTS_NODE_MODULES, else ~/.cache/agentry-clients/node_modules.
// It fails tb when one of pkgs is not there.
func NodeModules(tb testing.TB, pkgs ...string) string {
	tb.Helper()
	dir := os.Getenv(NodeModulesEnv)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			tb.Fatal(err)
		}
		dir = filepath.Join(home, ".cache", "agentry-clients", "node_modules")
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Fatalf("node is not installed (%v); `make deps` installs Debian's nodejs", err)
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p, "package.json")); err != nil {
			tb.Fatalf("the npm package %s is not installed (%v).\nRun `make deps`, which installs the pinned clients into ~/.cache/agentry-clients,\n"+
				"or point %s at a node_modules folder that has it.", p, err, NodeModulesEnv)
		}
	}
	return dir
}

// Script is a JavaScript module that imports the npm clients, ready to run:
// it lives in a folder whose node_modules is the clients' (ES modules
// resolve bare imports from the importing file's folder, not NODE_PATH).
type Script struct {
	Path string
	dir  string
}

// Write puts source in a temporary folder next to a link to the clients'
// node_modules; name is its file name (name.mjs).
func Write(tb testing.TB, name, source string, pkgs ...string) Script {
	tb.Helper()
	modules := NodeModules(tb, pkgs...)
	dir := tb.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(source), 0o644); err != nil {
		tb.Fatal(err)
	}
	return Script{Path: path, dir: dir}
}

// Command is node running the script with args.
func (s Script) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{s.Path}, args...)...)
	cmd.Dir = s.dir
	return cmd
}

// Run runs the script to its end and returns what it printed.
func (s Script) Run(ctx context.Context, env []string, args ...string) (stdout, stderr string, err error) {
	cmd := s.Command(ctx, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// Bin is the path of an npm package's executable file inside the clients'
// node_modules (e.g. "@modelcontextprotocol/inspector", "clients/cli/build/index.js").
func Bin(tb testing.TB, pkg, file string) string {
	tb.Helper()
	return filepath.Join(NodeModules(tb, pkg), pkg, file)
}
