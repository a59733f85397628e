package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/atomic-cli/atomic/mcp"
	"github.com/atomic-cli/atomic/tool"
)

// loadMCP reads the MCP configuration of this run (mcp.ConfigFiles; the project files only
// when the project is trusted) and returns its manager, nil when no server is configured.
// Configuration problems are warnings naming the file and key: a broken entry never stops the
// other servers. Nothing starts here.
func (o *Options) loadMCP(agentDir, cwd string) *mcp.Manager {
	cfg, errs := o.mcpConfig(agentDir, cwd)
	for _, err := range errs {
		o.warnOnce(err)
	}
	if len(cfg.Servers) == 0 {
		return nil
	}
	return mcp.New(cfg, mcp.Options{AgentDir: agentDir, Stderr: o.Stderr, ClientVersion: version})
}

func (o *Options) mcpConfig(agentDir, cwd string) (*mcp.Config, []error) {
	home := o.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return mcp.Load(mcp.LoadOptions{
		Home: home, AgentDir: agentDir, Cwd: cwd,
		ProjectTrusted: o.projectTrusted(agentDir, cwd, nil).trusted,
		Getenv:         o.Getenv,
	})
}

// withMCPTools is tools followed by m's tools, for the first system prompt.
func withMCPTools(tools []tool.Tool, m *mcp.Manager) []tool.Tool {
	if m == nil {
		return tools
	}
	return append(append([]tool.Tool(nil), tools...), m.Tools()...)
}

// newMCPCmd is `atomic mcp list [--json]`: every configured server is started (in parallel,
// each bounded by mcp.ConnectTimeout) and reported with its state, tools and error; it exits 1
// when the configuration has a problem or a server could not be reached.
func newMCPCmd(opts *Options) *cobra.Command {
	c := &cobra.Command{Use: "mcp", Short: "inspect the configured MCP servers"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "connect to every configured MCP server and list its state and tools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("cannot read the working directory: %w", err)
			}
			agentDir := opts.agentDir()
			cfg, errs := opts.mcpConfig(agentDir, cwd)
			m := mcp.New(cfg, mcp.Options{AgentDir: agentDir, ClientVersion: version})
			defer m.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), mcp.ConnectTimeout+5*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for _, n := range m.Servers() {
				wg.Add(1)
				go func() { defer wg.Done(); _ = m.Connect(ctx, n) }()
			}
			wg.Wait()
			st := m.Status()
			failed := len(errs) > 0
			for _, s := range st {
				if s.State != "connected" {
					failed = true
				}
			}
			if asJSON {
				var msgs []string
				for _, e := range errs {
					msgs = append(msgs, e.Error())
				}
				out := map[string]any{"servers": st, "files": cfg.Files, "errors": msgs}
				if skipped := skippedProjectFiles(opts.projectTrusted(agentDir, cwd, nil).trusted, cwd,
					".mcp.json", ".pi/mcp.json", ".atomic/mcp.json"); len(skipped) > 0 {
					out["skippedUntrusted"] = skipped
				}
				b, _ := json.MarshalIndent(out, "", "  ")
				fmt.Fprintf(opts.Stdout, "%s\n", b)
			} else {
				for _, e := range errs {
					fmt.Fprintf(opts.Stdout, "config error: %v\n", e)
				}
				skipped := skippedProjectFiles(opts.projectTrusted(agentDir, cwd, nil).trusted, cwd,
					".mcp.json", ".pi/mcp.json", ".atomic/mcp.json")
				if len(skipped) > 0 {
					fmt.Fprintln(opts.Stdout, untrustedNote(agentDir, skipped))
				}
				if len(st) == 0 && len(skipped) == 0 {
					read := "no configuration file exists"
					if len(cfg.Files) > 0 {
						read = "files read: " + strings.Join(cfg.Files, ", ")
					}
					fmt.Fprintf(opts.Stdout, "No MCP servers configured (%s)\n", read)
				}
				for _, s := range st {
					fmt.Fprintf(opts.Stdout, "%s  %s  %s  %s\n", s.Name, s.Transport, s.State, s.File)
					if s.Error != "" {
						fmt.Fprintf(opts.Stdout, "  error: %s\n", s.Error)
					}
					if len(s.ToolNames) > 0 {
						fmt.Fprintf(opts.Stdout, "  tools: %s\n", strings.Join(s.ToolNames, ", "))
					}
				}
			}
			if failed {
				return exitError{1}
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.AddCommand(list)
	return c
}
