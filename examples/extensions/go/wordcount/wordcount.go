// Package wordcount is an example extension: a typed custom tool. Its JSON Schema is derived
// from the Params struct; the handler receives decoded Params.
package wordcount

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/tool"
)

// Params are the tool's arguments.
type Params struct {
	Path string `json:"path" jsonschema:"file to count, relative to the working directory"`
}

// Details are the counts, also returned for front-ends.
type Details struct {
	Lines int `json:"lines"`
	Words int `json:"words"`
	Bytes int `json:"bytes"`
}

// Extension registers the word_count tool.
func Extension(api ext.API) error {
	def := ext.DefineTool("word_count", "Count the lines, words and bytes of a text file.",
		func(ctx context.Context, c ext.Context, id string, p Params, up func(tool.Result)) (tool.Result, error) {
			path := p.Path
			if !filepath.IsAbs(path) {
				path = filepath.Join(c.Cwd(), path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return tool.Result{}, fmt.Errorf("word_count: %w", err)
			}
			d := Details{Lines: strings.Count(string(b), "\n"), Words: len(strings.Fields(string(b))), Bytes: len(b)}
			return tool.TextResult(fmt.Sprintf("%s: %d lines, %d words, %d bytes", p.Path, d.Lines, d.Words, d.Bytes), d), nil
		})
	def.Label = "Word count"
	def.PromptSnippet = "Count lines, words and bytes of a file"
	return api.RegisterTool(def)
}
