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
	// Info and BaseDir are pi's sourceInfo of the extension (get_commands): Info.Source is
	// "auto" (a discovery directory), "local" (a settings entry), or the package or -e source;
	// Info.Scope "user", "project" or "temporary"; Info.PackageRoot is set for a package's
	// (origin "package"). BaseDir is the directory it was found from.
	Info    Origin
	BaseDir string
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
	// Extensions in load order: project, global, settings entries and packages, then CLI; a path
	// already listed is dropped.
	Extensions []ExtensionSource
	// Untrusted are project extensions skipped because the project is not trusted.
	Untrusted []string
	// Warnings are sources that could not be used (a missing -e path, npm:/git: sources).
	Warnings []error
}

// DiscoverExtensions lists the extensions to load (config-and-resources.md §5). A directory is
// scanned one level deep, entries sorted by name: *.ts and *.js files are extensions, and a
// subdirectory contributes its package.json manifest's extensions ("atomic", legacy "pi": {
// "extensions": [...] }), else its index.ts, else its index.js, else its package.json "exports"
// "." or "main" entry (node_modules is never scanned). After the discovery directories
// come the settings.json `extensions` entries (settingsExtensions), then the extensions of the
// settings `packages` (ResolvePackages), each from the global file and, when the project is
// trusted, the project file.
func DiscoverExtensions(o DiscoverOptions) Discovered {
	if o.ConfigDirName == "" {
		o.ConfigDirName = ".atomic"
	}
	if o.LegacyConfigDirName == "" {
		o.LegacyConfigDirName = ".pi"
	}
	var d Discovered
	seen := map[string]bool{}
	add := func(path, scope string, info Origin, baseDir string) {
		key := path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			key = real
		}
		if seen[key] {
			return
		}
		seen[key] = true
		d.Extensions = append(d.Extensions, ExtensionSource{Path: path, Scope: scope, Info: info, BaseDir: baseDir})
	}
	if !o.NoDiscovery {
		for _, name := range []string{o.ConfigDirName, o.LegacyConfigDirName} {
			found := ScanExtensionDir(filepath.Join(o.Cwd, name, "extensions"))
			if !o.ProjectTrusted {
				d.Untrusted = append(d.Untrusted, found...)
				continue
			}
			for _, p := range found {
				add(p, ScopeProject, ProjectOrigin, filepath.Join(o.Cwd, name))
			}
		}
		if o.AgentDir != "" {
			for _, p := range ScanExtensionDir(filepath.Join(o.AgentDir, "extensions")) {
				add(p, ScopeGlobal, UserOrigin, o.AgentDir)
			}
		}
		// settings.json `extensions` entries, then the extensions of local `packages` (§4–5):
		// the global file always, the project file only when the project is trusted.
		var files []settingsSource
		if o.AgentDir != "" {
			files = append(files, settingsSource{filepath.Join(o.AgentDir, "settings.json"), ScopeGlobal})
		}
		if _, project := SettingsPaths(o.AgentDir, o.Cwd); project != "" && o.ProjectTrusted {
			files = append(files, settingsSource{project, ScopeProject})
		}
		for _, f := range files {
			for _, p := range settingsExtensions(f.path, &d.Warnings) {
				info := SettingsOrigin
				if f.scope == ScopeProject {
					info.Scope = PackageScopeProject
				}
				add(p, f.scope, info, filepath.Dir(f.path))
			}
		}
		// The extensions of the settings `packages` (packages.go): installed npm and git
		// packages and local ones.
		pkgs, warns := ResolvePackages(PackagePlaces{AgentDir: o.AgentDir, Cwd: o.Cwd}, o.ProjectTrusted)
		d.Warnings = append(d.Warnings, warns...)
		for _, r := range pkgs.Extensions {
			scope := ScopeGlobal
			if r.Origin.Scope == PackageScopeProject {
				scope = ScopeProject
			}
			add(r.Path, scope, r.Origin, r.Origin.PackageRoot)
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
			add(p, ScopeCLI, Origin{Source: src, Scope: PackageScopeTemporary, PackageRoot: filepath.Dir(p)}, filepath.Dir(p))
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
			add(e, ScopeCLI, Origin{Source: src, Scope: PackageScopeTemporary, PackageRoot: p}, p)
		}
	}
	return d
}

type settingsSource struct{ path, scope string }

// settingsExtensions reads the `extensions` array of one settings file. Paths are relative to
// the file's directory (`~` and absolute paths allowed). An entry that is a file is an
// extension; a directory resolves like a -e directory (entry points, else a scan); globs expand
// to the extension files they match. The `packages` are ResolvePackages' (packages.go).
func settingsExtensions(path string, warnings *[]error) (exts []string) {
	var ignored []error
	m := readSettingsFile(path, &ignored) // LoadSettings reports unreadable files
	if m == nil {
		return nil
	}
	dir := filepath.Dir(path)
	resolve := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[1:])
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	if raw, ok := m["extensions"]; ok {
		list, ok := raw.([]any)
		if !ok {
			*warnings = append(*warnings, fmt.Errorf("%s: extensions: expected an array of strings", path))
		}
		for _, e := range list {
			entry, ok := e.(string)
			if !ok || entry == "" {
				*warnings = append(*warnings, fmt.Errorf("%s: extensions: %v is not a path", path, e))
				continue
			}
			if strings.HasPrefix(entry, "!") || strings.HasPrefix(entry, "+") || strings.HasPrefix(entry, "-") {
				*warnings = append(*warnings, fmt.Errorf("%s: extensions: %q: !, + and - patterns are not supported yet", path, entry))
				continue
			}
			p := resolve(entry)
			if strings.ContainsAny(entry, "*?[") {
				matches, _ := filepath.Glob(p)
				for _, mt := range matches {
					if fi, err := os.Stat(mt); err == nil && fi.Mode().IsRegular() && isExtensionFile(mt) {
						exts = append(exts, mt)
					}
				}
				continue
			}
			fi, err := os.Stat(p)
			if err != nil {
				*warnings = append(*warnings, fmt.Errorf("%s: extensions: %q: %w", path, entry, err))
				continue
			}
			if !fi.IsDir() {
				exts = append(exts, p)
				continue
			}
			found := entryPoints(p)
			if found == nil {
				found = ScanExtensionDir(p)
			}
			exts = append(exts, found...)
		}
	}
	return exts
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
		if fi.IsDir() && e.Name() != "node_modules" {
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
	if p := packageMain(dir); p != "" {
		return []string{p}
	}
	return nil
}

// packageMain returns the entry file of dir's package.json without an extensions manifest: its
// "exports" "." (a string, or the "import"/"default"/"require" condition) else "main", when the
// file exists; "" otherwise. A built package (dist/index.js next to src/index.ts) thus loads once.
func packageMain(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Main    string          `json:"main"`
		Exports json.RawMessage `json:"exports"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	var cands []string
	var exp any
	if json.Unmarshal(pkg.Exports, &exp) == nil {
		if m, ok := exp.(map[string]any); ok {
			if dot, has := m["."]; has {
				exp = dot
			}
		}
		switch e := exp.(type) {
		case string:
			cands = append(cands, e)
		case map[string]any:
			for _, k := range []string{"import", "default", "require", "node"} {
				if s, ok := e[k].(string); ok {
					cands = append(cands, s)
				}
			}
		}
	}
	if pkg.Main != "" {
		cands = append(cands, pkg.Main)
	}
	for _, c := range cands {
		p := filepath.Join(dir, filepath.FromSlash(c))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && isExtensionFile(p) {
			return p
		}
	}
	return ""
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
