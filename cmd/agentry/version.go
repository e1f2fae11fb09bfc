package main

import (
	"cmp"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionCommand is `agentry version`, which --version prints too.
func (s *session) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version and the commit agentry was built from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(s.stdout, versionLine(debug.ReadBuildInfo()))
			return nil
		},
	}
}

// version is the release version `make build` stamps in with
// -ldflags "-X main.version=..."; empty in other builds.
var version string

// versionLine is what --version prints: the stamped version or else the
// module version, and the VCS commit the binary was built from, as far as
// the build recorded them (`go build` in a git checkout records the commit
// unless -buildvcs=false; `go install module@version` records the version).
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "agentry " + cmp.Or(version, "(no build information)")
	}
	line := "agentry " + cmp.Or(version, info.Main.Version, "(devel)")
	settings := map[string]string{}
	for _, kv := range info.Settings {
		settings[kv.Key] = kv.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line += " commit " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			line += " with uncommitted changes"
		}
	} else if version == "" { // a stamped version names its commit (git describe)
		line += " (no VCS commit recorded)"
	}
	return line + ", " + info.GoVersion
}
