package clipimg

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTool writes an executable shell script name into dir.
func fakeTool(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

var png = []byte("\x89PNG\r\n\x1a\nfake")

func TestReadXclipPicksImageType(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "img.bin")
	if err := os.WriteFile(img, png, 0o644); err != nil {
		t.Fatal(err)
	}
	// TARGETS lists text and jpeg and png: png is preferred.
	fakeTool(t, dir, "xclip", `case "$*" in
*TARGETS*) printf 'UTF8_STRING\nimage/jpeg\nimage/png\n' ;;
*image/png*) cat `+img+` ;;
*) exit 1 ;;
esac`)
	env := Env{Vars: []string{"PATH=" + dir + ":/usr/bin:/bin", "DISPLAY=:0"}, OS: "linux"}
	data, mime, err := Read(context.Background(), env)
	if err != nil || mime != "image/png" || string(data) != string(png) {
		t.Fatalf("Read = %q %q %v", data, mime, err)
	}
	// Only text on the clipboard: ErrNoImage.
	fakeTool(t, dir, "xclip", `printf 'UTF8_STRING\nTEXT\n'`)
	if _, _, err := Read(context.Background(), env); !errors.Is(err, ErrNoImage) {
		t.Fatalf("text clipboard: %v", err)
	}
	// No tool at all: ErrNoImage.
	if _, _, err := Read(context.Background(), Env{Vars: []string{"PATH=" + t.TempDir(), "DISPLAY=:0"}, OS: "linux"}); !errors.Is(err, ErrNoImage) {
		t.Fatalf("no tool: %v", err)
	}
}

func TestReadWaylandFirst(t *testing.T) {
	dir := t.TempDir()
	fakeTool(t, dir, "wl-paste", `case "$*" in
*--list-types*) printf 'image/webp\n' ;;
*image/webp*) printf 'RIFFwebp' ;;
esac`)
	fakeTool(t, dir, "xclip", `exit 1`)
	data, mime, err := Read(context.Background(), Env{Vars: []string{"PATH=" + dir, "WAYLAND_DISPLAY=wayland-0"}, OS: "linux"})
	if err != nil || mime != "image/webp" || string(data) != "RIFFwebp" {
		t.Fatalf("Read = %q %q %v", data, mime, err)
	}
}

func TestSaveLoadAndPastedPath(t *testing.T) {
	path, err := Save(png, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || !strings.HasPrefix(filepath.Base(path), Prefix) || !strings.HasSuffix(path, ".png") {
		t.Fatalf("saved %s: %v %v", path, st.Mode(), err)
	}
	c, err := Load(path)
	if err != nil || c.MimeType != "image/png" || c.Data != base64.StdEncoding.EncodeToString(png) {
		t.Fatalf("Load = %+v %v", c, err)
	}
	for _, in := range []string{path, " '" + path + "' ", `"` + path + `"`, "file://" + path} {
		if got := PastedPath(in); got != path {
			t.Fatalf("PastedPath(%q) = %q", in, got)
		}
	}
	for _, in := range []string{"hello", path + "\nmore", "relative.png", filepath.Join(t.TempDir(), "missing.png"), "/etc/hostname"} {
		if got := PastedPath(in); got != "" {
			t.Fatalf("PastedPath(%q) = %q, want none", in, got)
		}
	}
}
