package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachedTranspiler: a second transpile of an unchanged extension comes from the cache; an
// edit of a file it imports transpiles it again; the cache keeps a bounded number of entries.
func TestCachedTranspiler(t *testing.T) {
	src := t.TempDir()
	cache := filepath.Join(t.TempDir(), "transpiled")
	entry := writeExt(t, src, "main.ts", `import { word } from "./word";
export default function (pi: any) { pi.on("session_start", () => word); }`)
	writeExt(t, src, "word.ts", `export const word: string = "first";`)
	tr := CachedTranspiler(cache)
	code, err := tr(entry)
	if err != nil || !strings.Contains(code, `"first"`) {
		t.Fatalf("first transpile: %v\n%s", err, code)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v; want one entry", files)
	}
	// Mark the cached code: a cache hit returns the mark.
	var e cacheEntry
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Deps) != 2 {
		t.Fatalf("deps %+v; want main.ts and word.ts", e.Deps)
	}
	e.Code += "\n// cached"
	b, _ = json.Marshal(e)
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, err := tr(entry); err != nil || !strings.HasSuffix(code, "// cached") {
		t.Fatalf("unchanged extension not served from the cache: %v\n%s", err, code)
	}
	writeExt(t, src, "word.ts", `export const word: string = "second";`)
	if code, err := tr(entry); err != nil || !strings.Contains(code, `"second"`) || strings.Contains(code, "// cached") {
		t.Fatalf("an edited import was served stale: %v\n%s", err, code)
	}
	if code, err := tr(entry); err != nil || !strings.Contains(code, `"second"`) {
		t.Fatalf("after the edit: %v\n%s", err, code)
	}
	// A failing transpile is not cached.
	bad := writeExt(t, src, "bad.ts", `export default function (: {`)
	if _, err := tr(bad); err == nil {
		t.Fatal("a syntax error transpiled")
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*.json")); len(files) != 1 {
		t.Fatalf("cache files %v after a failed transpile", files)
	}
}

func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 10; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d.json", i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trimCache(dir, 4)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 4 {
		t.Fatalf("%d entries kept, want 4", len(files))
	}
}
