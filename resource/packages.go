package resource

// Packages (config-and-resources.md §3–4): bundles of extensions, skills, prompt templates and
// themes from npm, git or a local directory, named by the settings `packages` entries and
// installed by `atomic install`. This file parses sources, finds where a source is installed and
// lists what an installed package contributes; install.go installs and removes them.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Package source kinds.
const (
	PackageNPM   = "npm"
	PackageGit   = "git"
	PackageLocal = "local"
)

// Package scopes: where a package is declared and installed.
const (
	PackageScopeUser      = "user"      // <agentDir>/settings.json; installed under <agentDir>
	PackageScopeProject   = "project"   // <cwd>/.atomic/settings.json; installed under <cwd>/.atomic
	PackageScopeTemporary = "temporary" // -e on the command line; installed under the temp dir
)

// PackageSource is a parsed package source (§4).
type PackageSource struct {
	Raw  string // as written
	Kind string // PackageNPM, PackageGit or PackageLocal
	// Spec is what npm installs ("name" or "name@version"); Name the package name.
	Spec, Name string
	// Repo is the URL git clones; Host and Path ("owner/repo", no .git) place the clone and
	// identify the package; Ref is the branch, tag or commit after "@".
	Repo, Host, Path, Ref string
	// LocalPath is a local source's path as written.
	LocalPath string
	// Pinned: an npm version or a git ref is given; `atomic update` skips the package.
	Pinned bool
}

var scpGitRE = regexp.MustCompile(`^git@([^:/]+):(.+)$`)
var gitProtocolRE = regexp.MustCompile(`^(?i)(https?|ssh|git|file)://`)

// ParseSource parses a package source: `npm:name[@version]` (scoped names too), `git:` followed
// by host/owner/repo[@ref], git@host:owner/repo[@ref] or a URL, a protocol URL (https://,
// http://, ssh://, git://; atomic also accepts file:// for a repository on this machine), or a
// local path. A source that is none of these is taken as a local path, as pi does. The error
// names the source and says what is wrong.
func ParseSource(raw string) (PackageSource, error) {
	s := strings.TrimSpace(raw)
	src := PackageSource{Raw: raw}
	if s == "" {
		return src, fmt.Errorf("bad package source %q: it is empty", raw)
	}
	if rest, ok := strings.CutPrefix(s, "npm:"); ok {
		spec := strings.TrimSpace(rest)
		name, version := splitNpmSpec(spec)
		if name == "" || strings.ContainsAny(name, " \t\\") || (strings.HasPrefix(name, "@") && !strings.Contains(name, "/")) || strings.HasSuffix(spec, "@") {
			return src, fmt.Errorf("bad package source %q: expected npm:name, npm:name@version or npm:@scope/name[@version]", raw)
		}
		src.Kind, src.Spec, src.Name, src.Pinned = PackageNPM, spec, name, version != ""
		return src, nil
	}
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || s == "~" || strings.HasPrefix(s, "~/") {
		src.Kind, src.LocalPath = PackageLocal, s
		return src, nil
	}
	rest, prefixed := strings.CutPrefix(s, "git:")
	rest = strings.TrimSpace(rest)
	if prefixed || gitProtocolRE.MatchString(s) {
		if !parseGitSource(rest, &src) {
			return src, fmt.Errorf("bad package source %q: not a git repository (use git:host/owner/repo[@ref], git:git@host:owner/repo[@ref] or an https://, ssh://, git:// or file:// URL)", raw)
		}
		src.Kind = PackageGit
		return src, nil
	}
	src.Kind, src.LocalPath = PackageLocal, s
	return src, nil
}

// splitNpmSpec splits "name@version" (and "@scope/name@version") at the version's "@".
func splitNpmSpec(spec string) (name, version string) {
	start := 0
	if strings.HasPrefix(spec, "@") {
		start = 1
	}
	if i := strings.Index(spec[start:], "@"); i >= 0 {
		return spec[:start+i], spec[start+i+1:]
	}
	return spec, ""
}

// parseGitSource fills the git fields of src from u (the source without "git:").
func parseGitSource(u string, src *PackageSource) bool {
	cutRef := func(p string) (string, string) {
		if i := strings.Index(p, "@"); i > 0 && i < len(p)-1 {
			return p[:i], p[i+1:]
		}
		return p, ""
	}
	var repo, host, path, ref string
	switch {
	case scpGitRE.MatchString(u):
		m := scpGitRE.FindStringSubmatch(u)
		host = m[1]
		path, ref = cutRef(m[2])
		repo = "git@" + host + ":" + path
	case strings.Contains(u, "://"):
		parsed, err := url.Parse(u)
		if err != nil {
			return false
		}
		path, ref = cutRef(strings.TrimLeft(parsed.Path, "/"))
		parsed.Path = "/" + path
		parsed.RawPath = ""
		repo = strings.TrimSuffix(parsed.String(), "/")
		host = parsed.Hostname()
		if strings.EqualFold(parsed.Scheme, "file") {
			if host != "" && host != "localhost" {
				return false
			}
			host = "local"
		}
	default:
		slash := strings.Index(u, "/")
		if slash < 0 {
			return false
		}
		host = u[:slash]
		if !strings.Contains(host, ".") && host != "localhost" {
			return false
		}
		path, ref = cutRef(u[slash+1:])
		repo = "https://" + host + "/" + path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || len(strings.Split(path, "/")) < 2 || strings.Contains(path, "..") {
		return false
	}
	src.Repo, src.Host, src.Path, src.Ref, src.Pinned = repo, host, path, ref, ref != ""
	return true
}

// Identity is what makes two sources the same package (§4): the npm name, the git host and path
// (any ref, any protocol), or a local source's absolute path resolved against baseDir.
func (p PackageSource) Identity(baseDir string) string {
	switch p.Kind {
	case PackageNPM:
		return "npm:" + p.Name
	case PackageGit:
		return "git:" + p.Host + "/" + p.Path
	}
	return "local:" + resolveLocal(p.LocalPath, baseDir)
}

// resolveLocal resolves a local source path: ~ is the home directory, a relative path is
// relative to baseDir.
func resolveLocal(p, baseDir string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	return filepath.Clean(p)
}

// PackagePlaces says where packages of each scope live.
type PackagePlaces struct {
	AgentDir string
	Cwd      string
	// TempDir holds temporary (-e) installs; "" is os.TempDir().
	TempDir string
}

// ProjectConfigDir is <cwd>/.atomic, where project packages are installed and project-relative
// sources resolve.
func (pl PackagePlaces) ProjectConfigDir() string { return filepath.Join(pl.Cwd, ".atomic") }

// BaseDir is the directory a scope's local sources are relative to: the agent dir for user
// packages, the directory of the project settings file for project packages, cwd for -e.
func (pl PackagePlaces) BaseDir(scope string) string {
	switch scope {
	case PackageScopeUser:
		return pl.AgentDir
	case PackageScopeProject:
		if _, project := SettingsPaths(pl.AgentDir, pl.Cwd); project != "" {
			return filepath.Dir(project)
		}
		return pl.ProjectConfigDir()
	}
	return pl.Cwd
}

// NpmRoot is the directory whose node_modules holds a scope's npm packages: <agentDir>/npm,
// <cwd>/.atomic/npm, or a directory per spec under <tmp>/atomic-extensions.
func (pl PackagePlaces) NpmRoot(p PackageSource, scope string) string {
	switch scope {
	case PackageScopeUser:
		return filepath.Join(pl.AgentDir, "npm")
	case PackageScopeProject:
		return filepath.Join(pl.ProjectConfigDir(), "npm")
	}
	return filepath.Join(pl.tempRoot(), "npm-"+shortHash(p.Spec))
}

// GitRoot is the directory holding a scope's git clones (<root>/<host>/<path>).
func (pl PackagePlaces) GitRoot(p PackageSource, scope string) string {
	switch scope {
	case PackageScopeUser:
		return filepath.Join(pl.AgentDir, "git")
	case PackageScopeProject:
		return filepath.Join(pl.ProjectConfigDir(), "git")
	}
	return filepath.Join(pl.tempRoot(), "git-"+shortHash(p.Repo+"@"+p.Ref))
}

func (pl PackagePlaces) tempRoot() string {
	dir := pl.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "atomic-extensions")
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// InstallDir is where the package of p lives for scope: the npm package directory, the git
// clone, or the local path itself.
func (pl PackagePlaces) InstallDir(p PackageSource, scope string) string {
	switch p.Kind {
	case PackageNPM:
		return filepath.Join(pl.NpmRoot(p, scope), "node_modules", filepath.FromSlash(p.Name))
	case PackageGit:
		return filepath.Join(pl.GitRoot(p, scope), p.Host, filepath.FromSlash(p.Path))
	}
	return resolveLocal(p.LocalPath, pl.BaseDir(scope))
}

// Resource types of a package.
var packageResourceTypes = []string{"extensions", "skills", "prompts", "themes"}

// PackageEntry is one settings `packages` entry: a source string, or an object with "source" and
// optional filters per resource type (§3: key absent = everything the package offers, [] =
// nothing, else patterns that narrow it).
type PackageEntry struct {
	Source  string
	Filters map[string][]string // resource type -> patterns; a present key with nil means []
	Scope   string              // PackageScopeUser or PackageScopeProject
	// Raw is the entry as it is in the file (kept when the file is rewritten).
	Raw any
}

// Filtered reports whether the entry is the object form.
func (e PackageEntry) Filtered() bool { _, ok := e.Raw.(map[string]any); return ok }

// ReadPackageEntries reads the `packages` array of one settings file. A missing file has none;
// an entry without a source is reported and skipped.
func ReadPackageEntries(settingsPath, scope string) ([]PackageEntry, []error) {
	var warns []error
	m := readSettingsFile(settingsPath, &warns)
	raw, ok := m["packages"]
	if !ok {
		return nil, warns
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, append(warns, fmt.Errorf("%s: packages: expected an array", settingsPath))
	}
	var out []PackageEntry
	for _, e := range list {
		entry := PackageEntry{Scope: scope, Raw: e}
		switch v := e.(type) {
		case string:
			entry.Source = v
		case map[string]any:
			entry.Source, _ = v["source"].(string)
			for _, t := range packageResourceTypes {
				f, has := v[t]
				if !has {
					continue
				}
				if entry.Filters == nil {
					entry.Filters = map[string][]string{}
				}
				arr, _ := f.([]any)
				pats := []string{}
				for _, x := range arr {
					if s, ok := x.(string); ok {
						pats = append(pats, s)
					}
				}
				entry.Filters[t] = pats
			}
		}
		if strings.TrimSpace(entry.Source) == "" {
			warns = append(warns, fmt.Errorf("%s: packages: %v has no source", settingsPath, e))
			continue
		}
		out = append(out, entry)
	}
	return out, warns
}

// PackageResource is one resource file a package contributes.
type PackageResource struct {
	Path   string // absolute path of the file
	Origin Origin // Source = the package source, Scope = its scope, PackageRoot = the package directory
}

// PackageResources are the resources of the packages of a run, by type, in package order.
type PackageResources struct {
	Extensions, Skills, Prompts, Themes []PackageResource
}

// Paths returns the paths of rs.
func Paths(rs []PackageResource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}

// add appends other's resources.
func (r *PackageResources) add(other PackageResources) {
	r.Extensions = append(r.Extensions, other.Extensions...)
	r.Skills = append(r.Skills, other.Skills...)
	r.Prompts = append(r.Prompts, other.Prompts...)
	r.Themes = append(r.Themes, other.Themes...)
}

// ConfiguredPackages returns the settings `packages` entries: the global file's, then, when the
// project is trusted, the project file's. An untrusted project's settings are never read.
func ConfiguredPackages(pl PackagePlaces, projectTrusted bool) ([]PackageEntry, []error) {
	global, project := SettingsPaths(pl.AgentDir, pl.Cwd)
	out, warns := ReadPackageEntries(global, PackageScopeUser)
	if project != "" && projectTrusted {
		p, w := ReadPackageEntries(project, PackageScopeProject)
		out, warns = append(out, p...), append(warns, w...)
	}
	return out, warns
}

// ResolvePackages lists the resources of the configured packages (§4): entries of the same
// package (Identity) keep the project one, else the first. A package that is not installed, or a
// local path that does not exist, is reported and contributes nothing; atomic does not install
// packages at start-up (`atomic install` and `atomic update` do).
func ResolvePackages(pl PackagePlaces, projectTrusted bool) (PackageResources, []error) {
	entries, warns := ConfiguredPackages(pl, projectTrusted)
	var res PackageResources
	for _, e := range dedupePackages(pl, entries, &warns) {
		src, _ := ParseSource(e.Source) // dedupePackages dropped the bad ones
		r, err := PackageContents(pl, src, e.Scope, e.Filters)
		if err != nil {
			warns = append(warns, err)
			continue
		}
		res.add(r)
	}
	return res, warns
}

func dedupePackages(pl PackagePlaces, entries []PackageEntry, warns *[]error) []PackageEntry {
	idx := map[string]int{}
	var out []PackageEntry
	for _, e := range entries {
		src, err := ParseSource(e.Source)
		if err != nil {
			*warns = append(*warns, fmt.Errorf("settings packages: %w", err))
			continue
		}
		id := src.Identity(pl.BaseDir(e.Scope))
		if i, ok := idx[id]; ok {
			if e.Scope == PackageScopeProject && out[i].Scope == PackageScopeUser {
				out[i] = e
			}
			continue
		}
		idx[id] = len(out)
		out = append(out, e)
	}
	return out
}

// PackageContents lists the resources of the package src installed for scope, narrowed by
// filters (nil: no filters). The error says when it is not installed.
func PackageContents(pl PackagePlaces, src PackageSource, scope string, filters map[string][]string) (PackageResources, error) {
	dir := pl.InstallDir(src, scope)
	origin := Origin{Source: src.Raw, Scope: scope, PackageRoot: dir}
	fi, err := os.Stat(dir)
	if err != nil {
		if src.Kind == PackageLocal {
			return PackageResources{}, fmt.Errorf("package %s: %s does not exist", src.Raw, dir)
		}
		flag := ""
		if scope == PackageScopeProject {
			flag = " -l"
		}
		return PackageResources{}, fmt.Errorf("package %s is not installed (expected in %s): run `atomic install%s %s`", src.Raw, dir, flag, src.Raw)
	}
	if !fi.IsDir() { // a local file is a single extension
		origin.PackageRoot = filepath.Dir(dir)
		if _, has := filters["extensions"]; has && len(filters["extensions"]) == 0 {
			return PackageResources{}, nil
		}
		return PackageResources{Extensions: []PackageResource{{Path: dir, Origin: origin}}}, nil
	}
	var out PackageResources
	manifest, hasManifest := readManifest(dir)
	for _, t := range packageResourceTypes {
		var files []string
		entries, listed := manifest[t]
		switch {
		case listed:
			files = manifestFiles(dir, t, entries)
		case hasManifest && filters == nil:
			// A manifest lists what the package offers: types it leaves out have nothing.
		default:
			files = conventionFiles(dir, t)
		}
		if pats, ok := filters[t]; ok {
			if len(pats) == 0 {
				files = nil
			} else {
				files = applyPatterns(files, pats, dir)
			}
		}
		rs := make([]PackageResource, 0, len(files))
		for _, f := range files {
			rs = append(rs, PackageResource{Path: f, Origin: origin})
		}
		switch t {
		case "extensions":
			out.Extensions = rs
		case "skills":
			out.Skills = rs
		case "prompts":
			out.Prompts = rs
		case "themes":
			out.Themes = rs
		}
	}
	// A directory with no manifest and no convention directories is an extension directory
	// (index.ts, index.js or its package.json main), as a -e directory is.
	if !hasManifest && filters == nil && len(out.Extensions)+len(out.Skills)+len(out.Prompts)+len(out.Themes) == 0 {
		for _, p := range entryPoints(dir) {
			out.Extensions = append(out.Extensions, PackageResource{Path: p, Origin: origin})
		}
	}
	return out, nil
}

// readManifest reads dir/package.json's "atomic" manifest, else its "pi" one: resource type ->
// entries. ok is false when there is neither.
func readManifest(dir string) (map[string][]string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, false
	}
	var pkg map[string]json.RawMessage
	if json.Unmarshal(b, &pkg) != nil {
		return nil, false
	}
	for _, key := range []string{"atomic", "pi"} {
		raw, has := pkg[key]
		if !has {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		out := map[string][]string{}
		for _, t := range packageResourceTypes {
			var list []string
			if v, ok := m[t]; ok && json.Unmarshal(v, &list) == nil {
				out[t] = list
			}
		}
		return out, true
	}
	return nil, false
}

// manifestFiles resolves a manifest list: plain entries (files, or directories collected as the
// type's convention directory is) relative to the package root, then its patterns (globs, !, +,
// -) applied to them.
func manifestFiles(root, typ string, entries []string) []string {
	var all, pats []string
	for _, e := range entries {
		if isPattern(e) {
			pats = append(pats, e)
			continue
		}
		all = append(all, collectPath(filepath.Join(root, filepath.FromSlash(e)), typ)...)
	}
	if len(pats) > 0 {
		// Globs that are not exclusions also pull files in from the package tree.
		for _, p := range pats {
			if strings.HasPrefix(p, "!") || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
				continue
			}
			for _, m := range globTree(root, p) {
				all = append(all, collectPath(m, typ)...)
			}
		}
		all = applyPatterns(uniq(all), exclusionsOnly(pats), root)
	}
	return uniq(all)
}

func exclusionsOnly(pats []string) []string {
	var out []string
	for _, p := range pats {
		if strings.HasPrefix(p, "!") || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
			out = append(out, p)
		}
	}
	return out
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// collectPath returns the files of type typ at p: p itself when it is a file, else what the
// type's convention directory scan finds in it.
func collectPath(p, typ string) []string {
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		return []string{p}
	}
	return collectDir(p, typ)
}

// conventionFiles returns the files of the package's convention directory for typ.
func conventionFiles(root, typ string) []string {
	dir := filepath.Join(root, typ)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	return collectDir(dir, typ)
}

// collectDir scans a directory for resources of type typ: extensions as a discovery directory
// (its own entry points first), skills as a skills directory (top-level .md files and SKILL.md
// directories), prompts (.md) and themes (.json) recursively.
func collectDir(dir, typ string) []string {
	switch typ {
	case "extensions":
		if e := entryPoints(dir); e != nil {
			return e
		}
		return ScanExtensionDir(dir)
	case "skills":
		return scanSkillDir(dir, true)
	case "prompts":
		return walkFiles(dir, ".md")
	}
	return walkFiles(dir, ".json")
}

// walkTree calls visit for every entry under root in name order (os.ReadDir sorts), skipping
// hidden entries and node_modules, at most 8 directories deep; visit reports whether to descend
// into a directory.
func walkTree(root string, visit func(full string, isDir bool) (descend bool)) {
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		if depth > 8 {
			return
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			full := filepath.Join(d, name)
			fi, err := os.Stat(full) // follows symlinks, as a package's layout may use them
			if err != nil {
				continue
			}
			if visit(full, fi.IsDir()) && fi.IsDir() {
				walk(full, depth+1)
			}
		}
	}
	walk(root, 0)
}

// walkFiles lists the files ending in ext under dir, sorted, skipping hidden entries and
// node_modules; the depth is bounded.
func walkFiles(dir, ext string) []string {
	var out []string
	walkTree(dir, func(full string, isDir bool) bool {
		if !isDir && strings.HasSuffix(full, ext) {
			out = append(out, full)
		}
		return isDir
	})
	return out
}

// globTree returns the files and directories under root (hidden entries and node_modules
// skipped, depth bounded) whose path relative to root matches the glob pattern; a matched
// directory is not searched further.
func globTree(root, pattern string) []string {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	var out []string
	walkTree(root, func(full string, isDir bool) bool {
		rel, _ := filepath.Rel(root, full)
		if globMatch(pattern, filepath.ToSlash(rel)) {
			out = append(out, full)
			return false
		}
		return isDir
	})
	sort.Strings(out)
	return out
}

// isPattern reports whether a resource entry is a pattern rather than a plain path (§3).
func isPattern(s string) bool {
	return strings.HasPrefix(s, "!") || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") || strings.ContainsAny(s, "*?[")
}

// applyPatterns narrows files by patterns relative to baseDir (§3): plain patterns and globs
// include (none: everything is included), `!glob` excludes, `+path` puts an exact path back,
// `-path` takes an exact path out even then. A pattern matches a file's path relative to
// baseDir, its name or its absolute path; for a SKILL.md also its directory's.
func applyPatterns(files, patterns []string, baseDir string) []string {
	var incl, excl, force, drop []string
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "+"):
			force = append(force, p[1:])
		case strings.HasPrefix(p, "-"):
			drop = append(drop, p[1:])
		case strings.HasPrefix(p, "!"):
			excl = append(excl, p[1:])
		default:
			incl = append(incl, p)
		}
	}
	var out []string
	for _, f := range files {
		on := len(incl) == 0 || matchAny(f, incl, baseDir, false)
		if on && matchAny(f, excl, baseDir, false) {
			on = false
		}
		if !on && matchAny(f, force, baseDir, true) {
			on = true
		}
		if on && matchAny(f, drop, baseDir, true) {
			on = false
		}
		if on {
			out = append(out, f)
		}
	}
	return out
}

func matchAny(file string, patterns []string, baseDir string, exact bool) bool {
	if len(patterns) == 0 {
		return false
	}
	cands := []string{file}
	if rel, err := filepath.Rel(baseDir, file); err == nil {
		cands = append(cands, filepath.ToSlash(rel))
	}
	if !exact {
		cands = append(cands, filepath.Base(file))
	}
	if filepath.Base(file) == "SKILL.md" {
		d := filepath.Dir(file)
		cands = append(cands, d)
		if rel, err := filepath.Rel(baseDir, d); err == nil {
			cands = append(cands, filepath.ToSlash(rel))
		}
		if !exact {
			cands = append(cands, filepath.Base(d))
		}
	}
	for _, p := range patterns {
		p = strings.TrimPrefix(filepath.ToSlash(p), "./")
		p = strings.TrimSuffix(p, "/")
		for _, c := range cands {
			if exact {
				if c == p {
					return true
				}
			} else if globMatch(p, c) {
				return true
			}
		}
	}
	return false
}

// globMatch matches name against a glob with *, ? and ** (any number of path segments).
func globMatch(pattern, name string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				i++
				if i+1 < len(pattern) && pattern[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(name)
}
