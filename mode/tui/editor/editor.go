// Package editor is the interactive mode's prompt editor (tui.md §3): multi-line text with a
// cursor, soft wrap, persisted history, the kill ring, undo, and large pastes held behind
// `[paste #n …]` markers that behave as one character.
//
// The editor handles editing keys only (tui.md §4.3 tui.editor.* and tui.input.newLine); the host
// decides first whether a key is an app action, a submit or a completion (tui.md §4.4). An Editor
// is owned by the Bubble Tea goroutine.
//
// editor imports mode/tui/component, mode/tui/keys and mode/tui/theme.
package editor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// markerBase is the first private-use rune standing for a paste marker; rune markerBase+i is the
// paste with internal id i.
const markerBase = 0xF0000

// Large paste thresholds (tui.md §3.3).
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

// historyMax is how many submitted prompts are kept (tui.md §3.2).
const historyMax = 100

// Editor is the prompt editor.
type Editor struct {
	keys *keys.Map
	buf  []rune
	cur  int // cursor index into buf, 0..len(buf)
	// MaxRows bounds the visible text rows; the editor scrolls inside them.
	MaxRows int
	// Border is the theme token of the rules above and below the text.
	Border string
	// Placeholder is shown dim when the editor is empty.
	Placeholder string

	pastes  map[int]string // internal id -> pasted text
	pasteID int

	history     []string // newest first
	histIdx     int      // -1: not browsing
	draft       []rune   // text before browsing started
	historyFile string

	kill     []string // kill ring, newest last
	yankAt   [2]int   // span of the last yank, for yank-pop
	yankIdx  int
	lastYank bool

	undo []snapshot

	scroll int // first visible text row
	width  int // text width of the last Render
	// last render geometry, for Cursor
	curRow, curCol int
}

type snapshot struct {
	buf []rune
	cur int
}

// New returns an empty editor using km for its editing keys.
func New(km *keys.Map) *Editor {
	return &Editor{keys: km, MaxRows: 5, Border: "thinkingOff", pastes: map[int]string{}, histIdx: -1}
}

// SetKeys replaces the keybindings (after /reload).
func (e *Editor) SetKeys(km *keys.Map) { e.keys = km }

// Text returns the text with paste markers shown as their labels.
func (e *Editor) Text() string {
	var b strings.Builder
	for _, r := range e.buf {
		if id, ok := e.marker(r); ok {
			b.WriteString(e.label(id))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Value returns the text with paste markers expanded (what is submitted, tui.md §3.3).
func (e *Editor) Value() string {
	var b strings.Builder
	for _, r := range e.buf {
		if id, ok := e.marker(r); ok {
			b.WriteString(e.pastes[id])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Empty reports whether the editor holds no text.
func (e *Editor) Empty() bool { return len(e.buf) == 0 }

// SetText replaces the text (no markers) and puts the cursor at its end.
func (e *Editor) SetText(s string) {
	e.pushUndo()
	e.buf = []rune(s)
	e.cur = len(e.buf)
	e.pastes = map[int]string{}
	e.histIdx = -1
}

// Reset clears the text, the pastes and the undo history (after a submit).
func (e *Editor) Reset() {
	e.buf, e.cur = nil, 0
	e.pastes = map[int]string{}
	e.pasteID = 0
	e.undo = nil
	e.histIdx = -1
	e.scroll = 0
}

// Insert types s at the cursor.
func (e *Editor) Insert(s string) {
	e.pushUndo()
	e.insertRunes([]rune(s))
}

func (e *Editor) insertRunes(rs []rune) {
	e.buf = slices.Insert(e.buf, e.cur, rs...)
	e.cur += len(rs)
	e.lastYank = false
}

// Paste inserts pasted text with the rules of tui.md §3.3: CRLF/CR become LF, tabs expand,
// other control characters are dropped; a paste of more than 10 lines or 1000 characters becomes
// one marker.
func (e *Editor) Paste(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsControl(r) {
			return -1
		}
		if r >= markerBase {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return
	}
	if (s[0] == '/' || s[0] == '~' || s[0] == '.') && e.cur > 0 && isWord(e.buf[e.cur-1]) {
		s = " " + s
	}
	e.pushUndo()
	lines := strings.Count(s, "\n") + 1
	if lines > pasteMaxLines || len([]rune(s)) > pasteMaxChars {
		e.pasteID++
		e.pastes[e.pasteID] = s
		e.insertRunes([]rune{rune(markerBase + e.pasteID)})
		return
	}
	e.insertRunes([]rune(s))
}

func (e *Editor) marker(r rune) (int, bool) {
	if r < markerBase {
		return 0, false
	}
	id := int(r - markerBase)
	_, ok := e.pastes[id]
	return id, ok
}

// label is a marker's text; its number is its rank among the pastes still present, so deleting
// one renumbers the later ones down.
func (e *Editor) label(id int) string {
	n := 1
	for other := range e.pastes {
		if other < id {
			n++
		}
	}
	s := e.pastes[id]
	if lines := strings.Count(s, "\n") + 1; lines > pasteMaxLines {
		return fmt.Sprintf("[paste #%d +%d lines]", n, lines)
	}
	return fmt.Sprintf("[paste #%d %d chars]", n, len([]rune(s)))
}

func (e *Editor) pushUndo() {
	if len(e.undo) > 0 {
		last := e.undo[len(e.undo)-1]
		if slices.Equal(last.buf, e.buf) {
			return
		}
	}
	e.undo = append(e.undo, snapshot{buf: slices.Clone(e.buf), cur: e.cur})
	if len(e.undo) > 200 {
		e.undo = e.undo[1:]
	}
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// HandleKey applies an editing key; it reports whether the key was used. Printable text is
// inserted; the tui.editor.* actions move, delete, yank and undo.
func (e *Editor) HandleKey(k tea.KeyPressMsg) bool {
	acts := e.keys.Actions(k)
	for _, a := range acts {
		if e.do(a) {
			if a != keys.Yank && a != keys.YankPop {
				e.lastYank = false
			}
			return true
		}
	}
	if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
		if e.histIdx >= 0 {
			e.histIdx = -1
		}
		if !strings.ContainsRune(k.Text, ' ') || len(e.undo) == 0 {
			e.pushUndo()
		}
		e.insertRunes([]rune(k.Text))
		return true
	}
	if tea.Key(k).Keystroke() == "shift+space" {
		e.insertRunes([]rune{' '})
		return true
	}
	return false
}

func (e *Editor) do(action string) bool {
	switch action {
	case keys.CursorLeft:
		if e.cur > 0 {
			e.cur--
		}
	case keys.CursorRight:
		if e.cur < len(e.buf) {
			e.cur++
		}
	case keys.CursorUp:
		return e.vertical(-1)
	case keys.CursorDown:
		return e.vertical(1)
	case keys.HistoryPrevious:
		return e.browse(1)
	case keys.HistoryNext:
		return e.browse(-1)
	case keys.CursorWordLeft:
		e.cur = e.wordLeft()
	case keys.CursorWordRight:
		e.cur = e.wordRight()
	case keys.CursorLineStart:
		e.cur = e.lineStart(e.cur)
	case keys.CursorLineEnd:
		e.cur = e.lineEnd(e.cur)
	case keys.DeleteCharBackward:
		if e.cur > 0 {
			e.pushUndo()
			e.deleteSpan(e.cur-1, e.cur, false)
		}
	case keys.DeleteCharForward:
		if e.cur < len(e.buf) {
			e.pushUndo()
			e.deleteSpan(e.cur, e.cur+1, false)
		}
	case keys.DeleteWordBackward:
		e.pushUndo()
		e.deleteSpan(e.wordLeft(), e.cur, true)
	case keys.DeleteWordForward:
		e.pushUndo()
		e.deleteSpan(e.cur, e.wordRight(), true)
	case keys.DeleteToLineStart:
		e.pushUndo()
		e.deleteSpan(e.lineStart(e.cur), e.cur, true)
	case keys.DeleteToLineEnd:
		e.pushUndo()
		end := e.lineEnd(e.cur)
		if end == e.cur && end < len(e.buf) {
			end++ // at line end: join the next line
		}
		e.deleteSpan(e.cur, end, true)
	case keys.Yank:
		if len(e.kill) == 0 {
			return true
		}
		e.pushUndo()
		e.yankIdx = len(e.kill) - 1
		start := e.cur
		e.insertRunes([]rune(e.kill[e.yankIdx]))
		e.yankAt = [2]int{start, e.cur}
		e.lastYank = true
	case keys.YankPop:
		if !e.lastYank || len(e.kill) < 2 {
			return true
		}
		e.buf = slices.Delete(e.buf, e.yankAt[0], e.yankAt[1])
		e.cur = e.yankAt[0]
		e.yankIdx = (e.yankIdx - 1 + len(e.kill)) % len(e.kill)
		e.insertRunes([]rune(e.kill[e.yankIdx]))
		e.yankAt = [2]int{e.yankAt[0], e.cur}
		e.lastYank = true
	case keys.Undo:
		if n := len(e.undo); n > 0 {
			s := e.undo[n-1]
			e.undo = e.undo[:n-1]
			e.buf, e.cur = s.buf, s.cur
		}
	case keys.NewLine:
		e.pushUndo()
		e.insertRunes([]rune{'\n'})
	case keys.EditorPageUp:
		for i := 0; i < e.MaxRows; i++ {
			e.vertical(-1)
		}
	case keys.EditorPageDown:
		for i := 0; i < e.MaxRows; i++ {
			e.vertical(1)
		}
	default:
		return false
	}
	return true
}

// deleteSpan removes buf[from:to]; kill pushes the text on the kill ring. A removed marker frees
// its paste.
func (e *Editor) deleteSpan(from, to int, kill bool) {
	if from >= to {
		return
	}
	cut := e.buf[from:to]
	if kill {
		var b strings.Builder
		for _, r := range cut {
			if id, ok := e.marker(r); ok {
				b.WriteString(e.pastes[id])
			} else {
				b.WriteRune(r)
			}
		}
		e.kill = append(e.kill, b.String())
		if len(e.kill) > 30 {
			e.kill = e.kill[1:]
		}
	}
	for _, r := range cut {
		if id, ok := e.marker(r); ok {
			delete(e.pastes, id)
		}
	}
	e.buf = slices.Delete(e.buf, from, to)
	e.cur = from
}

func (e *Editor) lineStart(i int) int {
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *Editor) lineEnd(i int) int {
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

func (e *Editor) wordLeft() int {
	i := e.cur
	for i > 0 && !isWord(e.buf[i-1]) && e.buf[i-1] < markerBase {
		i--
	}
	if i > 0 && e.buf[i-1] >= markerBase {
		return i - 1
	}
	for i > 0 && isWord(e.buf[i-1]) {
		i--
	}
	return i
}

func (e *Editor) wordRight() int {
	i := e.cur
	for i < len(e.buf) && !isWord(e.buf[i]) && e.buf[i] < markerBase {
		i++
	}
	if i < len(e.buf) && e.buf[i] >= markerBase {
		return i + 1
	}
	for i < len(e.buf) && isWord(e.buf[i]) {
		i++
	}
	return i
}

// vertical moves the cursor one visual row up (-1) or down (+1) at the last render width. On the
// first row, Up browses history when the editor is empty, already browsing or the cursor is at
// column 0; on the last row Down browses forward while browsing (tui.md §3.2).
func (e *Editor) vertical(dir int) bool {
	rows := e.layout(e.lastWidth())
	r, c := e.position(rows)
	nr := r + dir
	if nr < 0 {
		if len(e.buf) == 0 || e.histIdx >= 0 || e.cur == 0 {
			return e.browse(1)
		}
		e.cur = 0
		return true
	}
	if nr >= len(rows) {
		if e.histIdx >= 0 {
			return e.browse(-1)
		}
		e.cur = len(e.buf)
		return true
	}
	row := rows[nr]
	col := 0
	i := row.start
	for i < row.end {
		w := e.runeWidth(e.buf[i])
		if col+w > c {
			break
		}
		col += w
		i++
	}
	e.cur = i
	return true
}

// browse moves through history: +1 older, -1 newer.
func (e *Editor) browse(dir int) bool {
	if len(e.history) == 0 {
		return true
	}
	if e.histIdx < 0 {
		if dir < 0 {
			return true
		}
		e.draft = slices.Clone(e.buf)
	}
	n := e.histIdx + dir
	switch {
	case n >= len(e.history):
		return true
	case n < 0:
		e.histIdx = -1
		e.buf = e.draft
	default:
		e.histIdx = n
		e.buf = []rune(e.history[n])
	}
	e.cur = len(e.buf)
	return true
}

// AddHistory records a submitted prompt (trimmed, no consecutive duplicates, newest first, at
// most 100) and appends it to the history file when one is set.
func (e *Editor) AddHistory(s string) {
	s = strings.TrimSpace(s)
	if s == "" || (len(e.history) > 0 && e.history[0] == s) {
		return
	}
	e.history = slices.Insert(e.history, 0, s)
	if len(e.history) > historyMax {
		e.history = e.history[:historyMax]
	}
	e.histIdx = -1
	if e.historyFile != "" {
		if f, err := os.OpenFile(e.historyFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			b, _ := json.Marshal(s)
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
}

// maxHistoryFile bounds the history file read at start.
const maxHistoryFile = 4 << 20

// LoadHistory reads the persisted prompt history (one JSON string per line, oldest first) from
// path and appends new prompts there from now on. A missing file is not an error.
func (e *Editor) LoadHistory(path string) error {
	e.historyFile = path
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return os.MkdirAll(filepath.Dir(path), 0o755)
		}
		return fmt.Errorf("editor: read history %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(&limitedReader{f: f, n: maxHistoryFile})
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var all []string
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			all = append(all, s)
		}
	}
	for i := len(all) - 1; i >= 0 && len(e.history) < historyMax; i-- {
		if len(e.history) == 0 || e.history[len(e.history)-1] != all[i] {
			e.history = append(e.history, all[i])
		}
	}
	return nil
}

type limitedReader struct {
	f *os.File
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("history file larger than %d bytes", maxHistoryFile)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

// History returns the remembered prompts, newest first.
func (e *Editor) History() []string { return e.history }

// CursorAtStart reports whether the cursor is at the very beginning.
func (e *Editor) CursorAtStart() bool { return e.cur == 0 }

// BeforeCursor returns the text of the current line before the cursor (markers as labels).
func (e *Editor) BeforeCursor() string {
	start := e.lineStart(e.cur)
	var b strings.Builder
	for _, r := range e.buf[start:e.cur] {
		if id, ok := e.marker(r); ok {
			b.WriteString(e.label(id))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ReplaceBeforeCursor replaces the n runes before the cursor with s (completions).
func (e *Editor) ReplaceBeforeCursor(n int, s string) {
	e.pushUndo()
	if n > e.cur {
		n = e.cur
	}
	e.deleteSpan(e.cur-n, e.cur, false)
	e.insertRunes([]rune(s))
}

// row is one visual row: buf[start:end].
type row struct{ start, end int }

func (e *Editor) lastWidth() int {
	if e.width <= 0 {
		return 80
	}
	return e.width
}

func (e *Editor) runeWidth(r rune) int {
	if id, ok := e.marker(r); ok {
		return len(e.label(id))
	}
	return ansi.StringWidth(string(r))
}

// layout splits the buffer into visual rows of at most w cells, word-aware (tui.md §3.1): a row
// that would overflow breaks after its last space, so words move whole to the next row; a word
// wider than the row breaks by character; a space that overflows hangs at the end of its row
// (in the column kept for the cursor). Markers never split.
func (e *Editor) layout(w int) []row {
	if w < 2 {
		w = 2
	}
	var rows []row
	start, col := 0, 0
	lastSpace := -1 // the last space of the current row
	for i := 0; i < len(e.buf); i++ {
		r := e.buf[i]
		if r == '\n' {
			rows = append(rows, row{start, i})
			start, col, lastSpace = i+1, 0, -1
			continue
		}
		rw := e.runeWidth(r)
		if col+rw > w && col > 0 {
			if r == ' ' {
				rows = append(rows, row{start, i + 1})
				start, col, lastSpace = i+1, 0, -1
				continue
			}
			if lastSpace >= start {
				rows = append(rows, row{start, lastSpace + 1})
				start, col = lastSpace+1, 0
				for j := start; j < i; j++ {
					col += e.runeWidth(e.buf[j])
				}
			}
			lastSpace = -1
			if col+rw > w && col > 0 {
				rows = append(rows, row{start, i})
				start, col = i, 0
			}
		}
		if r == ' ' {
			lastSpace = i
		}
		col += rw
	}
	return append(rows, row{start, len(e.buf)})
}

// position is the cursor's visual row and column in rows.
func (e *Editor) position(rows []row) (int, int) {
	for ri, rw := range rows {
		last := ri == len(rows)-1
		if e.cur >= rw.start && (e.cur < rw.end || (e.cur == rw.end && (last || e.buf[rw.end] == '\n'))) {
			col := 0
			for i := rw.start; i < e.cur; i++ {
				col += e.runeWidth(e.buf[i])
			}
			return ri, col
		}
	}
	return len(rows) - 1, 0
}

// Render draws the editor: a rule, the visible text rows, a rule (with "↑ n more"/"↓ n more" when
// scrolled), each line at most width cells (tui.md §3.1). One column is kept for the cursor.
func (e *Editor) Render(th *theme.Theme, width int) []string {
	textW := width - 1
	e.width = textW
	rows := e.layout(textW)
	r, c := e.position(rows)
	max := e.MaxRows
	if max < 1 {
		max = 1
	}
	if r < e.scroll {
		e.scroll = r
	}
	if r >= e.scroll+max {
		e.scroll = r - max + 1
	}
	if e.scroll > len(rows)-1 {
		e.scroll = 0
	}
	end := e.scroll + max
	if end > len(rows) {
		end = len(rows)
	}
	border := e.Border
	if !th.Has(border) {
		border = "thinkingOff"
	}
	rule := func(note string) string {
		if note == "" {
			return th.Fg(border, strings.Repeat("─", width))
		}
		s := "─── " + note + " "
		if n := width - ansi.StringWidth(s); n > 0 {
			s += strings.Repeat("─", n)
		}
		return th.Fg(border, component.Truncate(s, width, ""))
	}
	out := make([]string, 0, end-e.scroll+2)
	if e.scroll > 0 {
		out = append(out, rule(fmt.Sprintf("↑ %d more", e.scroll)))
	} else {
		out = append(out, rule(""))
	}
	if len(e.buf) == 0 && e.Placeholder != "" {
		out = append(out, th.Fg("dim", component.Truncate(e.Placeholder, textW, "")))
	} else {
		for _, rw := range rows[e.scroll:end] {
			var b strings.Builder
			for i := rw.start; i < rw.end; i++ {
				if id, ok := e.marker(e.buf[i]); ok {
					b.WriteString(th.Fg("accent", e.label(id)))
					continue
				}
				b.WriteRune(e.buf[i])
			}
			out = append(out, b.String())
		}
	}
	if end < len(rows) {
		out = append(out, rule(fmt.Sprintf("↓ %d more", len(rows)-end)))
	} else {
		out = append(out, rule(""))
	}
	e.curRow, e.curCol = r-e.scroll+1, c
	return out
}

// Cursor is the cursor cell of the last Render, relative to its first line.
func (e *Editor) Cursor() (row, col int, ok bool) { return e.curRow, e.curCol, true }

// CursorLineCol is the cursor as a line index and a column in runes of Text() (paste markers
// count as their labels): what autocomplete providers see.
func (e *Editor) CursorLineCol() (line, col int) {
	for _, r := range e.buf[:e.cur] {
		switch id, ok := e.marker(r); {
		case ok:
			col += len([]rune(e.label(id)))
		case r == '\n':
			line, col = line+1, 0
		default:
			col++
		}
	}
	return line, col
}
