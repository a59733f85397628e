package resource

// Installing, updating and removing packages (config-and-resources.md §4): npm packages with the
// npm command, git packages with the git binary. Every install is built in a staging directory
// next to its destination and renamed into place only when it is complete, so a failed install
// leaves nothing behind and a failed update leaves the old version in place.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PackageCommandTimeout bounds one npm or git command of an install.
const PackageCommandTimeout = 10 * time.Minute

// maxCommandOutput bounds how much of a failed command's output an error quotes, in bytes.
const maxCommandOutput = 4 << 10

// Installer installs packages into the places of a run.
type Installer struct {
	Places PackagePlaces
	// NpmCommand is the settings `npmCommand` argv used instead of "npm" (nil: npm).
	NpmCommand []string
	// Progress receives one line per step ("Installing npm:x..."); nil discards them.
	Progress io.Writer
	// Env is the environment of npm and git (nil: this process's).
	Env []string
}

func (in *Installer) progress(format string, a ...any) {
	if in.Progress != nil {
		fmt.Fprintf(in.Progress, format+"\n", a...)
	}
}

// Install installs src for scope and returns its directory. npm packages are installed with
// their production dependencies; git sources are cloned (and the ref checked out), then their
// production dependencies are installed when package.json declares any; a local source is only
// checked to exist (relative to cwd: it is what the user typed). An existing install is replaced only once the new one is complete.
func (in *Installer) Install(ctx context.Context, src PackageSource, scope string) (string, error) {
	dir := in.Places.InstallDir(src, scope)
	switch src.Kind {
	case PackageLocal:
		dir = resolveLocal(src.LocalPath, in.Places.Cwd) // typed on the command line
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("install %s: path does not exist: %s", src.Raw, dir)
		}
		return dir, nil
	case PackageNPM:
		in.progress("Installing %s...", src.Raw)
		return dir, in.installNpm(ctx, src, scope, dir)
	case PackageGit:
		in.progress("Installing %s...", src.Raw)
		return dir, in.installGit(ctx, src, scope, dir)
	}
	return "", fmt.Errorf("install %s: unsupported source", src.Raw)
}

// Installed reports whether src is installed for scope.
func (in *Installer) Installed(src PackageSource, scope string) bool {
	_, err := os.Stat(in.Places.InstallDir(src, scope))
	return err == nil
}

func (in *Installer) installNpm(ctx context.Context, src PackageSource, scope, dir string) error {
	root := in.Places.NpmRoot(src, scope)
	if err := ensureIgnoredDir(root, scope); err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	staging, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	defer os.RemoveAll(staging)
	if err := os.WriteFile(filepath.Join(staging, "package.json"), []byte(`{"name":"atomic-install","private":true}`+"\n"), 0o644); err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	// Nested: the package's dependencies go inside its own directory, which then moves alone.
	args := []string{"install", src.Spec, "--omit=dev", "--install-strategy=nested", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", staging}
	if err := in.run(ctx, staging, in.npm(args...)...); err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	built := filepath.Join(staging, "node_modules", filepath.FromSlash(src.Name))
	if _, err := os.Stat(filepath.Join(built, "package.json")); err != nil {
		return fmt.Errorf("install %s: npm installed no package named %s", src.Raw, src.Name)
	}
	return swapInto(built, dir, staging)
}

func (in *Installer) installGit(ctx context.Context, src PackageSource, scope, dir string) error {
	root := in.Places.GitRoot(src, scope)
	if err := ensureIgnoredDir(root, scope); err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	staging, err := os.MkdirTemp(root, ".clone-")
	if err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	defer os.RemoveAll(staging)
	built := filepath.Join(staging, "repo")
	if err := in.run(ctx, staging, "git", "clone", "--quiet", src.Repo, built); err != nil {
		return fmt.Errorf("install %s: %w", src.Raw, err)
	}
	if src.Ref != "" {
		if err := in.run(ctx, built, "git", "-c", "advice.detachedHead=false", "checkout", "--quiet", src.Ref); err != nil {
			return fmt.Errorf("install %s: ref %s: %w", src.Raw, src.Ref, err)
		}
	}
	if hasProductionDeps(built) {
		if err := in.run(ctx, built, in.npm("install", "--omit=dev", "--no-audit", "--no-fund")...); err != nil {
			return fmt.Errorf("install %s: dependencies: %w", src.Raw, err)
		}
	}
	return swapInto(built, dir, staging)
}

// hasProductionDeps reports whether dir/package.json declares dependencies.
func hasProductionDeps(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Dependencies map[string]any `json:"dependencies"`
	}
	return json.Unmarshal(b, &pkg) == nil && len(pkg.Dependencies) > 0
}

// swapInto moves the finished built directory to dir; an old dir is moved into staging (removed
// with it) first and moved back if the new one cannot take its place.
func swapInto(built, dir, staging string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("install into %s: %w", dir, err)
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = filepath.Join(staging, "previous")
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("install into %s: move the old version aside: %w", dir, err)
		}
	}
	if err := os.Rename(built, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("install into %s: %w", dir, err)
	}
	return nil
}

// ensureIgnoredDir creates an install root; a user or project root gets a .gitignore that
// ignores everything in it, so installs never show up in a repository.
func ensureIgnoredDir(root, scope string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if scope == PackageScopeTemporary {
		return nil
	}
	ig := filepath.Join(root, ".gitignore")
	if _, err := os.Stat(ig); err == nil {
		return nil
	}
	return os.WriteFile(ig, []byte("*\n!.gitignore\n"), 0o644)
}

func (in *Installer) npm(args ...string) []string {
	base := []string{"npm"}
	if len(in.NpmCommand) > 0 && in.NpmCommand[0] != "" {
		base = in.NpmCommand
	}
	return append(append([]string(nil), base...), args...)
}

// Remove deletes the installed files of src for scope (a local source has none). Empty parent
// directories of a git clone are removed up to the git root.
func (in *Installer) Remove(src PackageSource, scope string) error {
	if src.Kind == PackageLocal {
		return nil
	}
	dir := in.Places.InstallDir(src, scope)
	in.progress("Removing %s...", src.Raw)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", src.Raw, err)
	}
	root := in.Places.NpmRoot(src, scope)
	if src.Kind == PackageGit {
		root = in.Places.GitRoot(src, scope)
	}
	for d := filepath.Dir(dir); strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil { // only succeeds on an empty directory
			break
		}
	}
	return nil
}

// run runs argv in dir with a time bound; the command's process group dies with atomic. A
// failure's error quotes the end of its output.
func (in *Installer) run(ctx context.Context, dir string, argv ...string) error {
	ctx, cancel := context.WithTimeout(ctx, PackageCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	env := in.Env
	if env == nil {
		env = os.Environ()
	}
	// git must never wait for a password on the terminal; npm must not nag.
	cmd.Env = append(append([]string(nil), env...), "GIT_TERMINAL_PROMPT=0", "npm_config_update_notifier=false")
	out := &tailBuffer{max: maxCommandOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	release := startInGroup(cmd)
	err := cmd.Run()
	release()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v", PackageCommandTimeout)
		}
		msg := strings.TrimSpace(out.String())
		if msg != "" {
			msg = "\n" + msg
		}
		return fmt.Errorf("%s failed: %w%s", strings.Join(argv, " "), err, msg)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// SettingsFileFor returns the settings file a scope's `packages` live in: <agentDir>/settings.json,
// or the project's (.atomic/settings.json, or the legacy .pi/settings.json when only it exists).
func (pl PackagePlaces) SettingsFileFor(scope string) string {
	global, project := SettingsPaths(pl.AgentDir, pl.Cwd)
	if scope == PackageScopeUser {
		return global
	}
	if project != "" {
		return project
	}
	return filepath.Join(pl.ProjectConfigDir(), "settings.json")
}

// SettingsSource is how src is written into a scope's settings: a local path relative to the
// settings file's directory (starting with "./" or "../"), other sources as given.
func (pl PackagePlaces) SettingsSource(src PackageSource, scope string) string {
	if src.Kind != PackageLocal {
		return strings.TrimSpace(src.Raw)
	}
	abs := resolveLocal(src.LocalPath, pl.Cwd)
	rel, err := filepath.Rel(pl.BaseDir(scope), abs)
	if err != nil {
		return abs
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		return "."
	}
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	return rel
}

// AddPackage appends src to the scope's settings `packages` unless the same package (Identity)
// is there already; added says whether the file changed.
func (pl PackagePlaces) AddPackage(src PackageSource, scope string) (added bool, err error) {
	path := pl.SettingsFileFor(scope)
	entries, warns := ReadPackageEntries(path, scope)
	if len(warns) > 0 {
		return false, fmt.Errorf("add %s to %s: %w", src.Raw, path, errors.Join(warns...))
	}
	id := pl.inputIdentity(src)
	var list []any
	for _, e := range entries {
		if s, err := ParseSource(e.Source); err == nil && s.Identity(pl.BaseDir(scope)) == id {
			return false, nil
		}
		list = append(list, e.Raw)
	}
	list = append(list, pl.SettingsSource(src, scope))
	if err := saveSettingsKey(path, "packages", list); err != nil {
		return false, err
	}
	return true, nil
}

// RemovePackage removes every entry of the same package as src from the scope's settings;
// removed says whether there was one.
func (pl PackagePlaces) RemovePackage(src PackageSource, scope string) (removed bool, err error) {
	path := pl.SettingsFileFor(scope)
	entries, warns := ReadPackageEntries(path, scope)
	if len(warns) > 0 {
		return false, fmt.Errorf("remove %s from %s: %w", src.Raw, path, errors.Join(warns...))
	}
	id := pl.inputIdentity(src)
	list := []any{}
	for _, e := range entries {
		if s, err := ParseSource(e.Source); err == nil && s.Identity(pl.BaseDir(scope)) == id {
			removed = true
			continue
		}
		list = append(list, e.Raw)
	}
	if !removed {
		return false, nil
	}
	return true, saveSettingsKey(path, "packages", list)
}

// inputIdentity is the identity of a source typed on the command line: a local path is
// relative to cwd.
func (pl PackagePlaces) inputIdentity(src PackageSource) string { return src.Identity(pl.Cwd) }

// MatchesInput reports whether a configured entry names the same package as a source typed on
// the command line.
func (pl PackagePlaces) MatchesInput(e PackageEntry, input PackageSource) bool {
	s, err := ParseSource(e.Source)
	return err == nil && s.Identity(pl.BaseDir(e.Scope)) == pl.inputIdentity(input)
}
