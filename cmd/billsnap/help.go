package main

import "slices"

// commandArgs rewrites the spellings other tools teach into billsnap's
// own, before a command is looked up: `billsnap help CMD …` is
// `billsnap CMD … --help`, and `billsnap --version` (or -version, -v) is
// `billsnap version`. Other arguments are returned as they are.
func commandArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	switch args[0] {
	case "help":
		if len(args) > 1 {
			return append(slices.Clone(args[1:]), "--help")
		}
	case "--version", "-version", "-v":
		return append([]string{"version"}, args[1:]...)
	}
	return args
}
