package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/resource"
)

// loadResources discovers the skills and prompt templates of this run (config-and-resources.md
// §10–11), those of packages (§4) included, into o.skills and o.templates, printing their warnings. Project directories are read
// only when the project is trusted; settings entries that are relative resolve against the agent
// directory.
func (o *Options) loadResources(agentDir, cwd string, settings resource.Settings) {
	trusted := o.projectTrusted(agentDir, cwd, nil).trusted
	home, _ := os.UserHomeDir()
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if p != "" && p[0] != '~' && !filepath.IsAbs(p) {
				p = filepath.Join(agentDir, p)
			}
			out = append(out, p)
		}
		return out
	}
	// The settings packages' skills and templates (their warnings are printed once, with the
	// extensions', unless extension discovery is off), then the -e packages'.
	pkgs, pwarns := resource.ResolvePackages(resource.PackagePlaces{AgentDir: agentDir, Cwd: cwd}, trusted)
	if !o.NoExtensions {
		pwarns = nil
	}
	o.resMu.Lock()
	fromExt := o.extResources
	o.resMu.Unlock()
	skills, warns := resource.DiscoverSkills(resource.SkillOptions{
		AgentDir: agentDir, Home: home, Cwd: cwd, ProjectTrusted: trusted,
		NoSkills: o.NoSkills, Settings: rel(settings.Skills), Paths: o.SkillPaths,
		Packages: concat(pkgs.Skills, o.tempPackages.Skills, fromExt.Skills),
	})
	templates, twarns := resource.DiscoverPromptTemplates(resource.TemplateOptions{
		AgentDir: agentDir, Home: home, Cwd: cwd, ProjectTrusted: trusted,
		NoTemplates: o.NoPromptTemplates, Settings: rel(settings.Prompts), Paths: o.TemplatePaths,
		Packages: concat(pkgs.Prompts, o.tempPackages.Prompts, fromExt.Prompts),
	})
	for _, w := range append(append(pwarns, warns...), twarns...) {
		fmt.Fprintf(o.Stderr, "Warning: %v\n", w)
	}
	o.resMu.Lock()
	o.skills, o.templates = skills, templates
	o.resMu.Unlock()
}

// resources returns the skills and templates loadResources last discovered (safe while /reload
// runs it again).
func (o *Options) resources() ([]resource.Skill, []resource.PromptTemplate) {
	o.resMu.Lock()
	defer o.resMu.Unlock()
	return o.skills, o.templates
}

func concat(lists ...[]resource.PackageResource) []resource.PackageResource {
	var out []resource.PackageResource
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// setExtensionResources keeps the paths extensions returned from resources_discover (pi's
// extendResources): relative paths resolve against cwd; each is attributed to
// "extension:<name>" with scope temporary and the extension's directory as baseDir, as pi's
// sourceInfo does. nil forgets them (/reload
// asks the extensions again).
func (o *Options) setExtensionResources(cwd string, found []ext.DiscoveredResources) {
	var r resource.PackageResources
	conv := func(paths []string, extPath string) []resource.PackageResource {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(extPath), ".ts"), ".js")
		baseDir := filepath.Dir(extPath)
		if strings.HasPrefix(extPath, "<") || strings.HasPrefix(extPath, "go:") {
			name, baseDir = strings.Trim(strings.TrimPrefix(extPath, "go:"), "<>"), ""
		}
		var out []resource.PackageResource
		for _, p := range paths {
			if p == "" {
				continue
			}
			p = model.ExpandHome(p)
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			out = append(out, resource.PackageResource{Path: p, Origin: resource.Origin{Source: "extension:" + name, Scope: resource.PackageScopeTemporary, BaseDir: baseDir}})
		}
		return out
	}
	for _, f := range found {
		r.Skills = append(r.Skills, conv(f.SkillPaths, f.ExtensionPath)...)
		r.Prompts = append(r.Prompts, conv(f.PromptPaths, f.ExtensionPath)...)
		r.Themes = append(r.Themes, conv(f.ThemePaths, f.ExtensionPath)...)
	}
	o.resMu.Lock()
	o.extResources = r
	o.resMu.Unlock()
}

// themePaths are the custom theme files and directories of this run besides <agentDir>/themes
// (config-and-resources.md §13): unless --no-themes, a trusted project's .atomic/themes and
// .pi/themes, the settings "themes" entries (relative to the agent dir) and the packages'
// themes; always the -e packages', the resources_discover ones and --theme.
func (o *Options) themePaths(agentDir, cwd string) []string {
	trusted := o.projectTrusted(agentDir, cwd, nil).trusted
	var out []string
	if !o.NoThemes {
		if trusted {
			out = append(out, filepath.Join(cwd, ".atomic", "themes"), filepath.Join(cwd, ".pi", "themes"))
		}
		s, _ := resource.LoadSettings(resource.SettingsOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trusted})
		if list, ok := s.Raw["themes"].([]any); ok {
			for _, v := range list {
				p, _ := v.(string)
				if p == "" {
					continue
				}
				p = model.ExpandHome(p)
				if !filepath.IsAbs(p) {
					p = filepath.Join(agentDir, p)
				}
				out = append(out, p)
			}
		}
		pkgs, _ := resource.ResolvePackages(resource.PackagePlaces{AgentDir: agentDir, Cwd: cwd}, trusted)
		out = append(out, resource.Paths(pkgs.Themes)...)
	}
	o.resMu.Lock()
	fromExt := o.extResources.Themes
	o.resMu.Unlock()
	out = append(out, resource.Paths(o.tempPackages.Themes)...)
	out = append(out, resource.Paths(fromExt)...)
	for _, p := range o.ThemePaths {
		if abs, err := filepath.Abs(model.ExpandHome(p)); err == nil {
			p = abs
		}
		out = append(out, p)
	}
	return out
}
