package access

import "slices"

// Names tells whether name is one of the workspace's users, who may be
// given work: with identity tokens, a name of the tokens file as it is
// now; with identity header, a name some role gives (not "*"); without
// identity, where names are as typed, any name not blank.
func (c *Control) Names(name string) bool {
	switch {
	case trimmed(name) == "" || name == "*":
		return false
	case c == nil || c.Identity == None:
		return true
	case c.Identity == Tokens:
		return c.Known(name)
	}
	r := c.Roles
	for _, names := range [][]string{r.Waive, r.SignOff, r.Close, r.Assign} {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}
