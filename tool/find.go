package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// DefaultFindLimit is the result limit of find when the call gives none (tools.md §9.1).
const DefaultFindLimit = 1000

// FindOptions configure the find tool.
type FindOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations FindOperations
}

// FindDetails is details of a find result (tools.md §9.1); nil when nothing was cut.
type FindDetails struct {
	// ResultLimitReached is the limit that cut the result list.
	ResultLimitReached int         `json:"resultLimitReached,omitempty"`
	Truncation         *Truncation `json:"truncation,omitempty"`
}

// Find is the find tool (tools.md §9.1): paths below a directory that match a glob, relative to
// it, honouring .gitignore files. It walks the tree in-process instead of running fd.
type Find struct {
	cwd string
	ops FindOperations
}

// NewFind returns the find tool for the session working directory cwd.
func NewFind(cwd string, opts FindOptions) *Find {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	return &Find{cwd: cwd, ops: opts.Operations}
}

var findSchema = json.RawMessage(`{"type":"object","required":["pattern"],"properties":{` +
	`"pattern":{"type":"string","description":"Glob pattern to match, e.g. '*.ts', '**/*.json' or 'src/**/*_test.go'"},` +
	`"path":{"type":"string","description":"Directory to search in (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of results (default: 1000)"}}}`)

// Name implements Tool.
func (*Find) Name() string { return "find" }

// Label implements Labeler.
func (*Find) Label() string { return "find" }

// Description implements Tool.
func (*Find) Description() string {
	return "Find files and directories by glob pattern. Returns paths relative to the search " +
		"directory; directories end with '/'. A pattern without '/' matches file names at any " +
		"depth. Respects .gitignore. Output is limited to " + strconv.Itoa(DefaultFindLimit) +
		" results or " + strconv.Itoa(DefaultMaxBytes/1024) + "KB, whichever comes first."
}

// Parameters implements Tool.
func (*Find) Parameters() json.RawMessage { return findSchema }

// PromptSnippet implements Prompter.
func (*Find) PromptSnippet() string { return "Find files by glob pattern (respects .gitignore)" }

// PromptGuidelines implements Prompter.
func (*Find) PromptGuidelines() []string { return nil }

type findParams struct {
	Pattern string   `json:"pattern"`
	Path    string   `json:"path"`
	Limit   *float64 `json:"limit"`
}

// Execute implements Tool. Results are sorted by path; the first limit are returned. Errors:
// "Path not found: <abs>", "Not a directory: <abs>", an invalid glob, walk failures, ErrAborted.
func (t *Find) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[findParams]("find", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	root := listingRoot(p.Path, t.cwd)
	limit := max(intArg(p.Limit, DefaultFindLimit), 1)
	match, err := globMatcher(p.Pattern)
	if err != nil {
		return Result{}, err
	}
	if err := statDir(ctx, t.ops, root); err != nil {
		return Result{}, err
	}
	var found []string
	if _, local := t.ops.(LocalFS); local {
		found, err = findLocal(ctx, root, match, limit)
	} else {
		err = walkRoot(ctx, t.ops, "find", root, func(rel string, typ fs.FileMode) error {
			if !match(rel) {
				return nil
			}
			if typ.IsDir() {
				rel += "/"
			}
			found = append(found, rel)
			return nil
		})
		sort.Strings(found)
	}
	if err != nil {
		return Result{}, err
	}
	if len(found) == 0 {
		return TextResult("No files found matching pattern", nil), nil
	}
	sort.Strings(found)
	var d FindDetails
	var limitNotice string
	if len(found) >= limit {
		found = found[:limit]
		d.ResultLimitReached = limit
		limitNotice = fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, 2*limit)
	}
	out, tr := listingOutput(found, limitNotice, "")
	d.Truncation = tr
	return detailsResult(out, d), nil
}

// globMatcher compiles a find or grep glob: a pattern with a "/" is matched against the whole
// relative path ("**" crosses directories), one without against the last element, as fd and
// ripgrep do. A leading "./" is ignored.
func globMatcher(pattern string) (func(rel string) bool, error) {
	pattern = strings.TrimPrefix(pattern, "./")
	if pattern == "" {
		return nil, fmt.Errorf("Invalid glob pattern: empty pattern")
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("Invalid glob pattern: %s", pattern)
	}
	if strings.Contains(pattern, "/") {
		return func(rel string) bool {
			ok, _ := doublestar.Match(pattern, rel)
			return ok
		}, nil
	}
	// A pattern on the last element: the common shapes are compared without the glob engine.
	meta := strings.IndexAny(pattern, `*?[{\\`)
	switch {
	case meta < 0:
		return func(rel string) bool { return path.Base(rel) == pattern }, nil
	case pattern == "*":
		return func(string) bool { return true }, nil
	case pattern[0] == '*' && !strings.ContainsAny(pattern[1:], `*?[{\\`):
		suffix := pattern[1:]
		return func(rel string) bool { return strings.HasSuffix(rel[strings.LastIndexByte(rel, '/')+1:], suffix) }, nil
	}
	return func(rel string) bool {
		ok, _ := doublestar.Match(pattern, path.Base(rel))
		return ok
	}, nil
}

// findLocal walks root on the local file system in sorted path order and returns the first limit
// entries match accepts, directories with a trailing "/"; the walk stops there.
func findLocal(ctx context.Context, root string, match func(rel string) bool, limit int) ([]string, error) {
	w, rd := startWalk(ctx, root, walkHooks{entry: func(e *walkEntry) { e.hit = match(e.rel) }})
	defer w.finish()
	var found []string
	err := w.visit(rd, func(e *walkEntry) error {
		if !e.hit {
			return nil
		}
		if e.typ.IsDir() {
			found = append(found, e.rel+"/")
		} else {
			found = append(found, e.rel)
		}
		if len(found) >= limit {
			return errStopWalk
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrAborted
		}
		return nil, fmt.Errorf("find: walk %s: %w", root, err)
	}
	return found, nil
}
