package tool

import (
	"context"
	"encoding/json"
	"os/exec"
)

// PowerShellArgs are the arguments PowerShell runs a command with: no profile, no prompts, no
// execution policy in the way, then -Command and the command.
var PowerShellArgs = []string{"-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command"}

// powerShellUTF8 is put before every command so PowerShell writes its output as UTF-8.
const powerShellUTF8 = "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}"

// FindPowerShell returns the PowerShell executable on PATH: pwsh (PowerShell 7) first, then
// Windows PowerShell; ok is false when there is none (then atomic offers no powershell tool).
func FindPowerShell() (path string, ok bool) {
	for _, name := range []string{"pwsh", "powershell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// PowerShell is the powershell tool of later pi and Atomic: the bash tool's parameters
// (command, timeout), output handling, truncation, spill file and details, with the command run
// by PowerShell (`<exe> -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command <command>`).
type PowerShell struct{ bash *Bash }

// NewPowerShell returns the powershell tool running exe (from FindPowerShell) for the session
// working directory cwd; opts are the bash tool's (CommandPrefix comes after the UTF-8 setup
// line). Operations, when set, replace the local PowerShell and receive the whole command.
func NewPowerShell(cwd, exe string, opts BashOptions) *PowerShell {
	if opts.Operations == nil {
		opts.Operations = LocalShell{ShellPath: exe, Args: PowerShellArgs}
	}
	prefix := powerShellUTF8
	if opts.CommandPrefix != "" {
		prefix += "\n" + opts.CommandPrefix
	}
	opts.CommandPrefix = prefix
	return &PowerShell{bash: NewBash(cwd, opts)}
}

// Name implements Tool.
func (*PowerShell) Name() string { return "powershell" }

// Label implements Labeler.
func (*PowerShell) Label() string { return "powershell" }

// Description implements Tool.
func (*PowerShell) Description() string {
	return "Run a PowerShell command in the working directory. Output (stdout and stderr together) is " +
		"cut to its last lines like bash's; a non-zero exit is reported with its code. timeout is in seconds."
}

// Parameters implements Tool: the bash tool's.
func (p *PowerShell) Parameters() json.RawMessage { return p.bash.Parameters() }

// PromptSnippet implements Prompter.
func (*PowerShell) PromptSnippet() string { return "Run PowerShell commands" }

// PromptGuidelines implements Prompter.
func (*PowerShell) PromptGuidelines() []string { return nil }

// Execute implements Tool as the bash tool does.
func (p *PowerShell) Execute(ctx context.Context, call Call, onUpdate func(Result)) (Result, error) {
	return p.bash.Execute(ctx, call, onUpdate)
}
