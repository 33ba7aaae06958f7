package state

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SweepEnded removes what ended processes left in dir: field i of an
// entry's dot-separated name is the process's ID (an entry without one is
// an ended process's). With age above 0, other processes' entries older
// than age go too: their number may have been used again.
func SweepEnded(dir string, i int, age time.Duration) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		pid := pidIn(e.Name(), i)
		stale := age > 0 && pid != os.Getpid() && time.Since(info.ModTime()) > age
		if stale || !ProcessRuns(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// pidIn is the process ID that field i of a name of dot-separated fields
// gives, 0 for none.
func pidIn(name string, i int) int {
	parts := strings.Split(name, ".")
	if len(parts) <= i {
		return 0
	}
	pid, _ := strconv.Atoi(parts[i])
	return pid
}
