package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Search limits (tools.md §10.2): results come in pages of SearchPageFiles matching files, with
// at most SearchFileMatches matches per file, or SearchSingleFileMatches when the search is of
// one file; lines are cut at SearchMaxLineLength characters and files over SearchMaxFileBytes
// are not searched.
const (
	SearchPageFiles         = 20
	SearchFileMatches       = 20
	SearchSingleFileMatches = 200
	SearchMaxLineLength     = 512
	SearchMaxFileBytes      = 4 << 20
)

// SearchOptions configure the search tool.
type SearchOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations GrepOperations
	// ContextBefore and ContextAfter are the context lines shown around each match; nil means
	// 1 before and 3 after (Atomic's search.contextBefore/After defaults).
	ContextBefore, ContextAfter *int
}

// SearchDetails is details of a search result (Atomic's SearchToolDetails, tools.md §10.2).
type SearchDetails struct {
	// ScopePath and SearchPath are the searched paths as given, joined with ", ".
	ScopePath  string `json:"scopePath"`
	SearchPath string `json:"searchPath"`
	Cwd        string `json:"cwd"`
	// MatchCount and FileCount count the matches and files shown; Files names the files
	// (display paths) in output order and FileMatches their match counts.
	MatchCount  int            `json:"matchCount"`
	FileCount   int            `json:"fileCount"`
	Files       []string       `json:"files"`
	FileMatches map[string]int `json:"fileMatches"`
	// MissingPaths are given paths that do not exist (skipped when several were given).
	MissingPaths []string `json:"missingPaths,omitempty"`
	// DisplayContent is the text returned to the model.
	DisplayContent string `json:"displayContent"`
	// FileLimitReached says more matching files exist past this page (use skip).
	FileLimitReached bool `json:"fileLimitReached,omitempty"`
	// PerFileLimitReached says some file had more matches than are shown for it.
	PerFileLimitReached bool        `json:"perFileLimitReached,omitempty"`
	Truncation          *Truncation `json:"truncation,omitempty"`
	// LinesTruncated says some lines were cut to SearchMaxLineLength characters.
	LinesTruncated bool `json:"linesTruncated,omitempty"`
	// SkippedLargeFiles counts the files not searched because they are over SearchMaxFileBytes.
	SkippedLargeFiles int        `json:"skippedLargeFiles,omitempty"`
	Meta              SearchMeta `json:"meta"`
}

// SearchMeta is the meta block of SearchDetails: the source searched, the output truncation and
// the page size when a page was full.
type SearchMeta struct {
	Source     string        `json:"source"`
	Truncation *Truncation   `json:"truncation,omitempty"`
	Limits     *SearchLimits `json:"limits,omitempty"`
}

// SearchLimits names the page size of a full page.
type SearchLimits struct {
	FileLimit int `json:"fileLimit"`
}

// Search is Atomic's search tool (tools.md §10.2) on atomic's grep engine: a regular expression
// (Go RE2 syntax; (?i) and the like inline) searched in files, directories and globs, results
// grouped per file under `[path#TAG]` headers with `*N:` match rows and ` N:` context rows,
// paged by matching files (skip). Hidden files are searched; .gitignore rules apply unless
// gitignore is false; binary files are skipped.
type Search struct {
	cwd           string
	ops           GrepOperations
	before, after int
}

// NewSearch returns the search tool for the session working directory cwd.
func NewSearch(cwd string, opts SearchOptions) *Search {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	s := &Search{cwd: cwd, ops: opts.Operations, before: 1, after: 3}
	if opts.ContextBefore != nil {
		s.before = max(*opts.ContextBefore, 0)
	}
	if opts.ContextAfter != nil {
		s.after = max(*opts.ContextAfter, 0)
	}
	return s
}

var searchSchema = json.RawMessage(`{"type":"object","required":["pattern"],"additionalProperties":false,"properties":{` +
	`"pattern":{"type":"string","description":"Regular expression to look for (RE2 syntax). A pattern of only whitespace is refused."},` +
	`"paths":{"anyOf":[{"type":"string","description":"A file, directory, glob or <file>:<lines> selector to search; empty or omitted means the working directory."},` +
	`{"type":"array","items":{"type":"string","description":"A file, directory, glob or <file>:<lines> selector to search."}}]},` +
	`"i":{"type":"boolean","description":"Match case-insensitively."},` +
	`"gitignore":{"type":"boolean","description":"Apply .gitignore rules (default true)."},` +
	`"case":{"type":"boolean","description":"false matches case-insensitively (same as i: true)."},` +
	`"skip":{"anyOf":[{"type":"number","description":"Matching files to pass over before results start; set it to page on when a page was full."},{"type":"null"}]}}}`)

// Name implements Tool.
func (*Search) Name() string { return "search" }

// Label implements Labeler.
func (*Search) Label() string { return "search" }

// Description implements Tool.
func (*Search) Description() string {
	return "Search the contents of files for a regular expression. paths takes files, directories, " +
		"globs (src/**/*.ts) or file:lines selectors. Results are grouped per file under a [path#TAG] " +
		"line, with *N: for matching lines and  N: for context lines; " + strconv.Itoa(SearchPageFiles) +
		" matching files per page (skip pages on), " + strconv.Itoa(SearchFileMatches) + " matches per file (" +
		strconv.Itoa(SearchSingleFileMatches) + " when searching one file). Respects .gitignore."
}

// Parameters implements Tool.
func (*Search) Parameters() json.RawMessage { return searchSchema }

// PromptSnippet implements Prompter.
func (*Search) PromptSnippet() string { return "Search file contents for regular expressions" }

// PromptGuidelines implements Prompter.
func (*Search) PromptGuidelines() []string { return nil }

type searchParams struct {
	Pattern   string   `json:"pattern"`
	Paths     any      `json:"paths"`
	I         bool     `json:"i"`
	Gitignore *bool    `json:"gitignore"`
	Case      *bool    `json:"case"`
	Skip      *float64 `json:"skip"`
}

// searchTarget is one path to search: a file or directory, with the glob that selects files
// below it and the line ranges that select matches of a file.
type searchTarget struct {
	given  string // as the call named it
	abs    string
	glob   string
	ranges []lineRange
}

// lineRange is an inclusive range of 1-based line numbers.
type lineRange struct{ start, end int }

// searchRow is one output row of a file: a match or a context line.
type searchRow struct {
	n     int // 1-based
	match bool
	text  string
}

// searchFile is one searched file's result.
type searchFile struct {
	abs, display, tag string
	rows              []searchRow
	matches           int
	capped, cut       bool
}

// Execute implements Tool. Errors: "Pattern must not be empty", an invalid regular expression,
// glob or line-range selector, "Path not found: <abs>" for a single missing path, a negative
// skip, ErrAborted.
func (t *Search) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[searchParams]("search", call.Args)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(p.Pattern) == "" {
		return Result{}, errors.New("Pattern must not be empty")
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	given, err := searchPathList(p.Paths)
	if err != nil {
		return Result{}, err
	}
	skip := 0
	if p.Skip != nil {
		if math.IsNaN(*p.Skip) || math.IsInf(*p.Skip, 0) || *p.Skip < 0 {
			return Result{}, errors.New("Skip must be a non-negative number")
		}
		skip = intArg(p.Skip, 0)
	}
	ignoreCase := p.I || (p.Case != nil && !*p.Case)
	m, err := newLineMatcher(p.Pattern, false, ignoreCase)
	if err != nil {
		return Result{}, err
	}
	targets, err := t.targets(ctx, given)
	if err != nil {
		return Result{}, err
	}
	scope := strings.Join(given, ", ")
	// Missing paths: an error for a single path, skipped and named among several.
	var missing []string
	var infos []fs.FileInfo
	var live []searchTarget
	for _, tg := range targets {
		fi, err := t.ops.Stat(ctx, tg.abs)
		if err != nil {
			if len(targets) == 1 {
				return Result{}, fmt.Errorf("Path not found: %s", tg.abs)
			}
			missing = append(missing, tg.given)
			continue
		}
		if len(tg.ranges) > 0 && fi.IsDir() {
			return Result{}, errors.New("Line-range search selectors are only supported for single files")
		}
		live = append(live, tg)
		infos = append(infos, fi)
	}
	single := len(targets) == 1 && len(live) == 1 && !infos[0].IsDir()
	perFile, skipIgnored := SearchFileMatches, false
	if single {
		perFile = SearchSingleFileMatches
		skipIgnored, skip = skip > 0, 0
	}

	// Collect the page: matching files past skip, up to SearchPageFiles, in target order and
	// path order within a directory; one more matching file means a further page exists.
	var (
		page      []*searchFile
		seen      = map[string]bool{}
		matching  int
		more      bool
		tooBig    []string
		collector = func(f *searchFile) bool { // false: stop
			if f == nil || f.matches == 0 || seen[f.abs] {
				return true
			}
			seen[f.abs] = true
			matching++
			if matching <= skip {
				return true
			}
			if len(page) == SearchPageFiles {
				more = true
				return false
			}
			page = append(page, f)
			return true
		}
	)
	gitignore := p.Gitignore == nil || *p.Gitignore
	for i, tg := range live {
		var stop bool
		if !infos[i].IsDir() {
			f, big, err := t.searchOne(ctx, m, tg, perFile)
			if err != nil {
				return Result{}, err
			}
			if big {
				tooBig = append(tooBig, displayPath(tg.abs, t.cwd))
			}
			stop = !collector(f)
		} else {
			stop, err = t.searchDir(ctx, m, tg, perFile, gitignore, collector, &tooBig)
			if err != nil {
				return Result{}, err
			}
		}
		if stop {
			break
		}
	}

	d := SearchDetails{ScopePath: scope, SearchPath: scope, Cwd: t.cwd, Files: []string{}, FileMatches: map[string]int{}, MissingPaths: missing}
	var lines []string
	lastDir := ""
	for _, f := range page {
		if dir := path.Dir(f.display); dir != "." && dir != lastDir {
			lines = append(lines, "# "+dir+"/")
			lastDir = dir
		}
		lines = append(lines, "["+f.display+"#"+f.tag+"]")
		for _, r := range f.rows {
			mark := " "
			if r.match {
				mark = "*"
			}
			lines = append(lines, mark+strconv.Itoa(r.n)+":"+r.text)
		}
		d.Files = append(d.Files, f.display)
		d.FileMatches[f.display] += f.matches
		d.MatchCount += f.matches
		d.PerFileLimitReached = d.PerFileLimitReached || f.capped
		d.LinesTruncated = d.LinesTruncated || f.cut
	}
	d.FileCount = len(d.Files)
	out := strings.Join(lines, "\n")
	switch {
	case out == "" && skip > 0:
		out = "No more results (skip=" + strconv.Itoa(skip) + ")"
	case out == "":
		out = "No matches found"
	}
	var notices []string
	if len(missing) > 0 {
		notices = append(notices, "[Skipped missing paths: "+strings.Join(missing, ", ")+"]")
	}
	if len(tooBig) > 0 {
		d.SkippedLargeFiles = len(tooBig)
		names := tooBig[:min(len(tooBig), 5)]
		extra := ""
		if len(tooBig) > len(names) {
			extra = fmt.Sprintf(" and %d more", len(tooBig)-len(names))
		}
		notices = append(notices, fmt.Sprintf("[Skipped %d file(s) over the %s search limit: %s%s. Use bash (rg, grep) to search them.]",
			len(tooBig), FormatSize64(SearchMaxFileBytes), strings.Join(names, ", "), extra))
	}
	if more {
		d.FileLimitReached = true
		d.Meta.Limits = &SearchLimits{FileLimit: SearchPageFiles}
		notices = append(notices, fmt.Sprintf("[%d matching files shown. Use skip=%d to view more.]", SearchPageFiles, skip+SearchPageFiles))
	}
	if skipIgnored {
		notices = append(notices, "[skip does not apply to the search of one file; narrow the pattern or search a directory to page through files.]")
	}
	if len(notices) > 0 {
		out += "\n\n" + strings.Join(notices, "\n\n")
	}
	tr := TruncateHead(out, TruncateOptions{MaxLines: noLineLimit})
	if tr.Truncated {
		out = tr.Content + "\n\n[" + FormatSize(DefaultMaxBytes) + " combined output limit reached]"
		d.Truncation = &tr
		d.Meta.Truncation = &tr
	}
	d.DisplayContent = out
	d.Meta.Source = scope
	return TextResult(out, d), nil
}

// searchPathList returns the paths argument as a list: a string is one path, an array its
// strings, nothing (or an empty list) the working directory.
func searchPathList(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return []string{"."}, nil
	case string:
		return []string{x}, nil
	case []any:
		if len(x) == 0 {
			return []string{"."}, nil
		}
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("search: paths must be strings, got %T", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("search: paths must be a string or a list of strings, got %T", v)
}

// trimPathLike strips blanks and one pair of matching quotes or backticks around a path.
func trimPathLike(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		if q := s[0]; (q == '"' || q == '\'' || q == '`') && s[len(s)-1] == q {
			s = strings.TrimSpace(s[1 : len(s)-1])
		}
	}
	return s
}

var (
	lineSelectorRe = regexp.MustCompile(`^(.*):(\d+(?:(?:-|\.\.|\+)\d*)?(?:,\d+(?:(?:-|\.\.|\+)\d*)?)*)$`)
	resourceRe     = regexp.MustCompile(`(?i)^(?:[a-z]+://|[^:]+\.(?:zip|jar|tar|tgz|gz|sqlite3?|db3?):)`)
)

// splitLineSelector splits "file:3-5,9" into the path and its line ranges (N, A-B, A..B, A+C).
func splitLineSelector(s string) (string, []lineRange, error) {
	m := lineSelectorRe.FindStringSubmatch(s)
	if m == nil {
		return s, nil, nil
	}
	var out []lineRange
	for _, part := range strings.Split(m[2], ",") {
		var r lineRange
		num := func(x string) int { n, _ := strconv.Atoi(x); return n }
		switch {
		case strings.Contains(part, "+"):
			a, c, _ := strings.Cut(part, "+")
			r = lineRange{num(a), num(a) + num(c) - 1}
			if num(c) < 1 {
				return "", nil, fmt.Errorf("Invalid line-range selector: %s", m[2])
			}
		case strings.Contains(part, ".."):
			a, b, _ := strings.Cut(part, "..")
			r = lineRange{num(a), num(b)}
		case strings.Contains(part, "-"):
			a, b, _ := strings.Cut(part, "-")
			r = lineRange{num(a), num(b)}
		default:
			r = lineRange{num(part), num(part)}
		}
		if r.start < 1 || r.end < r.start {
			return "", nil, fmt.Errorf("Invalid line-range selector: %s", m[2])
		}
		out = append(out, r)
	}
	return m[1], out, nil
}

// splitGlob splits a path with glob characters into the directory before the first element
// holding one and the glob of the rest: "src/**/*.ts" is "src" and "**/*.ts".
func splitGlob(p string) (base, glob string) {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, part := range parts {
		if strings.ContainsAny(part, "*?[{") {
			base = strings.Join(parts[:i], "/")
			if base == "" && i > 0 {
				base = "/"
			}
			if base == "" {
				base = "."
			}
			return base, strings.Join(parts[i:], "/")
		}
	}
	return p, ""
}

// targets turns the given paths into search targets. A path that does not exist but splits on
// ";", "," or blanks into parts that do is taken as those parts (models join several paths in
// one string).
func (t *Search) targets(ctx context.Context, given []string) ([]searchTarget, error) {
	exists := func(p string) bool {
		p, _, err := splitLineSelector(p)
		if err != nil {
			return false
		}
		base, _ := splitGlob(p)
		_, serr := t.ops.Stat(ctx, ResolveToCwd(base, t.cwd))
		return serr == nil
	}
	var expanded []string
	for _, g := range given {
		g = trimPathLike(g)
		if g == "" {
			expanded = append(expanded, ".")
			continue
		}
		if exists(g) || resourceRe.MatchString(g) {
			expanded = append(expanded, g)
			continue
		}
		var parts []string
		for _, chunk := range strings.FieldsFunc(g, func(r rune) bool { return r == ';' || r == ' ' || r == '\t' || r == '\n' }) {
			if chunk = trimPathLike(chunk); chunk == "" {
				continue
			}
			if exists(chunk) {
				parts = append(parts, chunk)
				continue
			}
			for _, c := range strings.Split(chunk, ",") {
				if c = trimPathLike(c); c != "" {
					parts = append(parts, c)
				}
			}
		}
		ok := len(parts) > 1
		if ok && strings.ContainsAny(g, ";,") {
			ok = false
			for _, p := range parts {
				ok = ok || exists(p)
			}
		} else if ok {
			for _, p := range parts {
				ok = ok && exists(p)
			}
		}
		if ok {
			expanded = append(expanded, parts...)
		} else {
			expanded = append(expanded, g)
		}
	}
	out := make([]searchTarget, 0, len(expanded))
	for _, e := range expanded {
		if resourceRe.MatchString(e) {
			return nil, fmt.Errorf("search: resource selectors (archives, databases, internal URLs) are not supported by atomic: %s", e)
		}
		p, ranges, err := splitLineSelector(e)
		if err != nil {
			return nil, err
		}
		base, glob := splitGlob(p)
		if glob != "" {
			if _, err := globMatcher(glob); err != nil {
				return nil, err
			}
		}
		out = append(out, searchTarget{given: e, abs: ResolveToCwd(base, t.cwd), glob: glob, ranges: ranges})
	}
	return out, nil
}

// searchOne searches one file target.
func (t *Search) searchOne(ctx context.Context, m *lineMatcher, tg searchTarget, perFile int) (*searchFile, bool, error) {
	if err := checkAborted(ctx); err != nil {
		return nil, false, err
	}
	fi, err := t.ops.Stat(ctx, tg.abs)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	if fi.Size() > SearchMaxFileBytes {
		return nil, true, nil
	}
	data, err := t.ops.ReadFile(ctx, tg.abs)
	if err != nil || hasNUL(data) {
		return nil, false, nil
	}
	return t.scan(m, data, tg.abs, perFile, tg.ranges), false, nil
}

// searchDir searches the files below a directory target in path order, handing each to collect
// until it returns false (stop reports that).
func (t *Search) searchDir(ctx context.Context, m *lineMatcher, tg searchTarget, perFile int, gitignore bool, collect func(*searchFile) bool, tooBig *[]string) (stop bool, err error) {
	include := func(string) bool { return true }
	if tg.glob != "" {
		include, _ = globMatcher(tg.glob)
	}
	if _, local := t.ops.(LocalFS); !local {
		var files []string
		err := walkRoot(ctx, t.ops, "search", tg.abs, func(rel string, typ fs.FileMode) error {
			if typ.Type() == 0 && include(rel) {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return false, err
		}
		sort.Strings(files)
		for _, rel := range files {
			f, big, err := t.searchOne(ctx, m, searchTarget{abs: filepath.Join(tg.abs, filepath.FromSlash(rel))}, perFile)
			if err != nil {
				return false, err
			}
			if big {
				*tooBig = append(*tooBig, displayPath(filepath.Join(tg.abs, filepath.FromSlash(rel)), t.cwd))
			}
			if !collect(f) {
				return true, nil
			}
		}
		return false, nil
	}
	w, rd := startWalk(ctx, tg.abs, walkHooks{
		noIgnore: !gitignore,
		entry: func(e *walkEntry) {
			if e.typ.Type() == 0 && include(e.rel) {
				e.search = true
			}
		},
		search: func(j *fileJob, scratch *[]byte) {
			data, big, ok := j.read(scratch, SearchMaxFileBytes, m.anyLine)
			j.tooBig = big
			if ok {
				if j.found = t.scan(m, data, j.path(), perFile, nil); j.found.matches > 0 && hasNUL(data) {
					j.found = nil // binary
				}
			}
		},
	})
	defer w.finish()
	err = w.visit(rd, func(e *walkEntry) error {
		if e.job == nil {
			return nil
		}
		if !w.waitJob(e.job) {
			return ctx.Err()
		}
		if e.job.tooBig {
			*tooBig = append(*tooBig, displayPath(e.job.path(), t.cwd))
		}
		if !collect(e.job.found) {
			stop = true
			return errStopWalk
		}
		e.job = nil
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ErrAborted
		}
		return false, fmt.Errorf("search: walk %s: %w", tg.abs, err)
	}
	return stop, nil
}

// scan searches one file's content: its first perFile matches (those inside ranges, when
// given) with their context rows. A file without a match returns a result with no matches;
// data is not kept (it may be a reused buffer).
func (t *Search) scan(m *lineMatcher, data []byte, abs string, perFile int, ranges []lineRange) *searchFile {
	f := &searchFile{abs: abs}
	var keep func(n int) bool
	if len(ranges) > 0 {
		keep = func(n int) bool {
			for _, r := range ranges {
				if n+1 >= r.start && n+1 <= r.end {
					return true
				}
			}
			return false
		}
	}
	matched := m.matchLines(data, perFile+1, keep)
	if len(matched) == 0 {
		return f
	}
	if len(matched) > perFile {
		matched, f.capped = matched[:perFile], true
	}
	f.matches = len(matched)
	f.display = displayPath(abs, t.cwd)
	f.tag = ContentTag(data)
	numLines, lineAt := splitLines(data)
	isMatch := make(map[int]bool, len(matched))
	for _, n := range matched {
		isMatch[n] = true
	}
	next := 0 // first line not yet shown
	for _, n := range matched {
		from := max(n-t.before, next)
		to := min(n+t.after, numLines-1)
		for k := from; k <= to; k++ {
			text, cut := TruncateLine(strings.ReplaceAll(string(lineAt(k)), "\r", ""), SearchMaxLineLength)
			f.cut = f.cut || cut
			f.rows = append(f.rows, searchRow{n: k + 1, match: isMatch[k], text: text})
		}
		next = max(next, to+1)
	}
	return f
}
