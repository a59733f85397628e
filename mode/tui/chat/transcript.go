// Package chat is the transcript of the interactive mode (tui.md §6): the blocks that show user
// and assistant messages, thinking, tool rows, notices, bash runs, custom messages and summaries,
// and the Transcript that lays them out as a scroll view following the end.
//
// Cost: each block's lines are cached per width and rebuilt only when the block changes
// (Touch), the width changes or the environment is invalidated (theme, expand, thinking toggle).
// View walks blocks from the visible end backwards and stops once the viewport is full, so a
// frame costs the visible rows, not the session's length: a resumed 10,000-message session opens
// rendering only its last screenful.
//
// chat imports llm, mode/tui/component, mode/tui/highlight, mode/tui/keys, mode/tui/markdown,
// mode/tui/theme, glamour and chroma. A Transcript is owned by the Bubble Tea goroutine.
package chat

import (
	"slices"

	"github.com/atomic-cli/atomic/mode/tui/component"
)

type item struct {
	b     Block
	raw   []string // the block's last Render, as returned
	lines []string // raw fitted to width (lines wider than it truncated)
	width int
	gen   uint64
	dirty bool
}

// Transcript is the list of blocks with a scroll position.
type Transcript struct {
	// Env is what blocks render with; call Invalidate after changing it.
	Env   Env
	items []*item
	index map[Block]*item
	gen   uint64
	// scroll is how many lines the view is scrolled up from the end; 0 follows the end.
	scroll int
}

// New returns an empty transcript rendering with env.
func New(env Env) *Transcript {
	return &Transcript{Env: env, index: map[Block]*item{}, gen: 1}
}

// Append adds a block at the end.
func (t *Transcript) Append(b Block) {
	it := &item{b: b, dirty: true}
	t.items = append(t.items, it)
	t.index[b] = it
}

// InsertBefore adds b just before the block at, or at the end when at is not in the transcript.
func (t *Transcript) InsertBefore(at, b Block) {
	for i, it := range t.items {
		if it.b == at {
			n := &item{b: b, dirty: true}
			t.items = append(t.items[:i], append([]*item{n}, t.items[i:]...)...)
			t.index[b] = n
			return
		}
	}
	t.Append(b)
}

// Remove drops b.
func (t *Transcript) Remove(b Block) {
	for i, it := range t.items {
		if it.b == b {
			t.items = append(t.items[:i], t.items[i+1:]...)
			delete(t.index, b)
			return
		}
	}
}

// Clear drops every block and follows the end again.
func (t *Transcript) Clear() {
	t.items = nil
	t.index = map[Block]*item{}
	t.scroll = 0
}

// Blocks returns the blocks in order (a new slice).
func (t *Transcript) Blocks() []Block {
	out := make([]Block, len(t.items))
	for i, it := range t.items {
		out[i] = it.b
	}
	return out
}

// Len is the number of blocks.
func (t *Transcript) Len() int { return len(t.items) }

// Last returns the last block, nil when empty.
func (t *Transcript) Last() Block {
	if len(t.items) == 0 {
		return nil
	}
	return t.items[len(t.items)-1].b
}

// Touch marks b changed so its lines are rendered again.
func (t *Transcript) Touch(b Block) {
	if it := t.index[b]; it != nil {
		it.dirty = true
	}
}

// Invalidate drops every cached rendering (theme, expand or thinking change).
func (t *Transcript) Invalidate() { t.gen++ }

func (t *Transcript) lines(it *item, width int) []string {
	if it.dirty || it.width != width || it.gen != t.gen {
		raw := it.b.Render(&t.Env, width)
		// A streaming block changes only its last lines: a line equal to the one at the same
		// index last time (usually the same string, compared by pointer) keeps its fitted
		// version, so a frame measures the changed lines, not the whole message.
		same := it.width == width && it.gen == t.gen
		out := raw
		for i, l := range raw {
			fit := l
			if same && i < len(it.raw) && l == it.raw[i] {
				fit = it.lines[i]
			} else if len(l) > width && component.Width(l) > width {
				// A line of at most width bytes cannot be wider than width cells.
				fit = component.Truncate(l, width, "")
			}
			if fit != l {
				if &out[0] == &raw[0] {
					out = slices.Clone(raw) // raw may be the block's own cache: never written
				}
				out[i] = fit
			}
		}
		it.raw, it.lines = raw, out
		it.width, it.gen, it.dirty = width, t.gen, false
	}
	return it.lines
}

// Following reports whether the view follows the end.
func (t *Transcript) Following() bool { return t.scroll == 0 }

// Scroll moves the view by n lines (positive: towards the start). It stops at the end; View
// clamps the start.
func (t *Transcript) Scroll(n int) {
	t.scroll += n
	if t.scroll < 0 {
		t.scroll = 0
	}
}

// ScrollToEnd follows the end again.
func (t *Transcript) ScrollToEnd() { t.scroll = 0 }

// ScrollToTop scrolls to the first line.
func (t *Transcript) ScrollToTop() { t.scroll = 1 << 30 }

// View returns exactly height lines of the transcript at width: the last lines before the scroll
// position, top-aligned with blank lines below when the transcript is shorter. Only the blocks
// that reach into the viewport are rendered.
func (t *Transcript) View(width, height int) []string {
	if height <= 0 {
		return nil
	}
	need := height + t.scroll
	// Collect blocks from the end until need lines are covered.
	var chunks [][]string
	total := 0
	for i := len(t.items) - 1; i >= 0 && total < need; i-- {
		ls := t.lines(t.items[i], width)
		chunks = append(chunks, ls)
		total += len(ls)
	}
	if t.scroll > 0 && total < need {
		// Scrolled past the start: clamp.
		t.scroll = max(total-height, 0)
		need = height + t.scroll
	}
	out := make([]string, 0, height)
	// Lines of the collected chunks in order, skipping the first (total-need) and the last scroll.
	skipTop := total - need
	if skipTop < 0 {
		skipTop = 0
	}
	keep := min(total-skipTop, height+t.scroll) - t.scroll
	for c := len(chunks) - 1; c >= 0 && len(out) < keep; c-- {
		ls := chunks[c]
		if skipTop >= len(ls) {
			skipTop -= len(ls)
			continue
		}
		for _, l := range ls[skipTop:] {
			if len(out) == keep {
				break
			}
			out = append(out, l)
		}
		skipTop = 0
	}
	for len(out) < height {
		out = append(out, "")
	}
	return out
}

// ViewAll returns the last lines of the whole transcript at width, at most limit of them, without
// the scroll position or padding (what stays on the terminal when the UI ends). Only the blocks
// that reach into those lines are rendered.
func (t *Transcript) ViewAll(width, limit int) []string {
	var chunks [][]string
	total := 0
	for i := len(t.items) - 1; i >= 0 && total < limit; i-- {
		ls := t.lines(t.items[i], width)
		chunks = append(chunks, ls)
		total += len(ls)
	}
	out := make([]string, 0, min(total, limit))
	for c := len(chunks) - 1; c >= 0; c-- {
		out = append(out, chunks[c]...)
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}
