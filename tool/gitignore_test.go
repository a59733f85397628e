package tool

import "testing"

func TestIgnoreFileMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		isDir   bool
		ignored bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/dir/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "x/build", true, true},
		{"/root.txt", "root.txt", false, true},
		{"/root.txt", "sub/root.txt", false, false},
		{"doc/*.html", "doc/a.html", false, true},
		{"doc/*.html", "doc/sub/a.html", false, false},
		{"doc/*.html", "x/doc/a.html", false, false},
		{"**/logs", "a/b/logs", true, true},
		{"**/logs/debug.log", "x/logs/debug.log", false, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"abc/**", "abc/x/y", false, true},
		{"abc/**", "abc", true, false},
		{"file?.txt", "file1.txt", false, true},
		{"file?.txt", "file10.txt", false, false},
		{"[a-c].txt", "b.txt", false, true},
		{"[!a-c].txt", "b.txt", false, false},
		{"[!a-c].txt", "d.txt", false, true},
		{`\#hash`, "#hash", false, true},
		{"# comment", "# comment", false, false},
		{`\!bang`, "!bang", false, true},
		{"trailing   ", "trailing", false, true},
		{"*.log\n!keep.log", "keep.log", false, false},
		{"*.log\n!keep.log", "other.log", false, true},
		{"!keep.log\n*.log", "keep.log", false, true},
	}
	for _, tt := range tests {
		f := parseIgnore([]byte(tt.pattern))
		ignored := false
		if f != nil {
			ignored, _ = f.match(tt.path, tt.isDir)
		}
		if ignored != tt.ignored {
			t.Errorf("pattern %q path %q dir %v: ignored %v, want %v (re %v)", tt.pattern, tt.path, tt.isDir, ignored, tt.ignored, f)
		}
	}
}
