package progress

import (
	"bytes"
	"io"
	"sync"
)

// clearLine takes a terminal's cursor to the start of its line and erases
// the line.
const clearLine = "\r\033[K"

// Shared is a Screen: stderr, shared by the log and a progress bar.
// Whatever else is written (a log line, an error) first erases the bar's
// line and is written there; the bar's last frame is then drawn again
// below it. So no line holds both.
type Shared struct {
	mu     sync.Mutex
	w      io.Writer
	active bool   // a bar is drawing
	frame  []byte // the bar's last frame
	drawn  bool   // the bar is on the current line
}

// NewShared is the Screen that writes to w.
func NewShared(w io.Writer) *Shared { return &Shared{w: w} }

// Write writes p above the bar.
func (s *Shared) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		io.WriteString(s.w, clearLine)
		s.drawn = false
	}
	n, err := s.w.Write(p)
	if s.active && len(s.frame) > 0 && bytes.HasSuffix(p, []byte("\n")) {
		io.WriteString(s.w, "\r")
		s.w.Write(s.frame)
		s.drawn = true
	}
	return n, err
}

// BarWriter is where a bar draws itself, until BarDone.
func (s *Shared) BarWriter() io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.frame = true, nil
	return barWriter{s}
}

// BarDone ends the bar: its last frame stays, and what follows starts on
// the next line.
func (s *Shared) BarDone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.frame = false, nil
	if s.drawn {
		io.WriteString(s.w, "\n")
		s.drawn = false
	}
}

// BarErase erases the bar's line.
func (s *Shared) BarErase() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		io.WriteString(s.w, clearLine)
		s.drawn = false
	}
}

type barWriter struct{ s *Shared }

// Write is a bar's drawing: a frame, or the erasing of one (carriage
// returns and blanks).
func (b barWriter) Write(p []byte) (int, error) {
	s := b.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active { // the bar has ended: nothing more of it
		return len(p), nil
	}
	if len(bytes.TrimSpace(bytes.ReplaceAll(p, []byte("\033[2K"), nil))) > 0 {
		s.frame = append(s.frame[:0], bytes.TrimLeft(p, "\r")...)
	}
	s.drawn = true
	return s.w.Write(p)
}
