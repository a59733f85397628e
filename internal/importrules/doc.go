// Package importrules holds the test that keeps the package docs honest: every package whose
// doc comment states what it imports ("session imports agent, compact, ext, …", "llm imports
// nothing of atomic", "rpc …; nothing imports it but cli") is checked against the imports of its
// non-test files, so a rule that drifts fails `go test ./...` (issue 9 item 10). The rules
// themselves are written once, in the package docs; this package has no code of its own.
//
// importrules imports nothing of atomic (its test reads the sources with go/parser).
package importrules
