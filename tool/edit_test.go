package tool

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestApplyReplacements(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []Replacement
		want    string // new content; empty when wantErr is set
		wantErr string
	}{
		{
			name: "single", content: "a\nb\nc\n",
			edits: []Replacement{{"b", "B"}}, want: "a\nB\nc\n",
		},
		{
			name: "multi matched against the original", content: "one two three",
			edits: []Replacement{{"three", "3"}, {"one", "two"}, {"two ", "2 "}}, want: "two 2 3",
		},
		{
			name: "crlf kept and new lines get crlf", content: "a\r\nb\r\nc\r\n",
			edits: []Replacement{{"b\nc", "x\ny\nz"}}, want: "a\r\nx\r\ny\r\nz\r\n",
		},
		{
			name: "crlf in oldText", content: "a\r\nb\r\n",
			edits: []Replacement{{"a\r\nb", "c"}}, want: "c\r\n",
		},
		{
			name: "mixed endings outside the edit untouched", content: "a\r\nb\nc\r\n",
			edits: []Replacement{{"c", "C"}}, want: "a\r\nb\nC\r\n",
		},
		{
			name: "bom kept", content: "\uFEFFhello world",
			edits: []Replacement{{"hello", "bye"}}, want: "\uFEFFbye world",
		},
		{
			name: "unique exact match despite fuzzy duplicates", content: "say \u201chi\u201d\nsay \"hi\"\n",
			edits: []Replacement{{`say "hi"`, `say "bye"`}}, want: "say \u201chi\u201d\nsay \"bye\"\n",
		},
		{
			name: "fuzzy quotes rewrite only the match", content: "x = \u2018a\u2019  \n// \u201cnote\u201d   \ny = 1\n",
			edits: []Replacement{{"x = 'a'\n", "x = 'b'\n"}}, want: "x = 'b'\n// \u201cnote\u201d   \ny = 1\n",
		},
		{
			name: "fuzzy trailing whitespace and dashes", content: "a \u2014 b   \r\nc\t\r\nd\r\n",
			edits: []Replacement{{"a - b\nc", "e"}}, want: "e\t\r\nd\r\n",
		},
		{
			name: "fuzzy nfkc", content: "\uFB01le = 1\n",
			edits: []Replacement{{"file = 1", "file = 2"}}, want: "file = 2\n",
		},
		{
			name: "not found", content: "abc",
			edits:   []Replacement{{"xyz", "q"}},
			wantErr: "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
		},
		{
			name: "not found names the edit", content: "abc",
			edits:   []Replacement{{"a", "A"}, {"xyz", "q"}},
			wantErr: "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines.",
		},
		{
			name: "ambiguous", content: "x x x",
			edits:   []Replacement{{"x", "y"}},
			wantErr: "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique.",
		},
		{
			name: "ambiguous names the edit", content: "a x x",
			edits:   []Replacement{{"a", "b"}, {"x", "y"}},
			wantErr: "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. Please provide more context to make it unique.",
		},
		{
			name: "fuzzy ambiguous", content: "\u201cq\u201d and \u201eq\u201f",
			edits:   []Replacement{{`"q"`, "z"}},
			wantErr: "Found 2 occurrences of the text in f.txt.",
		},
		{
			name: "overlap", content: "abcdef",
			edits:   []Replacement{{"cde", "X"}, {"abc", "Y"}},
			wantErr: "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions.",
		},
		{
			name: "empty oldText", content: "abc",
			edits:   []Replacement{{"", "x"}},
			wantErr: "oldText must not be empty in f.txt.",
		},
		{
			name: "empty oldText names the edit", content: "abc",
			edits:   []Replacement{{"a", "b"}, {"", "x"}},
			wantErr: "edits[1].oldText must not be empty in f.txt.",
		},
		{
			name: "no change", content: "abc",
			edits:   []Replacement{{"b", "b"}},
			wantErr: "No changes made to f.txt. The replacement produced identical content.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyReplacements(tt.content, tt.edits, "f.txt")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != tt.want {
				t.Errorf("content %q, want %q", got.Content, tt.want)
			}
			if strings.ContainsAny(got.Before+got.After, "\r\uFEFF") && !strings.Contains(tt.name, "fuzzy") {
				t.Errorf("before/after not normalised: %q %q", got.Before, got.After)
			}
		})
	}
}

func TestDisplayDiff(t *testing.T) {
	var before []string
	for i := 1; i <= 20; i++ {
		before = append(before, fmt.Sprintf("l%d", i))
	}
	after := append([]string(nil), before...)
	after[1] = "L2"
	after[16] = "L17"
	after = append(after[:10], append([]string{"new"}, after[10:]...)...)
	diff, first := DisplayDiff(strings.Join(before, "\n")+"\n", strings.Join(after, "\n")+"\n")
	want := strings.Join([]string{
		"  1 l1",
		"- 2 l2",
		"+ 2 L2",
		"  3 l3",
		"  4 l4",
		"  5 l5",
		"  6 l6",
		"  7 l7",
		"  8 l8",
		"  9 l9",
		" 10 l10",
		"+11 new",
		" 11 l11",
		" 12 l12",
		" 13 l13",
		" 14 l14",
		" 15 l15",
		" 16 l16",
		"-17 l17",
		"+18 L17",
		" 18 l18",
		" 19 l19",
		" 20 l20",
	}, "\n")
	if diff != want || first != 2 {
		t.Errorf("first %d, diff:\n%s\nwant:\n%s", first, diff, want)
	}

	diff, first = DisplayDiff("a\nb", "a\nb\nc")
	if want := " 1 a\n-2 b\n+2 b\n+3 c"; diff != want || first != 2 {
		t.Errorf("missing final newline: first %d\n%s", first, diff)
	}
	var long []string
	for i := 1; i <= 30; i++ {
		long = append(long, fmt.Sprintf("%d", i))
	}
	changed := append([]string(nil), long...)
	changed[14] = "fifteen"
	diff, first = DisplayDiff(strings.Join(long, "\n"), strings.Join(changed, "\n"))
	want = strings.Join([]string{
		"    ...", " 11 11", " 12 12", " 13 13", " 14 14", "-15 15", "+15 fifteen",
		" 16 16", " 17 17", " 18 18", " 19 19", "    ...",
	}, "\n")
	if diff != want || first != 15 {
		t.Errorf("skipped context: first %d\n%s", first, diff)
	}
	changed = append([]string(nil), long...)
	changed[1], changed[19] = "two", "twenty"
	diff, _ = DisplayDiff(strings.Join(long, "\n"), strings.Join(changed, "\n"))
	want = strings.Join([]string{
		"  1 1", "- 2 2", "+ 2 two", "  3 3", "  4 4", "  5 5", "  6 6", "    ...",
		" 16 16", " 17 17", " 18 18", " 19 19", "-20 20", "+20 twenty",
		" 21 21", " 22 22", " 23 23", " 24 24", "    ...",
	}, "\n")
	if diff != want {
		t.Errorf("context between changes:\n%s", diff)
	}
	if diff, first := DisplayDiff("same", "same"); diff != "" || first != 0 {
		t.Errorf("equal texts: %q %d", diff, first)
	}
}

func TestEditTool(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.go": "package f\n\nfunc A() {}\n\nfunc B() {}\n"})
	edit := NewEdit(dir, EditOptions{Queue: NewMutationQueue()})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"edits array", map[string]any{"path": "f.go", "edits": []any{
			map[string]any{"oldText": "func A() {}", "newText": "func A() { a() }"},
			map[string]any{"oldText": "func B() {}", "newText": "func B() { b() }"},
		}}, "package f\n\nfunc A() { a() }\n\nfunc B() { b() }\n"},
		{"legacy form", map[string]any{"path": "f.go", "oldText": "a()", "newText": "aa()"},
			"package f\n\nfunc A() { aa() }\n\nfunc B() { b() }\n"},
		{"edits as a JSON string", map[string]any{"path": "@f.go", "edits": `[{"oldText":"b()","newText":"bb()"}]`},
			"package f\n\nfunc A() { aa() }\n\nfunc B() { bb() }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, edit, tt.args)
			if got := readFile(t, filepath.Join(dir, "f.go")); got != tt.want {
				t.Errorf("file %q, want %q", got, tt.want)
			}
			d, ok := r.Details.(EditDetails)
			if !ok || d.Diff == "" || d.FirstChangedLine == 0 {
				t.Errorf("details %#v", r.Details)
			}
			if !strings.HasPrefix(text(r), "Successfully replaced ") {
				t.Errorf("text %q", text(r))
			}
		})
	}
	r := mustRun(t, edit, map[string]any{"path": "f.go", "edits": []any{
		map[string]any{"oldText": "aa()", "newText": "a()"}, map[string]any{"oldText": "bb()", "newText": "b()"},
	}})
	if text(r) != "Successfully replaced 2 block(s) in f.go." {
		t.Errorf("text %q", text(r))
	}
	if d := r.Details.(EditDetails); d.FirstChangedLine != 3 || d.Diff != " 1 package f\n 2 \n-3 func A() { aa() }\n+3 func A() { a() }\n 4 \n-5 func B() { bb() }\n+5 func B() { b() }" {
		t.Errorf("diff:\n%s", d.Diff)
	}
}

func TestEditToolErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "abc"})
	edit := NewEdit(dir, EditOptions{})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing file", map[string]any{"path": "nope.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}},
			"Could not edit file: nope.txt. Error code: ENOENT."},
		{"no edits", map[string]any{"path": "f.txt", "edits": []any{}},
			"Edit tool input is invalid. edits must contain at least one replacement."},
		{"not found", map[string]any{"path": "f.txt", "oldText": "zzz", "newText": "b"},
			"Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, edit, tt.args)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "abc" {
		t.Errorf("file changed to %q", got)
	}
}

func TestEditPrepareArguments(t *testing.T) {
	in := map[string]any{"path": "p", "oldText": "o", "newText": "n"}
	out := (&Edit{}).PrepareArguments(in)
	if _, ok := in["edits"]; ok {
		t.Error("input mutated")
	}
	edits, _ := out["edits"].([]any)
	if len(edits) != 1 || out["oldText"] != nil || out["path"] != "p" {
		t.Errorf("out = %#v", out)
	}
	plain := map[string]any{"path": "p", "edits": []any{}}
	if got := (&Edit{}).PrepareArguments(plain); fmt.Sprint(got) != fmt.Sprint(plain) {
		t.Errorf("plain args rewritten: %#v", got)
	}
}

func TestEditConcurrentSameFile(t *testing.T) {
	dir := t.TempDir()
	const n = 20
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("item %02d = old", i))
	}
	writeFiles(t, dir, map[string]string{"list.txt": strings.Join(lines, "\n") + "\n"})
	q := NewMutationQueue()
	edit := NewEdit(dir, EditOptions{Queue: q})
	// Two spellings of the same file share one queue key.
	paths := []string{"list.txt", filepath.Join(dir, "sub", "..", "list.txt")}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := edit.Execute(context.Background(), Call{Args: map[string]any{
				"path":  paths[i%2],
				"edits": []any{map[string]any{"oldText": fmt.Sprintf("item %02d = old", i), "newText": fmt.Sprintf("item %02d = new", i)}},
			}}, nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := readFile(t, filepath.Join(dir, "list.txt"))
	if strings.Contains(got, "old") || strings.Count(got, "new") != n {
		t.Errorf("lost updates:\n%s", got)
	}
	if q.pending() != 0 {
		t.Errorf("queue not drained")
	}
}
