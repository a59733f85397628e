package node

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// ESMMarker starts every module Transpile returns: the host loads such code as an ES module with
// import() (so top-level await and ESM-only packages work) instead of compiling it as CommonJS.
const ESMMarker = "// atomic:esm\n"

// VirtualModules are the import names the host serves from its bundle (exthost/node/src/modules.ts
// lists the same names). An import of one of them never reaches the extension's node_modules,
// so a copy of the real package installed there (a peer dependency pulled in for pi) cannot
// shadow the host's API.
var VirtualModules = []string{
	"@bastani/atomic",
	"@mariozechner/pi-coding-agent",
	"@earendil-works/pi-coding-agent",
	"typebox", "typebox/value", "typebox/compile",
	"@sinclair/typebox", "@sinclair/typebox/value", "@sinclair/typebox/compiler",
	"@earendil-works/pi-ai", "@earendil-works/pi-ai/compat",
	"@mariozechner/pi-ai", "@mariozechner/pi-ai/compat",
	"@bastani/pi-ai", "@bastani/pi-ai/compat",
	"@earendil-works/pi-tui", "@mariozechner/pi-tui", "@bastani/pi-tui",
}

func isVirtual(name string) bool {
	for _, v := range VirtualModules {
		if v == name {
			return true
		}
	}
	return false
}

// Transpile turns the extension at path (TypeScript or JavaScript) into one module for the host:
// CommonJS, or an ES module (ESMMarker) when it needs one — top-level await, or an import of an
// ES-module package. Its own files and any TypeScript source a package ships are bundled; the import names
// the host serves and CommonJS packages are required through the host's require (the virtual
// names resolve there, so a node_modules copy never shadows them); ES-module packages stay
// import statements of their absolute file URL, which Node loads with the "import" conditions.
// A package that cannot be resolved becomes a require that fails when it runs, as Node's would,
// so an optional dependency behind try/catch still loads. The inline source map names the
// original files and lines. import.meta.url/dirname/filename refer to the file they are written
// in (each bundled file's own, as Node and pi's loader give them: packages find the assets
// they ship next to their modules this way); __dirname/__filename refer to the entry file.
func Transpile(path string) (string, error) {
	code, _, err := transpile(path)
	return code, err
}

// transpile is Transpile that also returns the files the output depends on: the sources it
// bundled and the package files and package.json files its imports resolved to.
func transpile(path string) (string, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	var deps []string
	dir := filepath.Dir(abs)
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	dirURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	build := func(format api.Format, needESM *bool) api.BuildResult {
		banner := `var __atomic_require = require;`
		if format == api.FormatESModule {
			banner = ESMMarker + `import { createRequire as __atomic_cr } from "node:module"; const __atomic_require = __atomic_cr(` + q(abs) + `);`
		}
		return api.Build(api.BuildOptions{
			EntryPoints:    []string{abs},
			AbsWorkingDir:  dir,
			Outfile:        filepath.Join(dir, "__atomic_out.js"),
			Bundle:         true,
			Write:          false,
			Platform:       api.PlatformNode,
			Format:         format,
			Engines:        []api.Engine{{Name: api.EngineNode, Version: "20"}},
			Conditions:     []string{"node"},
			Plugins:        []api.Plugin{packagesPlugin(needESM, &deps), importMetaPlugin()},
			Metafile:       true,
			Sourcemap:      api.SourceMapInline,
			SourceRoot:     dirURL,
			SourcesContent: api.SourcesContentExclude,
			Charset:        api.CharsetUTF8,
			LogLevel:       api.LogLevelSilent,
			Define: map[string]string{
				"import.meta.url":      q(fileURL),
				"import.meta.dirname":  q(dir),
				"import.meta.filename": q(abs),
				"__dirname":            q(dir),
				"__filename":           q(abs),
			},
			Banner: map[string]string{"js": banner},
		})
	}
	// CommonJS loads fastest (no ES module loader in the host); an extension that needs ESM
	// (top-level await, an ES-module package) is built again as one.
	var needESM bool
	res := build(api.FormatCommonJS, &needESM)
	if needESM || hasTopLevelAwaitError(res.Errors) {
		res = build(api.FormatESModule, nil)
	}
	if len(res.Errors) > 0 {
		return "", nil, fmt.Errorf("%s", formatMessages(dir, res.Errors))
	}
	if len(res.OutputFiles) == 0 {
		return "", nil, fmt.Errorf("transpiling %s produced no output", path)
	}
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err == nil {
		for in := range meta.Inputs {
			if ns, _, ok := strings.Cut(in, ":"); ok && !strings.Contains(ns, "/") && len(ns) > 1 {
				continue // a plugin namespace (atomic-require:...), not a file
			}
			if !filepath.IsAbs(in) {
				in = filepath.Join(dir, in)
			}
			deps = append(deps, in)
		}
	}
	return string(res.OutputFiles[0].Contents), deps, nil
}

// importMeta matches the import.meta members importMetaPlugin gives each file.
var importMeta = regexp.MustCompile(`\bimport\.meta\.(url|dirname|filename)\b`)

// loaders are the esbuild loaders of the source files importMetaPlugin reads.
var loaders = map[string]api.Loader{".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX,
	".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".jsx": api.LoaderJSX}

// importMetaPlugin replaces import.meta.url, import.meta.dirname and import.meta.filename in every
// bundled file by that file's own values (the build's Define gives the entry file's, which a
// bundle would otherwise give every module). Files without them load as esbuild reads them.
func importMetaPlugin() api.Plugin {
	return api.Plugin{Name: "atomic-import-meta", Setup: func(b api.PluginBuild) {
		b.OnLoad(api.OnLoadOptions{Filter: `\.(m|c)?[jt]sx?$`, Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			src, err := os.ReadFile(a.Path)
			if err != nil || !bytes.Contains(src, []byte("import.meta.")) {
				return api.OnLoadResult{}, nil
			}
			q := func(s string) []byte { b, _ := json.Marshal(s); return b }
			dir := filepath.Dir(a.Path)
			out := importMeta.ReplaceAllFunc(src, func(m []byte) []byte {
				switch string(m[len("import.meta."):]) {
				case "url":
					return q((&url.URL{Scheme: "file", Path: filepath.ToSlash(a.Path)}).String())
				case "dirname":
					return q(dir)
				}
				return q(a.Path)
			})
			c := string(out)
			return api.OnLoadResult{Contents: &c, Loader: loaders[filepath.Ext(a.Path)], ResolveDir: dir}, nil
		})
	}}
}

func hasTopLevelAwaitError(msgs []api.Message) bool {
	for _, m := range msgs {
		if strings.Contains(m.Text, "Top-level await") {
			return true
		}
	}
	return false
}

// resolving marks the nested Resolve of packagesPlugin, which esbuild must answer itself.
type resolving struct{}

var tsSource = regexp.MustCompile(`\.(ts|tsx|mts|cts)$`)

// packagesPlugin decides how each bare import (a package, a node: built-in, a host name) loads;
// see Transpile.
// needESM, when not nil, is the CommonJS pass: an ES-module package sets it instead of becoming
// an import.
func packagesPlugin(needESM *bool, deps *[]string) api.Plugin {
	return api.Plugin{Name: "atomic-packages", Setup: func(b api.PluginBuild) {
		esm := map[string]bool{} // package.json directory -> "type": "module"
		viaRequire := func(spec string) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: spec, Namespace: "atomic-require"}, nil
		}
		b.OnResolve(api.OnResolveOptions{Filter: `^[^./]`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if _, nested := a.PluginData.(resolving); nested || filepath.IsAbs(a.Path) {
				return api.OnResolveResult{}, nil
			}
			if isVirtual(a.Path) {
				return viaRequire(a.Path)
			}
			r := b.Resolve(a.Path, api.ResolveOptions{Kind: a.Kind, ResolveDir: a.ResolveDir, Importer: a.Importer, PluginData: resolving{}})
			if len(r.Errors) > 0 {
				// Unresolvable: fail when it runs, as Node would (optional dependencies).
				return viaRequire(a.Path)
			}
			if !r.External && filepath.IsAbs(r.Path) {
				*deps = append(*deps, r.Path)
			}
			if r.External || strings.HasPrefix(a.Path, "node:") {
				if a.Kind == api.ResolveJSRequireCall || a.Kind == api.ResolveJSRequireResolve {
					return viaRequire(a.Path)
				}
				return api.OnResolveResult{Path: a.Path, External: true}, nil
			}
			if tsSource.MatchString(r.Path) {
				return api.OnResolveResult{Path: r.Path}, nil
			}
			if a.Kind != api.ResolveJSRequireCall && a.Kind != api.ResolveJSRequireResolve && isESM(r.Path, esm, deps) {
				if needESM != nil {
					*needESM = true
					return api.OnResolveResult{Path: a.Path, External: true}, nil
				}
				u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(r.Path)}).String()
				return api.OnResolveResult{Path: u, External: true}, nil
			}
			return viaRequire(r.Path)
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "atomic-require"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			s, _ := json.Marshal(a.Path)
			c := "module.exports = __atomic_require(" + string(s) + ");"
			return api.OnLoadResult{Contents: &c, Loader: api.LoaderJS}, nil
		})
	}}
}

// isESM reports whether Node loads file as an ES module: .mjs, or .js under a package.json
// whose "type" is "module".
func isESM(file string, cache map[string]bool, deps *[]string) bool {
	switch filepath.Ext(file) {
	case ".mjs":
		return true
	case ".cjs", ".json", ".node":
		return false
	}
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if v, ok := cache[d]; ok {
			return v
		}
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err == nil {
			var pj struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(b, &pj)
			cache[d] = pj.Type == "module"
			*deps = append(*deps, filepath.Join(d, "package.json"))
			return cache[d]
		}
		if p := filepath.Dir(d); p == d {
			return false
		}
	}
}

func formatMessages(dir string, msgs []api.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i == 3 {
			fmt.Fprintf(&b, " (and %d more errors)", len(msgs)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if l := m.Location; l != nil {
			file := l.File
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			fmt.Fprintf(&b, "%s:%d:%d: ", file, l.Line, l.Column+1)
		}
		b.WriteString(m.Text)
	}
	return b.String()
}
