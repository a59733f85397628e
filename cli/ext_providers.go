package cli

import (
	"fmt"
	"os"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/model"
)

// loadExtensionProviders runs the extension factories without a session so that the providers
// they register join reg (seed 004: registered models are available "including to atomic
// --list-models"): the compiled-in ones and the discovered TypeScript/JavaScript ones (their host
// runs for this and is shut down after). The runner binds at once, which flushes the queued
// registrations; the factories' other registrations are discarded with the runner.
func loadExtensionProviders(o *Options, reg *model.Registry, agentDir string) {
	factories, paths := o.Extensions, o.ExtensionPaths
	if cwd, err := os.Getwd(); err == nil && (len(o.ExtensionSources) > 0 || !o.NoExtensions) {
		scripts := o.startScriptExtensions(agentDir, cwd)
		defer scripts.close()
		factories, paths = scripts.extensions(factories, paths)
	}
	if len(factories) == 0 {
		return
	}
	r := ext.NewRunner(nil)
	r.SetModelRegistry(reg)
	r.OnError(func(e *ext.Error) {
		fmt.Fprintf(o.Stderr, "Extension error (%s): %s: %s\n", e.ExtensionPath, e.Event, e.Message)
	})
	r.Load(nil, paths, factories)
	r.Bind()
	r.Drain()
}
