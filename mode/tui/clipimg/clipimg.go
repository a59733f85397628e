// Package clipimg pastes images into the interactive mode's editor (tui.md §3.5): Read takes the
// image on the system clipboard through the usual command-line tools, Save writes it to a
// private temporary file whose path the editor inserts (as pi does), and Load turns an image
// file path back into an image content block, so a pasted or dropped image reaches the model as
// an image and not only as a path.
//
// Clipboard tools, in order: on Wayland (WAYLAND_DISPLAY) or WSL `wl-paste`, on X11 (DISPLAY)
// `xclip`, on macOS `pngpaste`. Each run is bounded (Timeout) and its output limited (MaxBytes).
//
// clipimg imports llm.
package clipimg

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// Timeout bounds one clipboard tool run.
const Timeout = 3 * time.Second

// MaxBytes is the largest image read from the clipboard or a file (20 MiB).
const MaxBytes = 20 << 20

// ErrNoImage means the clipboard holds no image (or no clipboard tool is available).
var ErrNoImage = errors.New("no image on the clipboard")

// mimes are the image types taken from the clipboard, preferred first, with their extensions.
var mimes = []struct{ mime, ext string }{
	{"image/png", "png"}, {"image/jpeg", "jpg"}, {"image/webp", "webp"}, {"image/gif", "gif"},
}

// Env is where Read looks: the environment (nil: the process's) and the OS (runtime.GOOS when "").
type Env struct {
	Vars []string
	OS   string
}

func (e Env) get(k string) string {
	if e.Vars == nil {
		return os.Getenv(k)
	}
	v := ""
	for _, kv := range e.Vars {
		if name, val, ok := strings.Cut(kv, "="); ok && name == k {
			v = val
		}
	}
	return v
}

// Read returns the clipboard's image and its MIME type; ErrNoImage when there is none or no
// tool to ask; another error when a tool failed in an unexpected way.
func Read(ctx context.Context, env Env) ([]byte, string, error) {
	goos := env.OS
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos == "darwin" {
		if data, err := run(ctx, env, "pngpaste", "-"); err == nil && len(data) > 0 {
			return data, "image/png", nil
		}
		return nil, "", ErrNoImage
	}
	wayland := env.get("WAYLAND_DISPLAY") != "" || env.get("WSL_DISTRO_NAME") != ""
	if wayland {
		if types, err := run(ctx, env, "wl-paste", "--list-types"); err == nil {
			if m := pick(types); m != "" {
				if data, err := run(ctx, env, "wl-paste", "--no-newline", "--type", m); err == nil && len(data) > 0 {
					return data, m, nil
				}
			}
		}
	}
	if env.get("DISPLAY") != "" || !wayland {
		if types, err := run(ctx, env, "xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"); err == nil {
			if m := pick(types); m != "" {
				if data, err := run(ctx, env, "xclip", "-selection", "clipboard", "-t", m, "-o"); err == nil && len(data) > 0 {
					return data, m, nil
				}
			}
		}
	}
	return nil, "", ErrNoImage
}

// pick chooses the preferred image type among a tool's listed types (one per line).
func pick(types []byte) string {
	have := map[string]bool{}
	for _, l := range strings.Split(string(types), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for _, m := range mimes {
		if have[m.mime] {
			return m.mime
		}
	}
	return ""
}

// run runs a tool with the Timeout and returns at most MaxBytes of its stdout.
func run(ctx context.Context, env Env, name string, args ...string) ([]byte, error) {
	path, err := lookPath(env, name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	if env.Vars != nil {
		cmd.Env = env.Vars
	}
	var out limitedBuffer
	out.max = MaxBytes
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("clipboard: %s: %w", name, err)
	}
	if out.over {
		return nil, fmt.Errorf("clipboard: %s: image larger than %d bytes", name, MaxBytes)
	}
	return out.Bytes(), nil
}

// lookPath finds name on the PATH of env.
func lookPath(env Env, name string) (string, error) {
	if env.Vars == nil {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(env.get("PATH")) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("clipboard: %s not found", name)
}

type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over = true
		return 0, errors.New("output too large")
	}
	return b.Buffer.Write(p)
}

// Prefix starts the names of the files Save writes.
const Prefix = "atomic-clipboard-"

// Save writes data to a new file <temp dir>/atomic-clipboard-<random>.<ext> readable by the
// user only and returns its path.
func Save(data []byte, mime string) (string, error) {
	ext := "png"
	for _, m := range mimes {
		if m.mime == mime {
			ext = m.ext
		}
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("save clipboard image: %w", err)
	}
	path := filepath.Join(os.TempDir(), Prefix+hex.EncodeToString(rnd[:])+"."+ext)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("save clipboard image: %w", err)
	}
	return path, nil
}

// PastedPath returns the image file a paste names, when the pasted text is exactly one path
// (possibly quoted, ~-relative or a file:// URI, as terminals paste dropped files) of an
// existing image file; "" otherwise.
func PastedPath(text string) string {
	p := strings.TrimSpace(text)
	if strings.ContainsAny(p, "\n\r") || p == "" {
		return ""
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return ""
		}
		p = u.Path
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		p = filepath.Join(home, rest)
	}
	p = strings.ReplaceAll(p, `\ `, " ")
	if !filepath.IsAbs(p) || MimeOf(p) == "" {
		return ""
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

// MimeOf is the image MIME type of a file name's extension, "" when it is not an image.
func MimeOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	}
	return ""
}

// Load reads the image file at path (at most MaxBytes) as an image content block.
func Load(path string) (llm.Content, error) {
	mime := MimeOf(path)
	if mime == "" {
		return llm.Content{}, fmt.Errorf("load image %s: not an image file name", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return llm.Content{}, fmt.Errorf("load image: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return llm.Content{}, fmt.Errorf("load image %s: %w", path, err)
	}
	if len(data) > MaxBytes {
		return llm.Content{}, fmt.Errorf("load image %s: larger than %d bytes", path, MaxBytes)
	}
	return llm.Image(base64.StdEncoding.EncodeToString(data), mime), nil
}
