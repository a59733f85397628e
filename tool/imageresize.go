package tool

// Image normalisation (tools.md §4.1, §13; setting images.autoResize): an image is sent as it is
// when it fits the provider limits, else scaled to fit within MaxWidth×MaxHeight and re-encoded
// (PNG or JPEG, whichever is smaller; lower JPEG qualities, then smaller sizes) until its base64
// form fits MaxBytes.

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // decoders for image.Decode
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// ImageLimits are the size limits images are fitted into. Sizes in pixels; MaxBytes is the
// length of the base64 encoding (what providers count).
type ImageLimits struct {
	MaxWidth, MaxHeight int
	MaxBytes            int
}

// DefaultImageLimits are pi's: 2000×2000 pixels and 4.5 MB, headroom below Anthropic's 5 MB
// per-image limit (the strictest of the supported providers).
var DefaultImageLimits = ImageLimits{MaxWidth: 2000, MaxHeight: 2000, MaxBytes: 4718592}

// StdImageResizer implements ImageResizer with the standard library's decoders (JPEG, PNG, GIF)
// plus WebP, and Catmull-Rom scaling. The zero value uses DefaultImageLimits.
type StdImageResizer struct {
	Limits ImageLimits
}

var _ ImageResizer = StdImageResizer{}

// jpegQualities are tried in order once an image has to be re-encoded.
var jpegQualities = []int{80, 70, 60, 50, 40}

// ErrImageTooLarge is returned when an image cannot be brought under the limits.
var ErrImageTooLarge = errors.New("image too large")

// ResizeImage implements ImageResizer. An image within the limits comes back unchanged
// (WasResized false). Errors: an undecodable image, an image that stays over MaxBytes even at
// 1/16 of the allowed size (ErrImageTooLarge), ctx's error.
func (r StdImageResizer) ResizeImage(ctx context.Context, data []byte, mimeType string) (ResizedImage, error) {
	lim := r.Limits
	if lim.MaxWidth <= 0 {
		lim = DefaultImageLimits
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return ResizedImage{}, fmt.Errorf("resize image (%s): %w", mimeType, err)
	}
	out := ResizedImage{Data: data, MimeType: mimeType, OriginalWidth: cfg.Width, OriginalHeight: cfg.Height, Width: cfg.Width, Height: cfg.Height}
	if cfg.Width <= lim.MaxWidth && cfg.Height <= lim.MaxHeight && base64.StdEncoding.EncodedLen(len(data)) <= lim.MaxBytes {
		return out, nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > 100_000_000 {
		return ResizedImage{}, fmt.Errorf("resize image: %dx%d pixels is more than atomic decodes: %w", cfg.Width, cfg.Height, ErrImageTooLarge)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return ResizedImage{}, fmt.Errorf("resize image (%s): %w", mimeType, err)
	}
	w, h := fit(cfg.Width, cfg.Height, lim.MaxWidth, lim.MaxHeight)
	for step := 0; step < 5; step++ {
		if err := ctx.Err(); err != nil {
			return ResizedImage{}, err
		}
		scaled := scale(src, w, h)
		if b, mime, ok := encodeWithin(scaled, lim.MaxBytes); ok {
			out.Data, out.MimeType, out.Width, out.Height, out.WasResized = b, mime, w, h, true
			return out, nil
		}
		w, h = max(w*3/4, 1), max(h*3/4, 1)
	}
	return ResizedImage{}, fmt.Errorf("resize image: %dx%d stays over %d bytes: %w", cfg.Width, cfg.Height, lim.MaxBytes, ErrImageTooLarge)
}

// fit returns w×h scaled down (never up) to fit within maxW×maxH, keeping the aspect ratio.
func fit(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	if w*maxH >= h*maxW { // width is the binding side
		return maxW, max(h*maxW/w, 1)
	}
	return max(w*maxH/h, 1), maxH
}

// scale draws src into a new w×h image with Catmull-Rom resampling (a copy when the size is
// the same).
func scale(src image.Image, w, h int) image.Image {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	b := src.Bounds()
	if b.Dx() == w && b.Dy() == h {
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
		return dst
	}
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, b, xdraw.Src, nil)
	return dst
}

// encodeWithin encodes img as PNG and as JPEG at falling qualities and returns the smallest
// encoding whose base64 form fits maxBytes.
func encodeWithin(img image.Image, maxBytes int) ([]byte, string, bool) {
	var best []byte
	bestMime := ""
	var pb bytes.Buffer
	if png.Encode(&pb, img) == nil {
		best, bestMime = pb.Bytes(), "image/png"
	}
	opaque := flatten(img)
	for _, q := range jpegQualities {
		var jb bytes.Buffer
		if jpeg.Encode(&jb, opaque, &jpeg.Options{Quality: q}) != nil {
			break
		}
		if best == nil || jb.Len() < len(best) {
			best, bestMime = jb.Bytes(), "image/jpeg"
		}
		if base64.StdEncoding.EncodedLen(len(best)) <= maxBytes {
			return best, bestMime, true
		}
	}
	if best != nil && base64.StdEncoding.EncodedLen(len(best)) <= maxBytes {
		return best, bestMime, true
	}
	return nil, "", false
}

// flatten composes img over white, for JPEG (which has no transparency).
func flatten(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, &image.Uniform{C: color.White}, image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	return dst
}
