// Refreshes catalog.json, the source of the built-in model catalog, from pi-ai's generated model
// list: the anthropic, openai and google providers, in pi's order, with the fields atomic keeps.
//
// Usage (from the repository root, after `npm ci --prefix compat/pi`):
//   node model/catalog_refresh.mjs [path/to/pi-ai/dist/models.generated.js]
//   go generate ./model
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const src = resolve(process.argv[2] ?? join(here, "..", "compat", "pi", "node_modules", "@mariozechner", "pi-ai", "dist", "models.generated.js"));
const { MODELS } = await import(pathToFileURL(src).href);
const out = [];
for (const provider of ["anthropic", "openai", "google"]) {
	for (const m of Object.values(MODELS[provider] ?? {})) {
		out.push({
			id: m.id, name: m.name, api: m.api, provider: m.provider, baseUrl: m.baseUrl, reasoning: !!m.reasoning,
			input: m.input, contextWindow: m.contextWindow, maxTokens: m.maxTokens,
			cost: { input: m.cost.input, output: m.cost.output, cacheRead: m.cost.cacheRead, cacheWrite: m.cost.cacheWrite },
		});
	}
}
writeFileSync(join(here, "catalog.json"), JSON.stringify(out, null, "\t") + "\n");
console.log(`wrote ${out.length} models to model/catalog.json`);
