package theme

// Params returns copies of the theme's token → SGR parameter maps ("38;2;r;g;b", "38;5;n", ""
// for the terminal default), the optional tokens included: what extensions style with
// (ext.Theme).
func (t *Theme) Params() (fg, bg map[string]string) {
	fg = make(map[string]string, len(t.fg))
	for k, v := range t.fg {
		fg[k] = v
	}
	bg = make(map[string]string, len(t.bg))
	for k, v := range t.bg {
		bg[k] = v
	}
	return fg, bg
}
