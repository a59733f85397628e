package tool

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ignoreRule is one pattern line of a .gitignore file, compiled per gitignore(5) into a glob
// matched without regular expressions: a literal compares strings, "*suffix" and "prefix*" are
// suffix and prefix tests, anything else runs wildmatch (only a bracket class uses a compiled
// class).
type ignoreRule struct {
	pat      string // the glob, without "!", a leading "/" or trailing "/"
	kind     globKind
	lit      string // literal, suffix or prefix for the fast kinds
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	basename bool   // no slash in the pattern: matched against the last path element at any depth
	// segs is the number of path elements a path rule without "**" matches; -1 for any.
	segs    int
	classes map[int]globClassRe // bracket expressions by their offset in pat
}

// globKind is how a glob is matched.
type globKind uint8

const (
	globWild    globKind = iota // general wildmatch
	globLiteral                 // no wildcard: equality
	globSuffix                  // "*" + literal
	globPrefix                  // literal + "*"
	globAny                     // "*": any single element
)

// globClassRe is one bracket expression of a glob: the regular expression matching one
// character, and the length of the expression in the glob.
type globClassRe struct {
	re *regexp.Regexp
	n  int
}

// ignoreFile is the compiled content of one .gitignore (or .git/info/exclude).
type ignoreFile struct {
	rules     []ignoreRule
	pathRules bool // some rule is matched against the whole relative path
}

// parseIgnore compiles the lines of a .gitignore. Lines that do not form a valid pattern are
// skipped, as git does. It returns nil when no rule remains.
func parseIgnore(data []byte) *ignoreFile {
	var f ignoreFile
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSuffix(string(raw), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimUnescapedSpaces(line)
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			line = strings.TrimPrefix(line, "/")
		} else {
			r.basename = true
		}
		if !utf8.ValidString(line) || !compileGlob(&r, line) {
			continue
		}
		f.pathRules = f.pathRules || !r.basename
		f.rules = append(f.rules, r)
	}
	if len(f.rules) == 0 {
		return nil
	}
	return &f
}

// compileGlob fills the matcher fields of r for glob p; false when p holds an invalid bracket
// expression.
func compileGlob(r *ignoreRule, p string) bool {
	r.pat = p
	r.segs = -1
	if !strings.Contains(p, "**") {
		r.segs = strings.Count(p, "/") + 1
	}
	meta := strings.IndexAny(p, `*?[\`)
	switch {
	case meta < 0:
		r.kind, r.lit = globLiteral, p
	case p == "*":
		r.kind = globAny
	case p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\/`):
		r.kind, r.lit = globSuffix, p[1:]
	case meta == len(p)-1 && p[meta] == '*' && !strings.Contains(p, "/"):
		r.kind, r.lit = globPrefix, p[:meta]
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			class, n := globClass(p[i:])
			if n == 0 {
				continue // a lone "[" is literal
			}
			re, err := regexp.Compile("^" + class + "$")
			if err != nil {
				return false
			}
			if r.classes == nil {
				r.classes = map[int]globClassRe{}
			}
			r.classes[i] = globClassRe{re: re, n: n}
			i += n - 1
		}
	}
	return true
}

// trimUnescapedSpaces drops trailing spaces that are not escaped with a backslash.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// matchString reports whether target (an element for a basename rule, a relative path otherwise)
// matches the rule's glob.
func (r *ignoreRule) matchString(target string) bool {
	switch r.kind {
	case globLiteral:
		return target == r.lit
	case globSuffix:
		return strings.HasSuffix(target, r.lit) && (r.basename || !strings.Contains(target[:len(target)-len(r.lit)], "/"))
	case globPrefix:
		return strings.HasPrefix(target, r.lit) && (r.basename || !strings.Contains(target[len(r.lit):], "/"))
	case globAny:
		return r.basename || !strings.Contains(target, "/")
	}
	return wildmatch(r.pat, 0, target, r.classes)
}

// match decides rel (a "/"-separated path relative to the .gitignore's directory): the last
// matching rule wins. matched is false when no rule applies.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, matched bool) {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := rel
		if r.basename {
			target = base
		}
		if r.matchString(target) {
			return !r.negate, true
		}
	}
	return false, false
}

// matchIn decides the entry name of a directory whose path relative to the .gitignore's
// directory is prefix ("" or ending in "/") and which lies depth elements below it; it is match
// without building the relative path unless a path rule needs it.
func (f *ignoreFile) matchIn(prefix string, depth int, name string, isDir bool) (ignored, matched bool) {
	rel := ""
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := name
		if !r.basename {
			if r.segs >= 0 && r.segs != depth+1 {
				continue
			}
			if rel == "" {
				rel = prefix + name
			}
			target = rel
		}
		if r.matchString(target) {
			return !r.negate, true
		}
	}
	return false, false
}

// wildmatch matches s against p[i:], a gitignore glob (wildmatch with FNM_PATHNAME): "*" and "?"
// never match "/", "**/" at the start of an element matches any number of leading directories, a
// trailing "/**" everything inside, "[...]" is a class (classes holds them compiled), "\"
// escapes.
func wildmatch(p string, i int, s string, classes map[int]globClassRe) bool {
	for i < len(p) {
		c := p[i]
		switch {
		case c == '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			segStart := i == 0 || p[i-1] == '/'
			if j-i >= 2 && segStart && j == len(p) {
				return true
			}
			if j-i >= 2 && segStart && p[j] == '/' {
				if wildmatch(p, j+1, s, classes) {
					return true
				}
				for k := 0; k < len(s); k++ {
					if s[k] == '/' && wildmatch(p, j+1, s[k+1:], classes) {
						return true
					}
				}
				return false
			}
			if j == len(p) {
				return !strings.Contains(s, "/")
			}
			for k := 0; ; k++ {
				if wildmatch(p, j, s[k:], classes) {
					return true
				}
				if k == len(s) || s[k] == '/' {
					return false
				}
			}
		case c == '?':
			if s == "" || s[0] == '/' {
				return false
			}
			_, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			i++
		case c == '[' && classes[i].re != nil:
			if s == "" {
				return false
			}
			cl := classes[i]
			_, size := utf8.DecodeRuneInString(s)
			if !cl.re.MatchString(s[:size]) {
				return false
			}
			s = s[size:]
			i += cl.n
		case c == '\\' && i+1 < len(p):
			_, size := utf8.DecodeRuneInString(p[i+1:])
			if !strings.HasPrefix(s, p[i+1:i+1+size]) {
				return false
			}
			s = s[size:]
			i += 1 + size
		default:
			if s == "" || s[0] != c {
				return false
			}
			s = s[1:]
			i++
		}
	}
	return s == ""
}

// globClass translates the bracket expression at the start of p into a regular expression class
// and returns it with the number of bytes consumed, or n == 0 when p does not hold a closed
// bracket expression.
func globClass(p string) (class string, n int) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	var b strings.Builder
	b.WriteString("[")
	if negate {
		b.WriteString("^/")
	}
	first := true
	for i < len(p) {
		c := p[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return b.String(), i + 1
		case c == '[' && i+1 < len(p) && p[i+1] == ':':
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return "", 0
			}
			b.WriteString(p[i : i+2+end+2])
			i += 2 + end + 2
		case c == '\\' && i+1 < len(p):
			if strings.IndexByte(`\[]^-`, p[i+1]) >= 0 {
				b.WriteString(`\`)
			}
			b.WriteByte(p[i+1])
			i += 2
		case c == '\\' || c == '[' || c == ']' || c == '^':
			b.WriteString(`\`)
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
		first = false
	}
	return "", 0
}
