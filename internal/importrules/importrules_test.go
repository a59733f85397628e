package importrules

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/atomic-cli/atomic"

// pkg is one package of the module: its path relative to the module root, its name, its package
// doc comment and the module packages its non-test files import.
type pkg struct {
	rel, name, doc string
	imports        map[string]bool // relative paths
}

// loadPackages parses every package of the module under root (skipping testdata, node_modules,
// hidden directories and nested modules), non-test files only, all build tags.
func loadPackages(t *testing.T, root string) map[string]*pkg {
	t.Helper()
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own (examples/custom-binary)
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		pk := pkgs[rel]
		if pk == nil {
			pk = &pkg{rel: rel, name: f.Name.Name, imports: map[string]bool{}}
			pkgs[rel] = pk
		}
		if f.Doc != nil {
			pk.doc += f.Doc.Text() + "\n"
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if ip == module || strings.HasPrefix(ip, module+"/") {
				im := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
				if im == "" {
					im = "." // the module root package, named by its relative path
				}
				pk.imports[im] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// rule is what a package doc states: the module packages it may import (any of them when
// allowAll), and who alone may import it (nil: no such statement).
type rule struct {
	sentence  string
	allowed   map[string]bool
	subpkgs   bool     // "its subpackages" may be imported
	importers []string // "nothing imports it but cli": the only importers
}

var (
	// "<name> imports a, b and c (why); never …" — the list ends at ";" or the sentence's end.
	// "It imports …" names the package itself.
	importsRe = regexp.MustCompile(`\b([A-Za-z][a-z0-9]*) imports (.+?)(?:;|\.\s|\.$|, never |, nothing else)`)
	// "nothing imports it but a and b" / "only a and b import it"
	onlyRe = regexp.MustCompile(`(?:nothing imports it but ([^.;:]{1,80}?)|only ([^.;:]{1,80}?) imports? it)(?:[.;]|$)`)
	parens = regexp.MustCompile(`\([^)]*\)`)
)

// parseRule reads the rule of p's doc; ok is false when the doc states none.
func parseRule(t *testing.T, p *pkg, all map[string]*pkg) (r rule, ok bool) {
	doc := parens.ReplaceAllString(strings.Join(strings.Fields(p.doc), " "), "")
	var m []string
	for _, c := range importsRe.FindAllStringSubmatch(doc, -1) {
		if c[1] == p.name || c[1] == "It" {
			m = c
			break
		}
	}
	if m == nil {
		return rule{}, false
	}
	r.sentence = strings.TrimSpace(m[0])
	r.allowed = map[string]bool{}
	list := m[2]
	switch {
	case strings.HasPrefix(list, "nothing"), strings.Contains(list, "only the standard library"):
		list = ""
	}
	for _, item := range splitList(list) {
		item = strings.TrimSuffix(strings.TrimSpace(item), " only")
		switch {
		case item == "":
		case item == "its subpackages":
			r.subpkgs = true
		default:
			if rel := resolve(item, all); rel != "" {
				r.allowed[rel] = true
			}
			// Anything else names a package outside the module (Bubble Tea, glamour, …).
		}
	}
	if m := onlyRe.FindStringSubmatch(doc); m != nil {
		who := m[1] + m[2]
		r.importers = []string{}
		for _, item := range splitList(who) {
			item = strings.TrimSpace(item)
			switch {
			case item == "tests": // test files are not checked
			case item == "the command line":
				r.importers = append(r.importers, "cli")
			default:
				item = strings.TrimSuffix(strings.TrimPrefix(item, "the "), " tool")
				rel := resolve(item, all)
				if rel == "" {
					t.Errorf("%s: the doc says only %q imports it, which names no package of the module", p.rel, item)
					continue
				}
				r.importers = append(r.importers, rel)
			}
		}
	}
	return r, true
}

// splitList splits "a, b and c" into its items.
func splitList(s string) []string {
	s = strings.ReplaceAll(s, " and ", ", ")
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// resolve maps a name in a doc ("mode/json", "session", "ext/host") to a package's relative path:
// the path itself, else the one package whose last element is the name; "" when none or several.
func resolve(name string, all map[string]*pkg) string {
	name = strings.TrimSuffix(strings.Trim(name, "`"), "/")
	if _, ok := all[name]; ok {
		return name
	}
	found := ""
	for rel := range all {
		if path.Base(rel) == name {
			if found != "" {
				return ""
			}
			found = rel
		}
	}
	return found
}

// TestImportRules checks every stated import rule against the code.
func TestImportRules(t *testing.T) {
	all := loadPackages(t, filepath.Join("..", ".."))
	if len(all) < 20 {
		t.Fatalf("found only %d packages: is the test run from internal/importrules?", len(all))
	}
	var rels []string
	for rel := range all {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	checked := 0
	var unstated []string
	for _, rel := range rels {
		p := all[rel]
		r, ok := parseRule(t, p, all)
		if !ok {
			unstated = append(unstated, rel)
			continue
		}
		checked++
		for _, im := range sortedKeys(p.imports) {
			if r.allowed[im] || r.subpkgs && strings.HasPrefix(im, rel+"/") {
				continue
			}
			t.Errorf("%s imports %s, which its doc does not allow: %q", rel, im, r.sentence)
		}
		if r.importers != nil {
			for _, other := range rels {
				if all[other].imports[rel] && !contains(r.importers, other) {
					t.Errorf("%s imports %s, whose doc says only %v may", other, rel, r.importers)
				}
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d package docs state an import rule the test could read", checked)
	}
	t.Logf("%d package import rules checked; no rule stated by %s", checked, strings.Join(unstated, ", "))
}

// TestParseRule pins the reading of the doc sentences the rules are written in.
func TestParseRule(t *testing.T) {
	all := map[string]*pkg{}
	for _, rel := range []string{"llm", "llm/sse", "session", "ext", "mode/json", "mode/rpc", "cli", "cmd/fakellm", "internal/fakellm"} {
		all[rel] = &pkg{rel: rel, name: path.Base(rel)}
	}
	cases := []struct {
		rel, doc  string
		allowed   string
		importers string
	}{
		{"llm", "Intro.\n\nllm imports nothing of atomic. Values are plain.", "", "-"},
		{"llm/sse", "sse imports llm (for llm.Hooks and llm.Builder) and nothing else of atomic.", "llm", "-"},
		{"mode/rpc", "rpc imports session, ext, llm and mode/json; nothing imports it but cli.", "ext llm mode/json session", "cli"},
		{"internal/fakellm", "fakellm imports llm and nothing else of atomic; only tests and the cmd/fakellm tool import it.", "llm", "cmd/fakellm"},
		{"session", "session imports agent, ext and llm; never a mode.", "ext llm", "-"},
	}
	for _, c := range cases {
		p := all[c.rel]
		p.doc = c.doc
		r, ok := parseRule(t, p, all)
		if !ok {
			t.Errorf("%s: no rule read from %q", c.rel, c.doc)
			continue
		}
		importers := "-"
		if r.importers != nil {
			importers = strings.Join(r.importers, " ")
		}
		if got := strings.Join(sortedKeys(r.allowed), " "); got != c.allowed || importers != c.importers {
			t.Errorf("%s: allowed %q, importers %q; want %q, %q", c.rel, got, importers, c.allowed, c.importers)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
