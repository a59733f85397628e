package resource

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSubstituteArgs(t *testing.T) {
	args := ParseCommandArgs(`one "two words" 'three' $1`)
	if want := []string{"one", "two words", "three", "$1"}; !reflect.DeepEqual(args, want) {
		t.Fatalf("ParseCommandArgs = %q, want %q", args, want)
	}
	cases := []struct{ tpl, want string }{
		{"$1|$2|$5", "one|two words|"},
		{"${@:2}", "two words three $1"},
		{"${@:2:2}", "two words three"},
		{"${@:0:1}", "one"},
		{"$@ / $ARGUMENTS", "one two words three $1 / one two words three $1"},
		{"${5:-dflt} ${1:-x}", "dflt one"},
		{"$4", "$1"}, // an argument's value is not substituted again
	}
	for _, c := range cases {
		if got := SubstituteArgs(c.tpl, args); got != c.want {
			t.Errorf("SubstituteArgs(%q) = %q, want %q", c.tpl, got, c.want)
		}
	}
	if got := SubstituteArgs("${@:-none} ${ARGUMENTS:-none}", nil); got != "none none" {
		t.Errorf("defaults with no arguments = %q", got)
	}
}

func TestDiscoverSkillsValidationAndCollisions(t *testing.T) {
	agent, home, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(agent, "skills", "good", "SKILL.md"), "---\nname: good\ndescription: fine\n---\nbody")
	writeFile(t, filepath.Join(agent, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nbody")
	writeFile(t, filepath.Join(agent, "skills", "Bad_Name", "SKILL.md"), "---\nname: Bad_Name\ndescription: d\n---\n")
	writeFile(t, filepath.Join(home, ".agents", "skills", "dup", "SKILL.md"), "---\nname: good\ndescription: second\n---\n")
	writeFile(t, filepath.Join(home, ".agents", "skills", "top.md"), "---\nname: top\ndescription: ignored in .agents roots\n---\n")
	writeFile(t, filepath.Join(home, ".pi", "agent", "skills", "legacy.md"), "---\nname: legacy\ndescription: l\n---\n")
	writeFile(t, filepath.Join(cwd, ".atomic", "skills", "proj", "SKILL.md"), "---\nname: proj\ndescription: p\n---\n")

	skills, warns := DiscoverSkills(SkillOptions{AgentDir: agent, Home: home, Cwd: cwd})
	var names []string
	for _, s := range skills {
		names = append(names, s.Name)
	}
	if want := []string{"Bad_Name", "good", "legacy"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("skills = %v, want %v (untrusted project not read, no-description skipped, legacy dir read)", names, want)
	}
	all := ""
	for _, w := range warns {
		all += w.Error() + "\n"
	}
	for _, want := range []string{"description is missing", "should use only a-z", "name collides"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	skills, _ = DiscoverSkills(SkillOptions{AgentDir: agent, Home: home, Cwd: cwd, ProjectTrusted: true})
	if skills[len(skills)-1].Name != "proj" || skills[len(skills)-1].Origin != ProjectOrigin {
		t.Errorf("trusted project skill not loaded last with the project origin: %+v", skills)
	}
	skills, _ = DiscoverSkills(SkillOptions{AgentDir: agent, NoSkills: true, Paths: []string{filepath.Join(agent, "skills", "good")}})
	if len(skills) != 1 || skills[0].Name != "good" || skills[0].Origin != CLIOrigin {
		t.Errorf("--no-skills with --skill: %+v", skills)
	}
}

func TestExpandSkillAndPromptSection(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g", "SKILL.md")
	writeFile(t, p, "---\nname: g\ndescription: a <b> & 'c'\n---\n\n  Do it.  \n")
	s := []Skill{{Name: "g", Description: "a <b> & 'c'", FilePath: p, BaseDir: filepath.Dir(p)}}
	out, ok, err := ExpandSkill("/skill:g  Bob ", s)
	want := "<skill name=\"g\" location=\"" + p + "\">\nReferences are relative to " + filepath.Dir(p) + ".\n\nDo it.\n</skill>\n\nBob"
	if err != nil || !ok || out != want {
		t.Fatalf("ExpandSkill = %q, %v, %v; want %q", out, ok, err, want)
	}
	if out, ok, _ := ExpandSkill("/skill:unknown x", s); ok || out != "/skill:unknown x" {
		t.Errorf("unknown skill changed the text: %q", out)
	}
	sec := FormatSkillsForPrompt(s)
	if !strings.Contains(sec, "<description>a &lt;b&gt; &amp; &apos;c&apos;</description>") || !strings.HasSuffix(sec, "</available_skills>") {
		t.Errorf("section not escaped or not closed: %q", sec)
	}
	s[0].DisableModelInvocation = true
	if got := FormatSkillsForPrompt(s); got != "" {
		t.Errorf("disable-model-invocation skill listed: %q", got)
	}
}

func TestDiscoverPromptTemplates(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(agent, "prompts", "a.md"), "---\ndescription: first\nargument-hint: <x>\n---\nA $1")
	writeFile(t, filepath.Join(agent, "prompts", "b.md"), "\n"+strings.Repeat("y", 70)+"\n")
	writeFile(t, filepath.Join(agent, "prompts", "sub", "c.md"), "not recursive")
	writeFile(t, filepath.Join(cwd, ".pi", "prompts", "a.md"), "project a")
	ts, _ := DiscoverPromptTemplates(TemplateOptions{AgentDir: agent, Cwd: cwd})
	if len(ts) != 2 || ts[0].ArgumentHint != "<x>" || ts[1].Description != strings.Repeat("y", 60)+"..." {
		t.Fatalf("templates = %+v", ts)
	}
	ts, warns := DiscoverPromptTemplates(TemplateOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
	if len(ts) != 2 || len(warns) != 1 {
		t.Errorf("trusted project template of the same name: %+v %v", ts, warns)
	}
	if out, ok := ExpandTemplate(`/a "q r"`, ts); !ok || out != "A q r" {
		t.Errorf("ExpandTemplate = %q, %v", out, ok)
	}
	if ts, _ := DiscoverPromptTemplates(TemplateOptions{AgentDir: agent, NoTemplates: true}); len(ts) != 0 {
		t.Errorf("--no-prompt-templates still discovered %d", len(ts))
	}
}
