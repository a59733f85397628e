package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DefaultLsLimit is the entry limit of ls when the call gives none (tools.md §8).
const DefaultLsLimit = 500

// LsOptions configure the ls tool.
type LsOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations LsOperations
}

// LsDetails is details of an ls result (tools.md §8); nil when nothing was cut.
type LsDetails struct {
	// EntryLimitReached is the limit that cut the listing.
	EntryLimitReached int         `json:"entryLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
}

// Ls is the ls tool (tools.md §8): the entries of one directory, dotfiles included, sorted
// case-insensitively, directories suffixed "/".
type Ls struct {
	cwd string
	ops LsOperations
}

// NewLs returns the ls tool for the session working directory cwd.
func NewLs(cwd string, opts LsOptions) *Ls {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	return &Ls{cwd: cwd, ops: opts.Operations}
}

var lsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Directory to list (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of entries to return (default: 500)"}}}`)

// Name implements Tool.
func (*Ls) Name() string { return "ls" }

// Label implements Labeler.
func (*Ls) Label() string { return "ls" }

// Description implements Tool.
func (*Ls) Description() string {
	return "List the entries of a directory, sorted alphabetically, with a trailing '/' on " +
		"directories. Dotfiles are included. Output is limited to " + strconv.Itoa(DefaultLsLimit) +
		" entries or " + strconv.Itoa(DefaultMaxBytes/1024) + "KB, whichever comes first."
}

// Parameters implements Tool.
func (*Ls) Parameters() json.RawMessage { return lsSchema }

// PromptSnippet implements Prompter.
func (*Ls) PromptSnippet() string { return "List directory contents" }

// PromptGuidelines implements Prompter.
func (*Ls) PromptGuidelines() []string { return nil }

type lsParams struct {
	Path  string   `json:"path"`
	Limit *float64 `json:"limit"`
}

// Execute implements Tool. Errors: "Path not found: <abs>", "Not a directory: <abs>", "Cannot
// read directory: <reason>", ErrAborted.
func (t *Ls) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[lsParams]("ls", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	dir := listingRoot(p.Path, t.cwd)
	limit := max(intArg(p.Limit, DefaultLsLimit), 1)
	if err := statDir(ctx, t.ops, dir); err != nil {
		return Result{}, err
	}
	names, err := t.ops.ReadDir(ctx, dir)
	if err != nil {
		return Result{}, fmt.Errorf("Cannot read directory: %v", err)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	var entries []string
	limitReached := false
	for _, name := range names {
		if len(entries) >= limit {
			limitReached = true
			break
		}
		if err := checkAborted(ctx); err != nil {
			return Result{}, err
		}
		efi, err := t.ops.Stat(ctx, filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if efi.IsDir() {
			name += "/"
		}
		entries = append(entries, name)
	}
	if len(entries) == 0 {
		return TextResult("(empty directory)", nil), nil
	}
	var d LsDetails
	var limitNotice string
	if limitReached {
		limitNotice = fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, 2*limit)
		d.EntryLimitReached = limit
	}
	out, tr := listingOutput(entries, limitNotice, "")
	d.Truncation = tr
	return detailsResult(out, d), nil
}
