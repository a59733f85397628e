package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProxyToolName is the name of the one tool that reaches every MCP server.
const ProxyToolName = "mcp"

// maxSearchResults bounds one search answer.
const maxSearchResults = 20

// Tools returns the tools the manager offers: the proxy tool "mcp" (when a server is
// configured) and the direct tools of servers with directTools, named <server>_<tool>. Direct
// tools come from the live connection or the cache; a tool named in directTools that neither
// knows yet is offered with an open schema until its server is listed.
func (m *Manager) Tools() []tool.Tool {
	if len(m.names) == 0 {
		return nil
	}
	out := []tool.Tool{&proxyTool{m: m}}
	for _, n := range m.names {
		s := m.servers[n]
		if !s.cfg.DirectAll && len(s.cfg.DirectNames) == 0 {
			continue
		}
		known := m.knownTools(s)
		if s.cfg.DirectAll {
			for _, t := range known {
				out = append(out, &directTool{m: m, meta: t})
			}
			continue
		}
		for _, want := range s.cfg.DirectNames {
			meta, ok := findMeta(known, want)
			if !ok {
				if known != nil {
					continue // listed, and the server has no such tool
				}
				meta = ToolMeta{Server: n, Original: want, Name: ToolName(n, want)}
			}
			out = append(out, &directTool{m: m, meta: meta})
		}
	}
	return out
}

func findMeta(tools []ToolMeta, name string) (ToolMeta, bool) {
	for _, t := range tools {
		if t.Original == name || t.Name == name {
			return t, true
		}
	}
	return ToolMeta{}, false
}

// call runs one tool (or reads one resource) and turns the answer into a tool result.
func (m *Manager) call(ctx context.Context, meta ToolMeta, args map[string]any) (tool.Result, error) {
	if meta.ResourceURI != "" {
		res, err := m.ReadResource(ctx, meta.Server, meta.ResourceURI)
		if err != nil {
			return tool.Result{}, err
		}
		var blocks []llm.Content
		for _, c := range res.Contents {
			switch {
			case c.Text != "":
				blocks = append(blocks, llm.Text(c.Text))
			case len(c.Blob) > 0 && strings.HasPrefix(c.MIMEType, "image/"):
				blocks = append(blocks, llm.Image(encodeBase64(c.Blob), c.MIMEType))
			default:
				blocks = append(blocks, llm.Text(fmt.Sprintf("[resource %s: %d bytes of %s]", c.URI, len(c.Blob), c.MIMEType)))
			}
		}
		if len(blocks) == 0 {
			blocks = []llm.Content{llm.Text("(empty resource)")}
		}
		return tool.Result{Content: blocks, Details: map[string]any{"server": meta.Server, "uri": meta.ResourceURI}}, nil
	}
	res, err := m.CallTool(ctx, meta.Server, meta.Original, args)
	if err != nil {
		return tool.Result{}, err
	}
	return toResult(meta, res), nil
}

// toResult maps an MCP tool result to a tool result: text and images pass through, other
// blocks are shown as JSON, isError marks an error result.
func toResult(meta ToolMeta, res *sdk.CallToolResult) tool.Result {
	var blocks []llm.Content
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			blocks = append(blocks, llm.Text(c.Text))
		case *sdk.ImageContent:
			blocks = append(blocks, llm.Image(encodeBase64(c.Data), c.MIMEType))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				blocks = append(blocks, llm.Text(c.Resource.Text))
				continue
			}
			b, _ := json.Marshal(c)
			blocks = append(blocks, llm.Text(string(b)))
		default:
			b, _ := json.Marshal(c)
			blocks = append(blocks, llm.Text(string(b)))
		}
	}
	if len(blocks) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		blocks = append(blocks, llm.Text(string(b)))
	}
	if len(blocks) == 0 {
		blocks = []llm.Content{llm.Text("(no output)")}
	}
	return tool.Result{Content: blocks, IsError: res.IsError, Details: map[string]any{"server": meta.Server, "tool": meta.Original}}
}

// directTool is one MCP tool offered under its own name.
type directTool struct {
	m    *Manager
	meta ToolMeta
}

func (t *directTool) Name() string { return t.meta.Name }
func (t *directTool) Label() string {
	return t.meta.Server + ": " + t.meta.Original
}
func (t *directTool) Description() string {
	if t.meta.Description != "" {
		return t.meta.Description
	}
	return fmt.Sprintf("Tool %s of the MCP server %s.", t.meta.Original, t.meta.Server)
}
func (t *directTool) Parameters() json.RawMessage { return paramsSchema(t.meta) }

// Source names the server for getAllTools' sourceInfo.
func (t *directTool) Source() (path, source string) { return "mcp:" + t.meta.Server, "mcp" }

// Execute calls the MCP tool with the arguments as given.
func (t *directTool) Execute(ctx context.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
	return t.m.call(ctx, t.meta, call.Args)
}

// paramsSchema is the tool's input schema as an object schema the agent can validate with.
func paramsSchema(meta ToolMeta) json.RawMessage {
	if meta.ResourceURI != "" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var s map[string]any
	if len(meta.InputSchema) == 0 || json.Unmarshal(meta.InputSchema, &s) != nil || s == nil {
		return json.RawMessage(`{"type":"object","additionalProperties":true}`)
	}
	delete(s, "$schema") // drafts other than 2020-12 are read as plain keywords
	if _, ok := s["type"]; !ok {
		s["type"] = "object"
	}
	b, _ := json.Marshal(s)
	return b
}

// proxyTool is the tool "mcp": search, describe, list a server's tools, or call one tool.
type proxyTool struct{ m *Manager }

func (t *proxyTool) Name() string  { return ProxyToolName }
func (t *proxyTool) Label() string { return "MCP" }

// Source says the proxy tool belongs to MCP.
func (t *proxyTool) Source() (path, source string) { return "mcp", "mcp" }

func (t *proxyTool) Description() string {
	return "MCP gateway: reach the tools of the configured MCP servers (" + joinOr(t.m.names, "none") + ").\n" +
		"- search: find tools by name or description ({\"search\": \"issues\"}, optionally with \"server\")\n" +
		"- describe: show one tool's parameters ({\"describe\": \"server_tool\"})\n" +
		"- server: list one server's tools ({\"server\": \"name\"})\n" +
		"- tool + args: call a tool, args as a JSON string ({\"tool\": \"server_tool\", \"args\": \"{\\\"key\\\": \\\"value\\\"}\"})\n" +
		"With no arguments it shows the servers and their status."
}

func (t *proxyTool) PromptSnippet() string {
	return "MCP gateway: search, describe and call tools of MCP servers"
}
func (t *proxyTool) PromptGuidelines() []string { return nil }

func (t *proxyTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"tool":{"type":"string","description":"Tool to call, as <server>_<tool> or the server's own name with server set"},` +
		`"args":{"anyOf":[{"type":"string"},{"type":"object"}],"description":"Arguments of the call: a JSON object, or a JSON string encoding one"},` +
		`"search":{"type":"string","description":"Words to search tool names and descriptions for"},` +
		`"describe":{"type":"string","description":"Tool whose description and parameters to show"},` +
		`"server":{"type":"string","description":"Server: lists its tools alone, or narrows search, describe and tool"}` +
		`}}`)
}

// Execute dispatches on the arguments: tool, describe, search, server, or status.
func (t *proxyTool) Execute(ctx context.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
	str := func(k string) string { s, _ := call.Args[k].(string); return strings.TrimSpace(s) }
	server := str("server")
	switch {
	case str("tool") != "":
		meta, err := t.resolve(ctx, str("tool"), server)
		if err != nil {
			return tool.Result{}, err
		}
		args, err := decodeArgs(call.Args["args"])
		if err != nil {
			return tool.Result{}, fmt.Errorf("mcp: tool %s: %w", meta.Name, err)
		}
		return t.m.call(ctx, meta, args)
	case str("describe") != "":
		meta, err := t.resolve(ctx, str("describe"), server)
		if err != nil {
			return tool.Result{}, err
		}
		return tool.TextResult(describe(meta), map[string]any{"server": meta.Server, "tool": meta.Original}), nil
	case str("search") != "":
		return t.search(ctx, str("search"), server)
	case server != "":
		tools, err := t.m.ServerTools(ctx, server)
		if err != nil {
			return tool.Result{}, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d tool(s)\n", server, len(tools))
		for _, m := range tools {
			fmt.Fprintf(&b, "- %s: %s\n", m.Name, firstLine(m.Description))
		}
		return tool.TextResult(strings.TrimRight(b.String(), "\n"), map[string]any{"server": server, "count": len(tools)}), nil
	}
	var b strings.Builder
	st := t.m.Status()
	fmt.Fprintf(&b, "%d MCP server(s)\n", len(st))
	for _, s := range st {
		fmt.Fprintf(&b, "- %s (%s, %s): %s", s.Name, s.Transport, s.Lifecycle, s.State)
		if s.Tools >= 0 {
			fmt.Fprintf(&b, ", %d tool(s)", s.Tools)
		}
		if s.Error != "" {
			fmt.Fprintf(&b, ", error: %s", s.Error)
		}
		b.WriteString("\n")
	}
	b.WriteString(`Use {"search": "..."} to find tools, {"describe": "server_tool"} for parameters, {"tool": "server_tool", "args": "{...}"} to call.`)
	return tool.TextResult(b.String(), nil), nil
}

// resolve finds a tool by its atomic name, or by its own name on server. The cache answers
// first; servers not known yet are started: the named one, else those whose prefix the name
// carries, else all of them.
func (t *proxyTool) resolve(ctx context.Context, name, server string) (ToolMeta, error) {
	match := func(tools []ToolMeta) (ToolMeta, bool) { return findMeta(tools, name) }
	if server != "" {
		tools, err := t.m.ServerTools(ctx, server)
		if err != nil {
			return ToolMeta{}, err
		}
		if meta, ok := match(tools); ok {
			return meta, nil
		}
		return ToolMeta{}, fmt.Errorf("mcp: server %q has no tool %q (%s)", server, name, toolNames(tools))
	}
	var unknown, prefixed []string
	for _, n := range t.m.names {
		known := t.m.knownTools(t.m.servers[n])
		if meta, ok := match(known); ok && meta.Name == name {
			return meta, nil
		}
		if known == nil {
			unknown = append(unknown, n)
			if strings.HasPrefix(name, ToolName(n, "")) {
				prefixed = append(prefixed, n)
			}
		}
	}
	start := prefixed
	if len(start) == 0 {
		start = unknown
	}
	var errs []string
	for _, n := range start {
		tools, err := t.m.ServerTools(ctx, n)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if meta, ok := match(tools); ok && meta.Name == name {
			return meta, nil
		}
	}
	msg := fmt.Sprintf("mcp: no MCP tool named %q; use {\"search\": \"...\"} to find tools", name)
	if len(errs) > 0 {
		msg += " (" + strings.Join(errs, "; ") + ")"
	}
	return ToolMeta{}, fmt.Errorf("%s", msg)
}

// search ranks the tools of every server (or of server) by how many of the words they hold in
// their name and description; servers with no cached tools are started to be searched.
func (t *proxyTool) search(ctx context.Context, query, server string) (tool.Result, error) {
	names := t.m.names
	if server != "" {
		if _, err := t.m.server(server); err != nil {
			return tool.Result{}, err
		}
		names = []string{server}
	}
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		meta  ToolMeta
		score int
	}
	var hits []hit
	var errs []string
	for _, n := range names {
		tools, err := t.m.ServerTools(ctx, n)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, m := range tools {
			hay := strings.ToLower(m.Name + " " + m.Description)
			score := 0
			for _, w := range words {
				if strings.Contains(hay, w) {
					score++
				}
			}
			if score > 0 {
				hits = append(hits, hit{m, score})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool(s) match %q", len(hits), query)
	for i, h := range hits {
		if i == maxSearchResults {
			fmt.Fprintf(&b, "\n(%d more; narrow the search)", len(hits)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s", h.meta.Name, firstLine(h.meta.Description))
	}
	for _, e := range errs {
		b.WriteString("\n(" + e + ")")
	}
	return tool.TextResult(b.String(), map[string]any{"count": len(hits)}), nil
}

func describe(m ToolMeta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (server %s, tool %s)\n", m.Name, m.Server, m.Original)
	if m.Description != "" {
		b.WriteString(m.Description + "\n")
	}
	if m.ResourceURI != "" {
		fmt.Fprintf(&b, "Reads the resource %s; takes no arguments.", m.ResourceURI)
		return b.String()
	}
	b.WriteString("Parameters (JSON Schema): " + string(paramsSchema(m)))
	return b.String()
}

// decodeArgs accepts the args of a call as an object or a JSON string encoding one.
func decodeArgs(v any) (map[string]any, error) {
	switch a := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	case string:
		if strings.TrimSpace(a) == "" {
			return map[string]any{}, nil
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(a), &out); err != nil {
			return nil, fmt.Errorf("args is not a JSON object: %v", err)
		}
		if out == nil {
			out = map[string]any{}
		}
		return out, nil
	}
	return nil, fmt.Errorf("args must be a JSON object or a JSON string, not %T", v)
}

func toolNames(tools []ToolMeta) string {
	var n []string
	for _, t := range tools {
		n = append(n, t.Original)
	}
	return "tools: " + joinOr(n, "none")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ServerStatus is the state of one server for /mcp, RPC get_mcp_status and atomic mcp list.
type ServerStatus struct {
	Name string `json:"name"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	Lifecycle string `json:"lifecycle"`
	// State is "connected", "connecting", "failed", "cached" (not running, tools known from the
	// cache) or "not-connected".
	State string `json:"state"`
	// Tools is the number of tools known (live or cached), -1 when none is known.
	Tools int `json:"tools"`
	// ToolNames are the known tools' names as atomic offers them.
	ToolNames []string `json:"toolNames,omitempty"`
	Error     string   `json:"error,omitempty"`
	// File is the configuration file the entry came from.
	File string `json:"file"`
}

// Status returns the state of every configured server, in name order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.names))
	for _, n := range m.names {
		s := m.servers[n]
		state, err, live := s.state()
		tools := live
		if tools == nil {
			tools = m.cachedTools(s.cfg)
		}
		if tools != nil && state == "not-connected" {
			state = "cached"
		}
		st := ServerStatus{Name: n, Transport: "stdio", Lifecycle: s.cfg.Lifecycle, State: state, Tools: -1, File: s.cfg.File}
		if s.cfg.URL != "" {
			st.Transport = "http"
		}
		if tools != nil {
			st.Tools = len(tools)
			for _, t := range tools {
				st.ToolNames = append(st.ToolNames, t.Name)
			}
		}
		if err != nil && state != "connected" {
			st.Error = err.Error()
		}
		out = append(out, st)
	}
	return out
}
