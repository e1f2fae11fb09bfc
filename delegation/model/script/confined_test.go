package script

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadInRefusesEverythingOutsideTheFolder(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("a: [{say: hi}]\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("a: [{say: secret}]\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "link.yaml"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml"))
	os.WriteFile(filepath.Join(dir, "big.yaml"), make([]byte, MaxFileBytes+1), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	cases := []struct{ why, name string }{
		{"an absolute path", "/etc/passwd"},
		{"a device", "/dev/zero"},
		{"a parent path", "../x"},
		{"a parent path inside a name", "sub/../../x"},
		{"a symlink leading out of the folder", "link.yaml"},
		{"a symlink to a device", "zero.yaml"},
		{"a file over the size limit", "big.yaml"},
		{"a folder", "sub"},
		{"an empty name", ""},
		{"a NUL byte", "ok.yaml\x00"},
		{"a very long name", strings.Repeat("a", 100_000)},
	}
	for _, c := range cases {
		t.Run(c.why, func(t *testing.T) {
			_, err := ReadIn(dir, c.name)
			if !errors.Is(err, ErrNotAScript) {
				t.Fatalf("ReadIn(%.40q) = %v, want ErrNotAScript", c.name, err)
			}
			if len(err.Error()) > 300 {
				t.Errorf("the error echoes the whole value: %d bytes", len(err.Error()))
			}
		})
	}
	if data, err := ReadIn(dir, "ok.yaml"); err != nil || !strings.Contains(string(data), "hi") {
		t.Errorf("ReadIn(ok.yaml) = %q, %v", data, err)
	}
}

func TestReadInIsOffWithoutAFolder(t *testing.T) {
	if _, err := ReadIn("", "ok.yaml"); !errors.Is(err, ErrScriptsOff) {
		t.Errorf("err = %v, want ErrScriptsOff", err)
	}
}

func TestLoadInNeverQuotesAMalformedFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "passwd.yaml"), []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	_, err := LoadIn(dir, "passwd.yaml")
	if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "root:x") || strings.Contains(err.Error(), "/bin/bash") {
		t.Errorf("err = %v, want ErrMalformed without the file's text", err)
	}
}

func TestListOffersOnlyRegularYAMLFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yml"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "a.yaml"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "c.yaml"))
	if got := strings.Join(List(dir), ","); got != "a.yaml,b.yml" {
		t.Errorf("List = %q, want a.yaml,b.yml", got)
	}
}
