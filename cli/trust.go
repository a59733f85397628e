package cli

// Project trust (config-and-resources.md §6; events.md §2 "Startup", §3.1 project_trust): one
// decision per run, made before any project-local input (project extensions, project
// settings.json) is read. An untrusted project's code is never loaded or evaluated.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/resource"
)

// trustDecision is the project trust of this run.
type trustDecision struct {
	trusted bool
	// source says what decided: "approve", "no-approve", "no-inputs", "extension",
	// "trust.json", "defaultProjectTrust" or "no-ui".
	source string
}

// projectTrusted returns the trust decision for cwd, resolving it on first use (later calls,
// e.g. from loadSettings, reuse it). safe are the trust-safe script extensions (user/global and
// CLI -e), which with the compiled-in Go extensions answer project_trust.
//
// Decision order (config-and-resources.md §6 resolveProjectTrusted):
//  1. CLI override: --no-approve (-na) distrusts, --approve (-a) trusts, for this run;
//  2. a cwd without trust-gated inputs is trusted (there is nothing to gate);
//  3. the project_trust event: the first yes/no answer wins, remember:true saves it;
//  4. the saved decision in <agentDir>/trust.json (cwd or the nearest ancestor);
//  5. the global settings' defaultProjectTrust: always trusts, never distrusts;
//  6. ask (the default): the interactive mode shows the trust prompt (trust_interactive.go);
//     without a UI untrusted, with a warning.
func (o *Options) projectTrusted(agentDir, cwd string, safe []resource.ExtensionSource) trustDecision {
	if o.trust != nil {
		return *o.trust
	}
	d := o.resolveProjectTrust(agentDir, cwd, safe)
	o.trust = &d
	return d
}

func (o *Options) resolveProjectTrust(agentDir, cwd string, safe []resource.ExtensionSource) trustDecision {
	switch {
	case o.NoApprove:
		return trustDecision{false, "no-approve"}
	case o.Approve:
		return trustDecision{true, "approve"}
	}
	home := o.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	inputs := resource.TrustInputs(cwd, home)
	if len(inputs) == 0 {
		return trustDecision{true, "no-inputs"}
	}
	var asked *trustDecision
	ask := func(r *ext.Runner) { asked = o.askTrustIfUndecided(agentDir, cwd, inputs, r) }
	if res := o.emitProjectTrust(agentDir, cwd, safe, ask); res != nil {
		trusted := res.Trusted == "yes"
		if res.Remember {
			if err := resource.RememberProjectTrust(agentDir, cwd, trusted); err != nil {
				fmt.Fprintf(o.Stderr, "Warning: project trust: cannot save the decision: %v\n", err)
			}
		}
		return trustDecision{trusted, "extension"}
	}
	trusted, decided, err := resource.ProjectTrust(agentDir, cwd)
	if err != nil {
		fmt.Fprintf(o.Stderr, "Warning: %v\n", err)
	}
	if decided {
		return trustDecision{trusted, "trust.json"}
	}
	switch resource.DefaultProjectTrust(agentDir) {
	case "always":
		return trustDecision{true, "defaultProjectTrust"}
	case "never":
		return trustDecision{false, "defaultProjectTrust"}
	}
	if asked != nil {
		return *asked
	}
	fmt.Fprintf(o.Stderr, "Warning: the project in %s is not trusted: its extensions, settings and context files (AGENTS.md, CLAUDE.md) are not loaded (no UI to ask); pass --approve (-a) to trust it for this run, or trust it in %s\n",
		cwd, filepath.Join(agentDir, "trust.json"))
	return trustDecision{false, "no-ui"}
}

// emitProjectTrust dispatches project_trust to the trust-safe extensions only (the compiled-in Go
// extensions, then the user/global and -e script extensions), loaded into a runner of their own
// with the reduced trust context (events.md §1.3). It returns the decisive (yes/no) answer, nil
// when none came. Handler errors are reported; load errors are left to the session's runner,
// which loads the same extensions again and reports them. Without a decisive answer, undecided
// runs while the runner is still loaded (nil runner when there are no such extensions): the
// interactive trust prompt, which reports itself to them with ui_prompt_start/_end.
func (o *Options) emitProjectTrust(agentDir, cwd string, safe []resource.ExtensionSource, undecided func(r *ext.Runner)) *ext.ProjectTrustResult {
	var scripts []string
	for _, e := range safe {
		if e.Scope != resource.ScopeProject {
			scripts = append(scripts, e.Path)
		}
	}
	if len(o.Extensions) == 0 && len(scripts) == 0 {
		undecided(nil)
		return nil
	}
	mode, ui := o.modeName(), o.trustUI()
	r := ext.NewRunner(func(ctx context.Context) ext.Context {
		return &trustContext{NoSession: ext.NoSession{Ctx: ctx}, cwd: cwd, mode: mode, ui: ui}
	})
	r.OnError(func(e *ext.Error) {
		if e.Event == "load" {
			return
		}
		fmt.Fprintf(o.Stderr, "Extension error (%s): %s: %s\n", e.ExtensionPath, e.Event, e.Message)
	})
	factories, paths := o.Extensions, o.ExtensionPaths
	var sup *host.Supervisor
	if len(scripts) > 0 {
		// The project is not trusted yet: the handler bound and shell come from the global settings.
		global, _ := resource.LoadSettings(resource.SettingsOptions{AgentDir: agentDir, Cwd: cwd})
		sup = o.newScriptHost(scripts, agentDir, cwd, global)
		defer sup.Close()
		se := &scriptExtensions{sup: sup, paths: scripts}
		factories, paths = se.extensions(factories, paths)
	}
	r.Load(nil, paths, factories)
	_, res, _ := ext.Emit[*ext.ProjectTrustResult](r, context.Background(), ext.ProjectTrust{Cwd: cwd})
	if res == nil || (res.Trusted != "yes" && res.Trusted != "no") {
		undecided(r)
		r.MarkStale()
		return nil
	}
	r.MarkStale()
	return res
}

// trustContext is the reduced context of project_trust handlers (events.md §1.3): cwd, mode,
// hasUI and ui; there is no session yet (ext.NoSession answers the rest). In interactive mode ui
// runs its dialogs inline in the terminal (trust_interactive.go); elsewhere it is NoUI.
type trustContext struct {
	ext.NoSession
	cwd  string
	mode string
	ui   ext.UI // nil: no UI
}

// UI implements ext.Context.
func (c *trustContext) UI() ext.UI {
	if c.ui == nil {
		return ext.NoUI{}
	}
	return c.ui
}

// HasUI implements ext.Context.
func (c *trustContext) HasUI() bool { return c.ui != nil }

// Mode implements ext.Context.
func (c *trustContext) Mode() string { return c.mode }

// Cwd implements ext.Context.
func (c *trustContext) Cwd() string { return c.cwd }

// skippedProjectFiles returns the project files of cwd among rel (paths relative to cwd, such as
// ".mcp.json" or ".atomic/settings.json") that exist and were left unread because the project is
// not trusted; nil when the project is trusted or has none of them.
func skippedProjectFiles(trusted bool, cwd string, rel ...string) []string {
	if trusted {
		return nil
	}
	var out []string
	for _, r := range rel {
		p := filepath.Join(cwd, filepath.FromSlash(r))
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// untrustedNote is the line a command prints when it left the project's files unread because
// the project is not trusted: which files, and how to trust the project.
func untrustedNote(agentDir string, skipped []string) string {
	return fmt.Sprintf("Skipped %s: this project is not trusted. To trust it, start atomic here and accept "+
		"the trust prompt (remembered in %s), or set \"defaultProjectTrust\": \"always\" in %s.",
		strings.Join(skipped, ", "), filepath.Join(agentDir, "trust.json"), filepath.Join(agentDir, "settings.json"))
}
