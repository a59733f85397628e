// A pi extension stacking an autocomplete provider over the built-in one: "$" tokens complete
// from its own list, everything else is delegated (mode/tui/e2e_uisurf_test.go).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const VARS = ["$HOME_DIR", "$HOST_NAME", "$PATH_LIST"];

export default function (pi: ExtensionAPI) {
	pi.on("session_start", (_event, ctx) => {
		ctx.ui.addAutocompleteProvider((current) => ({
			triggerCharacters: ["$"],
			async getSuggestions(lines, cursorLine, cursorCol, opts) {
				const before = lines[cursorLine].slice(0, cursorCol);
				const m = /\$[A-Za-z_]*$/.exec(before);
				if (!m) return current.getSuggestions(lines, cursorLine, cursorCol, opts);
				const items = VARS.filter((v) => v.toLowerCase().startsWith(m[0].toLowerCase())).map((v) => ({ value: v, label: v, description: "variable" }));
				return items.length ? { items, prefix: m[0] } : null;
			},
			applyCompletion(lines, cursorLine, cursorCol, item, prefix) {
				if (!item.value.startsWith("$")) return current.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
				const line = lines[cursorLine];
				const before = line.slice(0, cursorCol - prefix.length) + item.value + "=";
				const out = [...lines];
				out[cursorLine] = before + line.slice(cursorCol);
				return { lines: out, cursorLine, cursorCol: before.length };
			},
		}));
	});
}
