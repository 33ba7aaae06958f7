package configkey

import (
	"errors"
	"testing"
)

func TestUnder(t *testing.T) {
	err := Under("retry", errors.Join(Errorf("max_attempts", "must be from %d to %d", 1, 100), Errorf("", "initial_delay must be positive")))
	want := "config key retry.max_attempts: must be from 1 to 100\nconfig key retry: initial_delay must be positive"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %q", err, want)
	}
	if err := Under("schedules", Errorf("[nightly].spec", "bad")); err.Error() != "config key schedules[nightly].spec: bad" {
		t.Errorf("%v", err)
	}
	if Under("retry", nil) != nil {
		t.Error("nothing under a prefix is not nothing")
	}
}
