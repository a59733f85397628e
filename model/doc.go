// Package model is atomic's model registry: the built-in catalog of providers and models, the
// user's custom providers from <agentDir>/models.json, credentials from <agentDir>/auth.json and the
// environment, config value resolution ($VAR, ${VAR}, !command) and model selection from a
// --model pattern (../shared/spec/config-and-resources.md §1, §7, §7.1, §8, §9, §15).
//
// Start-up cost matters: Load reads two small files and nothing else; the catalog is built, merged
// with models.json and cached on the first query. Shell commands in config values run only when a
// value is actually needed (APIKey, Headers), never to decide availability.
//
// model imports llm and the standard library only, never a package above it. A Registry is safe
// for concurrent use; the models it returns are shared and must be treated as read-only.
package model
