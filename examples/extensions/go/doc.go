// Package goext holds example Go extensions for atomic. Each sub-package exports a Factory
// (func(api ext.API) error) that a binary compiles in — see cli.Main and examples/custom-binary —
// or an SDK embedder passes to session.Options.Extensions:
//
//   - permissiongate: blocks dangerous bash commands in tool_call (fail-closed gate)
//   - wordcount: a custom tool with a typed, schema-derived parameter struct
//   - contextfilter: a context handler that keeps hidden notes out of what the model sees
//   - uiscript: the terminal UI surfaces (status, widgets, dialogs, a custom component, an
//     overlay, a footer reading the session, a tool renderer) in one /goaccept command
package goext
