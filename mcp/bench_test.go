package mcp

import (
	"path/filepath"
	"testing"
)

// BenchmarkStartup is what a run pays for MCP before anything is used: reading the four
// configuration files, building the manager, offering its tools and starting nothing (lazy
// servers), then closing it. "none" has no configuration file; "three-lazy" has a .mcp.json
// with three lazy servers. Issue 16 asks the difference to stay within 1 ms.
func BenchmarkStartup(b *testing.B) {
	for _, c := range []struct{ name, servers string }{
		{"none", ""},
		{"three-lazy", `"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"], "env": {"K": "${HOME}"}}, "c": {"url": "http://127.0.0.1:9/mcp"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			if c.servers != "" {
				writeConfig(b, filepath.Join(dir, ".mcp.json"), c.servers)
			}
			o := LoadOptions{Home: dir, AgentDir: filepath.Join(dir, "agent"), Cwd: dir, ProjectTrusted: true}
			b.ReportAllocs()
			for b.Loop() {
				cfg, errs := Load(o)
				if len(errs) > 0 {
					b.Fatal(errs)
				}
				var m *Manager
				if len(cfg.Servers) > 0 {
					m = New(cfg, Options{AgentDir: o.AgentDir})
					m.Start()
					if len(m.Tools()) != 1 {
						b.Fatal("want the mcp tool alone")
					}
					m.Close()
				}
			}
		})
	}
}
