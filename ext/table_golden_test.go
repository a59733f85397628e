package ext

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestTableJSONGolden pins `atomic events --json`: every row's rules and the JSON fields of its
// payload and result. A change to the table, a payload or a result shows up as a diff here; if it
// is intended, rewrite the file with `go test ./ext -run TestTableJSONGolden -update`.
func TestTableJSONGolden(t *testing.T) {
	got, err := TableJSON()
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "events.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			lo := max(0, i-3)
			t.Fatalf("TableJSON differs from %s at line %d:\n got: %q\nwant: %q\ncontext (got):\n%s\nrerun with -update if the change is intended",
				path, i+1, g, w, strings.Join(gl[lo:min(len(gl), i+4)], "\n"))
		}
	}
}
