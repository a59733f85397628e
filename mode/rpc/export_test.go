package rpc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/export"
)

// export_html writes the live session as one HTML file and answers {path} (absolute); before the
// session file exists it is an error.
func TestExportHTML(t *testing.T) {
	h := newHarness(t, script(textTurn("The answer <b>bold</b>.")), harnessOptions{})
	r := h.call("e0", map[string]any{"type": "export_html"})
	if r["success"] != false || !strings.Contains(r["error"].(string), "Nothing to export yet") {
		t.Fatalf("export before the first answer: %v", r)
	}

	h.ok("p", map[string]any{"type": "prompt", "message": "hello <script>alert(1)</script>"})
	h.event(0, "agent_end")

	out := filepath.Join(t.TempDir(), "out.html")
	data := h.ok("e1", map[string]any{"type": "export_html", "outputPath": out})
	if dig(data, "path") != out {
		t.Fatalf("data %v, want path %s", data, out)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"hello &lt;script&gt;alert(1)&lt;/script&gt;", "The answer &lt;b&gt;bold&lt;/b&gt;.", "<code>fakellm/fake-model</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<b>") {
		t.Error("unescaped session text in the page")
	}

	// No outputPath: atomic-session-<base>.html in the working directory, reported absolute.
	dir := t.TempDir()
	t.Chdir(dir)
	file := dig(h.ok("s", map[string]any{"type": "get_state"}), "sessionFile").(string)
	data = h.ok("e2", map[string]any{"type": "export_html"})
	want := filepath.Join(dir, export.DefaultOutputPath(file))
	if dig(data, "path") != want {
		t.Fatalf("default path %v, want %s", dig(data, "path"), want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}

	// An unwritable path is an error response naming it.
	r = h.call("e3", map[string]any{"type": "export_html", "outputPath": filepath.Join(dir, "no", "dir", "x.html")})
	if r["success"] != false || !strings.Contains(r["error"].(string), "Cannot write") {
		t.Fatalf("unwritable: %v", r)
	}
}

// An in-memory session (--no-session) cannot be exported.
func TestExportHTMLInMemory(t *testing.T) {
	rt := fuzzRuntime(t)
	defer rt.Shutdown(t.Context())
	out := newCapture()
	s := NewServer(Config{In: strings.NewReader(`{"id":"x","type":"export_html","outputPath":"never.html"}` + "\n"), Out: out})
	s.Serve(t.Context(), rt)
	lines := out.snapshot()
	if len(lines) != 1 || lines[0]["success"] != false || lines[0]["error"] != export.ErrInMemory.Error() {
		t.Fatalf("%v", lines)
	}
	if _, err := os.Stat("never.html"); err == nil {
		t.Fatal("an in-memory export wrote a file")
	}
}
