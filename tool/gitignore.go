package tool

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ignoreRule is one pattern line of a .gitignore file, compiled per gitignore(5).
type ignoreRule struct {
	re       *regexp.Regexp
	negate   bool // "!pattern": re-include
	dirOnly  bool // "pattern/": directories only
	basename bool // no slash in the pattern: matched against the last path element at any depth
}

// ignoreFile is the compiled content of one .gitignore (or .git/info/exclude).
type ignoreFile struct {
	rules []ignoreRule
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
		re, err := regexp.Compile(globRegexp(line))
		if err != nil {
			continue
		}
		r.re = re
		f.rules = append(f.rules, r)
	}
	if len(f.rules) == 0 {
		return nil
	}
	return &f
}

// trimUnescapedSpaces drops trailing spaces that are not escaped with a backslash.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// match decides rel (a "/"-separated path relative to the .gitignore's directory): the last
// matching rule wins. matched is false when no rule applies.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, matched bool) {
	base := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := rel
		if r.basename {
			target = base
		}
		if r.re.MatchString(target) {
			return !r.negate, true
		}
	}
	return false, false
}

// globRegexp translates a gitignore glob (wildmatch with FNM_PATHNAME) into an anchored regular
// expression: "*" and "?" never match "/", "**/" matches any number of leading directories, a
// trailing "/**" everything inside, "[...]" is a class ("!" or "^" negates), "\" escapes.
func globRegexp(p string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			segStart := i == 0 || p[i-1] == '/'
			switch {
			case j-i >= 2 && segStart && j == len(p):
				b.WriteString(".*")
			case j-i >= 2 && segStart && p[j] == '/':
				b.WriteString("(?:.*/)?")
				j++
			default:
				b.WriteString("[^/]*")
			}
			i = j
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			if class, n := globClass(p[i:]); n > 0 {
				b.WriteString(class)
				i += n
				continue
			}
			b.WriteString(`\[`)
			i++
		case c == '\\' && i+1 < len(p):
			_, size := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+1+size]))
			i += 1 + size
		default:
			_, size := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(p[i : i+size]))
			i += size
		}
	}
	b.WriteString("$")
	return b.String()
}

// globClass translates the bracket expression at the start of p and returns it with the number of
// bytes consumed, or n == 0 when p does not hold a closed bracket expression.
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
