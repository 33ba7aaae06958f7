package help

import (
	"flag"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/internal/nearest"
)

// UnknownCommand is the one line that answers a command billsnap does not
// have, of those named: the nearest command when one is near, and where
// the list is.
func UnknownCommand(name string, names []string) string {
	return fmt.Sprintf("billsnap: unknown command %q%s ('billsnap --help' lists the commands)\n", name, DidYouMean(name, names))
}

// DidYouMean is `; did you mean "x"?` for the choice nearest to word, or
// "" when none is near.
func DidYouMean(word string, choices []string) string {
	if near, ok := nearest.Of(word, choices); ok {
		return fmt.Sprintf("; did you mean %q?", near)
	}
	return ""
}

// undefinedFlag is the prefix of the flag package's error for a flag the
// set does not define.
const undefinedFlag = "flag provided but not defined: -"

// FlagSuggestion is "; did you mean --x?" when err is the flag package's
// error for a flag fs does not define and one of fs's flags is near it;
// else "".
func FlagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlag)
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	near, ok := nearest.Of(name, names)
	if !ok {
		return ""
	}
	dashes := "--"
	if len(near) == 1 {
		dashes = "-"
	}
	return "; did you mean " + dashes + near + "?"
}
