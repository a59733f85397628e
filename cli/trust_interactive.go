package cli

// The project-trust prompt of the interactive mode (config-and-resources.md §6 step 6; events.md
// §3.10 ui_prompt_start/_end with reason project_trust). The decision is made before the session
// and the screen exist, so the dialog runs alone in the terminal (mode/tui/slot.RunInline) and
// the project_trust handlers get a ctx.ui that does the same (mode/tui/extui.Inline).

import (
	"context"
	"fmt"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/extui"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/resource"
)

// interactiveTrust reports whether this run can ask about project trust in the terminal.
func (o *Options) interactiveTrust() bool { return o.modeName() == "tui" }

// trustStyle is the dark theme and the default keys, for dialogs shown before the screen (which
// loads the user's theme and keybindings) exists.
func trustStyle() (slot.Theme, slot.Keys) {
	th, km := theme.Dark(), keys.Default()
	return slot.Theme{Fg: th.Fg, Bg: th.Bg}, slot.Keys{Match: km.Matches, Hint: km.Hint}
}

// trustUI is ctx.ui of the project_trust handlers: dialogs inline in the terminal in interactive
// mode, the client's extension_ui_request dialogs in RPC mode (the front-end starts reading
// stdin for them), nil (NoUI, hasUI false) otherwise.
func (o *Options) trustUI() ext.UI {
	if e, ok := o.front.(interface{ earlyUI(*Options) ext.UI }); ok {
		return e.earlyUI(o)
	}
	if !o.interactiveTrust() {
		return nil
	}
	th, km := trustStyle()
	return &extui.Inline{In: o.Stdin, Out: o.Stdout, Theme: th, Keys: km}
}

// askTrustIfUndecided shows the trust prompt when nothing before it decided: no saved decision
// in trust.json and defaultProjectTrust "ask". r is the runner of the trust-safe extensions
// (nil when there are none): ui_prompt_start / ui_prompt_end go to it around the dialog. It
// returns nil when it did not ask.
func (o *Options) askTrustIfUndecided(agentDir, cwd string, inputs []string, r *ext.Runner) *trustDecision {
	if !o.interactiveTrust() {
		return nil
	}
	if _, decided, _ := resource.ProjectTrust(agentDir, cwd); decided {
		return nil
	}
	if d := resource.DefaultProjectTrust(agentDir); d == "always" || d == "never" {
		return nil
	}
	span := ext.UIPrompt{Reason: "project_trust", Kind: "select", Title: "Trust this project?"}
	if r != nil {
		ext.Emit[ext.None](r, context.Background(), ext.UIPromptStart{UIPrompt: span})
	}
	var choice selector.TrustChoice
	var answered bool
	th, km := trustStyle()
	d := selector.NewTrust(th, km, cwd, inputs, func(c selector.TrustChoice, ok bool) tea.Cmd {
		choice, answered = c, ok
		return nil
	})
	err := slot.RunInline(context.Background(), o.Stdin, o.Stdout, nil, d, nil)
	if r != nil {
		ext.Emit[ext.None](r, context.Background(), ext.UIPromptEnd{UIPrompt: span})
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "Warning: project trust: %v\n", err)
	}
	if !answered {
		return &trustDecision{false, "prompt-dismissed"}
	}
	if err := selector.ApplyTrust(agentDir, cwd, choice); err != nil {
		fmt.Fprintf(o.Stderr, "Warning: project trust: cannot save the decision in %s: %v\n", filepath.Join(agentDir, "trust.json"), err)
	}
	return &trustDecision{choice.Trusted, "prompt"}
}
