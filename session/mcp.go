package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mcp"
	"github.com/atomic-cli/atomic/tool"
)

// withMCP returns tools followed by the MCP manager's tools (none when m is nil); a built-in
// of the same name wins.
func withMCP(tools []tool.Tool, m *mcp.Manager) []tool.Tool {
	if m == nil {
		return tools
	}
	extra := m.Tools()
	if len(extra) == 0 {
		return tools
	}
	seen := make(map[string]bool, len(tools))
	out := make([]tool.Tool, 0, len(tools)+len(extra))
	for _, t := range tools {
		seen[t.Name()] = true
		out = append(out, t)
	}
	for _, t := range extra {
		if !seen[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// bindMCP ties the Runtime's MCP manager to whichever session is live: server notifications
// go to its extensions as mcp_notification (the manager buffers them, 100, drop-oldest, until
// this binds; the runner buffers again until its extensions are bound), and a changed tool list
// (a server listed for the first time, tools/list_changed) rebuilds its tool set. Then the
// eager and keep-alive servers start in the background.
func (rt *Runtime) bindMCP() {
	m := rt.base.MCP
	if m == nil {
		return
	}
	m.BindNotifications(func(n mcp.Notification) {
		s := rt.Session()
		if s == nil || s.disposed.Load() {
			return
		}
		// The params go on as the server sent them (json.RawMessage; nil when absent).
		var params any
		if len(n.Params) > 0 && json.Valid(n.Params) {
			params = n.Params
		}
		emit[ext.None](s, s.life, ext.MCPNotification{Server: n.Server, Method: n.Method, Params: params})
	})
	m.OnToolsChanged(func() {
		if s := rt.Session(); s != nil && !s.disposed.Load() {
			s.ToolsChanged()
		}
	})
	m.Start()
}

// MCPDirectWait bounds how long a prompt waits for MCP servers started to list their direct
// tools (directTools true, nothing cached), as Atomic's first prompt does.
var MCPDirectWait = 10 * time.Second

// waitMCPDirect lets a prompt offer the direct tools of servers still being listed.
func (s *Session) waitMCPDirect() {
	if m := s.opts.MCP; m != nil && m.WaitDirect(MCPDirectWait) {
		s.ToolsChanged()
	}
}

// MCP returns the Runtime's MCP manager, nil when MCP is off.
func (rt *Runtime) MCP() *mcp.Manager { return rt.base.MCP }

// flushMCP delivers the MCP notifications received so far before the live session shuts down.
func (rt *Runtime) flushMCP() {
	if m := rt.base.MCP; m != nil {
		m.FlushNotifications(5 * time.Second)
	}
}

// closeMCP ends every MCP server process.
func (rt *Runtime) closeMCP(context.Context) {
	if m := rt.base.MCP; m != nil {
		m.OnToolsChanged(nil)
		m.Close()
	}
}
