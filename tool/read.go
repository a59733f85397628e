package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// ReadOptions configure the read tool.
type ReadOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations ReadOperations
	// ImageResizer fits images into the provider limits (tools.md §4.1, setting
	// images.autoResize); nil sends images as they are.
	ImageResizer ImageResizer
}

// ImageResizer shrinks an image to at most 2000×2000 pixels and 4.5 MB (tools.md §4.1, §13).
type ImageResizer interface {
	// ResizeImage returns the image to send. On error the read tool sends the original.
	ResizeImage(ctx context.Context, data []byte, mimeType string) (ResizedImage, error)
}

// ResizedImage is the outcome of ImageResizer.ResizeImage. Sizes are in pixels.
type ResizedImage struct {
	Data                          []byte
	MimeType                      string
	OriginalWidth, OriginalHeight int
	Width, Height                 int
	WasResized                    bool
}

// ReadDetails is details of a read result (tools.md §4.1); present only when the output was
// truncated.
type ReadDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
}

// Read is the read tool (tools.md §4.1, pi): the text of a file with pi's continuation notes, or
// an image as an image block.
type Read struct {
	cwd     string
	ops     ReadOperations
	resizer ImageResizer
}

// NewRead returns the read tool for the session working directory cwd.
func NewRead(cwd string, opts ReadOptions) *Read {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	return &Read{cwd: cwd, ops: opts.Operations, resizer: opts.ImageResizer}
}

var readSchema = json.RawMessage(`{"type":"object","required":["path"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},` +
	`"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},` +
	`"limit":{"type":"number","description":"Maximum number of lines to read"}}}`)

// Name implements Tool.
func (*Read) Name() string { return "read" }

// Label implements Labeler.
func (*Read) Label() string { return "read" }

// Description implements Tool.
func (*Read) Description() string {
	return "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). " +
		"Images are sent as attachments. For text files, output is truncated to " +
		strconv.Itoa(DefaultMaxLines) + " lines or " + strconv.Itoa(DefaultMaxBytes/1024) +
		"KB (whichever is hit first). Use offset/limit for large files. When you need the full " +
		"file, continue with offset until complete."
}

// Parameters implements Tool.
func (*Read) Parameters() json.RawMessage { return readSchema }

// PromptSnippet implements Prompter.
func (*Read) PromptSnippet() string { return "Read file contents" }

// PromptGuidelines implements Prompter.
func (*Read) PromptGuidelines() []string {
	return []string{"Use read to examine files instead of cat or sed."}
}

type readParams struct {
	Path   string   `json:"path"`
	Offset *float64 `json:"offset"`
	Limit  *float64 `json:"limit"`
}

// Execute implements Tool. Errors: an inaccessible or unreadable file, an offset beyond the end
// ("Offset N is beyond end of file (T lines total)"), ErrAborted.
func (t *Read) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[readParams]("read", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	abs := ResolveReadPathFunc(p.Path, t.cwd, func(path string) bool {
		return t.ops.Access(ctx, path, AccessExists) == nil
	})
	if err := t.ops.Access(ctx, abs, AccessRead); err != nil {
		return Result{}, err
	}
	if opener, ok := t.ops.(FileOpener); ok {
		return t.stream(ctx, opener, abs, p)
	}
	data, err := t.ops.ReadFile(ctx, abs)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	if mime := sniffImage(data); mime != "" {
		return t.image(ctx, data, mime), nil
	}
	return readText(string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), p)
}

// stream is Execute over a FileOpener: the file is read once, front to back, and only the
// window's lines are kept (an image is loaded whole, up to MaxImageBytes).
func (t *Read) stream(ctx context.Context, opener FileOpener, abs string, p readParams) (Result, error) {
	f, err := opener.OpenFile(ctx, abs)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4100)
	if mime := sniffImage(head); mime != "" {
		data, err := io.ReadAll(io.LimitReader(br, MaxImageBytes+1))
		if err != nil {
			return Result{}, err
		}
		if len(data) > MaxImageBytes {
			return Result{}, fmt.Errorf("read: the image %s is over the %s limit", abs, FormatSize64(MaxImageBytes))
		}
		return t.image(ctx, data, mime), nil
	}
	start, end := 0, -1
	if off := intArg(p.Offset, 0); off > 0 {
		start = off - 1
	}
	if p.Limit != nil {
		end = start + max(intArg(p.Limit, 0), 0)
	}
	w, err := scanWindow(ctx, br, start, end)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	return w.result(p, start)
}

// result is readText over a scanned window: the same texts and details, from the kept lines.
func (w *window) result(p readParams, start int) (Result, error) {
	total := w.total
	if start >= total {
		return Result{}, fmt.Errorf("Offset %s is beyond end of file (%d lines total)", jsNumber(*p.Offset), total)
	}
	end := total
	limited := p.Limit != nil
	if limited {
		end = min(start+max(intArg(p.Limit, 0), 0), total)
	}
	tr := TruncateHead(strings.Join(w.kept, "\n"), TruncateOptions{})
	// kept stops only past a limit, so the truncation is decided; the totals are the selection's.
	tr.TotalLines, tr.TotalBytes = w.selLines, w.selBytes
	return windowResult(tr, p.Path, start, end, total, limited, w.firstLen), nil
}

// image builds the result of an image read.
func (t *Read) image(ctx context.Context, data []byte, mime string) Result {
	note := "Read image file [" + mime + "]"
	if t.resizer != nil {
		if r, err := t.resizer.ResizeImage(ctx, data, mime); err == nil && len(r.Data) > 0 {
			data, mime = r.Data, r.MimeType
			note = "Read image file [" + mime + "]"
			if r.WasResized && r.Width > 0 {
				note += fmt.Sprintf("\n[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %.2f to map to original image.]",
					r.OriginalWidth, r.OriginalHeight, r.Width, r.Height, float64(r.OriginalWidth)/float64(r.Width))
			}
		}
	}
	return Result{Content: []llm.Content{
		llm.Text(note),
		llm.Image(base64.StdEncoding.EncodeToString(data), mime),
	}}
}

// readText selects and truncates the lines of a text file (tools.md §4.1).
func readText(text string, p readParams) (Result, error) {
	lines := strings.Split(text, "\n")
	total := len(lines)
	start := 0
	if off := intArg(p.Offset, 0); off > 0 {
		start = off - 1
	}
	if start >= total {
		return Result{}, fmt.Errorf("Offset %s is beyond end of file (%d lines total)", jsNumber(*p.Offset), total)
	}
	end := total
	limited := p.Limit != nil
	if limited {
		end = min(start+max(intArg(p.Limit, 0), 0), total)
	}
	tr := TruncateHead(strings.Join(lines[start:end], "\n"), TruncateOptions{})
	return windowResult(tr, p.Path, start, end, total, limited, len(lines[start])), nil
}

// windowResult is the read result for the selected lines start..end (0-based, end exclusive) of
// a file of total lines, truncated into tr, with pi's notices (tools.md §4.1): the first line
// alone over the byte limit (firstLen bytes long), the output cut by a limit, or more lines left
// after an explicit limit.
func windowResult(tr Truncation, path string, start, end, total int, limited bool, firstLen int) Result {
	first := start + 1
	switch {
	case tr.FirstLineExceedsLimit:
		text := fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, FormatSize(firstLen), FormatSize(DefaultMaxBytes), first, path, DefaultMaxBytes)
		return TextResult(text, ReadDetails{Truncation: &tr})
	case tr.Truncated:
		last := first + tr.OutputLines - 1
		limit := ""
		if tr.TruncatedBy == TruncatedByBytes {
			limit = " (" + FormatSize(DefaultMaxBytes) + " limit)"
		}
		text := fmt.Sprintf("%s\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue.]",
			tr.Content, first, last, total, limit, last+1)
		return TextResult(text, ReadDetails{Truncation: &tr})
	case limited && end < total:
		text := fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", tr.Content, total-end, end+1)
		return TextResult(text, nil)
	}
	return TextResult(tr.Content, nil)
}

// jsNumber formats a JSON number as JavaScript prints it (3, 2.5).
func jsNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// sniffImage returns the MIME type of a JPEG, PNG, GIF or WebP image from its magic bytes, or ""
// (tools.md §13: sniffed, never by extension).
func sniffImage(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}
