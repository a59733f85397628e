package screen

import (
	"bytes"
	"strings"
	"testing"
)

func paint(t *testing.T, s *Screen, buf *bytes.Buffer, f Frame) string {
	t.Helper()
	buf.Reset()
	n, err := s.Paint(f)
	if err != nil {
		t.Fatal(err)
	}
	if n != buf.Len() {
		t.Fatalf("Paint reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.String()
}

func TestPaintWritesOnlyChangedLinesInSyncUpdates(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf, 20, 4)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	f := Frame{Lines: []string{"header", "transcript", "⠋ Working...", "> editor"}, Cursor: true, CursorRow: 3, CursorCol: 8, Title: "atomic"}
	out := paint(t, s, &buf, f)
	if !strings.HasPrefix(out, SyncBegin) || !strings.HasSuffix(out, SyncEnd) {
		t.Fatalf("first frame not one synchronized update: %q", out)
	}
	for _, l := range f.Lines {
		if !strings.Contains(out, l) {
			t.Fatalf("first frame lacks %q: %q", l, out)
		}
	}
	if !strings.Contains(out, "\x1b]0;atomic\a") || !strings.Contains(out, "\x1b[4;9H\x1b[?25h") {
		t.Fatalf("title or cursor missing: %q", out)
	}

	// The same frame again: nothing at all.
	if out := paint(t, s, &buf, f); out != "" {
		t.Fatalf("unchanged frame wrote %q", out)
	}

	// A spinner tick: only row 3 is rewritten, the cursor goes back, and it is not shown again.
	f.Lines = []string{"header", "transcript", "⠙ Working...", "> editor"}
	out = paint(t, s, &buf, f)
	want := SyncBegin + "\x1b[3H" + eraseLine + "⠙ Working..." + resetSGR + "\x1b[4;9H" + SyncEnd
	if out != want {
		t.Fatalf("spinner tick wrote\n%q\nwant\n%q", out, want)
	}

	// The cursor moves alone: only its position.
	f.CursorCol = 9
	if out := paint(t, s, &buf, f); out != SyncBegin+"\x1b[4;10H"+SyncEnd {
		t.Fatalf("cursor move wrote %q", out)
	}
	// Hidden cursor (a dialog without one), then shown again.
	f.Cursor = false
	if out := paint(t, s, &buf, f); out != SyncBegin+cursorHide+SyncEnd {
		t.Fatalf("cursor hide wrote %q", out)
	}
}

func TestResizeAndInvalidateRepaintEverything(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf, 10, 2)
	_ = s.Start()
	f := Frame{Lines: []string{"a", "b"}}
	paint(t, s, &buf, f)
	s.Resize(12, 2)
	out := paint(t, s, &buf, f)
	if !strings.Contains(out, clearAll) || !strings.Contains(out, "a") || !strings.Contains(out, "b") {
		t.Fatalf("resize did not repaint: %q", out)
	}
	s.Invalidate()
	if out := paint(t, s, &buf, f); !strings.Contains(out, "a") {
		t.Fatalf("invalidate did not repaint: %q", out)
	}
	// Rows past the height are dropped; missing rows are blank.
	out = paint(t, s, &buf, Frame{Lines: []string{"a", "b", "c"}})
	if strings.Contains(out, "c") {
		t.Fatalf("row past the height written: %q", out)
	}
	out = paint(t, s, &buf, Frame{Lines: []string{"a"}})
	if out != SyncBegin+"\x1b[2H"+eraseLine+resetSGR+SyncEnd {
		t.Fatalf("blanked row wrote %q", out)
	}
}

func TestStoppedScreenWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf, 10, 2)
	_ = s.Start()
	_ = s.Stop()
	if !strings.Contains(buf.String(), altScreenOff) || !strings.Contains(buf.String(), cursorShow) {
		t.Fatalf("stop did not restore the terminal: %q", buf.String())
	}
	buf.Reset()
	if n, _ := s.Paint(Frame{Lines: []string{"x"}}); n != 0 || buf.Len() != 0 {
		t.Fatalf("stopped screen painted %q", buf.String())
	}
	// Started again: a full frame.
	_ = s.Start()
	buf.Reset()
	if out := paint(t, s, &buf, Frame{Lines: []string{"x"}}); !strings.Contains(out, "x") {
		t.Fatalf("restart did not repaint: %q", out)
	}
}

// TestPlacedHiddenCursor: CursorHidden moves the cursor without showing it (pi-tui's hardware
// cursor at a component's marker); showing it later only adds the show sequence.
func TestPlacedHiddenCursor(t *testing.T) {
	var buf bytes.Buffer
	s := New(&buf, 20, 3)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	f := Frame{Lines: []string{"a", "b", "> x"}, Cursor: true, CursorHidden: true, CursorRow: 2, CursorCol: 3}
	out := paint(t, s, &buf, f)
	if !strings.HasSuffix(out, "\x1b[3;4H"+SyncEnd) || strings.Contains(out, cursorShow) {
		t.Fatalf("placed hidden cursor wrote %q", out)
	}
	f.CursorCol = 2
	if out := paint(t, s, &buf, f); out != SyncBegin+"\x1b[3;3H"+SyncEnd {
		t.Fatalf("hidden cursor move wrote %q", out)
	}
	f.CursorHidden = false
	if out := paint(t, s, &buf, f); out != SyncBegin+cursorShow+SyncEnd {
		t.Fatalf("showing the placed cursor wrote %q", out)
	}
	f.CursorHidden = true
	if out := paint(t, s, &buf, f); out != SyncBegin+cursorHide+SyncEnd {
		t.Fatalf("hiding the placed cursor wrote %q", out)
	}
}
