package resource

// Extension discovery (config-and-resources.md §5) and the project-trust lookup that gates
// project-local extensions (§6, simplified; see ProjectTrust).

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Extension scopes.
const (
	ScopeProject = "project"
	ScopeGlobal  = "global"
	ScopeCLI     = "cli"
)

// ExtensionSource is one extension entry file to load.
type ExtensionSource struct {
	Path  string // absolute path of the entry file (.ts or .js)
	Scope string // ScopeProject, ScopeGlobal or ScopeCLI
}

// DiscoverOptions say where to look.
type DiscoverOptions struct {
	Cwd      string
	AgentDir string
	// CLI are the -e/--extension sources, in order: files or directories, relative to Cwd.
	CLI []string
	// NoDiscovery (--no-extensions) skips the project and global directories; CLI sources
	// still load.
	NoDiscovery bool
	// ProjectTrusted allows project-local extensions (<cwd>/.atomic/extensions and the legacy
	// <cwd>/.pi/extensions). Untrusted, they are listed in Discovered.Untrusted instead.
	ProjectTrusted bool
	// ConfigDirName is the project config directory (".atomic"); LegacyConfigDirName the older
	// one still read (".pi").
	ConfigDirName, LegacyConfigDirName string
}

// Discovered is the outcome of DiscoverExtensions.
type Discovered struct {
	// Extensions in load order: project, global, then CLI; a path already listed is dropped.
	Extensions []ExtensionSource
	// Untrusted are project extensions skipped because the project is not trusted.
	Untrusted []string
	// Warnings are sources that could not be used (a missing -e path, npm:/git: sources).
	Warnings []error
}

// DiscoverExtensions lists the extensions to load (config-and-resources.md §5). A directory is
// scanned one level deep, entries sorted by name: *.ts and *.js files are extensions, and a
// subdirectory contributes its package.json manifest's extensions ("atomic", legacy "pi": {
// "extensions": [...] }), else its index.ts, else its index.js. Settings and package sources
// are not read yet.
func DiscoverExtensions(o DiscoverOptions) Discovered {
	if o.ConfigDirName == "" {
		o.ConfigDirName = ".atomic"
	}
	if o.LegacyConfigDirName == "" {
		o.LegacyConfigDirName = ".pi"
	}
	var d Discovered
	seen := map[string]bool{}
	add := func(path, scope string) {
		key := path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			key = real
		}
		if seen[key] {
			return
		}
		seen[key] = true
		d.Extensions = append(d.Extensions, ExtensionSource{Path: path, Scope: scope})
	}
	if !o.NoDiscovery {
		for _, name := range []string{o.ConfigDirName, o.LegacyConfigDirName} {
			found := ScanExtensionDir(filepath.Join(o.Cwd, name, "extensions"))
			if !o.ProjectTrusted {
				d.Untrusted = append(d.Untrusted, found...)
				continue
			}
			for _, p := range found {
				add(p, ScopeProject)
			}
		}
		if o.AgentDir != "" {
			for _, p := range ScanExtensionDir(filepath.Join(o.AgentDir, "extensions")) {
				add(p, ScopeGlobal)
			}
		}
	}
	for _, src := range o.CLI {
		if strings.HasPrefix(src, "npm:") || strings.HasPrefix(src, "git:") {
			d.Warnings = append(d.Warnings, fmt.Errorf("extension %s: npm: and git: sources are not supported yet; install the package and pass its path", src))
			continue
		}
		p := src
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Cwd, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			d.Warnings = append(d.Warnings, fmt.Errorf("extension %s: %w", src, err))
			continue
		}
		if !fi.IsDir() {
			add(p, ScopeCLI)
			continue
		}
		entries := entryPoints(p)
		if entries == nil {
			entries = ScanExtensionDir(p)
		}
		if len(entries) == 0 {
			d.Warnings = append(d.Warnings, fmt.Errorf("extension %s: the directory has no index.ts, index.js, package.json manifest or *.ts/*.js files", src))
		}
		for _, e := range entries {
			add(e, ScopeCLI)
		}
	}
	return d
}

// isExtensionFile reports whether name is a loadable extension file.
func isExtensionFile(name string) bool {
	return strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts") || strings.HasSuffix(name, ".js")
}

// ScanExtensionDir returns the extensions of one discovery directory (see DiscoverExtensions);
// a missing directory has none.
func ScanExtensionDir(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p) // follows symlinks
		if err != nil || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi.Mode().IsRegular() {
			if isExtensionFile(e.Name()) {
				out = append(out, p)
			}
			continue
		}
		if fi.IsDir() {
			out = append(out, entryPoints(p)...)
		}
	}
	return out
}

// entryPoints resolves an extension directory: the package.json manifest's extensions that
// exist, else index.ts, else index.js; nil when none.
func entryPoints(dir string) []string {
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg map[string]json.RawMessage
		if json.Unmarshal(b, &pkg) == nil {
			for _, key := range []string{"atomic", "pi"} {
				var m struct {
					Extensions []string `json:"extensions"`
				}
				if raw, ok := pkg[key]; !ok || json.Unmarshal(raw, &m) != nil || len(m.Extensions) == 0 {
					continue
				}
				var out []string
				for _, e := range m.Extensions {
					p := filepath.Join(dir, e)
					if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
						out = append(out, p)
					}
				}
				if out != nil {
					return out
				}
			}
		}
	}
	for _, name := range []string{"index.ts", "index.js"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return []string{p}
		}
	}
	return nil
}

// ErrInvalidTrustStore is returned for a trust.json that is not an object of booleans (or nulls).
var ErrInvalidTrustStore = errors.New("Invalid trust store")

// ProjectTrust looks cwd up in <agentDir>/trust.json (config-and-resources.md §6): the entry of
// cwd or the nearest ancestor with a boolean decides (paths are compared after resolving
// symlinks). decided is false when no entry applies or the file does not exist. The rest of
// Atomic's decision order (the project_trust event, defaultProjectTrust, the interactive
// prompt) is not implemented: callers treat an undecided project as untrusted unless the user
// passed --approve.
func ProjectTrust(agentDir, cwd string) (trusted, decided bool, err error) {
	path := filepath.Join(agentDir, "trust.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return false, false, fmt.Errorf("%s: %w", path, ErrInvalidTrustStore)
	}
	store := map[string]bool{}
	for k, v := range raw {
		switch v := v.(type) {
		case bool:
			store[canonical(k)] = v
		case nil:
		default:
			return false, false, fmt.Errorf("%s: %q: %w", path, k, ErrInvalidTrustStore)
		}
	}
	for d := canonical(cwd); ; d = filepath.Dir(d) {
		if v, ok := store[d]; ok {
			return v, true, nil
		}
		if filepath.Dir(d) == d {
			return false, false, nil
		}
	}
}

func canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}
