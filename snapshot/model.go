package snapshot

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/modelfile"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// The read model (package readmodel) is built in a section of the state
// and published when the section commits: the section's value holds the
// model it built (built).

// model is the store's read model as the store has it now (its tables
// change when a snapshot assigns field IDs).
func (s *Store) model() modelfile.Model {
	return modelfile.Model{At: s.at, Public: s.publicPath, Tables: s.tables,
		Trees: []modelfile.ParquetTree{{Link: s.tree.Link, Status: StatusComplete},
			{Link: s.incomplete.Link, Status: StatusIncomplete, Prefix: "incomplete_"}},
		Records: s.recs, RecordsLink: s.recs.Link(), Runs: s.runs, RowGroupSize: s.duck.RowGroupSize, Log: s.log}
}

// publishModel makes base, a private DuckDB file holding latest_<table>
// tables, the next read model (modelfile.Model.Build), which section sec
// publishes once it commits (publishPending). latest is the snapshot its
// latest_ tables hold ("" when none).
func (s *Store) publishModel(ctx context.Context, sec *Section, base, latest string) error {
	if err := s.model().Build(ctx, sec.DB(), base, latest); err != nil {
		return err
	}
	sec.built = base
	return nil
}

// bind makes the views reconcile reads on conn (modelfile.Model.Bind),
// the latest snapshot from a copy of the public file when it is the one
// the last publish showed (modelfile.Model.CopyOfPublic), removed once
// attached.
func (s *Store) bind(ctx context.Context, conn *sql.Conn, cur, prev string) ([]runrec.File, error) {
	m := s.model()
	var pub modelfile.PublicCopy
	if f, err := os.CreateTemp(s.at.Private(), readingCopies); err == nil {
		f.Close()
		if pub = m.CopyOfPublic(f.Name()); pub.Path == "" {
			os.Remove(f.Name())
		}
	}
	return m.Bind(ctx, conn, cur, prev, pub)
}

// readingCopies names the copies of the public file that readings make
// (bind): each is removed once attached, so one is left only by a
// process killed in between (removeReadingCopies).
const readingCopies = "model.reading.*.duckdb"

// removeReadingCopies removes the copies of the public file that a
// process killed between its copy and its attach left, those older than
// a minute (a copy lives for less than a second).
func (s *Store) removeReadingCopies() {
	left, _ := filepath.Glob(filepath.Join(s.at.Private(), readingCopies))
	for _, p := range left {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(p)
		}
	}
}

// markPending records, before a section commits, that what it built is
// to be shown: the marker stays until publishPending has shown it all,
// so that the next billsnap finishes a publish a crash cut short
// (finishPublish).
func (s *Store) markPending(sec *Section) error {
	if sec.built == "" && sec.recordsNext == "" {
		return nil
	}
	return os.WriteFile(s.at.PublishPending(), nil, 0o644)
}

// publishPending shows what a section built, once the state has
// committed: the records' generation, then the model
// (modelfile.Model.Show); then removes history's files they no longer
// read.
func (s *Store) publishPending(sec *Section) error {
	built := sec.built
	sec.built = ""
	if built == "" && sec.recordsNext == "" {
		return nil
	}
	if err := s.showRecords(sec); err != nil {
		return err
	}
	crashpoint.Hit("records.shown")
	if err := s.model().Show(built); err != nil {
		return err
	}
	removeDead(sec)
	return os.Remove(s.at.PublishPending())
}

// removeDead removes the files of history that the records sec showed
// no longer read (history.Dead). One a kill leaves is among the next
// section's that packs or prunes history.
func removeDead(sec *Section) {
	for _, f := range sec.dead {
		os.Remove(f)
	}
	sec.dead = nil
}

// finishPublish publishes the records and the read model again when a
// crash cut a publish short.
func (s *Store) finishPublish(ctx context.Context, sec *Section) error {
	if _, err := os.Stat(s.at.PublishPending()); err != nil {
		return nil
	}
	s.log.Warn("finishing the publication a run left unfinished")
	return s.syncModel(ctx, sec)
}

// syncModel publishes the state as it is now: the records always; the
// read model when it is not the one the state asks for
// (modelfile.Model.Sync). The two are built at once, on two connections
// of the section: the model's views read the records through their link,
// which shows the generation before until the section commits.
func (s *Store) syncModel(ctx context.Context, sec *Section) error {
	if err := s.beforeRecords(ctx, sec); err != nil {
		return err
	}
	records := make(chan error, 1)
	go func() { records <- s.writeRecords(ctx, sec) }()
	built, err := s.model().Sync(ctx, sec.DB(), sec.built)
	if built != "" {
		sec.built = built
	}
	if rerr := <-records; err == nil {
		err = rerr
	}
	return err
}

// buildRecords writes the next generation of the records
// (runrec.Records.Build), to be shown once section sec commits
// (showRecords), history's folders given the empty files their views
// read first.
func (s *Store) buildRecords(ctx context.Context, sec *Section) error {
	if err := s.beforeRecords(ctx, sec); err != nil {
		return err
	}
	return s.writeRecords(ctx, sec)
}

// beforeRecords drops a generation of the records built and not shown,
// and gives history's folders, and the records' current generation, the
// files the read model's views read (runrec.Records.Ready).
func (s *Store) beforeRecords(ctx context.Context, sec *Section) error {
	s.dropRecords(sec)
	if err := s.ensureHistoryFolders(ctx, sec); err != nil {
		return err
	}
	return s.recs.Ready(ctx, sec.DB())
}

// writeRecords writes the next generation of the records, to be shown
// once section sec commits.
func (s *Store) writeRecords(ctx context.Context, sec *Section) error {
	next, err := s.recs.Build(ctx, sec.DB())
	sec.recordsNext = next
	return err
}

// showRecords points the records' link at the generation built.
func (s *Store) showRecords(sec *Section) error {
	next := sec.recordsNext
	sec.recordsNext = ""
	if next == "" {
		return nil
	}
	return s.recs.Show(next)
}

// dropRecords removes a generation built and not shown.
func (s *Store) dropRecords(sec *Section) {
	runrec.Drop(sec.recordsNext)
	sec.recordsNext = ""
}
