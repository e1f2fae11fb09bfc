package main

import (
	"strings"
	"testing"
)

func TestAGlobalCommandPatternOffTheShellIsRefusedWithItsLine(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		want       string
	}{
		{name: "a glob before the argument", file: "permissions:\n  tools:\n    allow:\n      - \"*(git *)\"\n", want: `agentry.yaml:4: permissions.tools.allow: "*(git *)": a pattern with an argument part must name one tool`},
		{name: "a tool without an argument", file: "permissions:\n  tools:\n    deny: [\"web.fetch(evil)\"]\n", want: `agentry.yaml:3: permissions.tools.deny: "web.fetch(evil)": web.fetch takes no argument`},
		{name: "from the environment", env: []string{"AGENTRY_PERMISSIONS__TOOLS__ASK=shell(git push *)"}, want: `permissions.tools.ask: "shell(git push *)"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{}
			if c.file != "" {
				args = append(args, "--config", writeFile(t, dir, "agentry.yaml", c.file))
			}
			t.Chdir(dir)
			_, err := loadWith(t, c.env, args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	t.Chdir(t.TempDir())
	if _, err := loadWith(t, []string{"AGENTRY_PERMISSIONS__TOOLS__DENY=shell.run(git push *)"}); err != nil {
		t.Fatalf("a shell command pattern: %v", err)
	}
}
