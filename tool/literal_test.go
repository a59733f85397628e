package tool

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indexFoldRef is the plain definition foldFinder must agree with.
func indexFoldRef(s, pat []byte) int {
	for i := 0; i+len(pat) <= len(s); i++ {
		if equalFoldASCII(s[i:i+len(pat)], pat) {
			return i
		}
	}
	return -1
}

func TestLiteralFinderAgreesWithBytesIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"ab", "abc\n", "xq7_z", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \n"}
	for iter := range 20000 {
		alpha := alphabets[iter%len(alphabets)]
		text := make([]byte, rng.IntN(300))
		for i := range text {
			text[i] = alpha[rng.IntN(len(alpha))]
		}
		pat := make([]byte, 1+rng.IntN(6))
		for i := range pat {
			pat[i] = alpha[rng.IntN(len(alpha))]
		}
		if len(text) > 0 && rng.IntN(2) == 0 { // plant it
			at := rng.IntN(len(text))
			text = append(text[:at:at], append(append([]byte{}, pat...), text[at:]...)...)
		}
		if got, want := newLiteralFinder(pat).index(text), bytes.Index(text, pat); got != want {
			t.Fatalf("literal %q in %q: %d, want %d", pat, text, got, want)
		}
		lower := bytes.ToLower(pat)
		if got, want := newFoldFinder(lower).index(text), indexFoldRef(text, lower); got != want {
			t.Fatalf("fold %q in %q: %d, want %d", lower, text, got, want)
		}
	}
}

// TestLiteralFinderFallback covers the hand-over to bytes.Index once the rare byte proves common
// in the text (a long run of false candidates before the match).
func TestLiteralFinderFallback(t *testing.T) {
	pat := []byte("q_needle")
	f := newLiteralFinder(pat)
	if pat[f.rare] != 'q' {
		t.Fatalf("rarest byte of %q: %q, want 'q'", pat, pat[f.rare])
	}
	text := []byte(strings.Repeat("qq_", 5000) + "q_needle" + strings.Repeat("q", 100))
	if got, want := f.index(text), bytes.Index(text, pat); got != want {
		t.Fatalf("index %d, want %d", got, want)
	}
	if got := f.index(text[:len(text)-110]); got != -1 {
		t.Fatalf("cut text: index %d, want -1", got)
	}
}

// literalCorpus is about 4 MB of Go source for the literal benchmarks (the standard library's,
// whatever is readable of it).
func literalCorpus(b *testing.B) []byte {
	var buf bytes.Buffer
	root := filepath.Join(os.Getenv("GOROOT"), "src", "net", "http")
	if os.Getenv("GOROOT") == "" {
		root = "/usr/local/go/src/net/http"
	}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".go") && buf.Len() < 4<<20 {
			data, _ := os.ReadFile(p)
			buf.Write(data)
		}
		return nil
	})
	if buf.Len() < 1<<20 {
		// No source tree: synthetic Go-like text.
		for buf.Len() < 4<<20 {
			buf.WriteString("func (x *exampleType) handleRequest(w http.ResponseWriter, r *http.Request) error { return nil }\n")
		}
	}
	return buf.Bytes()
}

// BenchmarkLiteralIndex compares the rare-byte finders with bytes.Index on source text for a
// literal that is absent (the whole text is scanned), as grep's rare-literal case does per file.
func BenchmarkLiteralIndex(b *testing.B) {
	text := literalCorpus(b)
	for _, pat := range []string{"xq7_never_here_zz", "sendfile_absent", "func"} {
		p := []byte(pat)
		b.Run("bytes.Index/"+pat, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				bytes.Index(text, p)
			}
		})
		f := newLiteralFinder(p)
		b.Run("literalFinder/"+pat, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				f.index(text)
			}
		})
		ff := newFoldFinder(bytes.ToLower(p))
		b.Run("foldFinder/"+pat, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				ff.index(text)
			}
		})
	}
}
