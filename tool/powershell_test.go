//go:build unix

package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// argvShell writes an executable named name into a new directory that prints each argument it
// gets on its own line (and exits 3 when the last one contains "fail"), standing in for the
// PowerShell executable: the tests check how atomic invokes it, not PowerShell itself.
func argvShell(t *testing.T, name string) (dir, exe string) {
	t.Helper()
	dir = t.TempDir()
	exe = filepath.Join(dir, name)
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\ncase \"$*\" in *fail*) exit 3;; esac\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, exe
}

func TestPowerShellInvocation(t *testing.T) {
	_, exe := argvShell(t, "pwsh")
	ps := NewPowerShell(t.TempDir(), exe, BashOptions{CommandPrefix: "$x = 1"})
	r := mustRun(t, ps, map[string]any{"command": "Get-ChildItem"})
	want := "<-NoProfile>\n<-NonInteractive>\n<-ExecutionPolicy>\n<Bypass>\n<-Command>\n<" + powerShellUTF8 + "\n$x = 1\nGet-ChildItem>\n"
	if text(r) != want || r.IsError {
		t.Fatalf("got\n%s\nwant\n%s", text(r), want)
	}
	r = mustRun(t, ps, map[string]any{"command": "fail"})
	if !r.IsError || !strings.HasSuffix(text(r), "Command exited with code 3") {
		t.Fatalf("non-zero exit: %q %v", text(r), r.IsError)
	}
	if ps.Name() != "powershell" || string(ps.Parameters()) != string(NewBash(".", BashOptions{}).Parameters()) {
		t.Fatalf("definition %s %s", ps.Name(), ps.Parameters())
	}
}

// The powershell tool exists exactly where a pwsh or powershell executable is on PATH.
func TestPowerShellRegisteredWhereInstalled(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	set := Builtins(t.TempDir(), Options{})
	if _, ok := set["powershell"]; ok || strings.Contains(strings.Join(Names(set), ","), "powershell") {
		t.Fatalf("powershell without PowerShell: %v", Names(set))
	}
	dir, exe := argvShell(t, "powershell")
	t.Setenv("PATH", dir)
	if p, ok := FindPowerShell(); !ok || p != exe {
		t.Fatalf("FindPowerShell = %q, %v", p, ok)
	}
	set = Builtins(t.TempDir(), Options{})
	if _, ok := set["powershell"]; !ok || strings.Join(Names(set)[:3], ",") != "read,bash,powershell" {
		t.Fatalf("names %v", Names(set))
	}
}
