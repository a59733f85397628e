package node

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Transpile turns the extension at path (TypeScript or JavaScript) into one CommonJS module for
// the host: its local imports are bundled, packages (the import names the host serves, the
// extension's own node_modules, node: built-ins) stay require() calls that Node resolves from
// the extension's directory. The inline source map makes stack traces name the original files
// and lines. import.meta.url/dirname/filename refer to the entry file.
func Transpile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(abs)
	res := api.Build(api.BuildOptions{
		EntryPoints:    []string{abs},
		AbsWorkingDir:  dir,
		Outfile:        filepath.Join(dir, "__atomic_out.js"),
		Bundle:         true,
		Write:          false,
		Platform:       api.PlatformNode,
		Format:         api.FormatCommonJS,
		Engines:        []api.Engine{{Name: api.EngineNode, Version: "20"}},
		Packages:       api.PackagesExternal,
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Charset:        api.CharsetUTF8,
		LogLevel:       api.LogLevelSilent,
		Define: map[string]string{
			"import.meta.url":      "__atomic_import_meta_url",
			"import.meta.dirname":  "__dirname",
			"import.meta.filename": "__filename",
		},
		Banner: map[string]string{"js": `var __atomic_import_meta_url = require("node:url").pathToFileURL(__filename).href;`},
	})
	if len(res.Errors) > 0 {
		return "", fmt.Errorf("%s", formatMessages(dir, res.Errors))
	}
	if len(res.OutputFiles) == 0 {
		return "", fmt.Errorf("transpiling %s produced no output", path)
	}
	return string(res.OutputFiles[0].Contents), nil
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
