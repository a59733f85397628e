package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
)

func TestListModelsIncludesExtensionProviders(t *testing.T) {
	dir := t.TempDir()
	reg, errs := model.Load(dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var stderr bytes.Buffer
	o := &Options{
		Stderr: &stderr,
		Extensions: []ext.Factory{
			func(api ext.API) error {
				return api.RegisterProvider("local-openai", ext.ProviderConfig{
					BaseURL: "http://localhost:1234/v1", APIKey: "literal", API: llm.APIOpenAICompletions,
					Models: []ext.ProviderModel{{ID: "qwen-coder", ContextWindow: 32000, MaxTokens: 4096}},
				})
			},
			func(api ext.API) error { return errors.New("broken factory") },
		},
		ExtensionPaths: []string{"go:local", "go:broken"},
	}
	o.NoExtensions = true // compiled-in factories only
	loadExtensionProviders(o, reg, dir)
	list := model.FormatList(reg.Available(), "local")
	if !strings.Contains(list, "local-openai  qwen-coder  32K") {
		t.Fatalf("--list-models does not list the extension's provider:\n%s", list)
	}
	if !strings.Contains(stderr.String(), "Extension error (go:broken): load") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
