// Package theme holds the interactive mode's colour themes (tui.md §5): the built-in dark and
// light palettes, custom JSON themes from <agentDir>/themes, and the Fg/Bg/Bold helpers every
// component styles its lines with.
//
// Colours are emitted as 24-bit SGR sequences; the terminal renderer (Bubble Tea v2) downsamples
// them to the terminal's profile (256 or 16 colours) and drops them under NO_COLOR while keeping
// bold, italic and inverse. A Theme is immutable once built and safe for concurrent use.
//
// theme imports nothing of atomic.
package theme

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Foreground tokens (tui.md §5.1), in the spec's order.
var FgTokens = []string{
	"accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text",
	"thinkingText", "userMessageText", "customMessageText", "customMessageLabel", "toolTitle", "toolOutput",
	"mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder",
	"mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "syntaxComment",
	"syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber", "syntaxType",
	"syntaxOperator", "syntaxPunctuation", "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium",
	"thinkingHigh", "thinkingXhigh", "bashMode",
}

// BgTokens are the background tokens (tui.md §5.1).
var BgTokens = []string{"selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"}

// optional tokens and the token they default to.
var optional = map[string]string{"scrollbarThumb": "selectedBg", "searchMatchBg": "selectedBg", "searchMatchText": "text"}

// Theme is a resolved palette: every token maps to an SGR colour parameter string ("" = the
// terminal default).
type Theme struct {
	// Name is the theme's name ("dark", "light", a file's "name", or "<in-memory>").
	Name string
	// Path is the file a custom theme was read from; "" for built-ins.
	Path string
	fg   map[string]string // token -> "38;2;r;g;b" / "38;5;n" / ""
	raw  map[string]string // token -> "#rrggbb" / "n" (palette index) / ""
	bg   map[string]string // token -> "48;2;r;g;b" / "48;5;n" / ""
}

// File is the JSON form of a theme file (config-and-resources.md §13).
type File struct {
	Name   string                     `json:"name"`
	Vars   map[string]json.RawMessage `json:"vars,omitempty"`
	Colors map[string]json.RawMessage `json:"colors"`
}

// Parse builds a Theme from a theme file's bytes. Every required token must be present; a colour
// is "#rrggbb", an integer 0-255, a vars name or "". Errors name the token and the value.
func Parse(data []byte) (*Theme, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("theme: parse: %w", err)
	}
	if f.Name == "" || strings.Contains(f.Name, "/") {
		return nil, fmt.Errorf("theme: name %q: required, without '/'", f.Name)
	}
	t := &Theme{Name: f.Name, fg: map[string]string{}, bg: map[string]string{}, raw: map[string]string{}}
	resolve := func(tok string, raw json.RawMessage, bg bool) error {
		for depth := 0; depth < 8; depth++ {
			var n int
			if err := json.Unmarshal(raw, &n); err == nil {
				if n < 0 || n > 255 {
					return fmt.Errorf("theme %s: %s: colour index %d out of 0-255", f.Name, tok, n)
				}
				t.set(tok, strconv.Itoa(n), bg)
				return nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("theme %s: %s: colour must be a string or an integer", f.Name, tok)
			}
			if s == "" || strings.HasPrefix(s, "#") {
				if s != "" && !validHex(s) {
					return fmt.Errorf("theme %s: %s: bad colour %q (want #rrggbb)", f.Name, tok, s)
				}
				t.set(tok, s, bg)
				return nil
			}
			v, ok := f.Vars[s]
			if !ok {
				return fmt.Errorf("theme %s: %s: unknown variable %q", f.Name, tok, s)
			}
			raw = v
		}
		return fmt.Errorf("theme %s: %s: variables nest too deeply", f.Name, tok)
	}
	for _, tok := range FgTokens {
		raw, ok := f.Colors[tok]
		if !ok {
			return nil, fmt.Errorf("theme %s: missing colour %q", f.Name, tok)
		}
		if err := resolve(tok, raw, false); err != nil {
			return nil, err
		}
	}
	for _, tok := range BgTokens {
		raw, ok := f.Colors[tok]
		if !ok {
			return nil, fmt.Errorf("theme %s: missing colour %q", f.Name, tok)
		}
		if err := resolve(tok, raw, true); err != nil {
			return nil, err
		}
	}
	for tok, def := range optional {
		isBg := strings.HasSuffix(tok, "Bg") || tok == "scrollbarThumb"
		if raw, ok := f.Colors[tok]; ok {
			if err := resolve(tok, raw, isBg); err != nil {
				return nil, err
			}
			continue
		}
		t.raw[tok] = t.raw[def]
		if isBg {
			t.bg[tok] = t.bg[def]
		} else {
			t.fg[tok] = t.fg[def]
		}
	}
	return t, nil
}

func validHex(s string) bool {
	if len(s) != 7 {
		return false
	}
	_, err := strconv.ParseUint(s[1:], 16, 32)
	return err == nil
}

// set stores a colour value ("#rrggbb", a decimal palette index or "") as SGR parameters.
func (t *Theme) set(tok, v string, bg bool) {
	t.raw[tok] = v
	base := "38"
	if bg {
		base = "48"
	}
	var p string
	switch {
	case v == "":
	case strings.HasPrefix(v, "#"):
		n, _ := strconv.ParseUint(v[1:], 16, 32)
		p = fmt.Sprintf("%s;2;%d;%d;%d", base, n>>16&0xff, n>>8&0xff, n&0xff)
	default:
		p = base + ";5;" + v
	}
	if bg {
		t.bg[tok] = p
	} else {
		t.fg[tok] = p
	}
}

// Value is token's colour as written in the theme: "#rrggbb", a palette index "0"-"255", or ""
// for the terminal default (what lipgloss.Color and glamour accept).
func (t *Theme) Value(token string) string { return t.raw[token] }

// Has reports whether token is a known foreground or background token.
func (t *Theme) Has(token string) bool {
	_, f := t.fg[token]
	_, b := t.bg[token]
	return f || b
}

// Fg colours s with the foreground token and resets only the foreground afterwards (tui.md §5.2),
// so an outer background survives. An unknown token panics: token names are compile-time facts.
func (t *Theme) Fg(token, s string) string {
	p, ok := t.fg[token]
	if !ok {
		panic("theme: unknown colour token " + strconv.Quote(token))
	}
	if p == "" || s == "" {
		return s
	}
	return "\x1b[" + p + "m" + s + "\x1b[39m"
}

// FgSeq returns the SGR sequence that opens the foreground token ("" for the default colour).
func (t *Theme) FgSeq(token string) string {
	if p := t.fg[token]; p != "" {
		return "\x1b[" + p + "m"
	}
	return ""
}

// BgSeq returns the SGR sequence that opens the background token ("" for the default colour).
func (t *Theme) BgSeq(token string) string {
	if p := t.bg[token]; p != "" {
		return "\x1b[" + p + "m"
	}
	return ""
}

// Bg colours s with the background token and resets only the background afterwards.
func (t *Theme) Bg(token, s string) string {
	p, ok := t.bg[token]
	if !ok {
		panic("theme: unknown background token " + strconv.Quote(token))
	}
	if p == "" || s == "" {
		return s
	}
	return "\x1b[" + p + "m" + s + "\x1b[49m"
}

// Bold makes s bold (closed with SGR 22).
func Bold(s string) string { return "\x1b[1m" + s + "\x1b[22m" }

// Italic makes s italic (closed with SGR 23).
func Italic(s string) string { return "\x1b[3m" + s + "\x1b[23m" }

// Inverse shows s in reverse video (closed with SGR 27).
func Inverse(s string) string { return "\x1b[7m" + s + "\x1b[27m" }

// Underline underlines s (closed with SGR 24).
func Underline(s string) string { return "\x1b[4m" + s + "\x1b[24m" }

// Strike strikes s through (closed with SGR 29).
func Strike(s string) string { return "\x1b[9m" + s + "\x1b[29m" }

// ThinkingBorder is the editor border token for a thinking level (tui.md §3.1); "max" uses xhigh.
func ThinkingBorder(level string) string {
	switch level {
	case "minimal":
		return "thinkingMinimal"
	case "low":
		return "thinkingLow"
	case "medium":
		return "thinkingMedium"
	case "high":
		return "thinkingHigh"
	case "xhigh", "max":
		return "thinkingXhigh"
	}
	return "thinkingOff"
}

// Dark returns the built-in dark theme.
func Dark() *Theme { return mustBuiltin(darkJSON) }

// Light returns the built-in light theme.
func Light() *Theme { return mustBuiltin(lightJSON) }

func mustBuiltin(src string) *Theme {
	t, err := Parse([]byte(src))
	if err != nil {
		panic(err)
	}
	return t
}

// Info names a theme that can be selected.
type Info struct {
	Name string
	Path string // "" for built-ins
}

// Sources says where custom themes are found (config-and-resources.md §13): the agent dir's
// themes/*.json, then more theme files or directories of *.json files (a trusted project's
// .atomic/themes, packages, settings "themes" entries, --theme, resources_discover), in order.
type Sources struct {
	AgentDir string
	Paths    []string
	// NoDiscovery (--no-themes) skips <AgentDir>/themes; Paths still load.
	NoDiscovery bool
}

// files lists the candidate theme files in order.
func (s Sources) files() []string {
	var out []string
	if !s.NoDiscovery && s.AgentDir != "" {
		files, _ := filepath.Glob(filepath.Join(s.AgentDir, "themes", "*.json"))
		sort.Strings(files)
		out = append(out, files...)
	}
	for _, p := range s.Paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			files, _ := filepath.Glob(filepath.Join(p, "*.json"))
			sort.Strings(files)
			out = append(out, files...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// List returns the built-in themes, then the valid custom themes of s, de-duplicated by name
// (first wins), sorted by name (tui.md §5.3). Invalid files are reported in errs and skipped.
func (s Sources) List() (themes []Info, errs []error) {
	seen := map[string]bool{"dark": true, "light": true}
	themes = []Info{{Name: "dark"}, {Name: "light"}}
	for _, f := range s.files() {
		t, err := Load(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		themes = append(themes, Info{Name: t.Name, Path: f})
	}
	sort.Slice(themes, func(i, j int) bool { return themes[i].Name < themes[j].Name })
	return themes, errs
}

// List returns the built-in themes and those in <agentDir>/themes/*.json (Sources.List).
func List(agentDir string) (themes []Info, errs []error) { return Sources{AgentDir: agentDir}.List() }

// maxThemeFile bounds a theme file read.
const maxThemeFile = 1 << 20

// Load reads one theme file.
func Load(path string) (*Theme, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("theme: read %s: %w", path, err)
	}
	if fi.Size() > maxThemeFile {
		return nil, fmt.Errorf("theme: read %s: larger than %d bytes", path, maxThemeFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("theme: read %s: %w", path, err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	t.Path = path
	return t, nil
}

// Named returns the theme called name: a built-in or a custom one from <agentDir>/themes. An
// unknown or invalid name falls back to dark with an error saying why.
func Named(agentDir, name string) (*Theme, error) { return Sources{AgentDir: agentDir}.Named(name) }

// Named returns the theme called name: a built-in or a custom one of s. An unknown or invalid
// name falls back to dark with an error saying why.
func (s Sources) Named(name string) (*Theme, error) {
	switch name {
	case "", "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	}
	list, _ := s.List()
	for _, i := range list {
		if i.Name == name && i.Path != "" {
			t, err := Load(i.Path)
			if err != nil {
				return Dark(), err
			}
			return t, nil
		}
	}
	return Dark(), fmt.Errorf("theme: unknown theme %q (using dark)", name)
}
