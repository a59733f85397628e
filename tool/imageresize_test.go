package tool

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testImage returns a w×h image; noisy images compress badly.
func testImage(w, h int, noisy bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x), uint8(y), uint8(x + y), 255}
			if noisy {
				c = color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decoded(t *testing.T, r ResizedImage) image.Config {
	t.Helper()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != r.Width || cfg.Height != r.Height {
		t.Fatalf("data is %dx%d, result says %dx%d", cfg.Width, cfg.Height, r.Width, r.Height)
	}
	return cfg
}

func TestResizeKeepsImagesWithinLimits(t *testing.T) {
	data := encodePNG(t, testImage(300, 200, false))
	r, err := StdImageResizer{}.ResizeImage(context.Background(), data, "image/png")
	if err != nil || r.WasResized || !bytes.Equal(r.Data, data) || r.Width != 300 {
		t.Fatalf("small image: %+v %v", r.WasResized, err)
	}
}

func TestResizeFitsDimensions(t *testing.T) {
	data := encodePNG(t, testImage(3000, 1200, false))
	r, err := StdImageResizer{}.ResizeImage(context.Background(), data, "image/png")
	if err != nil || !r.WasResized {
		t.Fatalf("resize: %+v %v", r.WasResized, err)
	}
	if cfg := decoded(t, r); cfg.Width != 2000 || cfg.Height != 800 {
		t.Fatalf("resized to %dx%d, want 2000x800", cfg.Width, cfg.Height)
	}
	if r.OriginalWidth != 3000 || r.OriginalHeight != 1200 {
		t.Errorf("original %dx%d", r.OriginalWidth, r.OriginalHeight)
	}
}

func TestResizeFitsBytes(t *testing.T) {
	data := encodePNG(t, testImage(600, 600, true)) // ~1 MB of noise
	lim := ImageLimits{MaxWidth: 2000, MaxHeight: 2000, MaxBytes: 200 << 10}
	r, err := StdImageResizer{Limits: lim}.ResizeImage(context.Background(), data, "image/png")
	if err != nil || !r.WasResized {
		t.Fatalf("resize: %v", err)
	}
	if n := base64.StdEncoding.EncodedLen(len(r.Data)); n > lim.MaxBytes {
		t.Fatalf("base64 size %d over %d", n, lim.MaxBytes)
	}
	decoded(t, r)
	// Impossible limits fail clearly.
	_, err = StdImageResizer{Limits: ImageLimits{MaxWidth: 2000, MaxHeight: 2000, MaxBytes: 10}}.ResizeImage(context.Background(), data, "image/png")
	if !errors.Is(err, ErrImageTooLarge) {
		t.Fatalf("impossible limits: %v", err)
	}
}

func TestResizeDecodesEveryFormat(t *testing.T) {
	src := testImage(2400, 100, false)
	var jb, gb bytes.Buffer
	if err := jpeg.Encode(&jb, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gb, src, nil); err != nil {
		t.Fatal(err)
	}
	webp, err := os.ReadFile(filepath.Join("testdata", "small.lossless.webp"))
	if err != nil {
		t.Fatal(err)
	}
	lim := ImageLimits{MaxWidth: 100, MaxHeight: 100, MaxBytes: 1 << 20}
	for mime, data := range map[string][]byte{"image/jpeg": jb.Bytes(), "image/gif": gb.Bytes(), "image/webp": webp, "image/png": encodePNG(t, src)} {
		r, err := StdImageResizer{Limits: lim}.ResizeImage(context.Background(), data, mime)
		if err != nil || !r.WasResized {
			t.Errorf("%s: %v", mime, err)
			continue
		}
		if cfg := decoded(t, r); cfg.Width > 100 || cfg.Height > 100 {
			t.Errorf("%s: %dx%d", mime, cfg.Width, cfg.Height)
		}
	}
}

// The read tool sends a big image resized, with pi's dimension note.
func TestReadResizesBigImage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wide.png"), encodePNG(t, testImage(4000, 1000, false)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, NewRead(dir, ReadOptions{ImageResizer: StdImageResizer{}}), map[string]any{"path": "wide.png"})
	want := "[Image: original 4000x1000, displayed at 2000x500. Multiply coordinates by 2.00 to map to original image.]"
	if !strings.Contains(text(res), want) {
		t.Fatalf("text %q, want the note %q", text(res), want)
	}
	data, _ := base64.StdEncoding.DecodeString(res.Content[1].Data)
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 2000 {
		t.Fatalf("sent %dx%d, %v", cfg.Width, cfg.Height, err)
	}
}
