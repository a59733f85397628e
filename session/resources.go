package session

import (
	"path/filepath"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/resource"
)

// expandResources expands `/skill:name args` and then `/template args` in a prompt, steer or
// follow-up text (config-and-resources.md §10–11), once, after the input event as pi does. An
// extension command of the same name never gets here (PromptWith runs it first). A skill file
// that cannot be read is reported as an extension error (event skill_expansion) and the text
// goes on unchanged.
func (s *Session) expandResources(text string) string {
	if len(text) < 2 || text[0] != '/' {
		return text
	}
	skills, templates := s.resources()
	out, _, err := resource.ExpandSkill(text, skills)
	if err != nil && s.opts.OnExtensionError != nil {
		s.opts.OnExtensionError(&ext.Error{ExtensionPath: "skill", Event: "skill_expansion", Err: err, Message: err.Error()})
	}
	out, _ = resource.ExpandTemplate(out, templates)
	return out
}

// resources returns the session's skills and templates (resources_discover may extend them).
func (s *Session) resources() ([]resource.Skill, []resource.PromptTemplate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.Skills, s.opts.PromptTemplates
}

// SlashCommands lists what a `/` can invoke besides the front-end's own commands, in pi's
// get_commands order: extension commands, then prompt templates (source "prompt"), then skills
// (source "skill", named "skill:<name>"), each with its sourceInfo. A template whose name an
// extension command takes is left out (the command wins).
func (s *Session) SlashCommands() []ext.CommandInfo {
	out := []ext.CommandInfo{}
	taken := map[string]bool{}
	skills, templates := s.resources()
	for _, c := range s.runner.Commands() {
		taken[c.Name] = true // their sourceInfo comes from Options.ExtensionSourceInfo (runner.SetSourceInfo)
		out = append(out, c)
	}
	for _, t := range templates {
		if taken[t.Name] {
			continue
		}
		out = append(out, ext.CommandInfo{
			Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint, Source: "prompt",
			SourceInfo: sourceInfo(t.FilePath, filepath.Dir(t.FilePath), t.Origin),
		})
	}
	for _, sk := range skills {
		out = append(out, ext.CommandInfo{
			Name: "skill:" + sk.Name, Description: sk.Description, Source: "skill",
			SourceInfo: sourceInfo(sk.FilePath, sk.BaseDir, sk.Origin),
		})
	}
	return out
}

// sourceInfo is the sourceInfo of a template or skill file: origin "package" with the package
// directory as baseDir for a package's, else "top-level" with baseDir.
func sourceInfo(path, baseDir string, o resource.Origin) ext.SourceInfo {
	if o.PackageRoot != "" {
		return ext.SourceInfo{Path: path, Source: o.Source, Scope: o.Scope, Origin: "package", BaseDir: o.PackageRoot}
	}
	if o.BaseDir != "" {
		baseDir = o.BaseDir
	}
	return ext.SourceInfo{Path: path, Source: o.Source, Scope: o.Scope, Origin: "top-level", BaseDir: baseDir}
}
