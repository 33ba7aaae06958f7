package reconcile

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot"
)

// applyWaivers loads the waivers active at as-of into the temporary table
// run_waivers, one for each finding's key: of several that cover it, the
// one that lasts longest (the file's before the workspace's on the same
// day). The others are reported expired.
func (r *Report) applyWaivers(ctx context.Context, conn *sql.Conn, waivers []Waiver) error {
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE run_waivers (rule VARCHAR, entity_id VARCHAR,
		reason VARCHAR, owner VARCHAR, expires DATE, id VARCHAR, made_by VARCHAR)`)
	if err != nil {
		return err
	}
	type key struct{ rule, entity string }
	chosen := map[key]Waiver{}
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

// store stages this run's findings (snapshot.StagedFindings), with their
// history against the previous complete snapshot's findings of the same
// period (prev.stored_findings), and the keys found then and not now, as
// resolved (a key this run did not judge is neither); and what each rule
// did not judge (snapshot.StagedUnjudged). Options.Keep records them.
func (r *Report) store(ctx context.Context, conn *sql.Conn, now time.Time) error {
	if err := snapshot.StageTables(ctx, conn); err != nil {
		return err
	}
	period := r.Period.String()
	_, err := conn.ExecContext(ctx, `
		INSERT INTO `+snapshot.StagedFindings+`
		WITH before AS (SELECT * FROM prev.stored_findings WHERE period = ? AND status <> 'resolved')
		SELECT ?, ?, f.rule, f.severity, f.entity, f.entity_id, f.amount, f.currency, f.detail,
		       CASE WHEN b.rule IS NULL THEN 'new' ELSE 'recurring' END, coalesce(b.first_seen, ?),
		       w.rule IS NOT NULL, w.reason, w.owner, w.expires, ?, ?, w.id, w.made_by
		FROM run_findings f
		LEFT JOIN before b USING (rule, entity_id)
		LEFT JOIN run_waivers w USING (rule, entity_id)
		UNION ALL
		SELECT ?, ?, b.rule, b.severity, b.entity, b.entity_id, b.amount, b.currency, b.detail,
		       'resolved', b.first_seen, false, NULL, NULL, NULL, ?, ?, NULL, NULL
		FROM before b ANTI JOIN run_findings f USING (rule, entity_id)
		ANTI JOIN run_unjudged u USING (rule, entity_id)`,
		period,
		r.Snapshot.ID, period, r.Snapshot.ID, r.AsOf.UTC(), now,
		r.Snapshot.ID, period, r.AsOf.UTC(), now)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO `+snapshot.StagedUnjudged+` SELECT DISTINCT ?, ?, rule, entity_id, table_name, field, json_type, ?
		FROM run_unjudged`, r.Snapshot.ID, period, now)
	return err
}

// LiveSQL is the latest recheck of each finding of snapshot ? (rule,
// entity_id, live, checked_at), to join the findings with.
const LiveSQL = `SELECT rule, entity_id, arg_max(live, checked_at) AS live, max(checked_at) AS checked_at
	FROM rechecks WHERE snapshot_id = ? GROUP BY rule, entity_id`

// liveOf is LiveSQL over the rechecks of relation rechecks.
func liveOf(rechecks string) string {
	return strings.Replace(LiveSQL, "FROM rechecks", "FROM "+rechecks, 1)
}

// load reads the stored findings back from the relations findings and
// rechecks, in rule order, resolved last, each with its latest recheck.
func (r *Report) load(ctx context.Context, conn *sql.Conn, findings, rechecks string) error {
	rows, err := conn.QueryContext(ctx, `SELECT rule, severity, entity, entity_id, CAST(amount AS VARCHAR), coalesce(currency, ''),
		coalesce(detail, ''), status, first_seen, waived, coalesce(waiver_reason, ''), coalesce(waiver_owner, ''), waiver_expires,
		coalesce(waiver_id, ''), coalesce(waiver_by, ''), coalesce(k.live, ''), k.checked_at
		FROM `+findings+` LEFT JOIN (`+liveOf(rechecks)+`) k USING (rule, entity_id) WHERE snapshot_id = ? AND period = ?
		ORDER BY status = 'resolved', list_position(?, rule), entity_id`, r.Snapshot.ID, r.Snapshot.ID, r.Period.String(), ruleIDs(r.Rules))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var f Finding
		var amount string
		var waived bool
		var w Waiver
		var expires, checked sql.NullTime
		err := rows.Scan(&f.Rule, &f.Severity, &f.Entity, &f.EntityID, &amount, &f.Currency, &f.Detail, &f.Status,
			&f.FirstSeen, &waived, &w.Reason, &w.Owner, &expires, &w.ID, &w.By, &f.Live, &checked)
		if err != nil {
			return err
		}
		if f.Amount, err = money.Parse(amount); err != nil {
			return err
		}
		if waived {
			w.Rule, w.EntityID, w.Expires = f.Rule, f.EntityID, Date{expires.Time}
			f.Waiver = &w
		}
		if checked.Valid {
			f.CheckedAt = checked.Time.UTC()
		}
		if f.Rule == IncompleteRule && f.Status != StatusResolved {
			r.Untrusted = true
		}
		r.Findings = append(r.Findings, f)
	}
	return rows.Err()
}

func ruleIDs(rules []Rule) []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}
