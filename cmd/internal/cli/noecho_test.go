package cli

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// cliAt is cli against the service at base (base_url and front_url).
func cliAt(t *testing.T, base string, args ...string) (int, string, string) {
	t.Helper()
	vars := map[string]string{"BILLSNAP_API_KEY": sandboxtest.Key, "BILLSNAP_BASE_URL": base, "BILLSNAP_FRONT_URL": base}
	var out, errb bytes.Buffer
	env := newEnv(&out, &errb, func(k string) string { return vars[k] })
	env.clock = fakeclock.New(time.Now())
	env.tune = oneThread
	code := env.run(context.Background(), args)
	return code, out.String(), errb.String()
}
