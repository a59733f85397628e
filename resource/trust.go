package resource

// Project trust inputs and the trust.json writer (config-and-resources.md §6).

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// trustContextFiles are the context file names that make a directory's project need trust
// (Atomic's candidates, config-and-resources.md §6), one per directory.
var trustContextFiles = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// trustGatedEntries are the entries of <cwd>/.atomic and <cwd>/.pi that need trust; inert state
// dirs (todos/, sessions/) do not count.
var trustGatedEntries = []string{"settings.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md", "mcp.json"}

// TrustInputs returns the project inputs of cwd that only load when the project is trusted
// (config-and-resources.md §6): the trust-requiring entries of <cwd>/.atomic and the legacy
// <cwd>/.pi (mcp.json among them), <cwd>/.mcp.json, a context file (AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD) in
// cwd or an ancestor, and a .agents/skills directory in cwd or an ancestor (except the user-global
// one in home). None means the project needs no trust decision.
func TrustInputs(cwd, home string) []string {
	var out []string
	for _, dir := range []string{".atomic", ".pi"} {
		for _, name := range trustGatedEntries {
			p := filepath.Join(cwd, dir, name)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	// An MCP configuration starts the commands it names (mcp package).
	if _, err := os.Stat(filepath.Join(cwd, ".mcp.json")); err == nil {
		out = append(out, filepath.Join(cwd, ".mcp.json"))
	}
	userSkills := ""
	if home != "" {
		userSkills = canonical(filepath.Join(home, ".agents", "skills"))
	}
	for d := canonical(cwd); ; d = filepath.Dir(d) {
		for _, name := range trustContextFiles {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
				out = append(out, filepath.Join(d, name))
				break
			}
		}
		p := filepath.Join(d, ".agents", "skills")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && canonical(p) != userSkills {
			out = append(out, p)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// RememberProjectTrust records the decision for cwd (its canonical path) in <agentDir>/trust.json:
// pretty-printed with 2-space indent, keys sorted, a trailing newline, written under the lock
// file trust.json.lock (at most 10 attempts, 20 ms apart). Other entries are kept.
func RememberProjectTrust(agentDir, cwd string, trusted bool) error {
	path := filepath.Join(agentDir, "trust.json")
	lock := path + ".lock"
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return err
	}
	var lf *os.File
	var err error
	for i := 0; i < 10; i++ {
		lf, err = os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot lock %s: %w", path, lock, err)
	}
	lf.Close()
	defer os.Remove(lock)

	store := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("%s: %w", path, ErrInvalidTrustStore)
		}
		for k, v := range raw {
			switch v.(type) {
			case bool:
				store[k] = v
			case nil:
			default:
				return fmt.Errorf("%s: %q: %w", path, k, ErrInvalidTrustStore)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	store[canonical(cwd)] = trusted
	b, err := json.MarshalIndent(store, "", "  ") // map keys come out sorted
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
