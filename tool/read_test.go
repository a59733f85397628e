package tool

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "line %d", i)
	}
	return b.String()
}

func TestReadText(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"small.txt":  "alpha\nbeta\ngamma\n",
		"ten.txt":    numbered(10),
		"many.txt":   numbered(2500),
		"wide.txt":   strings.Repeat(strings.Repeat("w", 999)+"\n", 60),
		"huge1.txt":  strings.Repeat("h", 60*1024) + "\nsecond",
		"crlf.txt":   "a\r\nb\r\n",
		"sub/@x.txt": "at",
	})
	tests := []struct {
		name      string
		args      map[string]any
		want      string
		wantTrunc bool
	}{
		{"whole file keeps trailing newline", map[string]any{"path": "small.txt"}, "alpha\nbeta\ngamma\n", false},
		{"offset", map[string]any{"path": "small.txt", "offset": 2.0}, "beta\ngamma\n", false},
		{"limit leaves a continuation note", map[string]any{"path": "ten.txt", "offset": 3.0, "limit": 2.0},
			"line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]", false},
		{"limit reaching the end has no note", map[string]any{"path": "ten.txt", "offset": 9.0, "limit": 5.0},
			"line 9\nline 10", false},
		{"line cap", map[string]any{"path": "many.txt"},
			numbered(2000) + "\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]", true},
		{"exactly the line cap from an offset", map[string]any{"path": "many.txt", "offset": 501.0},
			strings.SplitN(numbered(2500), "\n", 501)[500], false},
		{"byte cap", map[string]any{"path": "wide.txt"},
			strings.TrimSuffix(strings.Repeat(strings.Repeat("w", 999)+"\n", 51), "\n") +
				"\n\n[Showing lines 1-51 of 61 (50.0KB limit). Use offset=52 to continue.]", true},
		{"first line over the byte cap", map[string]any{"path": "huge1.txt"},
			"[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' huge1.txt | head -c 51200]", true},
		{"crlf is kept", map[string]any{"path": "crlf.txt"}, "a\r\nb\r\n", false},
		{"at prefix", map[string]any{"path": "@small.txt", "limit": 1.0}, "alpha\n\n[3 more lines in file. Use offset=2 to continue.]", false},
	}
	read := NewRead(dir, ReadOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, read, tt.args)
			if got := text(r); got != tt.want {
				t.Errorf("text:\n%s\nwant\n%s", clip(got), clip(tt.want))
			}
			d, ok := r.Details.(ReadDetails)
			if tt.wantTrunc != (ok && d.Truncation != nil) {
				t.Errorf("details = %#v, want truncation %v", r.Details, tt.wantTrunc)
			}
			if !tt.wantTrunc && r.Details != nil {
				t.Errorf("details = %#v, want nil", r.Details)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"three.txt": "1\n2\n3"})
	read := NewRead(dir, ReadOptions{})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"offset beyond end", map[string]any{"path": "three.txt", "offset": 4.0}, "Offset 4 is beyond end of file (3 lines total)"},
		{"missing file", map[string]any{"path": "nope.txt"}, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, read, tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := read.Execute(ctx, Call{Args: map[string]any{"path": "three.txt"}}, nil); !errors.Is(err, ErrAborted) || err.Error() != "Operation aborted" {
		t.Errorf("pre-aborted: %v", err)
	}
}

// tinyPNG is a 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

type fakeResizer struct{}

func (fakeResizer) ResizeImage(_ context.Context, data []byte, mime string) (ResizedImage, error) {
	return ResizedImage{Data: data, MimeType: "image/jpeg", OriginalWidth: 4000, OriginalHeight: 3000, Width: 2000, Height: 1500, WasResized: true}, nil
}

func TestReadImage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"shot.bin":  string(tinyPNG), // sniffed, not by extension
		"fake.png":  "not an image",
		"anim.gif":  "GIF89a....",
		"pic.webp":  "RIFF\x00\x00\x00\x00WEBPVP8 ",
		"photo.jpg": "\xFF\xD8\xFF\xE0rest",
	})
	r := mustRun(t, NewRead(dir, ReadOptions{}), map[string]any{"path": "shot.bin"})
	if len(r.Content) != 2 || r.Content[0].Text != "Read image file [image/png]" ||
		r.Content[1].Type != llm.ContentImage || r.Content[1].MimeType != "image/png" ||
		r.Content[1].Data != base64.StdEncoding.EncodeToString(tinyPNG) || r.Details != nil {
		t.Errorf("png result: %+v", r)
	}
	for name, mime := range map[string]string{"anim.gif": "image/gif", "pic.webp": "image/webp", "photo.jpg": "image/jpeg"} {
		r := mustRun(t, NewRead(dir, ReadOptions{}), map[string]any{"path": name})
		if len(r.Content) != 2 || r.Content[1].MimeType != mime {
			t.Errorf("%s: %+v", name, r.Content)
		}
	}
	if r := mustRun(t, NewRead(dir, ReadOptions{}), map[string]any{"path": "fake.png"}); text(r) != "not an image" {
		t.Errorf("fake png read as %q", text(r))
	}
	r = mustRun(t, NewRead(dir, ReadOptions{ImageResizer: fakeResizer{}}), map[string]any{"path": filepath.Join(dir, "shot.bin")})
	want := "Read image file [image/jpeg]\n[Image: original 4000x3000, displayed at 2000x1500. Multiply coordinates by 2.00 to map to original image.]"
	if r.Content[0].Text != want || r.Content[1].MimeType != "image/jpeg" {
		t.Errorf("resized: %q", r.Content[0].Text)
	}
}

// clip shortens long texts in failure messages to their head and tail.
func clip(s string) string {
	if len(s) <= 400 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q ... %q (%d bytes)", s[:150], s[len(s)-200:], len(s))
}
