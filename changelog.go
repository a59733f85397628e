// Package atomic holds what the repository root provides to the program: the release notes
// (CHANGELOG.md) compiled into the binary. atomic imports nothing of the module; every package
// may use it.
package atomic

import _ "embed"

// Changelog is the text of CHANGELOG.md at the repository root (markdown), shown by the
// interactive mode's /changelog.
//
//go:embed CHANGELOG.md
var Changelog string
