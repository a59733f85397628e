package tool

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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

	var (
		lines          []string
		count          int
		linesTruncated bool
		skipped        []string
	)
	if !fi.IsDir() {
		lines, count, linesTruncated, skipped, err = s.run(ctx, []grepFile{{abs: root, display: filepath.Base(root)}})
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
		if _, local := t.ops.(LocalFS); local {
			lines, count, linesTruncated, skipped, err = s.runLocal(ctx, root, include)
		} else {
			var files []grepFile
			err = walkRoot(ctx, t.ops, "grep", root, func(rel string, typ fs.FileMode) error {
				if typ.Type() == 0 && include(rel) {
					files = append(files, grepFile{abs: filepath.Join(root, filepath.FromSlash(rel)), display: rel})
				}
				return nil
			})
			if err != nil {
				return Result{}, err
			}
			sort.Slice(files, func(i, j int) bool { return files[i].display < files[j].display })
			lines, count, linesTruncated, skipped, err = s.run(ctx, files)
		}
	}
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

// runLocal walks root on the local file system and searches its files as the walk finds them,
// in parallel, taking their results in sorted path order and stopping the walk at the match
// limit. Its results equal run's over the sorted file list.
func (s *grepSearch) runLocal(ctx context.Context, root string, include func(rel string) bool) (out []string, count int, cut bool, skipped []string, err error) {
	w, rd := startWalk(ctx, root, walkHooks{
		entry: func(e *walkEntry) {
			if e.typ.Type() == 0 && include(e.rel) {
				e.search = true
			}
		},
		search: func(j *fileJob, scratch *[]byte) {
			data, tooBig, ok := j.read(scratch, GrepMaxFileBytes, s.m.anyLine)
			j.tooBig = tooBig
			if ok {
				if j.hits = s.searchData(data, j.display); j.hits != nil && hasNUL(data) {
					j.hits = nil // binary
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
			skipped = append(skipped, e.job.display)
		}
		for _, h := range e.job.hits {
			out = append(out, h.lines...)
			cut = cut || h.truncated
			count++
			if count >= s.limit {
				return errStopWalk
			}
		}
		e.job = nil
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, false, nil, ErrAborted
		}
		return nil, 0, false, nil, fmt.Errorf("grep: walk %s: %w", root, err)
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
	if err != nil || hasNUL(data) {
		return nil, false
	}
	return s.searchData(data, f.display), false
}

// searchData returns the match blocks of one text file's content, at most s.limit of them.
func (s *grepSearch) searchData(data []byte, display string) (hits []grepHit) {
	matched := s.m.matchLines(data, s.limit, nil)
	if len(matched) == 0 {
		return nil
	}
	numLines, lineAt := splitLines(data)
	hits = make([]grepHit, 0, len(matched))
	for _, m := range matched {
		var h grepHit
		first, last := m, m
		if s.context > 0 {
			first = max(0, m-s.context)
			last = min(numLines-1, m+s.context)
		}
		for k := first; k <= last; k++ {
			t, cut := TruncateLine(strings.ReplaceAll(string(lineAt(k)), "\r", ""), GrepMaxLineLength)
			h.truncated = h.truncated || cut
			sep := "-"
			if k == m {
				sep = ":"
			}
			h.lines = append(h.lines, display+sep+strconv.Itoa(k+1)+sep+" "+t)
		}
		hits = append(hits, h)
	}
	return hits
}

// matchLines returns the 0-based numbers of the first limit lines of data that match (and that
// keep accepts, when keep is not nil). The matcher finds the next candidate line in the whole
// buffer (a literal by a byte search), so lines without a match are never looked at one by one.
func (m *lineMatcher) matchLines(data []byte, limit int, keep func(n int) bool) []int {
	var matched []int
	n := 0 // number of the line starting at off
	for off := 0; off < len(data) && len(matched) < limit; {
		pos := m.next(data, off)
		if pos < 0 {
			break
		}
		ls := off + bytes.LastIndexByte(data[off:pos], '\n') + 1
		if ls >= len(data) {
			break // the empty piece after a final newline is not a line
		}
		n += bytes.Count(data[off:ls], []byte{'\n'})
		le := len(data)
		if i := bytes.IndexByte(data[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		if (keep == nil || keep(n)) && m.match(data[ls:le]) {
			matched = append(matched, n)
		}
		off = le + 1
		n++
	}
	return matched
}

// anyLine reports whether any line of data matches: exactly when matchLines(data, 1, nil) is not
// empty, without counting lines or allocating. It probes the chunks of a big file.
func (m *lineMatcher) anyLine(data []byte) bool {
	for off := 0; off < len(data); {
		pos := m.next(data, off)
		if pos < 0 {
			return false
		}
		ls := off + bytes.LastIndexByte(data[off:pos], '\n') + 1
		if ls >= len(data) {
			return false
		}
		le := len(data)
		if i := bytes.IndexByte(data[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		if m.match(data[ls:le]) {
			return true
		}
		off = le + 1
	}
	return false
}

// splitLines indexes the lines of data (not empty): their number (the empty piece after a final
// newline is not a line) and a function returning 0-based line k without its "\n".
func splitLines(data []byte) (numLines int, lineAt func(k int) []byte) {
	starts := []int{0} // line start offsets
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	numLines = len(starts)
	if data[len(data)-1] == '\n' {
		numLines--
	}
	return numLines, func(k int) []byte {
		end := len(data)
		if k+1 < len(starts) {
			end = starts[k+1] - 1
		}
		return data[starts[k]:end]
	}
}

// lineMatcher matches single lines against a grep pattern. A pattern that is plain text (literal,
// or a regular expression without any operator) is searched for as bytes, case-insensitively for
// ASCII text when asked; anything else runs Go's regexp.
type lineMatcher struct {
	re     *regexp.Regexp
	pre    *regexp.Regexp // multi-line form that finds the next candidate line; nil: every line is one
	substr []byte         // case-sensitive literal: plain byte search
	lit    *literalFinder // finds substr when it is not empty
	fold   []byte         // ASCII literal matched ignoring case, lower-cased; nil: none
	foldF  *foldFinder    // finds fold
	// foldSpecial says fold holds "k" or "s", which Unicode case folding also matches by
	// non-ASCII runes (U+212A KELVIN SIGN, U+017F LONG S): text with non-ASCII bytes then goes
	// through re.
	foldSpecial bool
}

// newLineMatcher compiles pattern as grep's options say.
func newLineMatcher(pattern string, literal, ignoreCase bool) (*lineMatcher, error) {
	if literal && !ignoreCase {
		return newSubstrMatcher(nil, []byte(pattern)), nil
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
	if lit, fold, ok := plainText(expr); ok && !strings.ContainsRune(lit, utf8.RuneError) {
		switch {
		case !fold:
			return newSubstrMatcher(re, []byte(lit)), nil
		case isASCII(lit) && lit != "":
			m.fold = []byte(strings.ToLower(lit))
			m.foldF = newFoldFinder(m.fold)
			m.foldSpecial = strings.ContainsAny(string(m.fold), "ks")
		}
	}
	// A line matches on its own exactly when the same text matches inside the file with (?m),
	// unless the pattern anchors to the whole text or changes flags itself.
	if !strings.Contains(expr, `\A`) && !strings.Contains(expr, `\z`) && !strings.Contains(pattern, "(?") {
		m.pre, _ = regexp.Compile("(?m)" + expr)
	}
	return m, nil
}

// newSubstrMatcher returns the matcher of the case-sensitive literal substr (re: its regular
// expression, kept for reference; may be nil).
func newSubstrMatcher(re *regexp.Regexp, substr []byte) *lineMatcher {
	m := &lineMatcher{re: re, substr: substr}
	if len(substr) > 0 {
		m.lit = newLiteralFinder(substr)
	}
	return m
}

// plainText reports whether expr is a literal string (maybe case-folded) and returns it.
func plainText(expr string) (lit string, fold, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false, false
	}
	re = re.Simplify()
	if re.Op != syntax.OpLiteral {
		return "", false, false
	}
	return string(re.Rune), re.Flags&syntax.FoldCase != 0, true
}

// next returns the offset, at or after off (a line start), of the next place a match may start,
// or -1 when no line from off on can match.
func (m *lineMatcher) next(data []byte, off int) int {
	switch {
	case m.lit != nil:
		if i := m.lit.index(data[off:]); i >= 0 {
			return off + i
		}
		return -1
	case m.substr != nil:
		return off // the empty literal matches every line
	case m.fold != nil && !(m.foldSpecial && !isASCIIBytes(data)):
		if i := m.foldF.index(data[off:]); i >= 0 {
			return off + i
		}
		return -1
	case m.pre != nil:
		if loc := m.pre.FindIndex(data[off:]); loc != nil {
			return off + loc[0]
		}
		return -1
	}
	return off
}

// match reports whether one line (without its "\n") matches.
func (m *lineMatcher) match(line []byte) bool {
	if m.substr != nil {
		return bytes.Contains(line, m.substr)
	}
	return m.re.Match(line)
}

// equalFoldASCII reports whether s equals pat (lower-case) ignoring ASCII case.
func equalFoldASCII(s, pat []byte) bool {
	for i, p := range pat {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p {
			return false
		}
	}
	return true
}

// isASCII reports whether s is 7-bit ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isASCIIBytes reports whether b is 7-bit ASCII, eight bytes at a time.
func isASCIIBytes(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
