package chat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/highlight"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// Env is what blocks render with. A change of any field other than through Transcript's setters
// requires Transcript.Invalidate.
type Env struct {
	Theme *theme.Theme
	MD    *Markdown
	Keys  *keys.Map
	// Expanded is the global app.tools.expand flag (tool rows, compaction and branch summaries,
	// custom messages; tui.md §6.1).
	Expanded bool
	// ShowThinking shows thinking blocks in full (app.thinking.toggle); they are collapsed to one
	// line by default.
	ShowThinking bool
	// Home shortens paths to ~ (tui.md §6.2).
	Home string
}

func (e *Env) expandHint() string {
	if h := e.Keys.Hint(keys.ToolsExpand); h != "" {
		return h
	}
	return "ctrl+o"
}

// Block is one transcript entry. Render returns its lines for width, starting with the blank
// separator line where the entry has one; it is called only when the block changed, the width
// changed or the transcript was invalidated (the result is cached).
type Block interface {
	Render(env *Env, width int) []string
}

func plainWrap(text string, width int) []string { return component.Wrap(text, width) }

// pad fills the remaining width with spaces so a background covers the whole row.
func box(th *theme.Theme, bg string, lines []string, width int) []string {
	inner := width - 2
	if inner < 1 {
		inner = 1
	}
	seq := th.BgSeq(bg)
	out := make([]string, 0, len(lines)+2)
	blank := seq + strings.Repeat(" ", width) + "\x1b[49m"
	out = append(out, blank)
	for _, l := range lines {
		l = component.Truncate(l, inner, "")
		out = append(out, seq+" "+component.Pad(reapplyBg(l, seq), inner)+" \x1b[49m")
	}
	return append(out, blank)
}

// reapplyBg re-opens the background after any full reset inside l.
func reapplyBg(l, seq string) string {
	if seq == "" || !strings.Contains(l, "\x1b[0m") && !strings.Contains(l, "\x1b[m") && !strings.Contains(l, "\x1b[49m") {
		return l
	}
	l = strings.ReplaceAll(l, "\x1b[0m", "\x1b[0m"+seq)
	l = strings.ReplaceAll(l, "\x1b[m", "\x1b[m"+seq)
	return strings.ReplaceAll(l, "\x1b[49m", seq)
}

// UserBlock is a user message: a blank line, then the text on userMessageBg with padding (1,1).
type UserBlock struct {
	Text   string
	Images int
}

// Render implements Block.
func (b *UserBlock) Render(env *Env, width int) []string {
	th := env.Theme
	text := strings.TrimSpace(b.Text)
	lines := plainWrap(text, max(width-2, 1))
	for i, l := range lines {
		lines[i] = th.Fg("userMessageText", l)
	}
	if b.Images > 0 {
		lines = append(lines, th.Fg("muted", fmt.Sprintf("[%d image(s)]", b.Images)))
	}
	return append([]string{""}, box(th, "userMessageBg", lines, width)...)
}

// AssistantBlock is an assistant message's text and thinking (its tool calls are ToolBlocks).
// Its markdown is rendered at width-2 and indented by one cell.
type AssistantBlock struct {
	Content      []llm.Content
	StopReason   llm.StopReason
	ErrorMessage string
	HasToolCalls bool
	// Streaming marks a message still receiving deltas.
	Streaming bool

	cache []mdCache // per content index
	// bufs hold the streamed text of each content index (deltas append in amortised O(1); the
	// Content strings are refreshed from them when the block renders).
	bufs []*strings.Builder
}

// mdCache is the rendering of one text block at one width: while streaming, prefix holds the
// rendered stable part (text[:prefixLen]); full is the whole last rendering of text.
type mdCache struct {
	width     int
	prefixLen int
	prefix    []string
	text      string
	full      []string
}

// AppendDelta adds a text or thinking delta to content block idx, growing the content as needed.
// The text is kept in a builder until the block renders (or Sync is called), so a long stream
// does not copy its whole text on every delta.
func (b *AssistantBlock) AppendDelta(idx int, typ, delta string) {
	for len(b.Content) <= idx {
		b.Content = append(b.Content, llm.Content{})
	}
	for len(b.bufs) <= idx {
		b.bufs = append(b.bufs, nil)
	}
	c := &b.Content[idx]
	buf := b.bufs[idx]
	if buf == nil {
		buf = &strings.Builder{}
		switch typ {
		case llm.ContentThinking:
			buf.WriteString(c.Thinking)
		case llm.ContentText:
			buf.WriteString(c.Text)
		}
		b.bufs[idx] = buf
	}
	c.Type = typ
	buf.WriteString(delta)
}

// Sync copies the streamed text into Content (Render does it itself).
func (b *AssistantBlock) Sync() {
	for i, buf := range b.bufs {
		if buf == nil || i >= len(b.Content) {
			continue
		}
		c := &b.Content[i]
		switch c.Type {
		case llm.ContentThinking:
			c.Thinking = buf.String()
		case llm.ContentText:
			c.Text = buf.String()
		}
	}
}

// SetContent replaces the content (the final message), dropping the streamed text.
func (b *AssistantBlock) SetContent(content []llm.Content) {
	b.Content, b.bufs = content, nil
}

func (b *AssistantBlock) markdown(env *Env, i int, text string, width int) []string {
	for len(b.cache) <= i {
		b.cache = append(b.cache, mdCache{})
	}
	c := &b.cache[i]
	if c.width == width && c.text == text {
		return c.full
	}
	if c.width != width || c.prefixLen > len(text) || c.text[:c.prefixLen] != text[:c.prefixLen] {
		*c = mdCache{width: width}
	}
	var lines []string
	if b.Streaming {
		// The stable prefix grows chunk by chunk: render only the new chunk and append it, so
		// a long answer costs its new paragraphs, never its whole length again.
		if cut := splitStable(text); cut > c.prefixLen {
			chunk := component.Indent(env.MD.Render(text[c.prefixLen:cut], width), 1)
			if len(c.prefix) > 0 && len(chunk) > 0 {
				c.prefix = append(c.prefix, "")
			}
			c.prefix = append(c.prefix, chunk...)
			c.prefixLen = cut
		}
		tail := component.Indent(env.MD.Render(text[c.prefixLen:], width), 1)
		lines = make([]string, 0, len(c.prefix)+len(tail)+1)
		lines = append(lines, c.prefix...)
		if len(c.prefix) > 0 && len(tail) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, tail...)
	} else {
		lines = component.Indent(env.MD.Render(text, width), 1)
	}
	c.text, c.full = text, lines
	return lines
}

// Render implements Block.
func (b *AssistantBlock) Render(env *Env, width int) []string {
	b.Sync()
	th := env.Theme
	var out []string
	inner := max(width-2, 4)
	for i, c := range b.Content {
		switch c.Type {
		case llm.ContentThinking:
			t := strings.TrimSpace(c.Thinking)
			if t == "" {
				continue
			}
			out = append(out, "")
			if !env.ShowThinking {
				out = append(out, " "+theme.Italic(th.Fg("thinkingText", "Thinking...")))
				continue
			}
			for _, l := range plainWrap(t, inner) {
				out = append(out, " "+theme.Italic(th.Fg("thinkingText", l)))
			}
		case llm.ContentText:
			t := strings.TrimSpace(c.Text)
			if t == "" {
				continue
			}
			out = append(out, "")
			out = append(out, b.markdown(env, i, t, inner)...)
		}
	}
	if !b.HasToolCalls && !b.Streaming {
		switch b.StopReason {
		case llm.StopAborted:
			msg := b.ErrorMessage
			if msg == "" || msg == "Request was aborted" {
				msg = "Operation aborted"
			}
			out = append(out, "", " "+th.Fg("error", msg))
		case llm.StopError:
			msg := b.ErrorMessage
			if msg == "" {
				msg = "unknown error"
			}
			for _, l := range plainWrap("Error: "+msg, inner) {
				out = append(out, " "+th.Fg("error", l))
			}
		}
	}
	return out
}

// ToolBlock is one tool call and its result (tui.md §6.2).
type ToolBlock struct {
	ID   string
	Name string
	Args map[string]any
	// ArgsComplete is false while the model still streams the arguments.
	ArgsComplete bool
	Started      bool
	Done         bool
	IsError      bool
	// Result is the (partial while running, final when Done) result content and details.
	Result  []llm.Content
	Details any
	// Custom draws a slot ("call" or "result") with the tool's extension renderer at width;
	// ok false draws that slot with the built-in renderer (nil: both built-in).
	Custom func(env *Env, slot string, width int) (lines []string, ok bool)
	// SelfShell draws the slots without the box (renderShell "self").
	SelfShell bool
}

func (b *ToolBlock) str(k string) string {
	if v, ok := b.Args[k]; ok {
		switch v := v.(type) {
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case nil:
			return ""
		default:
			j, _ := json.Marshal(v)
			return string(j)
		}
	}
	return ""
}

func shortPath(env *Env, p string) string {
	if env.Home != "" && strings.HasPrefix(p, env.Home) {
		return "~" + p[len(env.Home):]
	}
	return p
}

// Render implements Block.
func (b *ToolBlock) Render(env *Env, width int) []string {
	th := env.Theme
	bg := "toolSuccessBg"
	switch {
	case b.IsError:
		bg = "toolErrorBg"
	case !b.Done:
		bg = "toolPendingBg"
	}
	inner := max(width-2, 4)
	if b.SelfShell {
		inner = width
	}
	var lines []string
	if c, ok := b.custom(env, "call", inner); ok {
		lines = c
	} else {
		lines = b.call(env)
	}
	if c, ok := b.custom(env, "result", inner); ok {
		lines = append(lines, c...)
	} else if res := b.result(env, inner); len(res) > 0 {
		lines = append(lines, "")
		lines = append(lines, res...)
	}
	if b.SelfShell {
		return append([]string{""}, lines...)
	}
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, plainWrap(l, inner)...)
	}
	return append([]string{""}, box(th, bg, wrapped, width)...)
}

// custom is the extension renderer's lines of slot, if it draws them.
func (b *ToolBlock) custom(env *Env, slot string, width int) ([]string, bool) {
	if b.Custom == nil {
		return nil, false
	}
	return b.Custom(env, slot, width)
}

func (b *ToolBlock) call(env *Env) []string {
	th := env.Theme
	title := func(s string) string { return theme.Bold(th.Fg("toolTitle", s)) }
	path := th.Fg("accent", shortPath(env, b.str("path")))
	switch b.Name {
	case "read":
		s := title("read") + " " + path
		if off, lim := b.str("offset"), b.str("limit"); off != "" || lim != "" {
			start, _ := strconv.Atoi(off)
			if start == 0 {
				start = 1
			}
			rng := strconv.Itoa(start)
			if n, err := strconv.Atoi(lim); err == nil {
				rng += "-" + strconv.Itoa(start+n-1)
			}
			s += th.Fg("warning", ":"+rng)
		}
		return []string{s}
	case "bash":
		s := title("$ " + b.str("command"))
		if t := b.str("timeout"); t != "" {
			s += th.Fg("muted", " (timeout "+t+"s)")
		}
		return strings.Split(s, "\n")
	case "edit":
		s := title("edit") + " " + path
		if d := detailsMap(b.Details); d != nil {
			if n, ok := d["firstChangedLine"].(float64); ok && n > 0 {
				s += th.Fg("warning", ":"+strconv.Itoa(int(n)))
			}
		}
		return []string{s}
	case "write":
		return []string{title("write") + " " + path}
	case "grep", "search":
		s := title(b.Name) + " " + th.Fg("accent", "/"+b.str("pattern")+"/")
		p := b.str("path")
		if ps, ok := b.Args["paths"].([]any); ok { // search's paths: a string or a list
			for i, e := range ps {
				if i > 0 {
					p += ", "
				}
				p += fmt.Sprint(e)
			}
		} else if p == "" {
			p = b.str("paths")
		}
		if p != "" {
			s += " in " + th.Fg("accent", shortPath(env, p))
		}
		if g := b.str("glob"); g != "" {
			s += " (" + g + ")"
		}
		if l := b.str("limit"); l != "" {
			s += th.Fg("muted", " limit "+l)
		}
		return []string{s}
	case "find":
		s := title("find") + " " + th.Fg("accent", b.str("pattern"))
		if p := b.str("path"); p != "" {
			s += " in " + th.Fg("accent", shortPath(env, p))
		}
		if l := b.str("limit"); l != "" {
			s += th.Fg("muted", " (limit "+l+")")
		}
		return []string{s}
	case "ls":
		p := b.str("path")
		if p == "" {
			p = "."
		}
		s := title("ls") + " " + th.Fg("accent", shortPath(env, p))
		if l := b.str("limit"); l != "" {
			s += th.Fg("muted", " (limit "+l+")")
		}
		return []string{s}
	}
	s := title(b.Name)
	if len(b.Args) > 0 {
		keys := make([]string, 0, len(b.Args))
		for k := range b.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+b.str(k))
		}
		s += " " + th.Fg("muted", strings.Join(parts, " "))
	}
	return []string{s}
}

func detailsMap(d any) map[string]any {
	if d == nil {
		return nil
	}
	if m, ok := d.(map[string]any); ok {
		return m
	}
	j, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(j, &m) != nil {
		return nil
	}
	return m
}

func (b *ToolBlock) text() string {
	var parts []string
	for _, c := range b.Result {
		switch c.Type {
		case llm.ContentText:
			parts = append(parts, c.Text)
		case llm.ContentImage:
			parts = append(parts, "[Image: ["+c.MimeType+"]]")
		}
	}
	return strings.TrimRight(strings.Join(parts, "\n"), "\n")
}

// result renders the result slot; collapsed rows show a preview and a "… more lines" note.
func (b *ToolBlock) result(env *Env, width int) []string {
	th := env.Theme
	text := b.text()
	if b.IsError {
		if text == "" {
			return nil
		}
		var out []string
		for _, l := range strings.Split(text, "\n") {
			out = append(out, th.Fg("error", l))
		}
		return out
	}
	hint := env.expandHint()
	head := func(lines []string, n int) []string {
		if env.Expanded || len(lines) <= n {
			return lines
		}
		return append(lines[:n:n], th.Fg("muted", fmt.Sprintf("... (%d more lines, %s to expand)", len(lines)-n, hint)))
	}
	colour := func(lines []string, tok string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = th.Fg(tok, l)
		}
		return out
	}
	switch b.Name {
	case "read":
		if text == "" {
			return nil
		}
		lines := strings.Split(text, "\n")
		if env.Expanded || len(lines) <= 10 {
			return highlightPath(th, b.str("path"), lines)
		}
		note := th.Fg("muted", fmt.Sprintf("... (%d more lines, %s to expand)", len(lines)-10, hint))
		return append(highlightPath(th, b.str("path"), lines[:10]), note)
	case "bash":
		if text == "" {
			return nil
		}
		var vis []string
		for _, l := range strings.Split(text, "\n") {
			vis = append(vis, plainWrap(l, width)...)
		}
		if !env.Expanded && len(vis) > 5 {
			note := th.Fg("muted", fmt.Sprintf("... (%d earlier lines, %s to expand)", len(vis)-5, hint))
			return append([]string{note}, colour(vis[len(vis)-5:], "toolOutput")...)
		}
		return colour(vis, "toolOutput")
	case "edit":
		if d := detailsMap(b.Details); d != nil {
			if diff, ok := d["diff"].(string); ok && diff != "" {
				return diffLines(th, strings.Split(diff, "\n"))
			}
		}
		if text == "" {
			return nil
		}
		return colour(strings.Split(text, "\n"), "toolOutput")
	case "write":
		content := b.str("content")
		if content == "" {
			return nil
		}
		lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
		total := len(lines)
		if !env.Expanded && total > 10 {
			return append(highlightPath(th, b.str("path"), lines[:10]), th.Fg("muted", fmt.Sprintf("... (%d more lines, %d total, %s to expand)", total-10, total, hint)))
		}
		return highlightPath(th, b.str("path"), lines)
	case "grep", "search":
		if text == "" {
			return nil
		}
		return colour(head(strings.Split(text, "\n"), 15), "toolOutput")
	case "find", "ls":
		if text == "" {
			return nil
		}
		return colour(head(strings.Split(text, "\n"), 20), "toolOutput")
	}
	if text == "" {
		return nil
	}
	return colour(head(strings.Split(text, "\n"), 10), "toolOutput")
}

func diffLines(th *theme.Theme, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+"):
			out[i] = th.Fg("toolDiffAdded", l)
		case strings.HasPrefix(l, "-"):
			out[i] = th.Fg("toolDiffRemoved", l)
		default:
			out[i] = th.Fg("toolDiffContext", l)
		}
	}
	return out
}

// highlightPath colours lines of the file at path with the theme's syntax tokens; unknown
// languages get toolOutput.
func highlightPath(th *theme.Theme, path string, lines []string) []string {
	return highlight.Lines(th, path, strings.Join(lines, "\n"), "toolOutput")
}

// NoticeBlock is a status, warning or error line (tui.md §1.5).
type NoticeBlock struct {
	Level string // info, warning, error
	Text  string
}

// Render implements Block.
func (b *NoticeBlock) Render(env *Env, width int) []string {
	th := env.Theme
	text, tok := b.Text, "dim"
	switch b.Level {
	case "warning":
		text, tok = "Warning: "+text, "warning"
	case "error":
		text, tok = "Error: "+text, "error"
	}
	out := []string{""}
	for _, l := range plainWrap(text, max(width-2, 4)) {
		out = append(out, " "+th.Fg(tok, l))
	}
	return out
}

// LabelBlock is a boxed, labelled message: custom messages, compaction and branch summaries
// (tui.md §6.1). Collapsed shows Collapsed; expanded shows the markdown Body.
type LabelBlock struct {
	Label     string // e.g. "compaction", "branch", or a custom message type
	Collapsed string // one line shown when collapsed; "" shows Body always
	Heading   string // shown bold above Body when expanded
	Body      string
	// Markdown renders Body as markdown (a custom message without a renderer, as pi's
	// CustomMessageComponent does); false wraps it as plain text.
	Markdown bool
	// Custom draws the message with its extension renderer (registerMessageRenderer); ok false
	// draws the box above.
	Custom func(env *Env, width int) (lines []string, ok bool)
}

// Render implements Block.
func (b *LabelBlock) Render(env *Env, width int) []string {
	if b.Custom != nil {
		if lines, ok := b.Custom(env, width); ok {
			return append([]string{""}, lines...)
		}
	}
	th := env.Theme
	inner := max(width-2, 4)
	lines := []string{theme.Bold(th.Fg("customMessageLabel", "["+b.Label+"]"))}
	if b.Collapsed != "" && !env.Expanded {
		lines = append(lines, th.Fg("customMessageText", fmt.Sprintf("%s (%s to expand)", b.Collapsed, env.expandHint())))
	} else {
		lines = append(lines, "")
		if b.Heading != "" {
			lines = append(lines, theme.Bold(b.Heading))
		}
		body := plainWrap(strings.TrimSpace(b.Body), inner)
		if b.Markdown {
			body = NewMarkdown(th).Render(b.Body, inner)
		}
		for _, l := range body {
			lines = append(lines, th.Fg("customMessageText", l))
		}
	}
	return append([]string{""}, box(th, "customMessageBg", lines, width)...)
}

// BashBlock is a user `!`/`!!` command and its output (tui.md §3.6).
type BashBlock struct {
	Command   string
	Output    string
	Running   bool
	ExitCode  *int
	Cancelled bool
	Excluded  bool
	FullPath  string
	Truncated bool
}

// Render implements Block.
func (b *BashBlock) Render(env *Env, width int) []string {
	th := env.Theme
	inner := max(width-2, 4)
	head := theme.Bold(th.Fg("bashMode", "$ "+b.Command))
	if b.Excluded {
		head = theme.Bold(th.Fg("dim", "$ "+b.Command))
	}
	out := []string{"", " " + head}
	var vis []string
	if o := strings.TrimRight(b.Output, "\n"); o != "" {
		for _, l := range strings.Split(o, "\n") {
			vis = append(vis, plainWrap(l, inner)...)
		}
	}
	if !env.Expanded && len(vis) > 20 {
		out = append(out, " "+th.Fg("muted", fmt.Sprintf("... %d more lines (%s to expand)", len(vis)-20, env.expandHint())))
		vis = vis[len(vis)-20:]
	}
	for _, l := range vis {
		out = append(out, " "+th.Fg("muted", l))
	}
	switch {
	case b.Running:
		out = append(out, " "+th.Fg("muted", "Running... (esc to cancel)"))
	case b.Cancelled:
		out = append(out, " "+th.Fg("warning", "(cancelled)"))
	case b.ExitCode != nil && *b.ExitCode != 0:
		out = append(out, " "+th.Fg("error", fmt.Sprintf("(exit %d)", *b.ExitCode)))
	}
	if b.Truncated && b.FullPath != "" {
		out = append(out, " "+th.Fg("warning", "Output truncated. Full output: "+b.FullPath))
	}
	return out
}

// LinesBlock is a block of fixed, pre-styled lines (the header, startup listings), cut to the
// width.
type LinesBlock struct {
	Lines []string
}

// Render implements Block.
func (b *LinesBlock) Render(env *Env, width int) []string {
	return component.Lines(b.Lines).Render(width)
}
