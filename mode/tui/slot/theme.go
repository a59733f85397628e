package slot

// Theme colours the slot components by token name (tui.md §5.1): Fg wraps s in the foreground
// of token, Bg in the background. The root passes the active theme's Fg and Bg; nil functions
// (Plain) leave text unstyled, for golden tests.
type Theme struct {
	Fg func(token, s string) string
	Bg func(token, s string) string
}

// Plain is a Theme without colour; only the input cursor stays visible (reverse video).
func Plain() Theme { return Theme{} }

func (t Theme) fg(token, s string) string {
	if t.Fg == nil || s == "" {
		return s
	}
	return t.Fg(token, s)
}

func (t Theme) bg(token, s string) string {
	if t.Bg == nil || s == "" {
		return s
	}
	return t.Bg(token, s)
}

// Accent and the other helpers style s with one token.
func (t Theme) Accent(s string) string  { return t.fg("accent", s) }
func (t Theme) Muted(s string) string   { return t.fg("muted", s) }
func (t Theme) Dim(s string) string     { return t.fg("dim", s) }
func (t Theme) Text(s string) string    { return t.fg("text", s) }
func (t Theme) Warning(s string) string { return t.fg("warning", s) }
func (t Theme) Error(s string) string   { return t.fg("error", s) }
func (t Theme) Success(s string) string { return t.fg("success", s) }
func (t Theme) Border(s string) string  { return t.fg("border", s) }

// Token styles s with any foreground token (borderAccent, thinkingHigh…).
func (t Theme) Token(token, s string) string { return t.fg(token, s) }

// Selected styles a selected row: selectedBg, bold.
func (t Theme) Selected(s string) string { return t.bg("selectedBg", Bold(s)) }

// Bold, Inverse: attribute-only styling, kept under NO_COLOR.
func Bold(s string) string    { return "\x1b[1m" + s + "\x1b[22m" }
func Inverse(s string) string { return "\x1b[7m" + s + "\x1b[27m" }
