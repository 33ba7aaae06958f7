package access

import (
	"strings"
	"testing"
)

// Who may assign is roles.assign, and unset, whoever may waive; a user of
// identity header is a name some role gives; without identity any name
// not blank is a user.
func TestAssignRoleAndNames(t *testing.T) {
	c := Config{Identity: Header, Roles: Roles{Waive: []string{"erin"}, SignOff: []string{"dana"}}}
	erin, dana := User{Name: "erin", Auth: Header}, User{Name: "dana", Auth: Header}
	if err := c.May(erin, RoleAssign); err != nil {
		t.Fatalf("erin waives, so assigns: %v", err)
	}
	if err := c.May(dana, RoleAssign); err == nil || !strings.Contains(err.Error(), "workspace.roles.waive") {
		t.Fatalf("dana: %v", err)
	}
	c.Roles.Assign = []string{"dana"}
	if c.May(erin, RoleAssign) == nil || c.May(dana, RoleAssign) != nil {
		t.Fatal("roles.assign set is who assigns")
	}
	c.Roles.Assign = []string{}
	if err := c.May(dana, RoleAssign); err == nil || !strings.Contains(err.Error(), "workspace.roles.assign") {
		t.Fatalf("roles.assign empty is no one: %v", err)
	}
	ctl := &Control{Config: c}
	for name, want := range map[string]bool{"erin": true, "dana": true, "frank": false, "*": false, "": false} {
		if ctl.Names(name) != want {
			t.Errorf("header: %q named %v", name, !want)
		}
	}
	var none *Control
	if !none.Names("anyone") || none.Names(" ") {
		t.Error("without identity any name not blank is a user")
	}
}
