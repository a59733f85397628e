module example.com/custom-atomic

go 1.26.0

require github.com/atomic-cli/atomic v0.0.0

require (
	github.com/aymanbagabas/go-udiff v0.4.1 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/charlievieth/fastwalk v1.0.14 // indirect
	github.com/evanw/esbuild v0.28.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

// This example builds against the checkout it sits in; a module of your own requires a released
// version instead (or points the replace at its own checkout of atomic).
replace github.com/atomic-cli/atomic => ../..
