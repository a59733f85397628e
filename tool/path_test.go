package tool

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestResolveToCwd(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	tests := []struct{ in, want string }{
		{"a/b.txt", "/work/a/b.txt"},
		{"@a/b.txt", "/work/a/b.txt"},
		{"@@a", "/work/@a"},
		{"/abs/x", "/abs/x"},
		{"@/abs/x", "/abs/x"},
		{"../up", "/up"},
		{"~", home},
		{"~/notes.md", filepath.Join(home, "notes.md")},
		{"~other", "/work/~other"},
		{"my\u00A0file\u2009name\u3000x", "/work/my file name x"},
	}
	for _, tt := range tests {
		if got := ResolveToCwd(tt.in, "/work"); got != tt.want {
			t.Errorf("ResolveToCwd(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolveReadPathVariants(t *testing.T) {
	dir := t.TempDir()
	screenshot := "Screenshot 2024-01-01 at 10.00.00\u202FAM.png"
	curly := "Don\u2019t.txt"
	nfd := norm.NFD.String("café.txt")
	writeFiles(t, dir, map[string]string{screenshot: "", curly: "", nfd: "", "plain.txt": ""})
	tests := []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"Screenshot 2024-01-01 at 10.00.00 AM.png", screenshot},
		{"Don't.txt", curly},
		{norm.NFC.String("café.txt"), nfd},
		{"missing.txt", "missing.txt"},
	}
	for _, tt := range tests {
		if got, want := ResolveReadPath(tt.in, dir), filepath.Join(dir, tt.want); got != want {
			t.Errorf("ResolveReadPath(%q) = %q, want %q", tt.in, got, want)
		}
	}
}
