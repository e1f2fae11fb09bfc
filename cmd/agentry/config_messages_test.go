package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestAConfigMistakeNamesTheFileLineAndKey(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"a misspelt top-level key", "agnets: x\n", `config FILE:1: unknown key "agnets" at the top level; did you mean agents? (known keys: agents, db, workspace, `},
		{"a misspelt nested key", "delegation:\n  max_dept: 4\n", `config FILE:2: unknown key "max_dept" in delegation; did you mean max_depth? (known keys: max_depth, max_concurrent, `},
		{"a misspelt key of a named map entry", "mcp:\n  servers:\n    fs: {comand: x}\n", `config FILE:3: unknown key "comand" in mcp.servers.fs; did you mean command? (known keys: command, args, env`},
		{"an unknown key far from any", "zebra: 1\n", `config FILE:1: unknown key "zebra" at the top level (known keys: agents, `},
		{"text where a number belongs", "delegation:\n  max_depth: three\n", `config FILE:2: delegation.max_depth: "three" is not a whole number`},
		{"text where a duration belongs", "delegation:\n  timeout: soon\n", `config FILE:2: delegation.timeout: "soon" is not a duration like 90s or 10m`},
		{"a bare number other than 0 where a duration belongs", "delegation:\n  timeout: 90\n", `config FILE:2: delegation.timeout: "90" is not a duration like 90s or 10m`},
		{"a value where a section belongs", "delegation: 5\n", `config FILE:1: delegation is a section of keys, not a value (its keys: max_depth, `},
		{"a list where a map belongs", "models:\n  aliases: [a]\n", `config FILE:2: models.aliases: got a list, want a map of names to values`},
		{"a section where a value belongs", "db: {a: b}\n", `config FILE:1: db: got a section of keys, want a single value`},
		{"broken YAML", "models:\n  default: [a\n", `config FILE:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "agentry.yaml", c.file)
			code, out, errOut := cli(t, nil, "validate", "--config", path, "--agents", dir)
			want := "agentry: " + strings.ReplaceAll(c.want, "FILE", path)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and a message starting %q", code, out, errOut, want)
			}
			if strings.Contains(errOut, "main.") || strings.Contains(errOut, "!!") || strings.Contains(errOut, "unmarshal") {
				t.Fatalf("Go internals in %q", errOut)
			}
		})
	}
}

func TestAnEmptyOrCommentOnlyConfigIsFine(t *testing.T) {
	for _, text := range []string{"", "# nothing yet\n"} {
		dir := t.TempDir()
		path := writeFile(t, dir, "agentry.yaml", text)
		if code, _, errOut := cli(t, nil, "validate", "--config", path, "--agents", filepath.Join(dir)); code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", text, code, errOut)
		}
	}
}
