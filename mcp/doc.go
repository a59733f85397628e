// Package mcp connects atomic to Model Context Protocol servers with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and offers their tools as atomic tools (issue 16).
//
// Configuration is read as pi-mcp-adapter reads it (config.go): ~/.config/mcp/mcp.json,
// <agentDir>/mcp.json, then for a trusted project .mcp.json and .atomic/mcp.json (legacy
// .pi/mcp.json), later files replacing earlier entries of the same name. Servers speak stdio
// (command/args/env/cwd, in a process group that dies with atomic) or streamable HTTP (url,
// headers, bearer auth; falling back to HTTP+SSE).
//
// A Manager (manager.go) owns the connections for the life of a runtime: nothing starts until a
// tool needs a server (lifecycle "lazy", the default), racing calls share one start, an unused
// server is disconnected after idleTimeout, "keep-alive" servers reconnect when they drop, and
// Close ends every server process. Each call is cut after timeoutMs without a response or
// progress, and cancelling its context cancels the MCP request.
//
// The tools (tools.go) are the proxy tool "mcp" (search, describe, server, tool + args), which
// answers from the metadata cache (<agentDir>/mcp-cache.json, meta.go) without starting
// servers, and for directTools one tool per MCP tool, named <server>_<tool>. Resources are
// offered as <server>_read_<name> tools while exposeResources is on.
//
// Every notification a server sends is queued (NotificationBuffer, drop-oldest, until a
// listener binds) for the mcp_notification event.
//
// mcp imports tool, llm and internal/procgroup; the session wires it to extensions.
package mcp
