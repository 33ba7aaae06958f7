package main

import (
	"os"
	"runtime/pprof"
	"strings"
)

// profileEnv names, in the export's child, the file its CPU profile is
// written to.
const profileEnv = "BILLSNAP_BENCH_CPUPROFILE"

// cpuProfileArg takes --cpuprofile FILE (or --cpuprofile=FILE) out of
// args: the CPU profile of the process that does the work (the export's
// child; with --history or --year, this one) goes to FILE.
func cpuProfileArg(args []string) (file string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := strings.TrimPrefix(args[i], "-")
		switch {
		case a == "-cpuprofile" || a == "cpuprofile":
			if i+1 < len(args) {
				file = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "-cpuprofile=") || strings.HasPrefix(a, "cpuprofile="):
			file = a[strings.IndexByte(a, '=')+1:]
		default:
			rest = append(rest, args[i])
		}
	}
	return file, rest
}

// startProfile writes the CPU profile of this process to file until stop
// is called; with no file, it does nothing.
func startProfile(file string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
