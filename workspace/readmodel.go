package workspace

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// readModel is the store's read model, opened read-only, and opened again
// when a publish has renamed a new one over it. A request holds the
// database it got until it is done; one replaced is closed once the last
// request holding it is.
type readModel struct {
	opts storeconfig.Options
	mu   sync.Mutex
	cur  *openModel
}

type openModel struct {
	db    *sql.DB
	file  fileID
	users sync.WaitGroup
}

// fileID tells one file at a path from the next renamed over it.
type fileID struct {
	dev, ino uint64
	mtime    time.Time
}

func newReadModel(o storeconfig.Options) *readModel { return &readModel{opts: o} }

func statFile(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id, nil
}

// get returns the read model as it is now, and the func to call when done
// with it. It is snapshot.ErrNoStore (wrapped) when there is none.
func (m *readModel) get(ctx context.Context) (*sql.DB, func(), error) {
	path := filepath.Join(m.opts.Out, m.opts.DuckDB.File)
	id, statErr := statFile(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil || statErr != nil || id != m.cur.file {
		db, err := snapshot.OpenRead(ctx, m.opts)
		if err != nil {
			return nil, nil, err
		}
		m.retire()
		m.cur = &openModel{db: db, file: id}
	}
	cur := m.cur
	cur.users.Add(1)
	return cur.db, cur.users.Done, nil
}

// retire closes the current model once its last user is done.
func (m *readModel) retire() {
	if old := m.cur; old != nil {
		m.cur = nil
		go func() {
			old.users.Wait()
			old.db.Close()
		}()
	}
}

func (m *readModel) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil {
		return nil
	}
	m.cur.users.Wait()
	err := m.cur.db.Close()
	m.cur = nil
	return err
}
