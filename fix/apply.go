package fix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/plural"
)

// errcodeAlreadyPaid is the Errorcode of a second markpaid (spec §4.5).
const errcodeAlreadyPaid = 85000

// maxSends is how many times one action is sent, each after a read found
// the one before not made.
const maxSends = 3

// Applier applies plans through the service's own operations.
type Applier struct {
	Client  *extract.Client
	BaseURL string
	Record  *Record
	// ReadBack tells whether the service has made act, by reading it:
	// what apply does before sending again a write whose fate is
	// unknown.
	ReadBack func(ctx context.Context, act Action) (bool, error)
	Out      io.Writer // the dry run's requests and the summary
}

// Summary is what an apply did.
type Summary struct {
	Done, AlreadyDone, Skipped, Failed int
	Writes                             int // requests sent
}

// request is the write an action makes, its ID escaped in the path (the
// plan's Check has refused one that is not a GUID).
func (a *Applier) request(act Action) (method, target string, body []byte) {
	base := strings.TrimRight(a.BaseURL, "/")
	switch act.Op {
	case OpMarkPaid:
		body, _ = json.Marshal(map[string]string{"PaymentDate": act.PaymentDate})
		return http.MethodPut, base + "/v3/invoices/" + url.PathEscape(act.InvoiceID) + "/markpaid/", body
	default:
		body, _ = json.Marshal(map[string]int64{"quantity": *act.Quantity})
		return http.MethodPut, base + "/v3/subscriptioncharges/" + url.PathEscape(act.ReferenceID) + "/setamountbyreferenceid", body
	}
}

// DryRun prints every request apply would send, those the record shows
// made left out, and sends none; a plan that fails Check is an error.
func (a *Applier) DryRun(p Plan) error {
	if err := p.Check(); err != nil {
		return err
	}
	events, err := a.Record.Events(p.Digest)
	if err != nil {
		return err
	}
	st := states(events)
	n := 0
	for _, act := range p.Actions {
		if st[act.Key()] == made {
			fmt.Fprintf(a.Out, "# %s: made already (the record says so), not sent\n", act.Key())
			continue
		}
		method, url, body := a.request(act)
		fmt.Fprintf(a.Out, "%s %s %s\n", method, extract.RedactURL(url), body)
		n++
	}
	fmt.Fprintf(a.Out, "dry run: %s would be sent, none was\n", plural.Of(n, "request"))
	return nil
}

// Apply applies p: each action not yet made, once. An action the record
// shows sent with no answer (a run that died) is read back first. A plan
// that fails Check is an error, and nothing is sent.
func (a *Applier) Apply(ctx context.Context, p Plan) (Summary, error) {
	var sum Summary
	if err := p.Check(); err != nil {
		return sum, err
	}
	events, err := a.Record.Events(p.Digest)
	if err != nil {
		return sum, err
	}
	st := states(events)
	for _, act := range p.Actions {
		outcome, err := a.applyOne(ctx, p.Digest, act, st[act.Key()], &sum)
		if err != nil {
			return sum, fmt.Errorf("%s: %w", act.Key(), err)
		}
		switch outcome {
		case Done:
			sum.Done++
		case AlreadyDone:
			sum.AlreadyDone++
		case Failed:
			sum.Failed++
		default:
			sum.Skipped++
		}
	}
	return sum, nil
}

// applyOne brings one action to an outcome.
func (a *Applier) applyOne(ctx context.Context, plan string, act Action, st state, sum *Summary) (string, error) {
	switch st {
	case made:
		return "", nil
	case uncertain:
		made, err := a.readBack(ctx, plan, act, "sent by an earlier apply that recorded no answer")
		if err != nil || made {
			return Done, err
		}
	}
	for send := 1; send <= maxSends; send++ {
		outcome, err := a.send(ctx, plan, act, sum)
		var unknown *extract.UnknownFateError
		if !errors.As(err, &unknown) {
			return outcome, err
		}
		made, err := a.readBack(ctx, plan, act, unknown.Error())
		if err != nil || made {
			return Done, err
		}
	}
	return Failed, fmt.Errorf("sent %d times, each time with no answer, and not made", maxSends)
}

// send sends act once, recording the request before it leaves and the
// answer when it comes.
func (a *Applier) send(ctx context.Context, plan string, act Action, sum *Summary) (string, error) {
	method, url, body := a.request(act)
	ev := Event{Plan: plan, Key: act.Key(), Method: method, URL: extract.RedactURL(url), Request: string(body)}
	sending := ev
	sending.Event = EvSending
	if err := a.Record.Add(sending); err != nil {
		return "", err
	}
	crashpoint.Hit("fix.sending")
	sum.Writes++
	ans, err := a.Client.Write(ctx, method, url, body)
	var unknown *extract.UnknownFateError
	if errors.As(err, &unknown) {
		ev.Event, ev.Status, ev.Response, ev.Note = EvUnknown, ans.Status, ans.Body, a.Client.Redact(err.Error())
		if rerr := a.Record.Add(ev); rerr != nil {
			return "", rerr
		}
		return "", err
	}
	if err != nil {
		return "", err
	}
	ev.Event, ev.Status, ev.Response, ev.Outcome = EvAnswered, ans.Status, ans.Body, outcomeOf(act, ans)
	return ev.Outcome, a.Record.Add(ev)
}

// outcomeOf reads an answer: made, made before, or refused.
func outcomeOf(act Action, ans extract.Answer) string {
	switch {
	case ans.Status >= 200 && ans.Status < 300:
		return Done
	case act.Op == OpMarkPaid && ans.Err != nil && ans.Err.Errorcode == errcodeAlreadyPaid:
		return AlreadyDone
	}
	return Failed
}

// readBack reads whether act was made, and records what it found.
func (a *Applier) readBack(ctx context.Context, plan string, act Action, why string) (bool, error) {
	made, err := a.ReadBack(ctx, act)
	if err != nil {
		return false, fmt.Errorf("reading back: %w", err)
	}
	ev := Event{Plan: plan, Key: act.Key(), Event: EvReadBack, Outcome: NotMade, Note: why}
	if made {
		ev.Outcome = Done
	}
	return made, a.Record.Add(ev)
}
