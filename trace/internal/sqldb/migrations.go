package sqldb

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"
)

// shared holds the migrations both stores apply: each a text/template of
// SQL rendered with the store's Dialect (migrations/README.md).
//
//go:embed migrations
var shared embed.FS

// Migrations returns a store's migration scripts in order: its history
// (the *.sql files of the folder migrations of store, by name: each store
// embeds its own), then the shared migrations rendered for d. A
// database's schema version N is the state after the Nth script. The
// histories are what each store's databases in the field were created
// with; they are never edited, and every later step goes in the shared
// list, which both stores apply alike.
func Migrations(store fs.FS, d Dialect) ([]string, error) {
	history, err := fs.Sub(store, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	return MigrationsWith(history, shared, "migrations", d)
}

// MigrationsWith is Migrations with the shared steps read from the folder
// dir of common: for tests that render a step of their own.
func MigrationsWith(history, common fs.FS, dir string, d Dialect) ([]string, error) {
	own, err := scripts(history, ".", nil)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	steps, err := scripts(common, dir, &d)
	if err != nil {
		return nil, fmt.Errorf("read shared migrations: %w", err)
	}
	return append(own, steps...), nil
}

// scripts reads the *.sql files of dir in name order, rendering each as a
// template for d when d is set.
func scripts(fsys fs.FS, dir string, d *Dialect) ([]string, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
		if d == nil {
			continue
		}
		if out[i], err = render(n, out[i], *d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// render fills a shared migration's template for d. A step that renders
// to nothing but comments and space (one that concerns the other
// database) is still a step: it keeps both stores' version numbers moving
// together.
func render(name, text string, d Dialect) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}
