package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/keys"
)

// completion is the open autocomplete list under the editor (tui.md §3.4).
type completion struct {
	kind   string // "slash", "file", "path", "arg"
	prefix string // the text before the cursor the applied item replaces
	items  []command.Completion
	sel    int
	// fetch asks an extension command for its argument completions (kind "extargs": the
	// built-in provider calls it off the UI goroutine).
	fetch func(prefix string) []ext.AutocompleteItem
	// req is the editor state a provider's list (kind "provider") was made for.
	req ext.AutocompleteRequest
}

// maxVisible is how many completion rows show (autocompleteMaxVisible default).
const maxVisible = 5

// refreshCompletion opens, updates or closes the list for the text before the cursor. force is
// Tab: path completion even without a trigger.
func (m *model) refreshCompletion(force bool) {
	if m.rt == nil {
		// Before the runtime: the built-in list without extension commands and providers;
		// attach computes it again with them.
		m.complete = m.builtinCompletion(m.ed.BeforeCursor(), m.ed.Text(), force, true)
		m.completeStale = true
		return
	}
	m.completeStale = false
	if chain := m.ext.autocompleteChain(); chain != nil {
		m.providerCompletion(chain, force)
		return
	}
	m.complete = m.builtinCompletion(m.ed.BeforeCursor(), m.ed.Text(), force, true)
}

// builtinCompletion is the built-in list for the text before the cursor on its line and the
// whole text: slash commands, their arguments, @files and paths (tui.md §3.4). An extension
// command's argument completions are asked asynchronously when async is true; otherwise they are
// asked here (off the UI goroutine: the built-in provider under extension providers).
func (m *model) builtinCompletion(before, full string, force, async bool) *completion {
	// Slash commands: only as the first token of the message.
	if strings.HasPrefix(full, "/") && !strings.Contains(before, "\n") {
		name, rest, hasArgs := strings.Cut(before[1:], " ")
		_, isBuiltin := m.cmds.Lookup(name)
		if !hasArgs {
			return m.slashCompletion(name)
		} else if c, ok := m.cmds.Lookup(name); ok && c.Complete != nil {
			items := c.Complete(m, rest)
			if len(items) > 0 {
				return &completion{kind: "arg", prefix: rest, items: items}
			}
		} else if m.rt == nil {
			return nil
		} else if ec, _, ok := m.rt.Session().Runner().Command(name); ok && ec.Completions != nil && !isBuiltin {
			if async {
				m.extArgCompletion(ec.Completions, before, rest)
			} else {
				return &completion{kind: "extargs", prefix: rest, fetch: ec.Completions}
			}
		}
		return nil
	}
	tok := lastToken(before)
	if strings.HasPrefix(tok, "@") {
		return m.fileCompletion(tok)
	}
	if force || strings.Contains(tok, "/") || strings.HasPrefix(tok, "~/") || strings.HasPrefix(tok, ".") {
		if tok != "" || force {
			return m.pathCompletion(tok)
		}
	}
	return nil
}

// cwd is the session's working directory (the one given to UI.Start before the runtime exists).
func (m *model) cwd() string {
	if m.rt == nil {
		return m.preCwd
	}
	return m.rt.Session().Store().Cwd()
}

// lastToken is the text after the last delimiter (space, tab, quote, =) before the cursor.
func lastToken(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '\'' || r == '=' })
	return s[i+1:]
}

func (m *model) slashCompletion(prefix string) *completion {
	var items []command.Completion
	for _, c := range m.cmds.List() {
		d := c.Description
		if c.ArgumentHint != "" {
			d = c.ArgumentHint + " — " + d
		}
		items = append(items, command.Completion{Value: c.Name, Label: "/" + c.Name, Description: d})
	}
	// Extension commands, prompt templates and skills: the registry RPC get_commands lists.
	var extra []ext.CommandInfo
	if m.rt != nil {
		extra = m.rt.Session().SlashCommands()
	}
	for _, c := range extra {
		if _, builtin := m.cmds.Lookup(c.Name); builtin {
			continue
		}
		d := c.Description
		if c.ArgumentHint != "" {
			d = c.ArgumentHint + " — " + d
		}
		if d == "" {
			d = "(" + c.Source + " command)"
		}
		items = append(items, command.Completion{Value: c.Name, Label: "/" + c.Name, Description: d})
	}
	items = fuzzyFilter(items, prefix, func(c command.Completion) string { return c.Value })
	if len(items) == 0 {
		return nil
	}
	return &completion{kind: "slash", prefix: "/" + prefix, items: items}
}

// maxFileScan bounds how many paths an @ search looks at.
const maxFileScan = 20000

// fileCompletion is the @ fuzzy file search (tui.md §3.4): files and directories under the cwd,
// gitignore-aware through `git ls-files` when the cwd is a repository.
func (m *model) fileCompletion(tok string) *completion {
	q := strings.TrimPrefix(tok, "@")
	cwd := m.cwd()
	if m.fileList == nil || m.fileListDir != cwd {
		m.fileList, m.fileListDir = listFiles(cwd), cwd
	}
	type scored struct {
		c     command.Completion
		score int
	}
	var out []scored
	lq := strings.ToLower(q)
	for _, p := range m.fileList {
		base := strings.ToLower(filepath.Base(strings.TrimSuffix(p, "/")))
		lp := strings.ToLower(p)
		s := 0
		switch {
		case lq == "":
			s = 1
		case base == lq || base == lq+"/":
			s = 100
		case strings.HasPrefix(base, lq):
			s = 80
		case strings.Contains(base, lq):
			s = 50
		case strings.Contains(lp, lq):
			s = 30
		case fuzzyScore(lp, lq) >= 0:
			s = 10
		default:
			continue
		}
		if strings.HasSuffix(p, "/") {
			s += 10
		}
		v := "@" + p
		if strings.Contains(p, " ") {
			v = `@"` + p + `"`
		}
		out = append(out, scored{command.Completion{Value: v, Label: filepath.Base(strings.TrimSuffix(p, "/")) + map[bool]string{true: "/", false: ""}[strings.HasSuffix(p, "/")], Description: p}, s})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) > 20 {
		out = out[:20]
	}
	if len(out) == 0 {
		return nil
	}
	c := &completion{kind: "file", prefix: tok}
	for _, s := range out {
		c.items = append(c.items, s.c)
	}
	return c
}

// listFiles lists the cwd's files and directories (directories with a trailing /): `git
// ls-files` (tracked and untracked, not ignored) in a repository, else a bounded walk skipping
// dot-directories.
func listFiles(cwd string) []string {
	seen := map[string]bool{}
	var out []string
	addDirs := func(p string) {
		for d := filepath.Dir(p); d != "." && d != "/" && !seen[d+"/"]; d = filepath.Dir(d) {
			seen[d+"/"] = true
			out = append(out, d+"/")
		}
	}
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = cwd
	if b, err := cmd.Output(); err == nil {
		for _, p := range strings.Split(string(b), "\n") {
			if p == "" || len(out) >= maxFileScan {
				continue
			}
			out = append(out, p)
			addDirs(p)
		}
		return out
	}
	_ = filepath.WalkDir(cwd, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= maxFileScan {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(cwd, p)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			out = append(out, rel+"/")
		} else {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// pathCompletion lists the directory of the typed prefix (tui.md §3.4 Tab path completion).
func (m *model) pathCompletion(tok string) *completion {
	cwd := m.cwd()
	dirPart, base := filepath.Split(tok)
	dir := dirPart
	switch {
	case strings.HasPrefix(dir, "~/"):
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, dir[2:])
	case dir == "":
		dir = cwd
	case !filepath.IsAbs(dir):
		dir = filepath.Join(cwd, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var dirs, files []command.Completion
	lb := strings.ToLower(base)
	for _, e := range ents {
		if !strings.HasPrefix(strings.ToLower(e.Name()), lb) {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, command.Completion{Value: dirPart + e.Name() + "/", Label: e.Name() + "/"})
		} else {
			files = append(files, command.Completion{Value: dirPart + e.Name(), Label: e.Name()})
		}
	}
	items := append(dirs, files...)
	if len(items) == 0 {
		return nil
	}
	return &completion{kind: "path", prefix: tok, items: items}
}

// completionKey handles keys while the list is open.
func (m *model) completionKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	c := m.complete
	switch {
	case m.km.Matches(k, keys.SelectUp):
		c.sel = (c.sel - 1 + len(c.items)) % len(c.items)
		return nil, true
	case m.km.Matches(k, keys.SelectDown):
		c.sel = (c.sel + 1) % len(c.items)
		return nil, true
	case m.km.Matches(k, keys.Tab):
		return m.applyCompletion(false), true
	case m.km.Matches(k, keys.Submit):
		return m.applyCompletion(c.kind == "slash" || c.kind == "provider" && builtinSlash(c.req, c.prefix)), true
	case m.km.Matches(k, keys.SelectCancel) && keys.Press(k) == "esc":
		m.complete, m.completeStale = nil, false
		return nil, true
	}
	return nil, false
}

// applyCompletion replaces the completed prefix with the selected item; a slash command applied
// with Enter is submitted at once (tui.md §2.2).
func (m *model) applyCompletion(submit bool) tea.Cmd {
	c := m.complete
	m.complete, m.completeStale = nil, false
	if c == nil || len(c.items) == 0 {
		return nil
	}
	it := c.items[c.sel]
	n := len([]rune(c.prefix))
	switch c.kind {
	case "provider":
		return m.applyProviderCompletion(c, it, submit)
	case "slash":
		m.ed.ReplaceBeforeCursor(n, "/"+it.Value+" ")
		if submit {
			text := strings.TrimSpace(m.ed.Value())
			m.ed.AddHistory(text)
			m.ed.Reset()
			return m.submit(text)
		}
	case "file":
		v := it.Value
		if !strings.HasSuffix(v, "/") {
			v += " "
		}
		m.ed.ReplaceBeforeCursor(n, v)
	case "arg":
		m.ed.ReplaceBeforeCursor(n, it.Value)
	default:
		m.ed.ReplaceBeforeCursor(n, it.Value)
		if strings.HasSuffix(it.Value, "/") {
			m.refreshCompletion(false)
		}
	}
	return nil
}

// completionLines renders the list under the editor's bottom rule.
func (m *model) completionLines(w int) []string {
	c := m.complete
	if c == nil {
		return nil
	}
	start := 0
	if c.sel >= maxVisible {
		start = c.sel - maxVisible + 1
	}
	end := min(start+maxVisible, len(c.items))
	labelW := 0
	for _, it := range c.items[start:end] {
		labelW = max(labelW, component.Width(it.Label))
	}
	labelW = min(labelW, w/2)
	var out []string
	for i := start; i < end; i++ {
		it := c.items[i]
		prefix := "  "
		label := component.Pad(component.Truncate(it.Label, labelW, "…"), labelW)
		if i == c.sel {
			prefix = m.th.Fg("accent", "→ ")
			label = m.th.Fg("accent", label)
		}
		line := prefix + label
		if it.Description != "" {
			line += "  " + m.th.Fg("muted", it.Description)
		}
		out = append(out, component.Truncate(line, w, "…"))
	}
	if len(c.items) > maxVisible {
		out = append(out, m.th.Fg("muted", "  ("+itoa(c.sel+1)+"/"+itoa(len(c.items))+")"))
	}
	return out
}

// fuzzyScore is pi's fuzzyMatch (tui.md §3.4): every query character in order, case-insensitive;
// lower is better; -1 when it does not match.
func fuzzyScore(text, query string) int {
	if query == "" {
		return 0
	}
	t, q := []rune(strings.ToLower(text)), []rune(strings.ToLower(query))
	score, qi, run, last := 0, 0, 0, -1
	for i := 0; i < len(t) && qi < len(q); i++ {
		if t[i] != q[qi] {
			continue
		}
		if last == i-1 {
			run++
			score -= 5 * run
		} else {
			run = 0
			if last >= 0 {
				score += 2 * (i - last - 1)
			}
		}
		if i == 0 || strings.ContainsRune(" -_./:", t[i-1]) {
			score -= 10
		}
		score += i / 10
		last = i
		qi++
	}
	if qi < len(q) {
		return -1
	}
	if string(t) == string(q) {
		score -= 100
	}
	return score + 1000 // keep matches non-negative
}

// fuzzyFilter keeps the items matching query (all of its space- or slash-separated tokens), best
// first; an empty query keeps the order.
func fuzzyFilter[T any](items []T, query string, key func(T) string) []T {
	if strings.TrimSpace(query) == "" {
		return items
	}
	toks := strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '/' })
	type sc struct {
		it T
		s  int
	}
	var out []sc
	for _, it := range items {
		total, ok := 0, true
		for _, t := range toks {
			s := fuzzyScore(key(it), t)
			if s < 0 {
				ok = false
				break
			}
			total += s
		}
		if ok {
			out = append(out, sc{it, total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].s < out[j].s })
	res := make([]T, len(out))
	for i, o := range out {
		res[i] = o.it
	}
	return res
}
