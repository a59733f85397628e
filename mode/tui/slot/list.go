package slot

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// List is a scrolling cursor over n rows: up/down wrap around, page keys move by a page, the
// window keeps the cursor visible. Rows are rendered by the owner; List only keeps the
// position. The zero value is an empty list.
type List struct {
	n, cursor, top int
	// Visible is the window height in rows (0: 10).
	Visible int
}

// SetLen sets the row count, clamping the cursor; the cursor moves to 0 when n shrinks past it.
func (l *List) SetLen(n int) {
	l.n = n
	if l.cursor >= n {
		l.cursor = max(n-1, 0)
	}
	l.scroll()
}

// Len is the row count.
func (l *List) Len() int { return l.n }

// Cursor is the selected row (0 when the list is empty).
func (l *List) Cursor() int { return l.cursor }

// SetCursor selects row i (clamped).
func (l *List) SetCursor(i int) {
	l.cursor = min(max(i, 0), max(l.n-1, 0))
	l.scroll()
}

func (l *List) visible() int {
	if l.Visible <= 0 {
		return 10
	}
	return l.Visible
}

func (l *List) scroll() {
	v := l.visible()
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+v {
		l.top = l.cursor - v + 1
	}
	l.top = min(l.top, max(l.n-v, 0))
	l.top = max(l.top, 0)
}

// Move handles the up/down/page keys of keys; handled is false for any other message.
func (l *List) Move(msg any, keys Keys) (handled bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || l.n == 0 {
		return false
	}
	switch {
	case keys.Is(k, SelectUp):
		l.cursor = (l.cursor - 1 + l.n) % l.n
	case keys.Is(k, SelectDown):
		l.cursor = (l.cursor + 1) % l.n
	case keys.Is(k, SelectPageUp):
		l.cursor = max(l.cursor-l.visible(), 0)
	case keys.Is(k, SelectPageDown):
		l.cursor = min(l.cursor+l.visible(), l.n-1)
	default:
		return false
	}
	l.scroll()
	return true
}

// Window returns the half-open range of rows to draw.
func (l *List) Window() (from, to int) {
	return l.top, min(l.top+l.visible(), l.n)
}

// Position is "(i/n)" when the list is longer than its window, else "".
func (l *List) Position() string {
	if l.n <= l.visible() {
		return ""
	}
	return fmt.Sprintf("(%d/%d)", l.cursor+1, l.n)
}
