package cli

import (
	"fmt"
	"os"
	"path/filepath"

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
	skills, warns := resource.DiscoverSkills(resource.SkillOptions{
		AgentDir: agentDir, Home: home, Cwd: cwd, ProjectTrusted: trusted,
		NoSkills: o.NoSkills, Settings: rel(settings.Skills), Paths: o.SkillPaths,
		Packages: append(pkgs.Skills, o.tempPackages.Skills...),
	})
	templates, twarns := resource.DiscoverPromptTemplates(resource.TemplateOptions{
		AgentDir: agentDir, Home: home, Cwd: cwd, ProjectTrusted: trusted,
		NoTemplates: o.NoPromptTemplates, Settings: rel(settings.Prompts), Paths: o.TemplatePaths,
		Packages: append(pkgs.Prompts, o.tempPackages.Prompts...),
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
