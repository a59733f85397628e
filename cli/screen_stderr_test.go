package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScreenStderr: before attach and after detach bytes reach the terminal; while the screen
// is up every complete line goes to the log file and the first screenStderrShown lines become
// notifications (then one notice), and nothing reaches the terminal.
func TestScreenStderr(t *testing.T) {
	var term bytes.Buffer
	w := &screenStderr{term: &term}
	fmt.Fprint(w, "before\n")
	var shown []string
	logPath := filepath.Join(t.TempDir(), "logs", "stderr.log")
	w.attach(logPath, func(s string) { shown = append(shown, s) })
	fmt.Fprint(w, "half a ")
	fmt.Fprint(w, "line\r\n\nsecond\n")
	for i := 0; i < screenStderrShown+5; i++ {
		fmt.Fprintf(w, "n%d\n", i)
	}
	fmt.Fprint(w, strings.Repeat("x", screenStderrLineMax+10)+"\n")
	fmt.Fprint(w, "unterminated")
	if term.String() != "before\n" {
		t.Fatalf("the terminal got %q while the screen was up", term.String())
	}
	if len(shown) != screenStderrShown+1 || shown[0] != "half a line" || shown[1] != "second" {
		t.Fatalf("notifications: %q", shown)
	}
	if last := shown[len(shown)-1]; !strings.Contains(last, logPath) {
		t.Fatalf("the last notification should name the log file: %q", last)
	}
	w.detach()
	w.detach() // idempotent
	if term.String() != "before\nunterminated\n" {
		t.Fatalf("after detach the terminal holds %q", term.String())
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(log), "half a line\n\nsecond\nn0\n") || !strings.Contains(string(log), fmt.Sprintf("n%d\n", screenStderrShown+4)) {
		t.Fatalf("log file:\n%s", log)
	}
	fmt.Fprint(w, "after\n")
	if !strings.HasSuffix(term.String(), "after\n") {
		t.Fatalf("writes after detach: %q", term.String())
	}
}

// TestStderrNotice: a stderr line that already says its level ("Warning: …", the extension
// host's blocked notice among them) becomes a notification of that level without the prefix,
// so the transcript does not read "Warning: Warning: …"; other lines are warnings as they are.
func TestStderrNotice(t *testing.T) {
	for _, c := range []struct{ line, text, level string }{
		{"Warning: extension host (node): loading x.ts has blocked the host for 250ms", "extension host (node): loading x.ts has blocked the host for 250ms", "warning"},
		{"Error: boom", "boom", "error"},
		{"plain output from an extension", "plain output from an extension", "warning"},
		{"Warning:no space", "Warning:no space", "warning"},
	} {
		if text, level := stderrNotice(c.line); text != c.text || level != c.level {
			t.Errorf("stderrNotice(%q) = %q, %q; want %q, %q", c.line, text, level, c.text, c.level)
		}
	}
}
