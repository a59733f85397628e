package resource

import (
	"os"
	"path/filepath"
)

// ContextFile is one loaded context file.
type ContextFile struct {
	Path    string // absolute path
	Content string
}

// contextFileNames are tried in order in each directory; the first regular file wins (Atomic's
// order: an AGENTS.override.md shadows the AGENTS.md next to it, config-and-resources.md §12).
var contextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// LoadContextFiles returns the context files for cwd (config-and-resources.md §12): the one in
// agentDir first (global), then, when the project is trusted, one per directory from the
// file-system root down to cwd, outermost first, de-duplicated by path. In each directory the
// first of AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD that is a regular file
// is used. An untrusted project's files (cwd and its ancestors) are never read, so they never
// reach the model (§6); the global one still is. Unreadable files are skipped; each file is read
// up to maxResourceFile bytes.
func LoadContextFiles(agentDir, cwd string, projectTrusted bool) []ContextFile {
	var out []ContextFile
	seen := map[string]bool{}
	add := func(dir string) {
		for _, name := range contextFileNames {
			p := filepath.Join(dir, name)
			if seen[p] {
				return
			}
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			// On a case-insensitive file system AGENTS.MD finds AGENTS.md: one file, one entry.
			if real, err := filepath.EvalSymlinks(p); err == nil && seen[real] {
				return
			}
			content, err := readResourceFile(p)
			if err != nil {
				continue
			}
			seen[p] = true
			if real, err := filepath.EvalSymlinks(p); err == nil {
				seen[real] = true
			}
			out = append(out, ContextFile{Path: p, Content: content})
			return
		}
	}
	if agentDir != "" {
		add(agentDir)
	}
	if !projectTrusted {
		return out
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return out
	}
	var dirs []string
	for d := abs; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		add(dirs[i])
	}
	return out
}

// PromptFiles are the SYSTEM.md and APPEND_SYSTEM.md files of a run (config-and-resources.md
// §12): System replaces the built-in base prompt, Append is added after it. Each is the project's
// file (<cwd>/.atomic, then the legacy <cwd>/.pi) when the project is trusted, else the agent
// dir's; "" when there is none.
type PromptFiles struct {
	System, Append string // file paths
}

// FindPromptFiles looks for SYSTEM.md and APPEND_SYSTEM.md. An untrusted project's directories
// are never looked at (§6).
func FindPromptFiles(agentDir, cwd string, projectTrusted bool) PromptFiles {
	find := func(name string) string {
		var dirs []string
		if projectTrusted && cwd != "" {
			dirs = append(dirs, filepath.Join(cwd, ".atomic"), filepath.Join(cwd, ".pi"))
		}
		if agentDir != "" {
			dirs = append(dirs, agentDir)
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p
			}
		}
		return ""
	}
	return PromptFiles{System: find("SYSTEM.md"), Append: find("APPEND_SYSTEM.md")}
}
