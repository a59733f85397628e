package resource

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PromptTemplate is one prompt template, invoked as `/<name> args` (config-and-resources.md §11).
type PromptTemplate struct {
	Name         string
	Description  string
	ArgumentHint string
	Content      string // the body, frontmatter stripped
	FilePath     string
	Origin       Origin // where it was found (RPC get_commands sourceInfo)
}

// TemplateOptions are the inputs of DiscoverPromptTemplates.
type TemplateOptions struct {
	AgentDir       string
	Home           string
	Cwd            string
	ProjectTrusted bool
	NoTemplates    bool     // --no-prompt-templates: no discovery; Paths still load
	Settings       []string // settings `prompts` entries (files or directories)
	Paths          []string // --prompt-template paths
	// Packages are the template files of packages and -e sources (ResolvePackages), loaded
	// after the settings entries; -e ones (scope temporary) load even with NoTemplates.
	Packages []PackageResource
}

// DiscoverPromptTemplates loads the templates of §11: --prompt-template paths, <agentDir>/prompts,
// then (trusted projects only) <cwd>/.atomic/prompts and <cwd>/.pi/prompts, then settings entries.
// Directories are not searched recursively. The first template of a name wins; later ones are
// reported as warnings. An untrusted project's directories are never read.
func DiscoverPromptTemplates(o TemplateOptions) ([]PromptTemplate, []error) {
	var out []PromptTemplate
	var warns []error
	byName := map[string]string{}
	seen := map[string]bool{}
	add := func(path string, source Origin) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if seen[path] {
			return
		}
		seen[path] = true
		content, err := readResourceFile(path)
		if err != nil {
			warns = append(warns, fmt.Errorf("prompt template %s: cannot read: %w", path, err))
			return
		}
		fm, body := ParseFrontmatter(content)
		t := PromptTemplate{
			Name: strings.TrimSuffix(filepath.Base(path), ".md"), Description: fm["description"],
			ArgumentHint: fm["argument-hint"], Content: body, FilePath: path, Origin: source,
		}
		if t.Description == "" {
			for _, line := range strings.Split(body, "\n") {
				if strings.TrimSpace(line) == "" {
					continue
				}
				t.Description = line
				if len(line) > 60 {
					t.Description = line[:60] + "..."
				}
				break
			}
		}
		if first, dup := byName[t.Name]; dup {
			warns = append(warns, fmt.Errorf("prompt template %q at %s: name collides with %s (the first one is used)", t.Name, path, first))
			return
		}
		byName[t.Name] = path
		out = append(out, t)
	}
	addPath := func(p string, source Origin) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			for _, f := range listMarkdown(p) {
				add(f, source)
			}
			return
		}
		add(p, source)
	}
	for _, p := range o.Paths {
		addPath(p, CLIOrigin)
	}
	if o.NoTemplates {
		for _, r := range o.Packages {
			if r.Origin.Scope == PackageScopeTemporary {
				addPath(r.Path, r.Origin)
			}
		}
		return out, warns
	}
	if o.AgentDir != "" {
		for _, f := range listMarkdown(filepath.Join(o.AgentDir, "prompts")) {
			add(f, UserOrigin)
		}
	}
	if o.ProjectTrusted && o.Cwd != "" {
		for _, d := range []string{".atomic", ".pi"} {
			for _, f := range listMarkdown(filepath.Join(o.Cwd, d, "prompts")) {
				add(f, ProjectOrigin)
			}
		}
	}
	for _, p := range o.Settings {
		addPath(expandHome(p, o.Home), SettingsOrigin)
	}
	for _, r := range o.Packages {
		addPath(r.Path, r.Origin) // resources_discover may name directories
	}
	return out, warns
}

// listMarkdown lists the *.md regular files directly in dir, sorted by name.
func listMarkdown(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out
}

// ParseCommandArgs splits a template's argument string on spaces and tabs; "…" and '…' quote
// (the quotes are removed) (§11).
func ParseCommandArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ' ' || r == '\t':
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

var (
	positionalRE = regexp.MustCompile(`\$\{(\d+):-([^}]*)\}|\$(\d+)`)
	sliceRE      = regexp.MustCompile(`\$\{@:(\d+)(?::(\d+))?\}`)
	allDefaultRE = regexp.MustCompile(`\$\{(?:@|ARGUMENTS):-([^}]*)\}`)
)

// SubstituteArgs fills a template body (§11), on the template text only (argument values are
// never substituted again): `$1`… and `${1:-default}` first (a missing argument is "" or the
// default), then `${@:N}` / `${@:N:L}` slices, then `${@:-default}` / `${ARGUMENTS:-default}`,
// `$ARGUMENTS` and `$@` (all arguments joined by spaces).
func SubstituteArgs(content string, args []string) string {
	all := strings.Join(args, " ")
	// One pass over the template with every placeholder form, so no value is re-substituted.
	re := regexp.MustCompile(positionalRE.String() + `|` + sliceRE.String() + `|` + allDefaultRE.String() + `|\$ARGUMENTS|\$@`)
	return re.ReplaceAllStringFunc(content, func(m string) string {
		if sm := positionalRE.FindStringSubmatch(m); sm != nil && sm[0] == m {
			n := sm[3]
			def := ""
			if sm[1] != "" {
				n, def = sm[1], sm[2]
			}
			i, _ := strconv.Atoi(n)
			if i >= 1 && i <= len(args) && (sm[1] == "" || args[i-1] != "") {
				return args[i-1]
			}
			return def
		}
		if sm := sliceRE.FindStringSubmatch(m); sm != nil && sm[0] == m {
			start, _ := strconv.Atoi(sm[1])
			start--
			if start < 0 {
				start = 0
			}
			if start > len(args) {
				start = len(args)
			}
			end := len(args)
			if sm[2] != "" {
				l, _ := strconv.Atoi(sm[2])
				if start+l < end {
					end = start + l
				}
			}
			return strings.Join(args[start:end], " ")
		}
		if sm := allDefaultRE.FindStringSubmatch(m); sm != nil && sm[0] == m {
			if all == "" {
				return sm[1]
			}
			return all
		}
		return all // $ARGUMENTS or $@
	})
}

// ExpandTemplate expands `/<name> args` when name is a template; other text is returned unchanged
// with ok false.
func ExpandTemplate(text string, templates []PromptTemplate) (string, bool) {
	if !strings.HasPrefix(text, "/") {
		return text, false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	for _, t := range templates {
		if t.Name == name {
			return SubstituteArgs(t.Content, ParseCommandArgs(args)), true
		}
	}
	return text, false
}
