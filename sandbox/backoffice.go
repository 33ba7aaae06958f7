package sandbox

import (
	"fmt"
	"strings"
)

// Change applies fn to the record with id in the named list, as a back
// office would: the spec gives no endpoint for most changes, and tests of
// history and of rule 15 need them. The answer key's findings do not
// follow such changes.
func (s *Sandbox) Change(listName, id string, fn func(rec any)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, i, err := s.locate(listName, id)
	if err != nil {
		return err
	}
	fn(l.recs[i])
	l.reencode(i)
	return nil
}

// Remove deletes the record with id from the named list.
func (s *Sandbox) Remove(listName, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, i, err := s.locate(listName, id)
	if err != nil {
		return err
	}
	l.recs = append(l.recs[:i:i], l.recs[i+1:]...)
	l.enc = append(l.enc[:i:i], l.enc[i+1:]...)
	l.ids = append(l.ids[:i:i], l.ids[i+1:]...)
	l.index = nil
	return nil
}

func (s *Sandbox) locate(listName, id string) (*list, int, error) {
	l := s.lists[strings.ToLower(listName)]
	if l == nil {
		return nil, 0, fmt.Errorf("sandbox: no list %s", listName)
	}
	i := l.find(id)
	if i < 0 {
		return nil, 0, fmt.Errorf("sandbox: no record %s in %s", id, listName)
	}
	return l, i, nil
}

// Add appends rec, a record of the named list's type (a *Customer for
// Customers), at the end of the list, as a back office creating it
// would.
func (s *Sandbox) Add(listName string, rec any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists[strings.ToLower(listName)]
	if l == nil {
		return fmt.Errorf("sandbox: no list %s", listName)
	}
	l.appendRecord(rec)
	return nil
}
