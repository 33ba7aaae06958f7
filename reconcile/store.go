package reconcile

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// applyWaivers loads the waivers active at as-of into the temporary table
// run_waivers, one for each finding's key: of several that cover it, the
// one that lasts longest (the file's before the workspace's on the same
// day). The others are reported expired.
func applyWaivers(ctx context.Context, conn *sql.Conn, r *findings.Report, waivers []findings.Waiver) error {
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE run_waivers (rule VARCHAR, entity_id VARCHAR,
		reason VARCHAR, owner VARCHAR, expires DATE, id VARCHAR, made_by VARCHAR)`)
	if err != nil {
		return err
	}
	type key struct{ rule, entity string }
	chosen := map[key]findings.Waiver{}
	var order []key
	for _, w := range waivers {
		if !w.ActiveOn(r.AsOf) {
			r.ExpiredWaivers = append(r.ExpiredWaivers, w)
			continue
		}
		k := key{w.Rule, w.EntityID}
		if c, ok := chosen[k]; !ok {
			order = append(order, k)
		} else if !w.Expires.After(c.Expires.Time) {
			continue
		}
		chosen[k] = w
	}
	for _, k := range order {
		w := chosen[k]
		_, err := conn.ExecContext(ctx, "INSERT INTO run_waivers VALUES (?, ?, ?, ?, ?::DATE, nullif(?, ''), nullif(?, ''))",
			w.Rule, w.EntityID, w.Reason, w.Owner, w.Expires.Format("2006-01-02"), w.ID, w.By)
		if err != nil {
			return err
		}
	}
	return nil
}

// store stages this run's findings (runrec.StagedFindings), with their
// history against the previous complete snapshot's findings
// (prev.stored_findings, as compared picks them), and the keys found then
// and not now, as resolved (a key this run did not judge is neither); and
// what each rule did not judge (runrec.StagedUnjudged). Options.Keep
// records them.
func store(ctx context.Context, conn *sql.Conn, r *findings.Report, now time.Time) error {
	if err := runrec.StageTables(ctx, conn); err != nil {
		return err
	}
	period := r.Period.String()
	before, resolves, err := compared(ctx, conn, r.Previous, period)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `
		INSERT INTO `+runrec.StagedFindings+`
		WITH before AS (SELECT * FROM prev.stored_findings WHERE period = ? AND status <> 'resolved')
		SELECT ?, ?, f.rule, f.severity, f.entity, f.entity_id, f.amount, f.currency, f.detail,
		       CASE WHEN b.rule IS NULL THEN 'new' ELSE 'recurring' END, coalesce(b.first_seen, ?),
		       w.rule IS NOT NULL, w.reason, w.owner, w.expires, ?, ?, w.id, w.made_by,
		       c.customer_id, c.customer_name, c.invoice_number
		FROM run_findings f
		LEFT JOIN before b USING (rule, entity_id)
		LEFT JOIN run_waivers w USING (rule, entity_id)
		LEFT JOIN `+runCustomers+` c ON c.entity = f.entity AND c.entity_id = f.entity_id
		UNION ALL
		SELECT ?, ?, b.rule, b.severity, b.entity, b.entity_id, b.amount, b.currency, b.detail,
		       'resolved', b.first_seen, false, NULL, NULL, NULL, ?, ?, NULL, NULL,
		       c.customer_id, c.customer_name, c.invoice_number
		FROM before b ANTI JOIN run_findings f USING (rule, entity_id)
		ANTI JOIN run_unjudged u USING (rule, entity_id)
		LEFT JOIN `+runCustomers+` c ON c.entity = b.entity AND c.entity_id = b.entity_id
		WHERE ?`,
		before,
		r.Snapshot.ID, period, r.Snapshot.ID, r.AsOf.UTC(), now,
		r.Snapshot.ID, period, r.AsOf.UTC(), now, resolves)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO `+runrec.StagedUnjudged+` SELECT DISTINCT ?, ?, rule, entity_id, table_name, field, json_type, ?
		FROM run_unjudged`, r.Snapshot.ID, period, now)
	return err
}

// compared is the period whose findings of the previous snapshot prev a
// reconciliation of period compares with, and whether a finding of them
// that it does not find is resolved. It is period itself, unless prev has
// no reconciliation of period but has one of the whole snapshot (the
// nightly run's): then that one, which holds every finding of the period
// prev had, so that a finding it had recurs; but as it holds the other
// periods' findings too, none of them is resolved for want of this one.
func compared(ctx context.Context, conn *sql.Conn, prev, period string) (string, bool, error) {
	if prev == "" || period == "" {
		return period, true, nil
	}
	recs, err := readmodel.ReconciliationsOf(ctx, conn, prev)
	if err != nil {
		return "", false, err
	}
	has := func(p string) bool {
		return slices.ContainsFunc(recs, func(rc readmodel.Reconciliation) bool { return rc.Period == p })
	}
	if !has(period) && has("") {
		return "", false, nil
	}
	return period, true, nil
}

// load reads the findings back from the relations rel, in rule order,
// resolved last, each with its latest recheck.
func load(ctx context.Context, conn *sql.Conn, r *findings.Report, rel readmodel.Relations) error {
	rows, err := readmodel.Findings(ctx, conn, rel, r.Snapshot.ID, r.Period.String(),
		readmodel.Filter{}, readmodel.Order{Rules: ruleIDs(r.Rules)}, readmodel.Page{})
	if err != nil {
		return err
	}
	for _, row := range rows {
		f := FindingOf(row)
		if f.Rule == findings.IncompleteRule && f.Status != findings.StatusResolved {
			r.Untrusted = true
		}
		r.Findings = append(r.Findings, f)
	}
	return nil
}

// FindingOf is the finding a stored row of the read model is.
func FindingOf(row readmodel.Finding) findings.Finding {
	f := findings.Finding{Rule: row.Rule, Severity: row.Severity, Entity: row.Entity, EntityID: row.EntityID, Amount: row.Amount,
		Currency: row.Currency, Detail: row.Detail, Status: row.Status, FirstSeen: row.FirstSeen, Live: row.Live, CheckedAt: row.CheckedAt,
		CustomerID: row.CustomerID, CustomerName: row.CustomerName, InvoiceNumber: row.InvoiceNumber}
	if row.Waived {
		f.Waiver = &findings.Waiver{Rule: row.Rule, EntityID: row.EntityID, Reason: row.WaiverReason, Owner: row.WaiverOwner,
			Expires: findings.Date{Time: row.WaiverExpires}, ID: row.WaiverID, By: row.WaiverBy}
	}
	return f
}

func ruleIDs(rules []findings.Rule) []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}
