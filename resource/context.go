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

// contextFileNames are tried in order in each directory; the first regular file wins.
var contextFileNames = []string{"AGENTS.md", "CLAUDE.md"}

// LoadContextFiles returns the context files for cwd (config-and-resources.md §12): the one in
// agentDir first (global), then, when the project is trusted, one per directory from the
// file-system root down to cwd, outermost first, de-duplicated by path. An untrusted project's
// files (cwd and its ancestors) are never read, so they never reach the model (§6); the global
// one still is. Unreadable files are skipped.
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
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			seen[p] = true
			out = append(out, ContextFile{Path: p, Content: string(b)})
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
