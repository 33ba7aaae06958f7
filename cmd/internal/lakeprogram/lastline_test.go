package lakeprogram

import (
	"io"
	"strings"
	"testing"
)

// The error line of the lake's program is kept, whatever the writes'
// boundaries, and the log lines around it are not.
func TestLastLineKeepsTheProgramsError(t *testing.T) {
	said := &lastLine{prefix: Name + " publish: "}
	text := "time=x level=INFO msg=published\n" + Name + " publish: committing snapshot s2 to the Iceberg catalog: denied\ntime=y level=INFO msg=bye\n"
	for _, part := range strings.SplitAfter(text, "i") {
		io.WriteString(said, part)
	}
	if said.error != "committing snapshot s2 to the Iceberg catalog: denied" {
		t.Errorf("kept %q", said.error)
	}
}
