// Package resource loads what shapes a session besides the conversation: settings.json
// (settings.go), project trust (trust.go), context files (AGENTS.override.md, AGENTS.md,
// CLAUDE.md) and SYSTEM.md / APPEND_SYSTEM.md (context.go), the system prompt built from them
// (prompt.go), skills and prompt templates (skills.go, templates.go), extension discovery
// (extensions.go) and packages from npm, git or local directories (packages.go, install.go;
// config-and-resources.md §2–6, §10–12).
//
// resource imports internal/procgroup only (npm and git run in a process group that dies with
// atomic). Its functions read the file system and are safe for concurrent use; the Installer
// runs npm and git.
package resource
