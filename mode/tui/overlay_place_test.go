package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/ext"
)

// boxComp renders n lines of '#' filling the width it is given.
type boxComp struct{ n int }

func (b boxComp) Render(width int) []string {
	out := make([]string, b.n)
	for i := range out {
		out[i] = strings.Repeat("#", width)
	}
	return out
}
func (boxComp) HandleInput(string) {}
func (boxComp) Invalidate()        {}

// overlayAt places a 4-line overlay on a blank w×h screen and returns its top row and left
// column.
func overlayAt(t *testing.T, o ext.OverlayOptions, w, h int) (row, col int) {
	t.Helper()
	lines := (&model{}).placeOverlay(nil, &customDialog{c: boxComp{n: 4}, overlay: true}, &o, w, h)
	for r, l := range lines {
		if c := strings.IndexByte(ansi.Strip(l), '#'); c >= 0 {
			return r, c
		}
	}
	t.Fatalf("overlay %+v not drawn", o)
	return 0, 0
}

// TestPlaceOverlayPositions: row/col as pi-tui resolves them (pi's overlay-qa-tests
// /overlay-percent and /overlay-margins): a percentage is a share of the room the overlay leaves
// after the margins, a number is an absolute cell, and the result stays inside the margins.
func TestPlaceOverlayPositions(t *testing.T) {
	cases := []struct {
		name     string
		o        ext.OverlayOptions
		row, col int
	}{
		{"percent middle", ext.OverlayOptions{Width: "30", Row: "50%", Col: "50%"}, 18, 40},
		{"percent far edge", ext.OverlayOptions{Width: "30", Row: "100%", Col: "100%"}, 36, 80},
		{"percent origin", ext.OverlayOptions{Width: "30", Row: "0%", Col: "0%"}, 0, 0},
		{"percent within margins", ext.OverlayOptions{Width: "30", Row: "100%", Col: "100%", Margin: ext.Margin{Top: 2, Right: 3, Bottom: 2, Left: 5}}, 34, 77},
		{"absolute", ext.OverlayOptions{Width: "30", Row: "5", Col: "7"}, 5, 7},
		{"absolute clamped to margin", ext.OverlayOptions{Width: "30", Row: "0", Col: "0", Margin: ext.Margin{Top: 2, Left: 4}}, 2, 4},
		{"center anchor", ext.OverlayOptions{Width: "30"}, 18, 40},
		{"right-center", ext.OverlayOptions{Width: "30", Anchor: "right-center", Margin: ext.Margin{Right: 1}}, 18, 79},
		{"left-center", ext.OverlayOptions{Width: "30", Anchor: "left-center", Margin: ext.Margin{Left: 2}}, 18, 2},
		{"bottom-right with offset clamped", ext.OverlayOptions{Width: "30", Anchor: "bottom-right", OffsetX: 5, OffsetY: 5}, 36, 80},
	}
	for _, c := range cases {
		row, col := overlayAt(t, c.o, 110, 40)
		if row != c.row || col != c.col {
			t.Errorf("%s: overlay at row %d col %d, want row %d col %d", c.name, row, col, c.row, c.col)
		}
	}
}
