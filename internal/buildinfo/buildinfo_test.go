package buildinfo

import (
	"runtime/debug"
	"testing"
)

// The commit is the build's, shortened, and marked when the tree had
// changes; a build without version control says so.
func TestVersionOfABuild(t *testing.T) {
	t.Parallel()
	info := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a76b5c08d70974a2cfd01544f7661a297ae62f35"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{info, true, "v1.2.0, commit a76b5c08d709, modified"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel), commit unknown (built without version control information)"},
		{nil, false, "unknown (no build information)"},
	} {
		if got := versionOf(tc.info, tc.ok); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.info, got, tc.want)
		}
	}
}
