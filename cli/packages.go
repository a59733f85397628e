package cli

// The package commands (config-and-resources.md §4): atomic install <source> [-l],
// remove|uninstall <source> [-l], update [source] [--all|--extensions|--extension <source>],
// list and config; and -e npm:/git: sources installed for one run.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atomic-cli/atomic/resource"
)

// packageCommands are the first arguments that run a package command instead of a session; after
// "--" the word is an ordinary message.
var packageCommands = map[string]bool{
	"install": true, "remove": true, "uninstall": true, "update": true, "list": true, "config": true,
}

var packageUsage = map[string]string{
	"install": "atomic install <source> [-l]",
	"remove":  "atomic remove <source> [-l]   (alias: uninstall)",
	"update":  "atomic update [source] [--all | --extensions | --extension <source>]",
	"list":    "atomic list",
	"config":  "atomic config",
}

const packageHelp = `
Sources:
  npm:name, npm:@scope/name, npm:name@1.2.3    an npm package (a version pins it: update skips it)
  git:github.com/owner/repo[@ref]               a git repository, cloned with git (a ref pins it)
  git:git@host:owner/repo, https://…, ssh://…, git://…, file://…
  ./path, /path, ~/path                         a local package directory or extension file (not copied)

User packages are listed in <agent dir>/settings.json and installed under <agent dir>/npm and
<agent dir>/git; with -l (--local) in the project's .atomic/settings.json, .atomic/npm and
.atomic/git. A package's package.json "atomic" key (or "pi") lists its extensions, skills,
prompts and themes; without one, its extensions/, skills/, prompts/ and themes/ directories are
used.
`

// packageShort is each package command's one-line help in `atomic --help`.
var packageShort = map[string]string{
	"install": "install a package (npm:, git: or a path) and add it to settings.json (-l: the project's)",
	"remove":  "remove a package from settings.json and delete its installed copy (-l: the project's)",
	"update":  "update the unpinned packages, or one source",
	"list":    "list the configured packages and where they are installed",
	"config":  "print what each configured package contributes (extensions, skills, prompts, themes)",
}

// newPackageCmds are the package commands as Cobra commands, so that `atomic --help` and
// `atomic help <command>` list them; execute runs them through runPackageCommand before Cobra
// parses anything, and so do these when reached through Cobra.
func newPackageCmds(opts *Options) []*cobra.Command {
	var cmds []*cobra.Command
	for _, name := range []string{"install", "remove", "update", "list", "config"} {
		c := &cobra.Command{
			Use:                strings.TrimPrefix(strings.TrimSuffix(packageUsage[name], "   (alias: uninstall)"), "atomic "),
			Short:              packageShort[name],
			Long:               packageShort[name] + "\n\nUsage: " + packageUsage[name] + "\n" + packageHelp,
			DisableFlagParsing: true,
			RunE: func(_ *cobra.Command, args []string) error {
				if code := runPackageCommand(opts, append([]string{name}, args...)); code != 0 {
					return exitError{code}
				}
				return nil
			},
		}
		if name == "remove" {
			c.Aliases = []string{"uninstall"}
		}
		c.SetHelpTemplate("{{.Long}}")
		cmds = append(cmds, c)
	}
	return cmds
}

// packageCommand is one parsed package command line.
type packageCommand struct {
	name   string // install, remove, update, list or config
	source string
	local  bool
	help   bool
}

// parsePackageCommand parses args (args[0] is the command); the error says what is wrong.
func parsePackageCommand(args []string) (packageCommand, error) {
	c := packageCommand{name: args[0]}
	if c.name == "uninstall" {
		c.name = "remove"
	}
	usage := func() string { return "\nUsage: " + packageUsage[c.name] }
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			c.help = true
		case (a == "-l" || a == "--local") && (c.name == "install" || c.name == "remove"):
			c.local = true
		case (a == "--all" || a == "--extensions") && c.name == "update":
		case a == "--extension" && c.name == "update":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return c, fmt.Errorf("atomic update: --extension needs a package source%s", usage())
			}
			if c.source != "" {
				return c, fmt.Errorf("atomic update: one package at a time%s", usage())
			}
			i++
			c.source = args[i]
		case a == "--self" && c.name == "update":
			return c, errors.New("atomic update --self: atomic does not update itself; install the new release the way you installed this one")
		case strings.HasPrefix(a, "-") && a != "-":
			return c, fmt.Errorf("atomic %s: unknown option %s%s", c.name, a, usage())
		case c.source == "" && (c.name == "install" || c.name == "remove" || c.name == "update"):
			c.source = a
		default:
			return c, fmt.Errorf("atomic %s: unexpected argument %q%s", c.name, a, usage())
		}
	}
	if !c.help && c.source == "" && (c.name == "install" || c.name == "remove") {
		return c, fmt.Errorf("atomic %s: which package? Give a source%s", c.name, usage())
	}
	return c, nil
}

// runPackageCommand runs a package command and returns the exit code.
func runPackageCommand(o *Options, args []string) int {
	c, err := parsePackageCommand(args)
	if err != nil {
		fmt.Fprintf(o.Stderr, "Error: %v\n", err)
		return 1
	}
	if c.help {
		fmt.Fprintf(o.Stdout, "Usage: %s\n%s", packageUsage[c.name], packageHelp)
		return 0
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(o.Stderr, "Error: cannot read the working directory: %v\n", err)
		return 1
	}
	agentDir := o.agentDir()
	pm := &packageManager{
		places:  resource.PackagePlaces{AgentDir: agentDir, Cwd: cwd},
		trusted: o.commandTrust(agentDir, cwd),
		out:     o.Stdout,
		errOut:  o.Stderr,
	}
	pm.installer = &resource.Installer{Places: pm.places, NpmCommand: npmCommand(agentDir), Progress: o.Stdout}
	switch c.name {
	case "install":
		err = pm.install(c.source, c.local)
	case "remove":
		err = pm.remove(c.source, c.local)
	case "update":
		err = pm.update(c.source)
	case "list":
		err = pm.list()
	case "config":
		err = pm.config()
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

// commandTrust decides whether package commands read the project's settings: a project without
// trust-gated files, one trust.json trusts, or defaultProjectTrust "always" (there is no UI to
// ask and no extension runs). -l always works on the project: the user named it.
func (o *Options) commandTrust(agentDir, cwd string) bool {
	home := o.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if len(resource.TrustInputs(cwd, home)) == 0 {
		return true
	}
	if trusted, decided, _ := resource.ProjectTrust(agentDir, cwd); decided {
		return trusted
	}
	return resource.DefaultProjectTrust(agentDir) == "always"
}

// npmCommand is the global settings' npmCommand argv (nil: npm).
func npmCommand(agentDir string) []string {
	s, _ := resource.LoadSettings(resource.SettingsOptions{AgentDir: agentDir})
	raw, _ := s.Raw["npmCommand"].([]any)
	var out []string
	for _, v := range raw {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

type packageManager struct {
	places      resource.PackagePlaces
	installer   *resource.Installer
	trusted     bool
	out, errOut io.Writer
}

func scopeOf(local bool) string {
	if local {
		return resource.PackageScopeProject
	}
	return resource.PackageScopeUser
}

func (pm *packageManager) install(source string, local bool) error {
	src, err := resource.ParseSource(source)
	if err != nil {
		return err
	}
	scope := scopeOf(local)
	if _, err := pm.installer.Install(context.Background(), src, scope); err != nil {
		return err
	}
	if _, err := pm.places.AddPackage(src, scope); err != nil {
		return fmt.Errorf("install %s: installed, but the settings were not updated: %w", source, err)
	}
	fmt.Fprintf(pm.out, "Installed %s\n", source)
	return nil
}

func (pm *packageManager) remove(source string, local bool) error {
	src, err := resource.ParseSource(source)
	if err != nil {
		return err
	}
	scope := scopeOf(local)
	entries, warns := resource.ReadPackageEntries(pm.places.SettingsFileFor(scope), scope)
	if len(warns) > 0 {
		return fmt.Errorf("remove %s: %w", source, errors.Join(warns...))
	}
	var found *resource.PackageEntry
	for i := range entries {
		if pm.places.MatchesInput(entries[i], src) {
			found = &entries[i]
			break
		}
	}
	if found == nil {
		where := "user"
		if local {
			where = "project"
		}
		return fmt.Errorf("remove %s: no matching package in the %s settings (%s); `atomic list` shows the installed ones", source, where, pm.places.SettingsFileFor(scope))
	}
	configured, _ := resource.ParseSource(found.Source)
	if err := pm.installer.Remove(configured, scope); err != nil {
		return err
	}
	if _, err := pm.places.RemovePackage(src, scope); err != nil {
		return err
	}
	fmt.Fprintf(pm.out, "Removed %s\n", source)
	return nil
}

func (pm *packageManager) update(source string) error {
	entries, warns := resource.ConfiguredPackages(pm.places, pm.trusted)
	for _, w := range warns {
		fmt.Fprintf(pm.errOut, "Warning: %v\n", w)
	}
	var input resource.PackageSource
	if source != "" {
		var err error
		if input, err = resource.ParseSource(source); err != nil {
			return err
		}
	}
	matched := false
	var errs []error
	for _, e := range entries {
		if source != "" && !pm.places.MatchesInput(e, input) {
			continue
		}
		matched = true
		src, err := resource.ParseSource(e.Source)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case src.Kind == resource.PackageLocal:
			continue
		case src.Pinned:
			fmt.Fprintf(pm.out, "Skipped %s: pinned\n", src.Raw)
			continue
		}
		if _, err := pm.installer.Install(context.Background(), src, e.Scope); err != nil {
			errs = append(errs, err)
		}
	}
	if source != "" && !matched {
		return fmt.Errorf("update %s: no matching package in the settings; `atomic list` shows the installed ones", source)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if source != "" {
		fmt.Fprintf(pm.out, "Updated %s\n", source)
	} else {
		fmt.Fprintln(pm.out, "Updated packages")
	}
	return nil
}

func (pm *packageManager) list() error {
	entries, ok := pm.configured()
	if !ok {
		return nil
	}
	pm.eachScope(entries, func(e resource.PackageEntry, src resource.PackageSource, dir string, installed bool) {
		name := e.Source
		if e.Filtered() {
			name += " (filtered)"
		}
		fmt.Fprintf(pm.out, "  %s\n", name)
		if installed {
			fmt.Fprintf(pm.out, "    %s\n", dir)
		} else {
			fmt.Fprintf(pm.out, "    not installed (%s)\n", dir)
		}
	})
	return nil
}

// configured returns the configured packages after printing their warnings; ok is false (and a
// note has been printed) when there are none: no packages, or only an untrusted project's.
func (pm *packageManager) configured() (entries []resource.PackageEntry, ok bool) {
	entries, warns := resource.ConfiguredPackages(pm.places, pm.trusted)
	for _, w := range warns {
		fmt.Fprintf(pm.errOut, "Warning: %v\n", w)
	}
	if pm.noteUntrusted() && len(entries) == 0 {
		return nil, false
	}
	if len(entries) == 0 {
		fmt.Fprintln(pm.out, "No packages installed.")
		return nil, false
	}
	return entries, true
}

// noteUntrusted prints which project settings files were skipped because the project is not
// trusted, and how to trust it; it reports whether it printed anything.
func (pm *packageManager) noteUntrusted() bool {
	skipped := skippedProjectFiles(pm.trusted, pm.places.Cwd, ".atomic/settings.json", ".pi/settings.json")
	if len(skipped) == 0 {
		return false
	}
	fmt.Fprintln(pm.out, untrustedNote(pm.places.AgentDir, skipped))
	return true
}

// config prints what each configured package contributes, after its filters.
func (pm *packageManager) config() error {
	entries, ok := pm.configured()
	if !ok {
		return nil
	}
	pm.eachScope(entries, func(e resource.PackageEntry, src resource.PackageSource, dir string, installed bool) {
		fmt.Fprintf(pm.out, "  %s\n", e.Source)
		res, err := resource.PackageContents(pm.places, src, e.Scope, e.Filters)
		if err != nil {
			fmt.Fprintf(pm.out, "    %v\n", err)
			return
		}
		for _, kind := range []struct {
			name string
			rs   []resource.PackageResource
		}{{"extensions", res.Extensions}, {"skills", res.Skills}, {"prompts", res.Prompts}, {"themes", res.Themes}} {
			if len(kind.rs) == 0 {
				continue
			}
			fmt.Fprintf(pm.out, "    %s:\n", kind.name)
			for _, r := range kind.rs {
				fmt.Fprintf(pm.out, "      %s\n", r.Path)
			}
		}
	})
	return nil
}

// eachScope calls f for the user packages under "User packages:", then the project ones under
// "Project packages:".
func (pm *packageManager) eachScope(entries []resource.PackageEntry, f func(e resource.PackageEntry, src resource.PackageSource, dir string, installed bool)) {
	for i, scope := range []string{resource.PackageScopeUser, resource.PackageScopeProject} {
		header := false
		for _, e := range entries {
			if e.Scope != scope {
				continue
			}
			if !header {
				if i > 0 && len(entries) > 0 && entries[0].Scope == resource.PackageScopeUser {
					fmt.Fprintln(pm.out)
				}
				fmt.Fprintln(pm.out, map[string]string{resource.PackageScopeUser: "User packages:", resource.PackageScopeProject: "Project packages:"}[scope])
				header = true
			}
			src, err := resource.ParseSource(e.Source)
			if err != nil {
				fmt.Fprintf(pm.out, "  %s\n    %v\n", e.Source, err)
				continue
			}
			dir := pm.places.InstallDir(src, scope)
			_, statErr := os.Stat(dir)
			f(e, src, dir, statErr == nil)
		}
	}
}

// installTemporaryPackages installs the -e npm: and git: sources for this run (under the temp
// dir; an earlier run's install is reused) and replaces each in o.ExtensionSources with its
// extension files; its skills, prompts and themes go to o.tempPackages. A source that cannot be
// installed is an error naming it: the run stops before anything is sent.
func (o *Options) installTemporaryPackages(agentDir, cwd string) error {
	places := resource.PackagePlaces{AgentDir: agentDir, Cwd: cwd}
	in := &resource.Installer{Places: places, NpmCommand: npmCommand(agentDir), Progress: o.Stderr}
	var out []string
	var errs []error
	for _, s := range o.ExtensionSources {
		if !strings.HasPrefix(s, "npm:") && !strings.HasPrefix(s, "git:") && !strings.Contains(s, "://") {
			out = append(out, s)
			continue
		}
		src, err := resource.ParseSource(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("extension %s failed to load: %w", s, err))
			continue
		}
		if !in.Installed(src, resource.PackageScopeTemporary) {
			if _, err := in.Install(context.Background(), src, resource.PackageScopeTemporary); err != nil {
				errs = append(errs, fmt.Errorf("extension %s failed to load: %w", s, err))
				continue
			}
		}
		res, err := resource.PackageContents(places, src, resource.PackageScopeTemporary, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("extension %s failed to load: %w", s, err))
			continue
		}
		out = append(out, resource.Paths(res.Extensions)...)
		if o.tempExtInfo == nil {
			o.tempExtInfo = map[string]resource.Origin{}
		}
		for _, e := range res.Extensions {
			o.tempExtInfo[e.Path] = e.Origin
		}
		o.tempPackages.Skills = append(o.tempPackages.Skills, res.Skills...)
		o.tempPackages.Prompts = append(o.tempPackages.Prompts, res.Prompts...)
		o.tempPackages.Themes = append(o.tempPackages.Themes, res.Themes...)
	}
	o.ExtensionSources = out
	return errors.Join(errs...)
}
