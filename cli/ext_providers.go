package cli

import (
	"fmt"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/model"
)

// loadExtensionProviders runs the compiled-in extension factories without a session so that the
// providers they register join reg (seed 004: registered models are available "including to
// atomic --list-models"). The runner binds at once, which flushes the queued registrations; the
// factories' other registrations are discarded with the runner.
func loadExtensionProviders(o *Options, reg *model.Registry) {
	if len(o.Extensions) == 0 {
		return
	}
	r := ext.NewRunner(nil)
	r.SetModelRegistry(reg)
	r.OnError(func(e *ext.Error) {
		fmt.Fprintf(o.Stderr, "Extension error (%s): %s: %s\n", e.ExtensionPath, e.Event, e.Message)
	})
	r.Load(nil, o.ExtensionPaths, o.Extensions)
	r.Bind()
	r.Drain()
}
