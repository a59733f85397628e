package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/component"
)

// TestCellsFrom: the part of a line right of an overlay keeps its columns when the overlay's
// edge cuts a wide character.
func TestCellsFrom(t *testing.T) {
	s := "ab中文cd" // cells: a b 中中 文文 c d
	for from, want := range map[int]string{0: s, 2: "中文cd", 3: " 文cd", 4: "文cd", 5: " cd", 8: "", 9: ""} {
		if got := cellsFrom(s, from); got != want {
			t.Errorf("cellsFrom(%q, %d) = %q, want %q", s, from, got, want)
		}
	}
}

// TestClipLinesMarkersAndTabs: pi-tui's CURSOR_MARKER (APC ended by BEL) and Atomic's active-row
// marker take no cell and are removed; a tab counts 3 as in pi-tui's visibleWidth.
func TestClipLinesMarkersAndTabs(t *testing.T) {
	got := clipLines([]string{"ab" + cursorMarker + "cd", activeRowMarker + "x\ty", "👨‍👩‍👧‍👦🇯🇵中"}, 10)
	want := []string{"abcd", "x   y", "👨‍👩‍👧‍👦🇯🇵中"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
	if w := component.Width(got[2]); w != 6 {
		t.Errorf("emoji line is %d cells, want 6 (2 per cluster)", w)
	}
}

// TestPlaceOverlayWideAlignment: an overlay with emoji and CJK lines, over a base of CJK text
// whose wide characters straddle both edges, leaves every row exactly the screen's width, the
// overlay's borders in the same columns, and the base's text right of it where it was.
func TestPlaceOverlayWideAlignment(t *testing.T) {
	const w, h = 30, 4
	base := make([]string, h)
	for i := range base {
		base[i] = strings.Repeat("中", w/2) // every even column starts a wide char
	}
	body := ext.Lines{"│🎉ok│", "│中文│", "│👨‍👩‍👧‍👦🇯🇵", "│a\tb│"}
	d := &customDialog{c: body, overlay: true}
	// Width 6 at column 5: both edges (cells 5 and 11) cut a wide character of the base.
	out := (&model{}).placeOverlay(append([]string(nil), base...), d, &ext.OverlayOptions{Width: "6", Col: "5", Row: "0"}, w, h)
	for i, l := range out {
		plain := ansi.Strip(l)
		if got := component.Width(plain); got != w {
			t.Errorf("row %d is %d cells wide, want %d: %q", i, got, w, plain)
		}
		if !strings.HasPrefix(ansi.TruncateLeft(plain, 5, ""), "│") {
			t.Errorf("row %d: the overlay does not start at cell 5: %q", i, plain)
		}
		// Right of the overlay (cell 11 on) the base keeps its columns: the cut half of a wide
		// character is a space, the next one starts at cell 12.
		if rest := cellsFrom(plain, 11); !strings.HasPrefix(rest, " 中") || component.Width(rest) != w-11 {
			t.Errorf("row %d: right of the overlay %q, want \" 中…\" over %d cells", i, rest, w-11)
		}
	}
}
