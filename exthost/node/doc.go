// Package node is atomic's Node.js extension host: it runs the pi/Atomic TypeScript extensions
// unchanged (seed 004) over the extension protocol (docs/extension-protocol.md).
//
// The host itself is TypeScript (src/), bundled by build.mjs from the packages pinned in
// package-lock.json into dist/ (host.js, and the packages it serves to extensions in vendor-*.js,
// loaded on first use), which is committed and embedded here, so `go build` needs
// neither npm nor node_modules. Extensions are transpiled (and their local imports bundled) in Go
// with esbuild's Go API, with inline source maps so errors name the .ts file and line. New
// returns an ext/host.Supervisor that starts `node` with the bundle.
//
// node imports ext/host and ext/protocol. Transpile is safe for concurrent use.
package node
