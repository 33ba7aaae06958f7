package notifytest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Decode decodes the json bodies r got as messages of type M (a
// notify.Message).
func Decode[M any](t testing.TB, r *Receiver) []M {
	t.Helper()
	var out []M
	for _, b := range r.Bodies() {
		var m M
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		out = append(out, m)
	}
	return out
}

// SweepSecrets fails t when a secret is in a payload hook got, a mail the
// SMTP server took (when mail is not nil), the output or a file under dir.
func SweepSecrets(t testing.TB, dir, output string, hook *Receiver, mail *SMTP, secrets ...string) {
	t.Helper()
	places := map[string]string{"the output": output}
	for i, b := range hook.Bodies() {
		places[fmt.Sprintf("payload %d", i)] = string(b)
	}
	if mail != nil {
		for i, m := range mail.Mails() {
			places[fmt.Sprintf("mail %d", i)] = string(m)
		}
		places["the SMTP conversation"] = mail.Transcript() // AUTH PLAIN carries the password base64-encoded, never as it is
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			places[path] = string(b)
		}
		return nil
	})
	for where, text := range places {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%q is in %s", s, where)
			}
		}
	}
}
