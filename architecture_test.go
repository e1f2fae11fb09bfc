// Package agentry_test holds checks on the shape of the whole module.
package agentry_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agentry/agentry"

// pkg is one package of the module as go list sees it.
type pkg struct {
	path    string   // relative to the module, e.g. "trace/sqlite"
	imports []string // direct imports
	deps    []string // transitive dependencies
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f",
		`{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			t.Fatalf("unexpected go list line %q", line)
		}
		path := strings.TrimPrefix(strings.TrimPrefix(parts[0], module), "/")
		pkgs = append(pkgs, pkg{path, split(parts[1]), split(parts[2])})
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages; the check would prove nothing", len(pkgs))
	}
	return pkgs
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// yamlstruct decodes agent files' frontmatter (registry) and workflow files
// (delegation/workflow) alike, so both may import it; it imports nothing of
// the module.
const yamlstruct = "registry/yamlstruct"

// traceWriter is the background writer loop of trace's Recorder and
// trace/otlp's Exporter. It imports nothing of the module, so trace, which
// otherwise imports only its vocabulary, may import it and still stands on
// nothing of the project.
const traceWriter = "trace/internal/writer"

// projectImportsAllowed says which of the module's packages each layer may import (DESIGN §2).
func projectImportsAllowed(from, to string) bool {
	switch {
	case from == "permissions", from == "trace/semconv":
		return false
	case from == "trace": // its vocabulary, and the writer loop it shares with trace/otlp
		return to == "trace/semconv" || to == traceWriter
	case from == traceWriter: // a leaf of the standard library, so trace may import it
		return false
	case from == "trace/conversation":
		return false
	case from == "trace/approval": // approvals lean on the record's errors and limits
		return to == "trace" || to == "trace/semconv"
	case from == yamlstruct: // a leaf: YAML mappings into structs, for the file formats
		return false
	case under(from, "registry/internal"): // leaves registry and its skills library share
		return false
	case from == "registry":
		return to == "permissions" || to == yamlstruct || under(to, "registry/internal")
	case from == "registry/diff": // comparing versions: the files as registry reads them
		return to == "registry"
	case from == "registry/skills": // the skills library: agents' domain beside it, never its adapters
		return to == "registry" || to == "permissions" || to == yamlstruct || under(to, "registry/internal")
	case under(from, "registry"): // adapters of the domain (folder, plugin, git)
		return registryDomain(to) || to == "permissions" || to == yamlstruct || under(to, "registry/internal")
	case under(from, "trace/internal"): // what the stores share: the domain only
		return traceDomain(to) || under(to, "trace/internal")
	case under(from, "trace"): // adapters: the domain and the stores' shared internals, never each other
		return traceDomain(to) || under(to, "trace/internal") || (from == "trace/tracetest" && to == "trace/memory")
	case under(from, "delegation"):
		return under(to, "delegation") || registryDomain(to) || to == "permissions" || traceDomain(to) || to == yamlstruct
	case from == "web", under(from, "web/internal"):
		return !under(to, "cmd")
	case from == "web/core":
		return !under(to, "web") && !under(to, "cmd")
	case under(from, "web"): // a page family: the shared core and diagrams, never another family
		return (to == "web/core" || to == "web/diagram" || !under(to, "web")) && !under(to, "cmd")
	}
	return under(from, "cmd") || from == ""
}

// registryDomain reports whether p is one of registry's domain packages:
// agent files (registry), the skills and commands library
// (registry/skills) and how two versions of such files differ
// (registry/diff); the last two read files through registry's Document.
func registryDomain(p string) bool {
	return p == "registry" || p == "registry/skills" || p == "registry/diff"
}

// traceDomain reports whether p is one of trace's domain packages: types and
// contracts, no infrastructure (the record, its vocabulary, approvals and
// conversations).
func traceDomain(p string) bool {
	return p == "trace" || p == "trace/semconv" || p == "trace/approval" || p == "trace/conversation"
}

func TestProjectImportsFlowOneWay(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, imp := range p.imports {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if !projectImportsAllowed(p.path, to) {
				t.Errorf("%s imports %s: DESIGN §2 lets imports flow one way only", p.path, to)
			}
		}
	}
}

// infrastructure maps an import path prefix to the only packages allowed to import it directly.
var infrastructure = map[string]func(path string) bool{
	"database/sql":                     func(p string) bool { return p == "trace/sqlite" },
	"modernc.org/sqlite":               func(p string) bool { return p == "trace/sqlite" },
	"github.com/jackc/pgx":             func(p string) bool { return under(p, "trace/postgres") },
	"github.com/labstack/echo":         func(p string) bool { return under(p, "web") },
	"github.com/a-h/templ":             func(p string) bool { return under(p, "web") },
	"github.com/fsnotify/fsnotify":     func(p string) bool { return p == "registry/folder" },
	"github.com/openai/openai-go":      func(p string) bool { return p == "delegation/model/openai" },
	"github.com/anthropics/anthropic-": func(p string) bool { return p == "delegation/model/anthropic" },
	// MCP's SDK: the client of MCP servers' tools, and agentry's own MCP
	// server (DESIGN §14), which `agentry mcp` and serve's /mcp share.
	"github.com/modelcontextprotocol/": func(p string) bool { return under(p, "delegation/tool/mcp") || p == "web/mcp" },
	"github.com/goccy/go-graphviz":     func(p string) bool { return p == "web/diagram" },
	"go.temporal.io/":                  func(p string) bool { return under(p, "delegation/temporal") },
	"go.opentelemetry.io/":             func(p string) bool { return p == "trace/otlp" },
	// DESIGN §12: command patterns are decided on one bash parse, in permissions.
	"mvdan.cc/sh/": func(p string) bool { return p == "permissions" },
	// Issue 28: an agents folder's git history is read in one adapter.
	"github.com/go-git/": func(p string) bool { return p == "registry/git" },
	// A2A's SDK (issue 26): agentry's agents served (web/a2a), and A2A
	// agents elsewhere as sub-agents (delegation/a2a).
	"github.com/a2aproject/": func(p string) bool { return p == "web/a2a" || under(p, "delegation/a2a") },
}

func TestInfrastructureStaysInItsAdapter(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, imp := range p.imports {
			for prefix, allowed := range infrastructure {
				if strings.HasPrefix(imp, prefix) && !allowed(p.path) {
					t.Errorf("%s imports %s directly; only its adapter package may", p.path, imp)
				}
			}
		}
	}
}

// TestDomainImportsNoInfrastructure checks transitive dependencies: the domain
// must not reach a database, an HTTP stack, a file watcher or an LLM SDK even
// through another package.
func TestDomainImportsNoInfrastructure(t *testing.T) {
	domain := map[string]bool{"permissions": true, "trace": true, "trace/semconv": true, "trace/approval": true, "trace/conversation": true, "registry": true, "registry/skills": true, "registry/diff": true, "delegation/model": true}
	forbidden := []string{"database/sql", "net/http", "modernc.org/", "github.com/jackc/", "github.com/labstack/",
		"github.com/a-h/templ", "github.com/fsnotify/", "github.com/openai/", "github.com/anthropics/", "github.com/modelcontextprotocol/", "os/exec", "go.temporal.io/",
		"go.opentelemetry.io/", "github.com/go-git/"}
	seen := 0
	for _, p := range listPackages(t) {
		if !domain[p.path] {
			continue
		}
		seen++
		for _, dep := range p.deps {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("domain package %s depends on %s", p.path, dep)
				}
			}
		}
	}
	if seen != len(domain) {
		t.Errorf("found %d of the %d domain packages; has the layout changed?", seen, len(domain))
	}
}
