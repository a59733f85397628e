package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// header is the built-in header (tui.md §1.2): name and version, the main key hints, and the
// loaded context files and extensions.
func (m *model) header() []string {
	th := m.th
	v := m.opts.Version
	if v == "" {
		v = "dev"
	}
	out := []string{theme.Bold(th.Fg("accent", "atomic")) + th.Fg("dim", " v"+v)}
	hint := func(id, desc string) string {
		k := m.km.Hint(id)
		if k == "" {
			return ""
		}
		return th.Fg("dim", k) + " " + th.Fg("muted", desc)
	}
	var hints []string
	for _, h := range []string{
		hint(keys.Interrupt, "to interrupt"),
		hint(keys.Clear, "to clear"),
		th.Fg("dim", m.km.Hint(keys.Clear)+" twice") + " " + th.Fg("muted", "to exit"),
		hint(keys.Exit, "to exit (empty)"),
		hint(keys.ThinkingCycle, "to cycle thinking"),
		hint(keys.ModelCycleForward, "to cycle models"),
		hint(keys.ToolsExpand, "to expand tools"),
		hint(keys.ThinkingToggle, "to expand thinking"),
		hint(keys.EditorExternal, "for external editor"),
		th.Fg("dim", "/") + " " + th.Fg("muted", "for commands"),
		th.Fg("dim", "!") + " " + th.Fg("muted", "to run bash"),
		th.Fg("dim", "!!") + " " + th.Fg("muted", "to run bash (no context)"),
		hint(keys.MessageFollowUp, "to queue follow-up"),
		hint(keys.MessageDequeue, "to edit all queued messages"),
	} {
		if h != "" {
			hints = append(hints, h)
		}
	}
	out = append(out, hints...)
	return append(out, m.resourceListing()...)
}

// resourceListing is the start-up listing of the loaded context files and extensions (tui.md
// §1.2): a blank line and a "[Title]" line, then one indented path a line, per section. It
// follows the header, the built-in one or an extension's (pi lists them in the chat, so a
// custom header keeps them).
func (m *model) resourceListing() []string {
	th := m.th
	var out []string
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		out = append(out, "", th.Fg("mdHeading", "["+title+"]"))
		for _, it := range items {
			out = append(out, th.Fg("dim", "  "+m.shortHome(it)))
		}
	}
	section("Context", m.opts.ContextFiles)
	section("Extensions", m.opts.Extensions)
	return out
}

func (m *model) shortHome(p string) string {
	if h := m.chat.Env.Home; h != "" && strings.HasPrefix(p, h) {
		return "~" + p[len(h):]
	}
	return p
}

// footerStats is what the footer shows of the session; recomputed only on session events.
type footerStats struct {
	in, out, cacheRead, cacheWrite int64
	cost                           float64
	ctxPercent                     float64 // <0: unknown
	ctxTokens                      int64   // the context size behind ctxPercent
	window                         int
	name                           string // session name
	// multiProvider: models of more than one provider are available (authenticated), so the
	// model is prefixed with its provider (tui.md §1.3).
	multiProvider bool
}

// multiProvider reports whether the available models come from more than one provider.
func multiProvider(available []*llm.Model) bool {
	first := ""
	for _, md := range available {
		switch {
		case first == "":
			first = md.Provider
		case md.Provider != first:
			return true
		}
	}
	return false
}

func (m *model) stats() footerStats {
	s := m.rt.Session()
	st, err := s.Stats()
	fs := footerStats{ctxPercent: -1, name: s.SessionName()}
	if reg := s.Registry(); reg != nil {
		fs.multiProvider = multiProvider(reg.Available())
	}
	if md := s.Model(); md != nil {
		fs.window = int(md.ContextWindow)
	}
	if err != nil {
		return fs
	}
	// The token and cost totals are the whole file's, every branch and what compaction dropped
	// included, as pi's footer sums them (sessionManager.getEntries()); Stats counts the context.
	u := s.Store().UsageTotals()
	fs.in, fs.out, fs.cacheRead, fs.cacheWrite, fs.cost = u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Cost.Total
	if u := st.ContextUsage; u != nil && u.ContextWindow > 0 {
		fs.ctxPercent, fs.window, fs.ctxTokens = u.Percent, u.ContextWindow, u.Tokens
	}
	return fs
}

// footerAdd updates the footer's figures for a message that just ended, the way Session.Stats
// computes them, without walking the whole context again (on a 10,000-message session that walk
// copies every message): an assistant message adds its usage to the totals and, unless it
// failed, its total becomes the context size; any other message adds its estimate (JSON bytes /
// 4) to the context size. Nothing is cached yet: the next frame computes everything.
func (m *model) footerAdd(msg *llm.Message) {
	fs := m.footerCache
	if fs == nil || msg == nil {
		return
	}
	if msg.Role == llm.RoleAssistant {
		u := msg.Usage
		fs.in, fs.out, fs.cacheRead, fs.cacheWrite = fs.in+u.Input, fs.out+u.Output, fs.cacheRead+u.CacheRead, fs.cacheWrite+u.CacheWrite
		fs.cost += u.Cost.Total
		if msg.StopReason != llm.StopError && msg.StopReason != llm.StopAborted {
			fs.ctxTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
		} else {
			fs.addEstimate(msg)
		}
	} else {
		fs.addEstimate(msg)
	}
	if fs.ctxPercent >= 0 && fs.window > 0 {
		fs.ctxPercent = float64(fs.ctxTokens) * 100 / float64(fs.window)
	}
}

func (fs *footerStats) addEstimate(msg *llm.Message) {
	b, _ := msg.AppendJSON(nil)
	fs.ctxTokens += int64(len(b)+3) / 4
}

// footer is pi's footer (tui.md §1.3): cwd (branch) • session name; stats left and the model
// right; then the extension statuses.
func (m *model) footer(w int) []string {
	th := m.th
	if m.rt == nil {
		// Starting (UI.Start): cwd and the model; the figures come with the session.
		line1 := th.Fg("dim", component.Truncate(m.shortHome(m.preCwd), w, "..."))
		left := th.Fg("dim", "starting…")
		right := component.Truncate(m.preModel, max(w-component.Width(left)-2, 1), "...")
		return []string{line1, left + strings.Repeat(" ", max(w-component.Width(left)-component.Width(right), 1)) + th.Fg("dim", right)}
	}
	s := m.rt.Session()
	if m.footerCache == nil || m.footerSess != s {
		fs := m.stats()
		m.footerCache, m.footerSess = &fs, s
	}
	fs := *m.footerCache
	loc := m.shortHome(s.Store().Cwd())
	if m.gitBranch != "" {
		loc += " (" + m.gitBranch + ")"
	}
	if fs.name != "" {
		loc += " • " + fs.name
	}
	line1 := th.Fg("dim", component.Truncate(loc, w, "..."))

	var left []string
	if fs.in > 0 {
		left = append(left, "↑"+formatTokens(fs.in))
	}
	if fs.out > 0 {
		left = append(left, "↓"+formatTokens(fs.out))
	}
	if fs.cacheRead > 0 {
		left = append(left, "R"+formatTokens(fs.cacheRead))
	}
	if fs.cacheWrite > 0 {
		left = append(left, "W"+formatTokens(fs.cacheWrite))
	}
	if fs.cost > 0 {
		left = append(left, fmt.Sprintf("$%.3f", fs.cost))
	}
	auto := ""
	if s.AutoCompaction() {
		auto = " (auto)"
	}
	ctx := "?/" + formatTokens(int64(fs.window)) + auto
	ctxTok := "dim"
	if fs.ctxPercent >= 0 {
		ctx = fmt.Sprintf("%.1f%%/%s%s", fs.ctxPercent, formatTokens(int64(fs.window)), auto)
		switch {
		case fs.ctxPercent > 90:
			ctxTok = "error"
		case fs.ctxPercent > 70:
			ctxTok = "warning"
		}
	}
	leftS := th.Fg("dim", strings.Join(left, " "))
	if len(left) > 0 {
		leftS += " "
	}
	leftS += th.Fg(ctxTok, ctx)
	right := ""
	if md := s.Model(); md != nil {
		right = md.ID
		if md.Reasoning {
			if lvl := s.ThinkingLevel(); lvl != "" && lvl != "off" {
				right += " • " + lvl
			} else {
				right += " • thinking off"
			}
		}
	}
	lw := component.Width(leftS)
	room := w - lw - 2
	if md := s.Model(); md != nil && fs.multiProvider && right != "" {
		// The provider prefix only when it fits whole (pi drops it before truncating the model).
		if withProvider := "(" + md.Provider + ") " + right; component.Width(withProvider) <= room {
			right = withProvider
		}
	}
	var line2 string
	if room < 1 {
		line2 = component.Truncate(leftS, w, "")
	} else {
		right = component.Truncate(right, room, "...")
		line2 = leftS + strings.Repeat(" ", w-lw-component.Width(right)) + th.Fg("dim", right)
	}
	out := []string{line1, line2}
	if len(m.statuses) > 0 {
		ks := make([]string, 0, len(m.statuses))
		for k := range m.statuses {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, m.statuses[k])
		}
		out = append(out, component.Truncate(strings.Join(parts, " "), w, th.Fg("dim", "...")))
	}
	return out
}

// sanitizeStatus flattens a status text to one line (tui.md §1.3): CR, LF and TAB become
// spaces, runs of spaces collapse, the ends are trimmed; ANSI styling is kept.
func sanitizeStatus(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(s)
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return strings.TrimSpace(s)
}

// formatTokens is pi's formatTokens (tui.md §1.3): <1000 as is; <10k one decimal k; <1M rounded
// k; <10M one decimal M; else rounded M.
func formatTokens(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 10_000:
		return strconv.FormatFloat(f/1000, 'f', 1, 64) + "k"
	case n < 1_000_000:
		return strconv.FormatFloat(f/1000, 'f', 0, 64) + "k"
	case n < 10_000_000:
		return strconv.FormatFloat(f/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(f/1e6, 'f', 0, 64) + "M"
}
