// Package permissiongate is an example extension: a tool_call gate that blocks bash commands
// matching dangerous patterns (rm -rf /, sudo, writes to devices), with a reason the model reads.
package permissiongate

import (
	"regexp"

	"github.com/atomic-cli/atomic/ext"
)

// Rule is one blocked pattern and the reason given to the model.
type Rule struct {
	Pattern *regexp.Regexp
	Reason  string
}

// DefaultRules block recursive deletes of the root or home, sudo, and raw device writes.
var DefaultRules = []Rule{
	{regexp.MustCompile(`\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\s+(/|~|\$HOME)(\s|$)`), "recursive delete of / or the home directory"},
	{regexp.MustCompile(`(^|[;&|]\s*)sudo\b`), "commands run with sudo"},
	{regexp.MustCompile(`>\s*/dev/(sd|nvme|disk)`), "writes to a raw disk device"},
}

// New returns the extension with the given rules.
func New(rules []Rule) ext.Factory {
	return func(api ext.API) error {
		ext.On(api, func(c ext.Context, e *ext.ToolCall) (*ext.ToolCallResult, error) {
			if e.ToolName != "bash" {
				return nil, nil
			}
			cmd, _ := e.Input["command"].(string)
			for _, r := range rules {
				if r.Pattern.MatchString(cmd) {
					return &ext.ToolCallResult{Block: true, Reason: "Blocked by the permission gate: " + r.Reason + ". Ask the user to run it themselves if it is really needed."}, nil
				}
			}
			return nil, nil
		})
		return nil
	}
}

// Extension is the gate with DefaultRules.
var Extension = New(DefaultRules)
