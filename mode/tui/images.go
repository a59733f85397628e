package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/clipimg"
)

// clipImageMsg is the result of reading the clipboard image: the saved file, or the error.
type clipImageMsg struct {
	path string
	err  error
}

// pasteClipboardImage is app.clipboard.pasteImage (tui.md §3.5): the clipboard's image is read
// off the UI goroutine (a clipboard tool can be slow), saved to a private temporary file, and
// its path inserted at the cursor.
func (m *model) pasteClipboardImage() tea.Cmd {
	ctx, env := m.ctx, clipimg.Env{Vars: m.opts.Env}
	return func() tea.Msg {
		data, mime, err := clipimg.Read(ctx, env)
		if err != nil {
			return clipImageMsg{err: err}
		}
		path, err := clipimg.Save(data, mime)
		return clipImageMsg{path: path, err: err}
	}
}

// insertImagePath puts an image file's path at the cursor (as pi does) and remembers it, so the
// prompt that still names it carries the image itself.
func (m *model) insertImagePath(path string) {
	text := path
	if strings.ContainsAny(path, " \t") {
		text = `"` + path + `"`
	}
	if b := m.ed.BeforeCursor(); b != "" && !strings.HasSuffix(b, " ") && !strings.HasSuffix(b, "\n") {
		text = " " + text
	}
	m.ed.Insert(text + " ")
	m.images = append(m.images, path)
}

// takeImages returns the remembered images that text still names, loaded as image blocks, and
// forgets them all; an image that cannot be read is reported and left out.
func (m *model) takeImages(text string) []llm.Content {
	var out []llm.Content
	seen := map[string]bool{}
	for _, p := range m.images {
		if seen[p] || !strings.Contains(text, p) {
			continue
		}
		seen[p] = true
		c, err := clipimg.Load(p)
		if err != nil {
			m.notice("error", err.Error())
			continue
		}
		out = append(out, c)
	}
	m.images = nil
	return out
}
