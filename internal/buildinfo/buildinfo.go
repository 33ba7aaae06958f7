// Package buildinfo says which build of billsnap a program is, for the
// version commands of billsnap and billsnap-lake.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Version is the module's version and the commit the program was built
// from, as the build recorded them: "(devel), commit 1a2b3c4d5e6f" (and
// "modified" when the tree had changes); a build without version control
// information (go run) says so.
func Version() string { return versionOf(debug.ReadBuildInfo()) }

// versionOf is Version from build information info (ok: there is some).
func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "unknown (no build information)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	v := info.Main.Version
	rev := settings["vcs.revision"]
	switch {
	case rev == "":
		return v + ", commit unknown (built without version control information)"
	case len(rev) > 12:
		rev = rev[:12]
	}
	if settings["vcs.modified"] == "true" {
		rev += ", modified"
	}
	return fmt.Sprintf("%s, commit %s", v, rev)
}
