package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/billsnap/billsnap/access"
)

// maxSessions is the most sessions held at once; a login past it ends the
// session closest to its end.
const maxSessions = 10000

// session is what a login opened: who, the hash of the token it showed
// (so that a token removed or rotated ends it), and when it ends.
type session struct {
	user    access.User
	sum     [sha256.Size]byte
	expires time.Time
}

// sessions are the logins' sessions, held on the server: a logout or an
// expiry ends one whatever its cookie says. A restart ends them all.
type sessions struct {
	mu  sync.Mutex
	m   map[string]session
	ttl time.Duration
	now func() time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{m: map[string]session{}, ttl: ttl, now: now}
}

// open starts a session of u, opened with the token hashing to sum, and
// returns its ID (the cookie's value).
func (ss *sessions) open(u access.User, sum [sha256.Size]byte) (string, error) {
	b, err := randomBytes(32)
	if err != nil {
		return "", err
	}
	id := hex.EncodeToString(b)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.m) >= maxSessions {
		ss.evict()
	}
	ss.m[id] = session{user: u, sum: sum, expires: ss.now().Add(ss.ttl)}
	return id, nil
}

// evict ends the expired sessions, or when none is, the one closest to
// its end.
func (ss *sessions) evict() {
	now, first := ss.now(), ""
	for id, s := range ss.m {
		if !now.Before(s.expires) {
			delete(ss.m, id)
		} else if first == "" || s.expires.Before(ss.m[first].expires) {
			first = id
		}
	}
	if len(ss.m) >= maxSessions {
		delete(ss.m, first)
	}
}

// get is the live session of id; an expired one is ended.
func (ss *sessions) get(id string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[id]
	if ok && !ss.now().Before(s.expires) {
		delete(ss.m, id)
		return session{}, false
	}
	return s, ok
}

// end ends the session of id.
func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, id)
}
