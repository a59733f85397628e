package tui_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EPasteImage: Ctrl+V takes the clipboard's image (through xclip, here a script standing
// in for it), saves it to a temporary file and inserts its path; a dropped image file (a
// bracketed paste of its path) does the same; the prompt sent carries both images.
func TestE2EPasteImage(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Two images seen."}))
	tools := t.TempDir()
	clip := []byte("\x89PNG\r\n\x1a\nclipboard-image")
	if err := os.WriteFile(filepath.Join(tools, "clip.png"), clip, 0o644); err != nil {
		t.Fatal(err)
	}
	env.WriteFile(t, filepath.Join(tools, "xclip"), `#!/bin/sh
case "$*" in
*TARGETS*) printf 'TEXT\nimage/png\n' ;;
*image/png*) cat `+filepath.Join(tools, "clip.png")+` ;;
*) exit 1 ;;
esac
`)
	if err := os.Chmod(filepath.Join(tools, "xclip"), 0o755); err != nil {
		t.Fatal(err)
	}
	dropped := filepath.Join(env.Work, "shot.jpg")
	drop := []byte("\xff\xd8\xffdropped-jpeg")
	env.WriteFile(t, dropped, string(drop))
	// A model that accepts images.
	env.WriteFile(t, filepath.Join(env.Agent, "models.json"), `{"providers":{"fake":{"baseUrl":"`+env.Fake.URL()+`","api":"anthropic-messages","apiKey":"k",`+
		`"models":[{"id":"fake-model","name":"Fake Model","input":["text","image"],"contextWindow":100000,"maxTokens":4096}]}}}`)
	env.Vars = append(env.Vars, "PATH="+tools+":"+os.Getenv("PATH"), "DISPLAY=:0")

	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("compare")
	term.Press("ctrl+v")
	term.WaitFor("atomic-clipboard-")
	term.Paste(dropped)
	term.WaitFor("shot.jpg")
	term.Press("enter")
	term.WaitFor("Two images seen.")
	reqs := env.Fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{base64.StdEncoding.EncodeToString(clip), base64.StdEncoding.EncodeToString(drop), "image/png", "image/jpeg", "compare"} {
		if !strings.Contains(body, want) {
			t.Fatalf("request lacks %q:\n%s", want, body)
		}
	}
	term.Press("ctrl+d")
	if code := term.WaitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
