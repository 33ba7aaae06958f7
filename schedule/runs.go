package schedule

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// Run statuses.
const (
	StatusRunning     = "running"
	StatusOK          = "ok"
	StatusMaterial    = "material"    // ran, found something material (exit 3)
	StatusFailed      = "failed"      // exit 1 or 2
	StatusInterrupted = "interrupted" // SIGINT/SIGTERM, or found running after a crash
)

// Run is one execution of a job.
type Run struct {
	ID       string
	Started  time.Time
	Finished time.Time // zero while running
	Job      string    // export, reconcile, run (or the one-shot command)
	Schedule string    // "" for a one-shot command
	Period   string
	Status   string
	Error    string
	Snapshot string
	ExitCode int
}

// runSeq tells apart the runs a process starts within one microsecond.
var runSeq atomic.Int64

const runsSQL = `CREATE TABLE IF NOT EXISTS runs (
  id VARCHAR PRIMARY KEY,
  started TIMESTAMPTZ NOT NULL,
  finished TIMESTAMPTZ,
  job VARCHAR NOT NULL,
  schedule VARCHAR NOT NULL,
  period VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  error VARCHAR,
  snapshot_id VARCHAR,
  exit_code INTEGER,
  pid INTEGER NOT NULL)`

// start records run r as running. A run still marked running was cut off
// (the directory lock is held, so nobody else runs): it becomes interrupted.
func start(ctx context.Context, db *sql.DB, r *Run) error {
	if _, err := db.ExecContext(ctx, runsSQL); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `UPDATE runs SET status = 'interrupted', finished = coalesce(finished, ?),
		error = 'the process ended before the run did' WHERE status = 'running'`, r.Started)
	if err != nil {
		return err
	}
	r.ID = fmt.Sprintf("%s-%s-%d-%d", r.Started.Format("20060102T150405.000000Z"), r.Job, os.Getpid(), runSeq.Add(1))
	_, err = db.ExecContext(ctx, "INSERT INTO runs VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, NULL, NULL, ?)",
		r.ID, r.Started, r.Job, r.Schedule, r.Period, StatusRunning, os.Getpid())
	return err
}

// finish records the outcome of run r. It uses its own deadline, so that
// an interrupted run is still recorded.
func finish(db *sql.DB, r *Run) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := db.ExecContext(ctx, "UPDATE runs SET finished = ?, status = ?, error = nullif(?, ''), snapshot_id = nullif(?, ''), exit_code = ? WHERE id = ?",
		r.Finished, r.Status, r.Error, r.Snapshot, r.ExitCode, r.ID)
	return err
}

// LastRuns returns the newest n runs, newest first; none when no job ever
// ran. It only reads, so it works on a database opened read-only.
func LastRuns(ctx context.Context, db *sql.DB, n int) ([]Run, error) {
	if !exists(ctx, db, "runs") {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT id, started, coalesce(finished, started), job, schedule, period, status,
		coalesce(error, ''), coalesce(snapshot_id, ''), coalesce(exit_code, 0) FROM runs ORDER BY started DESC, id DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.Started, &r.Finished, &r.Job, &r.Schedule, &r.Period, &r.Status, &r.Error, &r.Snapshot, &r.ExitCode); err != nil {
			return nil, err
		}
		if r.Status == StatusRunning {
			r.Finished = time.Time{}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
