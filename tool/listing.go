package tool

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
)

// The listing tools (ls, find, grep) share how they resolve and check their root and how they
// shape their output: lines cut to DefaultMaxBytes from the top, then pi's notice block.

// stater is the one operation every listing tool needs.
type stater interface {
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
}

// listingRoot resolves the path argument of a listing tool against cwd; empty means cwd.
func listingRoot(path, cwd string) string {
	if path == "" {
		path = "."
	}
	return ResolveToCwd(path, cwd)
}

// statRoot stats the root of a listing tool. Errors: "Path not found: <path>".
func statRoot(ctx context.Context, ops stater, path string) (fs.FileInfo, error) {
	fi, err := ops.Stat(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("Path not found: %s", path)
	}
	return fi, nil
}

// statDir checks that dir, the root of ls or find, exists and is a directory. Errors: "Path not
// found: <dir>", "Not a directory: <dir>".
func statDir(ctx context.Context, ops stater, dir string) error {
	fi, err := statRoot(ctx, ops, dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("Not a directory: %s", dir)
	}
	return nil
}

// walkRoot walks the tree below root for the named tool (find, grep). Errors: ErrAborted when
// ctx is done, else "<tool>: walk <root>: <cause>".
func walkRoot(ctx context.Context, w Walker, tool, root string, fn WalkFunc) error {
	err := w.Walk(ctx, root, fn)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ErrAborted
	}
	return fmt.Errorf("%s: walk %s: %w", tool, root, err)
}

// listingOutput joins the lines of a listing, byte-truncates them from the top without a line
// cap, and appends the notices as pi does ("\n\n[a. b. c]"): limitNotice, then
// "<DefaultMaxBytes> limit reached" when lines were cut, then lastNotice; empty notices are left
// out. It returns the text and the truncation, nil when nothing was cut.
func listingOutput(lines []string, limitNotice, lastNotice string) (string, *Truncation) {
	var tr *Truncation
	t := TruncateHead(strings.Join(lines, "\n"), TruncateOptions{MaxLines: noLineLimit})
	var notices []string
	if limitNotice != "" {
		notices = append(notices, limitNotice)
	}
	if t.Truncated {
		tr = &t
		notices = append(notices, FormatSize(DefaultMaxBytes)+" limit reached")
	}
	if lastNotice != "" {
		notices = append(notices, lastNotice)
	}
	out := t.Content
	if len(notices) > 0 {
		out += "\n\n[" + strings.Join(notices, ". ") + "]"
	}
	return out, tr
}

// detailsResult returns a text result with details d, or with none when d is the zero value
// (nothing was cut).
func detailsResult[D comparable](text string, d D) Result {
	var zero D
	if d == zero {
		return TextResult(text, nil)
	}
	return TextResult(text, d)
}
