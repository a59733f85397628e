package resource

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PromptTool is what the system prompt needs to know of one active tool.
type PromptTool struct {
	Name       string
	Snippet    string   // one line for the "Available tools" list; empty: not listed
	Guidelines []string // bullets added to the guidelines
}

// PromptOptions are the inputs of BuildSystemPrompt.
type PromptOptions struct {
	// CustomPrompt replaces the built-in base text (--system-prompt or SYSTEM.md).
	CustomPrompt string
	// AppendPrompt is added after the base text, separated by a blank line (--append-system-prompt).
	AppendPrompt string
	Tools        []PromptTool
	ContextFiles []ContextFile
	// Skills are listed in an <available_skills> section when a tool named "read" is in Tools.
	Skills []Skill
	Cwd    string
	Now    time.Time
}

// BuildSystemPrompt assembles the system prompt (config-and-resources.md §12): the base text (the
// built-in one listing the active tools and guidelines, or CustomPrompt), AppendPrompt, a
// "# Project Context" section with one subsection per context file, and the date and working
// directory lines.
func BuildSystemPrompt(o PromptOptions) string {
	var b strings.Builder
	if o.CustomPrompt != "" {
		b.WriteString(o.CustomPrompt)
	} else {
		writeDefaultPrompt(&b, o.Tools)
	}
	if o.AppendPrompt != "" {
		b.WriteString("\n\n")
		b.WriteString(o.AppendPrompt)
	}
	if len(o.ContextFiles) > 0 {
		// pi's layout, byte for byte: each file's text as it is, then a blank line.
		b.WriteString("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n")
		for _, f := range o.ContextFiles {
			b.WriteString("## ")
			b.WriteString(f.Path)
			b.WriteString("\n\n")
			b.WriteString(f.Content)
			b.WriteString("\n\n")
		}
	}
	for _, t := range o.Tools {
		if t.Name == "read" {
			b.WriteString(FormatSkillsForPrompt(o.Skills))
			break
		}
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	b.WriteString("\nCurrent date: ")
	b.WriteString(now.Format("2006-01-02"))
	b.WriteString("\nCurrent working directory: ")
	b.WriteString(filepath.ToSlash(o.Cwd))
	return b.String()
}

func writeDefaultPrompt(b *strings.Builder, tools []PromptTool) {
	b.WriteString("You are an expert coding assistant working inside atomic, a coding agent harness. ")
	b.WriteString("You help users by reading files, running commands, editing code and writing new files.\n")
	listed := 0
	for _, t := range tools {
		if t.Snippet == "" {
			continue
		}
		if listed == 0 {
			b.WriteString("\nAvailable tools:\n")
		}
		listed++
		b.WriteString("- ")
		b.WriteString(t.Name)
		b.WriteString(": ")
		b.WriteString(t.Snippet)
		b.WriteString("\n")
	}
	if listed > 0 {
		b.WriteString("\nOther custom tools may also be available, depending on the project.\n")
	}
	b.WriteString("\nGuidelines:\n")
	active := map[string]bool{}
	for _, t := range tools {
		active[t.Name] = true
	}
	switch {
	case active["bash"] && (active["grep"] || active["find"] || active["ls"]):
		b.WriteString("- Prefer the grep, find and ls tools to bash when exploring files: they are faster and respect .gitignore\n")
	case active["bash"]:
		b.WriteString("- Use bash for file operations such as ls, rg and find\n")
	}
	seen := map[string]bool{}
	for _, t := range tools {
		for _, g := range t.Guidelines {
			if g == "" || seen[g] {
				continue
			}
			seen[g] = true
			b.WriteString("- ")
			b.WriteString(g)
			b.WriteString("\n")
		}
	}
	b.WriteString("- Be concise in your responses\n")
	b.WriteString("- Show file paths clearly when working with files\n")
}

// ReadTextOrFile returns the content of the file named by v when v names an existing regular
// file, else v itself (--system-prompt and --append-system-prompt accept either).
func ReadTextOrFile(v string) string {
	if v == "" || strings.ContainsRune(v, '\n') {
		return v
	}
	if fi, err := os.Stat(v); err == nil && fi.Mode().IsRegular() {
		if b, err := os.ReadFile(v); err == nil {
			return string(b)
		}
	}
	return v
}

// ReadPromptFile reads a SYSTEM.md or APPEND_SYSTEM.md file (at most maxResourceFile bytes);
// the error names the file.
func ReadPromptFile(path string) (string, error) {
	text, err := readResourceFile(path)
	if err != nil {
		return "", fmt.Errorf("system prompt file %s: %w", path, err)
	}
	return text, nil
}
