// Package screen paints the interactive mode's frames on the terminal (tui.md §9.3): a frame is
// the list of already-styled lines of the whole screen plus the editor cursor and the window
// title, and Paint writes only what differs from the previous frame:
//
//   - every write is one synchronized update (DEC mode 2026: ESC[?2026h … ESC[?2026l), so the
//     terminal never shows half a frame;
//   - only the lines whose text changed are rewritten (cursor to the row, erase the line, the
//     line), so a spinner tick rewrites one line and a streamed delta the rows it touched;
//   - a frame equal to the last writes nothing at all (an idle screen is silent: pi#7769);
//   - the cursor is moved back to the editor after the changed lines and is shown or hidden only
//     when that changes (pi#8003: no cursor show on every frame);
//   - the title (OSC 0) is written only when it changes.
//
// A Screen costs one string comparison per row for an unchanged frame. It is owned by one
// goroutine (the Bubble Tea loop); it is not safe for concurrent use.
//
// screen imports only the standard library.
package screen

import (
	"io"
	"strconv"
	"strings"
)

// Escape sequences the screen writes.
const (
	SyncBegin = "\x1b[?2026h" // begin synchronized update
	SyncEnd   = "\x1b[?2026l" // end synchronized update

	altScreenOn   = "\x1b[?1049h"
	altScreenOff  = "\x1b[?1049l"
	pasteOn       = "\x1b[?2004h"
	pasteOff      = "\x1b[?2004l"
	mouseOn       = "\x1b[?1002h\x1b[?1006h" // button-event tracking, SGR coordinates
	mouseOff      = "\x1b[?1002l\x1b[?1006l"
	keysOn        = "\x1b[>4;2m\x1b[>1u" // modifyOtherKeys 2, Kitty keyboard "disambiguate"
	keysOff       = "\x1b[>4m\x1b[<1u"
	cursorSteady  = "\x1b[2 q" // steady block
	cursorDefault = "\x1b[0 q"
	cursorShow    = "\x1b[?25h"
	cursorHide    = "\x1b[?25l"
	clearAll      = "\x1b[H\x1b[2J"
	eraseLine     = "\x1b[2K"
	resetSGR      = "\x1b[0m"
)

// Frame is one screen's worth of output.
type Frame struct {
	// Lines are the rows from the top, each at most the screen width in cells and carrying its
	// own complete styles; rows past len(Lines) are blank, lines past the height are dropped.
	Lines []string
	// Cursor places the terminal cursor at (CursorRow, CursorCol), 0-based, when set; otherwise
	// the cursor is hidden.
	Cursor               bool
	CursorRow, CursorCol int
	// CursorHidden, with Cursor, moves the terminal cursor to (CursorRow, CursorCol) but keeps
	// it hidden: pi-tui's hardware cursor for a component's CURSOR_MARKER, placed for input
	// methods (their candidate window follows it) and shown only on request.
	CursorHidden bool
	// Title is the window title (OSC 0).
	Title string
}

// Screen is the terminal the frames are painted on.
type Screen struct {
	w             io.Writer
	width, height int
	prev          []string // rows as last written; nil forces a full paint
	title         string
	titleSet      bool
	curShown      bool
	curPlaced     bool // the cursor was moved to curRow, curCol (shown or not)
	curRow        int
	curCol        int
	active        bool
	buf           strings.Builder
}

// New returns a screen writing to w, of width x height cells.
func New(w io.Writer, width, height int) *Screen {
	return &Screen{w: w, width: width, height: height}
}

// Start takes over the terminal: alternate screen, bracketed paste, mouse reporting, the keyboard
// protocols, a steady cursor; the next Paint is a full one.
func (s *Screen) Start() error {
	s.active = true
	s.prev = nil
	s.curShown, s.curPlaced = false, false
	s.titleSet = false
	return s.write(altScreenOn + pasteOn + mouseOn + keysOn + cursorSteady + cursorHide + clearAll)
}

// Stop gives the terminal back: the modes Start set are reset, the cursor shown and the main
// screen restored. Start may be called again later (after an external editor or a suspend).
func (s *Screen) Stop() error {
	if !s.active {
		return nil
	}
	s.active = false
	s.prev = nil
	return s.write(resetSGR + keysOff + mouseOff + pasteOff + cursorDefault + cursorShow + altScreenOff)
}

// Resize sets the size; the next Paint repaints everything.
func (s *Screen) Resize(width, height int) {
	if width != s.width || height != s.height {
		s.width, s.height = width, height
		s.prev = nil
	}
}

// Size returns the width and height in cells.
func (s *Screen) Size() (int, int) { return s.width, s.height }

// Invalidate makes the next Paint repaint every row.
func (s *Screen) Invalidate() { s.prev = nil }

// Paint writes the difference between f and the previous frame; it writes nothing when they are
// equal. It returns the number of bytes written and the writer's error.
func (s *Screen) Paint(f Frame) (int, error) {
	if !s.active {
		return 0, nil
	}
	b := &s.buf
	b.Reset()
	full := s.prev == nil
	if full {
		b.WriteString(clearAll)
		s.prev = make([]string, s.height)
	}
	wrote := full
	for row := 0; row < s.height; row++ {
		line := ""
		if row < len(f.Lines) {
			line = f.Lines[row]
		}
		if !full && line == s.prev[row] {
			continue
		}
		s.prev[row] = line
		if full && line == "" {
			continue // the screen was cleared
		}
		moveTo(b, row, 0)
		if !full {
			b.WriteString(eraseLine)
		}
		b.WriteString(line)
		b.WriteString(resetSGR)
		wrote = true
	}
	if f.Title != s.title || !s.titleSet {
		s.title, s.titleSet = f.Title, true
		b.WriteString("\x1b]0;")
		b.WriteString(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, f.Title))
		b.WriteString("\a")
	}
	if f.Cursor {
		if wrote || !s.curPlaced || f.CursorRow != s.curRow || f.CursorCol != s.curCol {
			moveTo(b, f.CursorRow, f.CursorCol)
		}
		switch {
		case f.CursorHidden && s.curShown:
			b.WriteString(cursorHide)
		case !f.CursorHidden && !s.curShown:
			b.WriteString(cursorShow)
		}
		s.curShown, s.curPlaced, s.curRow, s.curCol = !f.CursorHidden, true, f.CursorRow, f.CursorCol
	} else {
		s.curPlaced = false
	}
	if !f.Cursor && s.curShown {
		b.WriteString(cursorHide)
		s.curShown = false
	}
	if b.Len() == 0 {
		return 0, nil
	}
	out := SyncBegin + b.String() + SyncEnd
	return len(out), s.write(out)
}

func (s *Screen) write(str string) error {
	_, err := io.WriteString(s.w, str)
	return err
}

// moveTo writes the cursor position sequence for the 0-based row and column.
func moveTo(b *strings.Builder, row, col int) {
	b.WriteString("\x1b[")
	b.WriteString(strconv.Itoa(row + 1))
	if col > 0 {
		b.WriteByte(';')
		b.WriteString(strconv.Itoa(col + 1))
	}
	b.WriteByte('H')
}
