package cli

// TypeScript and JavaScript extensions (seed 004, "Extension Locations"; config-and-resources.md
// §5–6): discovery, the -e/--extension, --no-extensions and --approve flags, and the Node
// extension host they run in.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/exthost/node"
	"github.com/atomic-cli/atomic/resource"
)

// extensionFlagsOptions are the extension-loading flags of Options.
type extensionFlagsOptions struct {
	// ExtensionSources are the -e/--extension sources, in order.
	ExtensionSources []string
	// NoExtensions (--no-extensions, -ne) disables discovery; -e sources still load.
	NoExtensions bool
	// Approve (--approve, -a) trusts the project for this run: its .atomic/extensions load.
	// NoApprove (--no-approve, -na) ignores them even when trust.json trusts the project.
	Approve, NoApprove bool

	// trust is the project trust decision of this run, once made (trust.go).
	trust *trustDecision
	// front is the front-end Run chose, nil before (trustUI asks it for an early ctx.ui).
	front frontEnd
}

// addExtensionFlags registers the extension-loading flags.
func addExtensionFlags(f *pflag.FlagSet, o *extensionFlagsOptions) {
	f.StringArrayVarP(&o.ExtensionSources, "extension", "e", nil, "load an extension for this run: a .ts/.js file, a directory, or an npm:/git: package (repeatable)")
	f.BoolVar(&o.NoExtensions, "no-extensions", false, "do not discover extensions (also -ne); -e still loads")
	f.BoolVarP(&o.Approve, "approve", "a", false, "trust this project for this run: load its .atomic/extensions")
	f.BoolVar(&o.NoApprove, "no-approve", false, "do not load project-local extensions, even if trusted (also -na)")
}

// scriptExtensions are the discovered TypeScript/JavaScript extensions and their host.
type scriptExtensions struct {
	sup   *host.Supervisor
	paths []string
	// infos are the extensions' sourceInfo by path (get_commands).
	infos map[string]ext.SourceInfo
}

// startScriptExtensions discovers the extensions for cwd and, when there are any, starts the
// Node host in the background. The project's trust is decided first (trust.go), with the
// trust-safe extensions (user/global and -e) answering project_trust; project extensions are
// discovered only when it is trusted. Problems that do not stop the run are printed as warnings.
func (o *Options) startScriptExtensions(agentDir, cwd string) *scriptExtensions {
	opts := resource.DiscoverOptions{
		Cwd: cwd, AgentDir: agentDir, CLI: o.ExtensionSources, NoDiscovery: o.NoExtensions,
	}
	d := resource.DiscoverExtensions(opts) // trust-safe only: ProjectTrusted is false
	trust := o.projectTrusted(agentDir, cwd, d.Extensions)
	if trust.trusted {
		opts.ProjectTrusted = true
		d = resource.DiscoverExtensions(opts)
	}
	for _, w := range d.Warnings {
		o.warnOnce(w)
	}
	if len(d.Untrusted) > 0 && trust.source != "no-approve" {
		fmt.Fprintf(o.Stderr, "Warning: skipping %d project extension(s) (%s): the project is not trusted; pass --approve (-a) or trust it in %s/trust.json\n",
			len(d.Untrusted), strings.Join(d.Untrusted, ", "), agentDir)
	}
	se := &scriptExtensions{infos: map[string]ext.SourceInfo{}}
	for _, e := range d.Extensions {
		se.paths = append(se.paths, e.Path)
		info, baseDir := e.Info, e.BaseDir
		if t, ok := o.tempExtInfo[e.Path]; ok { // an -e npm:/git: package's file
			info, baseDir = t, t.PackageRoot
		}
		origin := "top-level"
		if info.PackageRoot != "" {
			origin = "package"
		}
		si := ext.SourceInfo{Path: e.Path, Source: info.Source, Scope: info.Scope, Origin: origin, BaseDir: baseDir}
		if e.Scope == resource.ScopeCLI {
			// pi 0.73.1 gives every -e extension (file, directory, npm:, git:) the same sourceInfo:
			// source cli, scope temporary, origin top-level, no baseDir.
			si = ext.SourceInfo{Path: e.Path, Source: "cli", Scope: "temporary", Origin: "top-level"}
		}
		se.infos[e.Path] = si
	}
	if len(se.paths) == 0 {
		return se
	}
	// The host starts before the settings are read for the session; its handler bound comes from
	// the same files (their warnings are reported once, by loadSettings).
	settings, _ := resource.LoadSettings(resource.SettingsOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trust.trusted})
	se.sup = o.newScriptHost(se.paths, agentDir, cwd, settings)
	return se
}

// checkExtensionSources returns an error naming each -e source that cannot load (a path that
// does not exist), one line each; nil when all can. npm: and git: sources were installed and
// replaced by their files before (installTemporaryPackages).
// An extension that fails to load stops the run before anything is sent (config-and-resources.md
// §5; pi and Atomic exit 1).
func (o *Options) checkExtensionSources(cwd string) error {
	var errs []error
	for _, src := range o.ExtensionSources {
		p := src
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, fmt.Errorf("extension %s failed to load: %w", src, err))
		}
	}
	return errors.Join(errs...)
}

// interactiveBlockNotice is how long a callback must block the Node host before the interactive
// mode shows a warning naming it (print, JSON and RPC mode log it after host.Options.WarnAfter).
const interactiveBlockNotice = 2 * time.Second

// newScriptHost starts the Node extension host for paths in the background; timeout bounds each
// awaited handler (extensionHandlerTimeoutMs).
func (o *Options) newScriptHost(paths []string, agentDir, cwd string, settings resource.Settings) *host.Supervisor {
	hopts := host.Options{
		Dir: cwd, Stderr: o.Stderr, Version: version, AgentDir: agentDir,
		HandlerTimeout: settings.ExtensionHandlerTimeout(), ShellPath: settings.ShellPath,
		Logf: func(format string, args ...any) { fmt.Fprintf(o.Stderr, "Warning: "+format+"\n", args...) },
	}
	if o.modeName() == "tui" {
		// Stderr becomes transcript warnings there: name only a stall a user would notice.
		hopts.NoticeAfter = interactiveBlockNotice
	}
	sup := node.New(paths, hopts, node.Options{Getenv: o.Getenv, TranspileCache: transpileCacheDir(agentDir)})
	sup.Start()
	return sup
}

// extensions appends the script extensions' factories to the Go ones.
func (se *scriptExtensions) extensions(factories []ext.Factory, paths []string) ([]ext.Factory, []string) {
	if se == nil || se.sup == nil {
		return factories, paths
	}
	// Go extensions may have fewer names than factories; pad so the script paths line up.
	paths = append([]string(nil), paths...)
	for len(paths) < len(factories) {
		paths = append(paths, "")
	}
	factories = append(append([]ext.Factory(nil), factories...), se.sup.Factories()...)
	return factories, append(paths, se.paths...)
}

// close shuts the host down.
func (se *scriptExtensions) close() {
	if se != nil && se.sup != nil {
		_ = se.sup.Close()
	}
}

// transpileCacheDir is where transpiled TypeScript extensions are kept between runs: under the
// agent directory ("" without one: no cache).
func transpileCacheDir(agentDir string) string {
	if agentDir == "" {
		return ""
	}
	return filepath.Join(agentDir, "cache", "transpiled")
}
