package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/notify/notifytest"
)

// clock is a time the tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// report is a reconciliation of snapshot id whose rule paid_unpaid is
// material, with one finding per entity ID in ids (amounts 10, 20, …).
func report(id string, ids ...string) *findings.Report {
	r := &findings.Report{Snapshot: findings.SnapshotInfo{ID: id},
		Rules: []findings.Rule{{ID: "paid_unpaid", Severity: "high"}, {ID: "minor", Severity: "low"}}}
	for i, e := range ids {
		r.Findings = append(r.Findings, findings.Finding{Rule: "paid_unpaid", Severity: "high", Entity: "invoice", EntityID: e,
			Amount: money.Amount((i + 1) * 1000), Currency: "EUR", Detail: "paid without a payment", Status: findings.StatusNew})
	}
	r.Findings = append(r.Findings, findings.Finding{Rule: "minor", Severity: "low", Entity: "customer", EntityID: "c1", Status: findings.StatusNew})
	if len(ids) > 0 {
		r.Material = []string{fmt.Sprintf("paid_unpaid (high): %d unwaived findings, threshold 1", len(ids))}
	}
	return r
}

// fixture is a notifier with a webhook of every event (json) for a store
// in a temporary directory.
type fixture struct {
	n     *Notifier
	hook  *notifytest.Receiver
	clock *clock
	out   string
	last  time.Time // what LastComplete says
	slept []time.Duration
}

func newFixture(t *testing.T, o Options, status int) *fixture {
	f := &fixture{hook: notifytest.StartReceiver(t, status), clock: &clock{time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}, out: t.TempDir()}
	f.last = f.clock.t
	o.Webhooks = append(o.Webhooks, Webhook{Name: "finance", URL: f.hook.URL, Format: "json", On: Events})
	f.n = New(o, Where{Out: f.out, Log: slog.New(slog.DiscardHandler), Now: f.clock.now, Getenv: os.Getenv, Redact: func(s string) string { return s },
		LastComplete: func(context.Context) (string, time.Time, error) { return "s0", f.last, nil }})
	f.n.Sleep = func(_ context.Context, d time.Duration) error { f.slept = append(f.slept, d); return nil }
	return f
}

// events are the events posted so far.
func (f *fixture) events(t *testing.T) []Message {
	var out []Message
	for _, b := range f.hook.Bodies() {
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		out = append(out, m)
	}
	return out
}

func run(id string, code int) journal.Run {
	status := journal.OK
	switch code {
	case 1:
		status = journal.Failed
	case 3:
		status = journal.Material
	}
	return journal.Run{ID: id, Job: "run", Status: status, ExitCode: code}
}

// Material findings are sent once: the same findings again send nothing;
// a new one sends only it; one gone sends resolved; with remind, findings
// still open are sent again once remind has passed.
func TestMaterialOnceThenResolved(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options{Remind: Duration(7 * 24 * time.Hour)}, 0)
	f.n.AfterRun(ctx, run("r1", 3), report("s1", "i1", "i2"))
	f.n.AfterRun(ctx, run("r2", 3), report("s2", "i1", "i2"))
	ev := f.events(t)
	if len(ev) != 1 || ev[0].Event != Material || ev[0].NewFindings != 2 || len(ev[0].Rules) != 1 || ev[0].Rules[0].Amounts["EUR"] != (Amounts{Net: "30.00", Gross: "30.00"}) {
		t.Fatalf("after two runs with the same findings: %+v", ev)
	}
	if top := ev[0].TopFindings; len(top) != 2 || top[0].EntityID != "i2" || top[0].Amount != "20.00" {
		t.Errorf("top findings %+v, want the largest first", top)
	}
	f.n.AfterRun(ctx, run("r3", 3), report("s3", "i2", "i3"))
	ev = f.events(t)
	if len(ev) != 3 || ev[1].Event != Material || ev[1].NewFindings != 1 || ev[1].TopFindings[0].EntityID != "i3" ||
		ev[2].Event != Resolved || ev[2].ResolvedFindings != 1 {
		t.Fatalf("after one new and one gone: %+v", ev[1:])
	}
	f.n.AfterRun(ctx, run("r4", 0), report("s4"))
	if ev = f.events(t); len(ev) != 4 || ev[3].Event != Resolved || ev[3].ResolvedFindings != 2 {
		t.Fatalf("after every finding gone: %+v", ev[3:])
	}
	f.n.AfterRun(ctx, run("r5", 3), report("s5", "i5"))
	f.clock.t = f.clock.t.Add(8 * 24 * time.Hour)
	f.last = f.clock.t
	f.n.AfterRun(ctx, run("r6", 3), report("s6", "i5"))
	if ev = f.events(t); len(ev) != 6 || ev[5].Event != Material || ev[5].TopFindings[0].EntityID != "i5" {
		t.Fatalf("remind: %+v", ev[4:])
	}
}

// A failed run is sent once, with its exit code and error; an older
// snapshot reconciled again is not news.
func TestFailureOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options{}, 0)
	r := run("r1", 1)
	r.Error = "GET /Customers/: 401 Unauthorized"
	f.n.AfterRun(ctx, r, nil)
	f.n.AfterRun(ctx, r, nil)
	f.n.AfterRun(ctx, run("r2", 0), report("s2", "i1"))
	f.n.AfterRun(ctx, run("r3", 3), report("s1", "i9"))
	ev := f.events(t)
	if len(ev) != 2 || ev[0].Event != Failure || ev[0].ExitCode != 1 || ev[0].Error != r.Error || ev[0].RunID != "r1" || ev[1].Event != Material {
		t.Fatalf("events %+v", ev)
	}
}

// No complete snapshot for longer than stale_after is sent once per
// snapshot; a newer snapshot clears it.
func TestStale(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options{StaleAfter: Duration(26 * time.Hour)}, 0)
	f.n.CheckStale(ctx)
	f.clock.t = f.clock.t.Add(27 * time.Hour)
	f.n.CheckStale(ctx)
	f.n.CheckStale(ctx)
	ev := f.events(t)
	if len(ev) != 1 || ev[0].Event != Stale || ev[0].SnapshotID != "s0" || !strings.Contains(ev[0].Summary, "27h0m") {
		t.Fatalf("events %+v", ev)
	}
}

// A target that keeps failing is tried Attempts times, with backoff, and
// recorded failed; the next run tries again; the others are not held up.
func TestAFailingTarget(t *testing.T) {
	ctx := context.Background()
	good := notifytest.StartReceiver(t, 0)
	f := newFixture(t, Options{Webhooks: []Webhook{{Name: "ops", URL: good.URL, Format: "slack", On: []string{Failure}}}}, http.StatusBadGateway)
	f.n.AfterRun(ctx, run("r1", 1), nil)
	if n := len(f.hook.Bodies()); n != Attempts {
		t.Fatalf("the failing target was tried %d times, want %d", n, Attempts)
	}
	if want := []time.Duration{Backoff, 2 * Backoff, 4 * Backoff}; fmt.Sprint(f.slept) != fmt.Sprint(want) {
		t.Errorf("waits %v, want %v", f.slept, want)
	}
	ds, _ := journal.DeliveriesIn(layout.Dir(f.out).Notifications()).List()
	if len(ds) != 2 || ds[0].Target != "ops" || ds[0].Result != journal.DeliverySent || ds[1].Target != "finance" || ds[1].Result != journal.DeliveryFailed ||
		!strings.Contains(ds[1].Error, "502") || strings.Contains(ds[1].Error, "secret-token") {
		t.Fatalf("record %+v", ds)
	}
	if b := good.Bodies(); len(b) != 1 || !strings.Contains(string(b[0]), `"text"`) {
		t.Errorf("the slack target got %q", b)
	}
	f.n.AfterRun(ctx, run("r2", 0), nil)
	if n := len(f.hook.Bodies()); n != 2*Attempts {
		t.Errorf("the failure not delivered was tried again %d times, want %d", n-Attempts, Attempts)
	}
	closed := newFixture(t, Options{}, 0)
	closed.n.targets[0] = webhookTarget(Webhook{Name: "closed", URL: "http://127.0.0.1:1/hooks/secret-token", Format: "json", On: Events}, 0, http.DefaultClient)
	closed.n.AfterRun(ctx, run("r1", 1), nil)
	if ds, _ := journal.DeliveriesIn(layout.Dir(closed.out).Notifications()).List(); len(ds) != 1 || ds[0].Result != journal.DeliveryFailed || strings.Contains(ds[0].Error, "secret-token") || ds[0].Error == "" {
		t.Errorf("a target that refuses the connection: %+v (its URL must not be in the error)", ds)
	}
	gone := newFixture(t, Options{}, http.StatusNotFound)
	gone.n.AfterRun(ctx, run("r1", 1), nil)
	if n := len(gone.hook.Bodies()); n != 1 || len(gone.slept) != 0 {
		t.Errorf("a target that answers 404 was tried %d times, with %d waits; want once", n, len(gone.slept))
	}
}

// Email over STARTTLS (and implicit TLS) on a self-signed certificate with
// AUTH PLAIN: the message arrives; neither the password nor the webhook's
// secret URL is in the mail or the record.
func TestEmail(t *testing.T) {
	for _, implicit := range []bool{false, true} {
		mail := notifytest.StartSMTP(t, implicit, "billsnap", "smtp-Pa55word")
		t.Setenv("BILLSNAP_TEST_SMTP_PASSWORD", mail.Pass)
		tlsMode := map[bool]string{false: "starttls", true: "implicit"}[implicit]
		f := newFixture(t, Options{Email: &Email{Host: mail.Host, Port: mail.Port, TLS: tlsMode, CAFile: mail.CAFile, User: mail.User,
			PasswordEnv: "BILLSNAP_TEST_SMTP_PASSWORD", From: "billsnap@example.com", To: []string{"finance@example.com"}, On: []string{Material}}}, 0)
		f.n.AfterRun(context.Background(), run("r1", 3), report("s1", "i1"))
		got := mail.Mails()
		if len(got) != 1 || !strings.Contains(string(got[0]), "Subject: billsnap: material findings in snapshot s1") ||
			!strings.Contains(string(got[0]), "paid_unpaid invoice i1: 10.00 EUR") {
			t.Fatalf("%s: mails %q", tlsMode, got)
		}
		record, _ := os.ReadFile(filepath.Join(f.out, ".billsnap", "notifications.jsonl"))
		for _, secret := range []string{mail.Pass, "secret-token"} {
			if strings.Contains(string(got[0]), secret) || strings.Contains(string(record), secret) {
				t.Errorf("%s: %q is in the mail or the record", tlsMode, secret)
			}
		}
		if !strings.Contains(mail.Transcript(), "AUTH PLAIN") {
			t.Errorf("%s: no AUTH in the conversation", tlsMode)
		}
	}
}

// A server that offers no STARTTLS gets no mail.
func TestNoMailInTheClear(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "220 plain ESMTP\r\n")
		buf := make([]byte, 512)
		c.Read(buf)
		io.WriteString(c, "250 plain\r\n")
		c.Read(buf)
	}()
	e := Email{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, From: "a@example.com", To: []string{"b@example.com"}}
	err = e.send(context.Background(), "", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "no STARTTLS") {
		t.Fatalf("sent in the clear: %v", err)
	}
}

// A run killed (its record still says running, not seen for longer than
// journal.Stale) is sent as a failure, once, by the next run's notifier.
func TestAKilledRunIsAFailure(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options{}, 0)
	e, err := journal.New(layout.Dir(f.out).Runs(), f.clock.now).Start(journal.Run{Job: "export"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.t = f.clock.t.Add(time.Minute)
	f.n.AfterRun(ctx, run("r2", 0), nil)
	f.n.AfterRun(ctx, run("r3", 0), nil)
	ev := f.events(t)
	if len(ev) != 1 || ev[0].Event != Failure || ev[0].RunID != e.Run().ID || ev[0].ExitCode != journal.KilledExitCode {
		t.Fatalf("events %+v, want one failure of the killed run", ev)
	}
}

// The Slack body is {"text": …}; the Teams body an Adaptive Card message;
// both say the summary.
func TestChatBodies(t *testing.T) {
	m := materialMessage(report("s1", "i1"), report("s1", "i1").Findings[:1])
	var slack struct{ Text string }
	var teams struct {
		Type        string
		Attachments []struct {
			ContentType string
			Content     struct{ Body []struct{ Text string } }
		}
	}
	sb, _ := webhookBody("slack", m)
	tb, _ := webhookBody("teams", m)
	if json.Unmarshal(sb, &slack) != nil || !strings.HasPrefix(slack.Text, m.Summary) || !strings.Contains(slack.Text, "EUR net 10.00, gross 10.00") {
		t.Errorf("slack: %s", sb)
	}
	if json.Unmarshal(tb, &teams) != nil || teams.Type != "message" || len(teams.Attachments) != 1 ||
		teams.Attachments[0].ContentType != "application/vnd.microsoft.card.adaptive" || teams.Attachments[0].Content.Body[0].Text != m.Summary {
		t.Errorf("teams: %s", tb)
	}
}

// A failure whose error holds a mention, a labelled link, Markdown and HTML
// (text from the service, as an export's error quotes it) reaches Slack and
// Teams as text: no <!channel> or <https://…|label> for Slack to act on,
// no [label](url) or **bold** for the card to draw; a rule's name keeps
// its underscores.
func TestChatTextIsEscapedPerPlatform(t *testing.T) {
	evil := `<!channel> <@U024BE7LH> <https://evil.example|your invoice> [pay here](https://evil.example) **now** & <b>x</b> # h`
	m := Message{Event: Failure, Summary: "billsnap export failed", Error: evil, Rules: []RuleSummary{{Rule: "charge_not_invoiced", Severity: "high", Count: 1}}}
	var slack struct{ Text string }
	sb, _ := webhookBody("slack", m)
	if err := json.Unmarshal(sb, &slack); err != nil || strings.ContainsAny(slack.Text, "<>") ||
		!strings.Contains(slack.Text, "&lt;!channel&gt; &lt;@U024BE7LH&gt; &lt;https://evil.example|your invoice&gt;") || !strings.Contains(slack.Text, "&amp; &lt;b&gt;") {
		t.Errorf("slack: %v %s", err, slack.Text)
	}
	var teams struct {
		Attachments []struct {
			Content struct{ Body []struct{ Text string } }
		}
	}
	tb, _ := webhookBody("teams", m)
	if err := json.Unmarshal(tb, &teams); err != nil || len(teams.Attachments) != 1 || len(teams.Attachments[0].Content.Body) != 2 {
		t.Fatalf("teams: %v %s", err, tb)
	}
	rest := teams.Attachments[0].Content.Body[1].Text
	for _, want := range []string{`\[pay here\](https://evil.example)`, `\*\*now\*\*`, `\<\!channel\>`, `\<b\>x\</b\>`, `\# h`, "charge_not_invoiced"} {
		if !strings.Contains(rest, want) {
			t.Errorf("teams: %q lacks %q", rest, want)
		}
	}
}
