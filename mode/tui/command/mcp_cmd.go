package command

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mcp"
)

func init() {
	add(Command{
		Name:         "mcp",
		Description:  "MCP servers: status, tools, connect, disconnect",
		ArgumentHint: "[status|tools [server]|connect <server>|disconnect <server>]",
		Run:          runMCP,
		Complete:     completeMCP,
	})
}

// mcpSubcommands are the words /mcp takes.
var mcpSubcommands = []string{"status", "tools", "connect", "disconnect"}

// runMCP is /mcp: the servers with their transport, state, tool count and last error (status,
// the default); their tools (tools [server]); or a connection started or stopped by hand. A
// connection runs off the Bubble Tea goroutine and reports when it is done.
func runMCP(h Host, args string) tea.Cmd {
	m := h.Runtime().MCP()
	if m == nil {
		h.Notify("info", "No MCP servers are configured (~/.config/mcp/mcp.json, <agent dir>/mcp.json, .mcp.json, .atomic/mcp.json).")
		return nil
	}
	sub, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	switch sub {
	case "", "status", "servers":
		h.Notify("info", mcpStatusText(m.Status()))
	case "tools":
		var b strings.Builder
		for _, s := range m.Status() {
			if rest != "" && s.Name != rest {
				continue
			}
			switch {
			case s.Tools < 0:
				fmt.Fprintf(&b, "%s: tools not known yet (/mcp connect %s)\n", s.Name, s.Name)
			default:
				fmt.Fprintf(&b, "%s: %s\n", s.Name, strings.Join(s.ToolNames, ", "))
			}
		}
		if b.Len() == 0 {
			h.Notify("error", fmt.Sprintf("/mcp tools: no MCP server named %q", rest))
			return nil
		}
		h.Notify("info", strings.TrimRight(b.String(), "\n"))
	case "connect", "disconnect":
		if rest == "" {
			h.Notify("error", "/mcp "+sub+": name a server ("+strings.Join(m.Servers(), ", ")+")")
			return nil
		}
		return func() tea.Msg {
			var err error
			if sub == "connect" {
				ctx, cancel := context.WithTimeout(context.Background(), mcp.ConnectTimeout)
				err = m.Connect(ctx, rest)
				cancel()
			} else {
				err = m.Disconnect(rest)
			}
			if err != nil {
				return notify("error", err.Error())
			}
			return notify("info", "MCP server "+rest+" "+sub+"ed.\n"+mcpStatusText(m.Status()))
		}
	default:
		h.Notify("error", "/mcp: unknown subcommand "+sub+" (status, tools, connect, disconnect)")
	}
	return nil
}

func mcpStatusText(st []mcp.ServerStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP servers (%d):", len(st))
	for _, s := range st {
		fmt.Fprintf(&b, "\n  %s  %s  %s  %s", s.Name, s.Transport, s.Lifecycle, s.State)
		if s.Tools >= 0 {
			fmt.Fprintf(&b, "  %d tools", s.Tools)
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "\n    %s", s.Error)
		}
	}
	return b.String()
}

func completeMCP(h Host, prefix string) []Completion {
	sub, rest, hasArg := strings.Cut(prefix, " ")
	if !hasArg {
		var out []Completion
		for _, s := range mcpSubcommands {
			if strings.HasPrefix(s, sub) && s != sub { // a finished word needs no list
				out = append(out, Completion{Value: s, Label: s})
			}
		}
		return out
	}
	m := h.Runtime().MCP()
	if m == nil || sub == "status" {
		return nil
	}
	var out []Completion
	for _, n := range m.Servers() {
		if r := strings.TrimSpace(rest); strings.HasPrefix(n, r) && n != r {
			out = append(out, Completion{Value: sub + " " + n, Label: n})
		}
	}
	return out
}
