// Package resource loads what shapes a session besides the conversation: context files
// (AGENTS.md, CLAUDE.md) and the system prompt built from them (config-and-resources.md §12).
// settings.json (settings.go). Later: skills, prompt templates, themes, keybindings and packages.
//
// resource imports llm and tool only. Its functions read the file system and are safe for
// concurrent use.
package resource
