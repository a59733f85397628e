// Package highlight colours source code with the theme's syntax tokens (tui.md §5.1:
// syntaxComment, syntaxKeyword, syntaxFunction, syntaxVariable, syntaxString, syntaxNumber,
// syntaxType, syntaxOperator, syntaxPunctuation) for read/write tool rows and markdown code
// blocks.
//
// It is a small table-driven tokenizer, not a parser: per language a keyword set, type names,
// line and block comment markers and string quotes. It has no package-level initialisation cost
// (the tables are built on first use), which keeps atomic's start-up fast; chroma's lexer
// registry alone cost tens of milliseconds at process start.
//
// highlight imports mode/tui/theme only. Safe for concurrent use.
package highlight

import (
	"path/filepath"
	"strings"
	"sync"
	"unicode"

	"github.com/atomic-cli/atomic/mode/tui/theme"
)

// lang describes one language for the tokenizer.
type lang struct {
	keywords   map[string]bool
	types      map[string]bool
	line       []string // line comment markers
	blockOpen  string
	blockClose string
	quotes     string // string delimiters
}

var (
	once  sync.Once
	langs map[string]*lang
	exts  map[string]string
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func build() {
	cLike := func(kw, ty string) *lang {
		return &lang{keywords: set(kw), types: set(ty), line: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: "\"'`"}
	}
	langs = map[string]*lang{
		"go": cLike("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota",
			"bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable"),
		"js": cLike("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of null undefined true false static get set from as",
			"string number boolean any unknown never void object Promise Array Map Set Record"),
		"ts": cLike("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of null undefined true false static get set from as interface type enum implements namespace declare readonly private public protected abstract keyof",
			"string number boolean any unknown never void object Promise Array Map Set Record"),
		"rust": cLike("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
			"i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box"),
		"c": cLike("auto break case const continue default do else enum extern for goto if inline register restrict return sizeof static struct switch typedef union volatile while NULL true false class namespace template typename public private protected virtual new delete using",
			"char double float int long short signed unsigned void bool size_t"),
		"java": cLike("abstract assert break case catch class const continue default do else enum extends final finally for goto if implements import instanceof interface native new package private protected public return static strictfp super switch synchronized this throw throws transient try volatile while null true false var record",
			"boolean byte char double float int long short void String Object Integer List Map"),
		"python": {keywords: set("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self"),
			types: set("int float str bool list dict set tuple bytes object"), line: []string{"#"}, quotes: "\"'"},
		"sh": {keywords: set("if then else elif fi case esac for while until do done in function return exit export local readonly echo cd set unset"),
			types: set(""), line: []string{"#"}, quotes: "\"'"},
		"ruby": {keywords: set("alias and begin break case class def defined do else elsif end ensure false for if in module next nil not or redo rescue retry return self super then true undef unless until when while yield require"),
			types: set(""), line: []string{"#"}, quotes: "\"'"},
		"json": {keywords: set("true false null"), types: set(""), quotes: "\""},
		"yaml": {keywords: set("true false null yes no"), types: set(""), line: []string{"#"}, quotes: "\"'"},
		"toml": {keywords: set("true false"), types: set(""), line: []string{"#"}, quotes: "\"'"},
		"sql": {keywords: set("select from where insert into values update set delete create table drop alter index join left right inner outer on and or not null is as group by order having limit distinct union primary key SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER INDEX JOIN LEFT RIGHT INNER OUTER ON AND OR NOT NULL IS AS GROUP BY ORDER HAVING LIMIT DISTINCT UNION PRIMARY KEY"),
			types: set("int integer text varchar boolean date timestamp INT INTEGER TEXT VARCHAR BOOLEAN DATE TIMESTAMP"), line: []string{"--"}, blockOpen: "/*", blockClose: "*/", quotes: "'\""},
	}
	exts = map[string]string{
		".go": "go", ".js": "js", ".mjs": "js", ".cjs": "js", ".jsx": "js", ".ts": "ts", ".tsx": "ts", ".mts": "ts",
		".rs": "rust", ".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".hpp": "c", ".java": "java", ".kt": "java",
		".py": "python", ".sh": "sh", ".bash": "sh", ".zsh": "sh", ".rb": "ruby", ".json": "json", ".jsonl": "json",
		".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".sql": "sql", ".cs": "java", ".swift": "rust", ".scala": "java",
	}
	for alias, to := range map[string]string{"golang": "go", "javascript": "js", "typescript": "ts", "tsx": "ts", "jsx": "js",
		"py": "python", "python3": "python", "bash": "sh", "shell": "sh", "zsh": "sh", "console": "sh", "rs": "rust", "cpp": "c", "c++": "c",
		"rb": "ruby", "yml": "yaml", "kotlin": "java", "csharp": "java", "cs": "java"} {
		langs[alias] = langs[to]
	}
}

// Lang returns the language name for a fence info string or a file path ("" when unknown).
func Lang(nameOrPath string) string {
	once.Do(build)
	n := strings.ToLower(strings.TrimSpace(nameOrPath))
	if _, ok := langs[n]; ok {
		return n
	}
	if l, ok := exts[filepath.Ext(n)]; ok {
		return l
	}
	switch filepath.Base(n) {
	case "makefile", "dockerfile", ".bashrc", ".zshrc", ".profile":
		return "sh"
	}
	return ""
}

// Lines colours code in language (a Lang name, a fence info string or a path) and returns one
// styled line per source line; styles never span lines. Unknown languages get fallback token
// colour on every line ("" for none).
func Lines(th *theme.Theme, language string, code string, fallback string) []string {
	src := strings.Split(code, "\n")
	once.Do(build)
	l := langs[Lang(language)]
	out := make([]string, len(src))
	if l == nil {
		for i, s := range src {
			if fallback != "" {
				s = th.Fg(fallback, s)
			}
			out[i] = s
		}
		return out
	}
	inBlock := false
	for i, s := range src {
		out[i], inBlock = line(th, l, s, inBlock)
	}
	return out
}

// line colours one source line; inBlock says a block comment is open at its start.
func line(th *theme.Theme, l *lang, s string, inBlock bool) (string, bool) {
	var b strings.Builder
	rs := []rune(s)
	i := 0
	emit := func(tok string, from, to int) {
		b.WriteString(th.Fg(tok, string(rs[from:to])))
	}
	hasAt := func(at int, m string) bool {
		return m != "" && strings.HasPrefix(string(rs[at:]), m)
	}
	for i < len(rs) {
		if inBlock {
			end := strings.Index(string(rs[i:]), l.blockClose)
			if end < 0 {
				emit("syntaxComment", i, len(rs))
				return b.String(), true
			}
			stop := i + len([]rune(string(rs[i:])[:end])) + len([]rune(l.blockClose))
			emit("syntaxComment", i, stop)
			i, inBlock = stop, false
			continue
		}
		c := rs[i]
		switch {
		case hasAt(i, l.blockOpen):
			inBlock = true
			continue
		case func() bool {
			for _, m := range l.line {
				if hasAt(i, m) {
					return true
				}
			}
			return false
		}():
			emit("syntaxComment", i, len(rs))
			return b.String(), false
		case strings.ContainsRune(l.quotes, c):
			j := i + 1
			for j < len(rs) && rs[j] != c {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(rs))
			emit("syntaxString", i, j)
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(rs) && (unicode.IsDigit(rs[j]) || unicode.IsLetter(rs[j]) || rs[j] == '.' || rs[j] == '_') {
				j++
			}
			emit("syntaxNumber", i, j)
			i = j
		case unicode.IsLetter(c) || c == '_' || c == '$':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_' || rs[j] == '$') {
				j++
			}
			w := string(rs[i:j])
			tok := "syntaxVariable"
			switch {
			case l.keywords[w]:
				tok = "syntaxKeyword"
			case l.types[w]:
				tok = "syntaxType"
			case j < len(rs) && rs[j] == '(':
				tok = "syntaxFunction"
			}
			emit(tok, i, j)
			i = j
		case unicode.IsSpace(c):
			j := i
			for j < len(rs) && unicode.IsSpace(rs[j]) {
				j++
			}
			b.WriteString(string(rs[i:j]))
			i = j
		case strings.ContainsRune("+-*/%=<>!&|^~?:", c):
			emit("syntaxOperator", i, i+1)
			i++
		default:
			emit("syntaxPunctuation", i, i+1)
			i++
		}
	}
	return b.String(), inBlock
}
