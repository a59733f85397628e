package resource

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// maxResourceFile bounds how much of one skill or prompt-template file is read.
const maxResourceFile = 1 << 20

// Skill is one discovered skill (config-and-resources.md §10).
type Skill struct {
	Name                   string
	Description            string
	FilePath               string // absolute path of SKILL.md (or the top-level .md file)
	BaseDir                string // directory relative references resolve against
	Origin                 Origin // where it was found (RPC get_commands sourceInfo)
	DisableModelInvocation bool
}

// SkillOptions are the inputs of DiscoverSkills.
type SkillOptions struct {
	AgentDir       string
	Home           string
	Cwd            string
	ProjectTrusted bool
	NoSkills       bool     // --no-skills: no discovery; Paths still load
	Settings       []string // settings `skills` entries (files or directories)
	Paths          []string // --skill paths (loaded even with NoSkills)
	// Packages are the skill files of packages and -e sources (ResolvePackages), loaded after
	// the settings entries; -e ones (scope temporary) load even with NoSkills.
	Packages []PackageResource
}

var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// DiscoverSkills finds the skills of §10 in order: --skill paths, the agent dir's skills,
// ~/.pi/agent/skills (legacy), ~/.agents/skills, then (trusted projects only) <cwd>/.atomic/skills, <cwd>/.pi/skills and
// .agents/skills in cwd and its ancestors up to the repository root, then settings entries. On a
// name collision the first wins and the later one is reported as a warning. An untrusted
// project's directories are never read. Warnings name the file and the problem.
func DiscoverSkills(o SkillOptions) ([]Skill, []error) {
	var skills []Skill
	var warns []error
	seenName := map[string]string{}
	seenPath := map[string]bool{}
	add := func(path string, source Origin) {
		abs, err := filepath.Abs(path)
		if err == nil {
			path = abs
		}
		if seenPath[path] {
			return
		}
		seenPath[path] = true
		s, w := loadSkill(path, source)
		warns = append(warns, w...)
		if s == nil {
			return
		}
		if first, dup := seenName[s.Name]; dup {
			warns = append(warns, fmt.Errorf("skill %q at %s: name collides with %s (the first one is used)", s.Name, path, first))
			return
		}
		seenName[s.Name] = path
		skills = append(skills, *s)
	}
	scan := func(root string, source Origin, topLevelMD bool) {
		for _, p := range scanSkillDir(root, topLevelMD) {
			add(p, source)
		}
	}
	for _, p := range o.Paths {
		loadSkillPath(p, CLIOrigin, add, scan)
	}
	if !o.NoSkills {
		if o.AgentDir != "" {
			scan(filepath.Join(o.AgentDir, "skills"), UserOrigin, true)
		}
		if o.Home != "" {
			// Atomic also reads the legacy pi agent dir's skills (a no-op when it is AgentDir).
			scan(filepath.Join(o.Home, ".pi", "agent", "skills"), UserOrigin, true)
			scan(filepath.Join(o.Home, ".agents", "skills"), UserOrigin, false)
		}
		if o.ProjectTrusted && o.Cwd != "" {
			scan(filepath.Join(o.Cwd, ".atomic", "skills"), ProjectOrigin, true)
			scan(filepath.Join(o.Cwd, ".pi", "skills"), ProjectOrigin, true)
			for _, d := range upToRepoRoot(o.Cwd) {
				scan(filepath.Join(d, ".agents", "skills"), ProjectOrigin, false)
			}
		}
		for _, p := range o.Settings {
			loadSkillPath(expandHome(p, o.Home), SettingsOrigin, add, scan)
		}
	}
	for _, r := range o.Packages {
		if !o.NoSkills || r.Origin.Scope == PackageScopeTemporary {
			loadSkillPath(r.Path, r.Origin, add, scan) // resources_discover may name directories
		}
	}
	return skills, warns
}

func loadSkillPath(p string, source Origin, add func(string, Origin), scan func(string, Origin, bool)) {
	fi, err := os.Stat(p)
	if err != nil {
		add(p, source) // loadSkill reports the missing file
		return
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil {
			add(filepath.Join(p, "SKILL.md"), source)
			return
		}
		scan(p, source, true)
		return
	}
	add(p, source)
}

func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return p
}

// upToRepoRoot lists cwd and its ancestors up to the directory holding .git (or the file-system
// root outside a repository), innermost first.
func upToRepoRoot(cwd string) []string {
	var dirs []string
	for d := filepath.Clean(cwd); ; {
		dirs = append(dirs, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dirs
		}
		d = parent
	}
}

// scanSkillDir returns the skill files under root: top-level *.md files when topLevelMD, and
// every SKILL.md in a directory below (a directory holding SKILL.md is not searched further).
// Hidden directories and node_modules are skipped. The walk is bounded in depth.
func scanSkillDir(root string, topLevelMD bool) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 8 {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		if depth > 0 {
			for _, e := range entries {
				if e.Name() == "SKILL.md" && !e.IsDir() {
					out = append(out, filepath.Join(dir, "SKILL.md"))
					return
				}
			}
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			full := filepath.Join(dir, name)
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				if fi, err := os.Stat(full); err == nil {
					isDir = fi.IsDir()
				}
			}
			switch {
			case isDir:
				walk(full, depth+1)
			case depth == 0 && topLevelMD && strings.HasSuffix(name, ".md"):
				out = append(out, full)
			}
		}
	}
	walk(root, 0)
	return out
}

// readResourceFile reads path, failing when it is larger than maxResourceFile bytes.
func readResourceFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxResourceFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxResourceFile {
		return "", fmt.Errorf("larger than %d bytes", maxResourceFile)
	}
	return string(b), nil
}

// loadSkill reads and validates one skill file; a nil skill means it is not loaded (unreadable,
// or no description). Other frontmatter problems are warnings only.
func loadSkill(path string, source Origin) (*Skill, []error) {
	content, err := readResourceFile(path)
	if err != nil {
		return nil, []error{fmt.Errorf("skill %s: cannot read: %w", path, err)}
	}
	fm, _ := ParseFrontmatter(content)
	dir := filepath.Dir(path)
	s := &Skill{FilePath: path, BaseDir: dir, Origin: source}
	var warns []error
	warn := func(format string, a ...any) {
		warns = append(warns, fmt.Errorf("skill %s: "+format, append([]any{path}, a...)...))
	}
	s.Name = fm["name"]
	if s.Name == "" {
		if filepath.Base(path) == "SKILL.md" {
			s.Name = filepath.Base(dir)
		} else {
			s.Name = strings.TrimSuffix(filepath.Base(path), ".md")
		}
		warn("name is missing (using %q)", s.Name)
	} else {
		if len(s.Name) > 64 {
			warn("name %q is longer than 64 characters", s.Name)
		}
		if !skillNameRE.MatchString(s.Name) {
			warn("name %q should use only a-z, 0-9 and single inner hyphens", s.Name)
		}
		if filepath.Base(path) == "SKILL.md" && filepath.Base(dir) != s.Name {
			warn("name %q does not match its directory %q", s.Name, filepath.Base(dir))
		}
	}
	s.Description = fm["description"]
	if strings.TrimSpace(s.Description) == "" {
		warn("description is missing; the skill is not loaded")
		return nil, warns
	}
	if len(s.Description) > 1024 {
		warn("description is longer than 1024 characters")
	}
	if len(fm["compatibility"]) > 500 {
		warn("compatibility is longer than 500 characters")
	}
	switch strings.ToLower(fm["disable-model-invocation"]) {
	case "", "false":
	case "true":
		s.DisableModelInvocation = true
	default:
		warn("disable-model-invocation %q is not a boolean", fm["disable-model-invocation"])
	}
	return s, warns
}

// ParseFrontmatter splits a markdown file into its YAML frontmatter (between leading "---"
// lines; only flat `key: value` pairs with optional quotes are read, nested values are skipped)
// and the body after it, trimmed. A file without frontmatter has an empty map and the whole text as body.
func ParseFrontmatter(content string) (map[string]string, string) {
	fm := map[string]string{}
	text := strings.ReplaceAll(strings.ReplaceAll(content, "\r\n", "\n"), "\r", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return fm, text
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return fm, text
	}
	head := rest[:end]
	body := strings.TrimSpace(rest[end+4:]) // trimmed, as pi does when there is frontmatter
	lines := strings.Split(head, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "|" || v == ">" || v == "|-" || v == ">-" {
			var parts []string
			for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || lines[i+1] == "") {
				i++
				parts = append(parts, strings.TrimSpace(lines[i]))
			}
			sep := " "
			if v[0] == '|' {
				sep = "\n"
			}
			v = strings.TrimSpace(strings.Join(parts, sep))
		} else if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		fm[strings.TrimSpace(k)] = v
	}
	return fm, body
}

// FormatSkillsForPrompt returns the `<available_skills>` section appended to the system prompt
// (§10): empty when no skill is visible (disable-model-invocation skills never are).
func FormatSkillsForPrompt(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n\nThe following skills provide specialized instructions for specific tasks.\n")
			b.WriteString("Use the read tool to load a skill's file when the task matches its description.\n")
			b.WriteString("When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n")
			b.WriteString("\n<available_skills>")
		}
		b.WriteString("\n  <skill>\n    <name>")
		b.WriteString(escapeXML(s.Name))
		b.WriteString("</name>\n    <description>")
		b.WriteString(escapeXML(s.Description))
		b.WriteString("</description>\n    <location>")
		b.WriteString(escapeXML(s.FilePath))
		b.WriteString("</location>\n  </skill>")
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("\n</available_skills>")
	return b.String()
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }

// ExpandSkill expands `/skill:<name> [args]` (§10): the skill's body (frontmatter stripped,
// trimmed) wrapped in a <skill> element naming its file and base directory, then the arguments
// after a blank line. Text that is not a skill command, or names an unknown skill, is returned
// unchanged with ok false; a skill file that can no longer be read is an error.
func ExpandSkill(text string, skills []Skill) (out string, ok bool, err error) {
	if !strings.HasPrefix(text, "/skill:") {
		return text, false, nil
	}
	name, args, _ := strings.Cut(text[len("/skill:"):], " ")
	args = strings.TrimSpace(args)
	for _, s := range skills {
		if s.Name != name {
			continue
		}
		content, err := readResourceFile(s.FilePath)
		if err != nil {
			return text, false, fmt.Errorf("expand skill %q: read %s: %w", name, s.FilePath, err)
		}
		_, body := ParseFrontmatter(content)
		block := "<skill name=\"" + s.Name + "\" location=\"" + s.FilePath + "\">\nReferences are relative to " + s.BaseDir + ".\n\n" + strings.TrimSpace(body) + "\n</skill>"
		if args != "" {
			block += "\n\n" + args
		}
		return block, true, nil
	}
	return text, false, nil
}

// Origin says where a skill or prompt template came from, in the terms of pi's sourceInfo:
// Source is "auto" (found in a conventional directory), "local" (a settings entry) or "cli"
// (a command-line flag); Scope is "user", "project" or "temporary".
type Origin struct {
	Source string
	Scope  string
	// PackageRoot is the directory of the package a resource came from (Source is then the
	// package source and Scope "user", "project" or "temporary"); "" for top-level resources.
	PackageRoot string
	// BaseDir, when set, is the sourceInfo baseDir (the directory of the extension that
	// contributed the resource from resources_discover).
	BaseDir string
}

// The origins DiscoverSkills and DiscoverPromptTemplates assign.
var (
	UserOrigin     = Origin{Source: "auto", Scope: "user"}
	ProjectOrigin  = Origin{Source: "auto", Scope: "project"}
	SettingsOrigin = Origin{Source: "local", Scope: "user"}
	CLIOrigin      = Origin{Source: "cli", Scope: "temporary"}
)
