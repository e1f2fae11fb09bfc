package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/model/script"
)

// Under serve every script: model, the form's or an agent file's, is read
// from serve.script_dir only; run keeps reading any path it is given.
func TestServeConfinesScriptModelsToTheScriptsFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("a: [{say: hi}]\n"), 0o644)
	var off, on config.Config
	on.Serve.ScriptDir = dir
	for _, name := range []string{"/dev/zero", "/etc/passwd", "../x", strings.Repeat("a", 5000)} {
		if _, err := serveModels(off, os.Getenv)["script"](name); !errors.Is(err, script.ErrScriptsOff) {
			t.Errorf("scripts off: script:%.20s = %v, want ErrScriptsOff", name, err)
		}
		if _, err := serveModels(on, os.Getenv)["script"](name); !errors.Is(err, script.ErrNotAScript) {
			t.Errorf("scripts on: script:%.20s = %v, want ErrNotAScript", name, err)
		}
	}
	if _, err := serveModels(on, os.Getenv)["script"]("ok.yaml"); err != nil {
		t.Errorf("script:ok.yaml inside the folder: %v", err)
	}
	if _, err := modelProviders(config.Config{}, os.Getenv)["script"](filepath.Join(dir, "ok.yaml")); err != nil {
		t.Errorf("run reads a script by path: %v", err)
	}
}
