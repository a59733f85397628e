package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// DefaultGrepLimit is the match limit of grep when the call gives none (tools.md §10.1).
const DefaultGrepLimit = 100

// GrepOptions configure the grep tool.
type GrepOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations GrepOperations
}

// GrepDetails is details of a grep result (tools.md §10.1); nil when nothing was cut.
type GrepDetails struct {
	// MatchLimitReached is the limit that stopped the search.
	MatchLimitReached int         `json:"matchLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
	// LinesTruncated says some lines were cut to GrepMaxLineLength characters.
	LinesTruncated bool `json:"linesTruncated,omitempty"`
	// SkippedLargeFiles counts the files not searched because they are over GrepMaxFileBytes.
	SkippedLargeFiles int `json:"skippedLargeFiles,omitempty"`
}

// GrepMaxFileBytes is the largest file grep searches (64 MiB); bigger files are skipped and named
// in a notice, so one huge log or dump cannot exhaust memory.
const GrepMaxFileBytes = 64 << 20

// Grep is the grep tool (tools.md §10.1): lines matching a regular expression (Go RE2 syntax) or
// a literal, in one file or below a directory honouring .gitignore files. It searches in-process
// instead of running ripgrep; files are searched in path order, files holding a NUL byte are
// skipped as binary.
type Grep struct {
	cwd string
	ops GrepOperations
}

// NewGrep returns the grep tool for the session working directory cwd.
func NewGrep(cwd string, opts GrepOptions) *Grep {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	return &Grep{cwd: cwd, ops: opts.Operations}
}

var grepSchema = json.RawMessage(`{"type":"object","required":["pattern"],"properties":{` +
	`"pattern":{"type":"string","description":"Regular expression to search for, or plain text with literal=true"},` +
	`"path":{"type":"string","description":"File or directory to search (default: current directory)"},` +
	`"glob":{"type":"string","description":"Only search files matching this glob, e.g. '*.go' or 'src/**/*.ts'"},` +
	`"ignoreCase":{"type":"boolean","description":"Match case-insensitively (default: false)"},` +
	`"literal":{"type":"boolean","description":"Treat pattern as plain text, not a regular expression (default: false)"},` +
	`"context":{"type":"number","description":"Lines of context to show before and after each match (default: 0)"},` +
	`"limit":{"type":"number","description":"Maximum number of matching lines to return (default: 100)"}}}`)

// Name implements Tool.
func (*Grep) Name() string { return "grep" }

// Label implements Labeler.
func (*Grep) Label() string { return "grep" }

// Description implements Tool.
func (*Grep) Description() string {
	return "Search file contents for a regular expression or literal text. Returns matching " +
		"lines as path:line: text, with paths relative to the searched directory. Respects " +
		".gitignore. Output is limited to " + strconv.Itoa(DefaultGrepLimit) + " matches or " +
		strconv.Itoa(DefaultMaxBytes/1024) + "KB, whichever comes first; lines longer than " +
		strconv.Itoa(GrepMaxLineLength) + " characters are cut."
}

// Parameters implements Tool.
func (*Grep) Parameters() json.RawMessage { return grepSchema }

// PromptSnippet implements Prompter.
func (*Grep) PromptSnippet() string { return "Search file contents for patterns (respects .gitignore)" }

// PromptGuidelines implements Prompter.
func (*Grep) PromptGuidelines() []string { return nil }

type grepParams struct {
	Pattern    string   `json:"pattern"`
	Path       string   `json:"path"`
	Glob       string   `json:"glob"`
	IgnoreCase bool     `json:"ignoreCase"`
	Literal    bool     `json:"literal"`
	Context    *float64 `json:"context"`
	Limit      *float64 `json:"limit"`
}

// grepBatch is how many files are searched in parallel before their results are consumed in
// order; it bounds the work done past the match limit.
const grepBatch = 64

// Execute implements Tool. Errors: "Path not found: <abs>", an invalid regular expression or
// glob, walk failures, ErrAborted.
func (t *Grep) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[grepParams]("grep", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	m, err := newLineMatcher(p.Pattern, p.Literal, p.IgnoreCase)
	if err != nil {
		return Result{}, err
	}
	root := listingRoot(p.Path, t.cwd)
	fi, err := statRoot(ctx, t.ops, root)
	if err != nil {
		return Result{}, err
	}
	limit := max(intArg(p.Limit, DefaultGrepLimit), 1)
	s := grepSearch{
		ops: t.ops, m: m, context: max(intArg(p.Context, 0), 0), limit: limit,
	}

	var files []grepFile
	if !fi.IsDir() {
		files = []grepFile{{abs: root, display: filepath.Base(root)}}
	} else {
		include := func(string) bool { return true }
		if p.Glob != "" {
			g, negate := strings.CutPrefix(p.Glob, "!")
			match, err := globMatcher(g)
			if err != nil {
				return Result{}, err
			}
			include = func(rel string) bool { return match(rel) != negate }
		}
		err := walkRoot(ctx, t.ops, "grep", root, func(rel string, typ fs.FileMode) error {
			if typ.Type() == 0 && include(rel) {
				files = append(files, grepFile{abs: filepath.Join(root, filepath.FromSlash(rel)), display: rel})
			}
			return nil
		})
		if err != nil {
			return Result{}, err
		}
		sort.Slice(files, func(i, j int) bool { return files[i].display < files[j].display })
	}

	lines, count, linesTruncated, skipped, err := s.run(ctx, files)
	if err != nil {
		return Result{}, err
	}
	skipNotice := ""
	if len(skipped) > 0 {
		names := skipped[:min(len(skipped), 5)]
		more := ""
		if len(skipped) > len(names) {
			more = fmt.Sprintf(" and %d more", len(skipped)-len(names))
		}
		skipNotice = fmt.Sprintf("Skipped %d file(s) over the %s grep limit: %s%s. Use bash (rg, grep) to search them",
			len(skipped), FormatSize64(GrepMaxFileBytes), strings.Join(names, ", "), more)
	}
	if count == 0 {
		if skipNotice != "" {
			return TextResult("No matches found\n\n["+skipNotice+"]", GrepDetails{SkippedLargeFiles: len(skipped)}), nil
		}
		return TextResult("No matches found", nil), nil
	}
	var d GrepDetails
	var limitNotice, linesNotice string
	if count >= limit {
		d.MatchLimitReached = limit
		limitNotice = fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", limit, 2*limit)
	}
	if linesTruncated {
		d.LinesTruncated = true
		linesNotice = fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineLength)
	}
	if skipNotice != "" {
		d.SkippedLargeFiles = len(skipped)
		if linesNotice != "" {
			linesNotice += ". "
		}
		linesNotice += skipNotice
	}
	out, tr := listingOutput(lines, limitNotice, linesNotice)
	d.Truncation = tr
	return detailsResult(out, d), nil
}

// grepFile is one file to search and the path shown for it.
type grepFile struct {
	abs, display string
}

// grepSearch is one grep call's search state, read-only once built.
type grepSearch struct {
	ops     GrepOperations
	m       *lineMatcher
	context int
	limit   int
}

// grepHit is one match block: the match line and its context, formatted.
type grepHit struct {
	lines     []string
	truncated bool
}

// run searches files in order, batch by batch in parallel, and returns the output lines of the
// first limit matches, the number of matches taken, whether any line was cut, and the files
// skipped for their size (of the batches searched).
func (s *grepSearch) run(ctx context.Context, files []grepFile) (out []string, count int, cut bool, skipped []string, err error) {
	workers := runtime.GOMAXPROCS(0)
	results := make([][]grepHit, grepBatch)
	tooBig := make([]bool, grepBatch)
	for start := 0; start < len(files); start += grepBatch {
		batch := files[start:min(start+grepBatch, len(files))]
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(workers, len(batch)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					results[i], tooBig[i] = s.searchFile(ctx, batch[i])
				}
			}()
		}
		for i := range batch {
			next <- i
		}
		close(next)
		wg.Wait()
		if ctx.Err() != nil {
			return nil, 0, false, nil, ErrAborted
		}
		for i := range batch {
			if tooBig[i] {
				skipped = append(skipped, batch[i].display)
			}
			for _, h := range results[i] {
				out = append(out, h.lines...)
				cut = cut || h.truncated
				count++
				if count >= s.limit {
					return out, count, cut, skipped, nil
				}
			}
			results[i] = nil
		}
	}
	return out, count, cut, skipped, nil
}

// searchFile returns the match blocks of one file, at most s.limit of them. Unreadable and binary
// files, and anything but a regular file (a FIFO would block), have none; a file over
// GrepMaxFileBytes is not read and reported as tooBig.
func (s *grepSearch) searchFile(ctx context.Context, f grepFile) (hits []grepHit, tooBig bool) {
	if ctx.Err() != nil {
		return nil, false
	}
	fi, err := s.ops.Stat(ctx, f.abs)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	if fi.Size() > GrepMaxFileBytes {
		return nil, true
	}
	data, err := s.ops.ReadFile(ctx, f.abs)
	if err != nil || hasNUL(data) || !s.m.mayMatch(data) {
		return nil, false
	}
	var starts []int // line start offsets, built when context lines are needed
	if s.context > 0 {
		starts = append(starts, 0)
		for i, c := range data {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
	}
	lineAt := func(n int) []byte { // 0-based line n, without its "\n"
		end := len(data)
		if n+1 < len(starts) {
			end = starts[n+1] - 1
		}
		return data[starts[n]:end]
	}
	numLines := len(starts)
	if len(data) > 0 && data[len(data)-1] == '\n' {
		numLines-- // the empty piece after a final newline is not a line
	}
	// off == len(data) would be that empty piece, or an empty file.
	for n, off := 0, 0; off < len(data) && len(hits) < s.limit; n++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end = len(data) - off
			next = len(data) + 1
		}
		line := data[off : off+end]
		if s.m.match(line) {
			var h grepHit
			first, last := n, n
			if s.context > 0 {
				first = max(0, n-s.context)
				last = min(numLines-1, n+s.context)
			}
			for k := first; k <= last; k++ {
				text := line
				if k != n {
					text = lineAt(k)
				}
				t, cut := TruncateLine(strings.ReplaceAll(string(text), "\r", ""), GrepMaxLineLength)
				h.truncated = h.truncated || cut
				sep := "-"
				if k == n {
					sep = ":"
				}
				h.lines = append(h.lines, f.display+sep+strconv.Itoa(k+1)+sep+" "+t)
			}
			hits = append(hits, h)
		}
		off = next
	}
	return hits, false
}

// lineMatcher matches single lines against a grep pattern.
type lineMatcher struct {
	re     *regexp.Regexp
	pre    *regexp.Regexp // multi-line form used to skip files without any match; nil: none
	substr []byte         // case-sensitive literal: plain byte search
}

// newLineMatcher compiles pattern as grep's options say.
func newLineMatcher(pattern string, literal, ignoreCase bool) (*lineMatcher, error) {
	if literal && !ignoreCase {
		return &lineMatcher{substr: []byte(pattern)}, nil
	}
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("Invalid regular expression %q: %v. Fix the pattern, or set literal=true to search for the text as is.", pattern, err)
	}
	m := &lineMatcher{re: re}
	// A line matches on its own exactly when the same text matches inside the file with (?m),
	// unless the pattern anchors to the whole text or changes flags itself.
	if !strings.Contains(expr, `\A`) && !strings.Contains(expr, `\z`) && !strings.Contains(pattern, "(?") {
		m.pre, _ = regexp.Compile("(?m)" + expr)
	}
	return m, nil
}

// mayMatch reports whether some line of data can match.
func (m *lineMatcher) mayMatch(data []byte) bool {
	switch {
	case m.substr != nil:
		return bytes.Contains(data, m.substr)
	case m.pre != nil:
		return m.pre.Match(data)
	}
	return true
}

func (m *lineMatcher) match(line []byte) bool {
	if m.substr != nil {
		return bytes.Contains(line, m.substr)
	}
	return m.re.Match(line)
}
