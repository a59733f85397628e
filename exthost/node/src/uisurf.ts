// The theme, keybinding, tools-expanded and paste surfaces of ctx.ui (docs/extension-protocol.md
// "Theme and keys"; tui.md §4.6, §5.2-5.3): the theme object extensions style with, resolved
// from the palette of the interactive UI's active theme, and pi's keyHint family from its
// effective keybindings. Outside the TUI the core answers a plain palette and no bindings, so
// every style returns its text unchanged.

import { notify, request, syncCall } from "./rpc";

/** A resolved palette on the wire: token → SGR parameters ("38;2;r;g;b", "" = default colour). */
interface Palette {
	name: string;
	path?: string;
	colorMode: string;
	fg: Record<string, string>;
	bg: Record<string, string>;
}

const PLAIN: Palette = { name: "plain", colorMode: "truecolor", fg: {}, bg: {} };

/** The most recent context id the host handed to extension code: the UI module-level helpers use. */
let currentCtx: number | undefined;
/** noteContext records the context of the latest dispatch (called for every Ctx made). */
export function noteContext(id: number): void {
	currentCtx = id;
}

// Palettes and bindings are fetched at most once per turn of the event loop: a render pass that
// calls theme.fg hundreds of times costs one round trip, and a theme switch is seen on the next.
let paletteCache = new Map<number, Palette>();
let keysCache = new Map<number, Record<string, string[]>>();
let clearScheduled = false;
function scheduleClear(): void {
	if (clearScheduled) return;
	clearScheduled = true;
	setImmediate(() => {
		clearScheduled = false;
		paletteCache = new Map();
		keysCache = new Map();
	});
}

function activePalette(ctx: number | undefined): Palette {
	if (ctx === undefined) return PLAIN;
	let p = paletteCache.get(ctx);
	if (!p) {
		try {
			p = syncCall<Palette>("ui.theme", { ctx }) ?? PLAIN;
		} catch {
			p = PLAIN; // a stale context or a core without the method: unstyled text
		}
		paletteCache.set(ctx, p);
		scheduleClear();
	}
	return p;
}

function bindings(ctx: number | undefined): Record<string, string[]> {
	if (ctx === undefined) return {};
	let b = keysCache.get(ctx);
	if (!b) {
		try {
			b = syncCall<Record<string, string[]>>("ui.keybindings", { ctx }) ?? {};
		} catch {
			b = {};
		}
		keysCache.set(ctx, b);
		scheduleClear();
	}
	return b;
}

const sgr = (p: string) => `\x1b[${p}m`;

/**
 * Theme is pi's theme object over a palette source: the live one of a context (ctx.ui.theme and
 * the theme handed to renderers and factories) or a fixed one (getTheme(name)).
 */
export class Theme {
	readonly #source: () => Palette;
	constructor(source: () => Palette) {
		this.#source = source;
	}
	get name(): string {
		return this.#source().name;
	}
	get path(): string | undefined {
		return this.#source().path;
	}
	/** A plain palette (outside the TUI) styles nothing, attributes included. */
	#plain(): boolean {
		return this.#source().name === "plain";
	}
	#param(map: "fg" | "bg", color: string): string {
		const p = this.#source();
		const v = p[map][color];
		if (v === undefined) {
			if (p === PLAIN || p.name === "plain") return "";
			throw new Error(`Unknown theme color: ${color}`);
		}
		return v;
	}
	fg(color: string, text: string): string {
		const p = this.#param("fg", color);
		return p ? `${sgr(p)}${text}\x1b[39m` : text;
	}
	bg(color: string, text: string): string {
		const p = this.#param("bg", color);
		return p ? `${sgr(p)}${text}\x1b[49m` : text;
	}
	bold(text: string): string {
		return this.#plain() ? text : `\x1b[1m${text}\x1b[22m`;
	}
	italic(text: string): string {
		return this.#plain() ? text : `\x1b[3m${text}\x1b[23m`;
	}
	underline(text: string): string {
		return this.#plain() ? text : `\x1b[4m${text}\x1b[24m`;
	}
	inverse(text: string): string {
		return this.#plain() ? text : `\x1b[7m${text}\x1b[27m`;
	}
	strikethrough(text: string): string {
		return this.#plain() ? text : `\x1b[9m${text}\x1b[29m`;
	}
	getFgAnsi(color: string): string {
		const p = this.#param("fg", color);
		return p ? sgr(p) : "\x1b[39m";
	}
	getBgAnsi(color: string): string {
		const p = this.#param("bg", color);
		return p ? sgr(p) : "\x1b[49m";
	}
	getColorMode(): string {
		return this.#source().colorMode;
	}
	getThinkingBorderColor(level: string): (s: string) => string {
		const token =
			{ minimal: "thinkingMinimal", low: "thinkingLow", medium: "thinkingMedium", high: "thinkingHigh", xhigh: "thinkingXhigh", max: "thinkingXhigh" }[
				level
			] ?? "thinkingOff";
		return (s: string) => this.fg(token, s);
	}
	getBashModeBorderColor(): (s: string) => string {
		return (s: string) => this.fg("bashMode", s);
	}
}

/** themeOf is the live theme of context ctx (the current context's when ctx is undefined). */
export function themeOf(ctx?: number): Theme {
	if (ctx === undefined) return currentTheme;
	return new Theme(() => activePalette(ctx));
}

/** currentTheme follows whichever context ran last (pi's global theme). */
export const currentTheme = new Theme(() => activePalette(currentCtx));

/** The theme members of ctx.ui for context ctx (spread into makeUI's object). */
export function themeUI(ctx: number): Record<string, unknown> {
	return {
		get theme() {
			return themeOf(ctx);
		},
		getAllThemes: () => (syncCall<{ name: string; path?: string }[]>("ui.getAllThemes", { ctx }) ?? []).map((t) => ({ name: t.name, path: t.path ?? undefined })),
		getTheme: (name: string) => {
			const p = syncCall<Palette | null>("ui.theme", { ctx, name: String(name ?? "") });
			return p ? new Theme(() => p) : undefined;
		},
		setTheme: (theme: string | Theme) => {
			const name = typeof theme === "string" ? theme : theme instanceof Theme ? theme.name : undefined;
			if (name === undefined) return { success: false, error: "setTheme: only themes by name or from getTheme are supported" };
			const r = syncCall<{ success: boolean; error?: string }>("ui.setTheme", { ctx, name });
			paletteCache = new Map();
			return r.success ? { success: true } : { success: false, error: r.error };
		},
		getToolsExpanded: () => syncCall<boolean>("ui.getToolsExpanded", { ctx }) === true,
		setToolsExpanded: (expanded: boolean) => notify("ui.setToolsExpanded", { ctx, expanded: expanded === true }),
		pasteToEditor: (text: string) => notify("ui.pasteToEditor", { ctx, text: String(text ?? "") }),
		addAutocompleteProvider: (factory: (current: any) => any) => addAutocompleteProvider(ctx, factory),
	};
}

/** keyText is the keys bound to an action id joined by "/", "" when unbound. */
export function keyText(keybinding: string): string {
	return (bindings(currentCtx)[String(keybinding ?? "")] ?? []).join("/");
}

/** keyHint is the action's keys (dim) then " description" (muted), as pi's. */
export function keyHint(keybinding: string, description: string): string {
	return currentTheme.fg("dim", keyText(keybinding)) + currentTheme.fg("muted", ` ${description}`);
}

/** keyHintIfBound is keyHint, or "" when the action has no key. */
export function keyHintIfBound(keybinding: string, description: string): string {
	return keyText(keybinding) === "" ? "" : keyHint(keybinding, description);
}

/** rawKeyHint formats a literal key like keyHint. */
export function rawKeyHint(key: string, description: string): string {
	return currentTheme.fg("dim", String(key)) + currentTheme.fg("muted", ` ${description}`);
}

// ---- autocomplete providers (tui.md §7.4) -------------------------------------------------------

/** The providers of this host by id, and the host provider each one wraps (absent: the core's chain). */
const providers = new Map<number, any>();
const belowOf = new Map<number, number>();
let nextProvider = 1;

/**
 * addAutocompleteProvider is ctx.ui.addAutocompleteProvider: factory receives the current chain
 * (the core's, or this host's provider below it directly) and its provider goes on top.
 */
export function addAutocompleteProvider(ctx: number, factory: (current: any) => any): void {
	if (typeof factory !== "function") return;
	const id = nextProvider++;
	const below = () => {
		const b = belowOf.get(id);
		return b === undefined ? undefined : providers.get(b);
	};
	const current = {
		get triggerCharacters() {
			return below()?.triggerCharacters ?? [];
		},
		getSuggestions(lines: string[], cursorLine: number, cursorCol: number, opts?: { signal?: AbortSignal; force?: boolean }) {
			const b = below();
			if (b) return b.getSuggestions(lines, cursorLine, cursorCol, opts);
			return request("ui.autocomplete.suggest", { ctx, provider: id, lines, cursorLine, cursorCol, force: opts?.force === true }).then((v) => v ?? null);
		},
		applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: unknown, prefix: string) {
			const b = below();
			if (b) return b.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
			return syncCall("ui.autocomplete.apply", { ctx, provider: id, lines, cursorLine, cursorCol, item, prefix });
		},
		shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number) {
			return below()?.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
		},
	};
	const provider = factory(current);
	if (!provider || typeof provider.getSuggestions !== "function") return;
	providers.set(id, provider);
	const triggers = Array.isArray(provider.triggerCharacters) ? provider.triggerCharacters.filter((t: unknown) => typeof t === "string") : [];
	const r = syncCall<{ below?: number } | null>("ui.addAutocompleteProvider", { ctx, provider: id, triggerCharacters: triggers });
	if (r?.below) belowOf.set(id, r.below);
}

/** autocompleteSuggest serves the core's autocomplete.suggest: provider's getSuggestions. */
export async function autocompleteSuggest(p: any, signal: AbortSignal): Promise<unknown> {
	const provider = providers.get(p?.provider);
	if (!provider) throw new Error(`no autocomplete provider ${p?.provider}`);
	const r = await provider.getSuggestions(p.lines ?? [""], p.cursorLine ?? 0, p.cursorCol ?? 0, { signal, force: p.force === true });
	if (!r || !Array.isArray(r.items)) return null;
	return {
		prefix: String(r.prefix ?? ""),
		items: r.items.map((it: any) => ({ value: String(it?.value ?? ""), label: String(it?.label ?? it?.value ?? ""), description: it?.description === undefined ? undefined : String(it.description) })),
	};
}

/** autocompleteApply serves the core's autocomplete.apply: provider's applyCompletion. */
export function autocompleteApply(p: any): unknown {
	const provider = providers.get(p?.provider);
	if (!provider) throw new Error(`no autocomplete provider ${p?.provider}`);
	const r = provider.applyCompletion(p.lines ?? [""], p.cursorLine ?? 0, p.cursorCol ?? 0, p.item, String(p.prefix ?? ""));
	return { lines: r?.lines ?? p.lines, cursorLine: r?.cursorLine ?? p.cursorLine, cursorCol: r?.cursorCol ?? p.cursorCol };
}

// ---- custom editors (tui.md §7.4) ----------------------------------------------------------------

/** The app actions a CustomEditor passes to the core (interrupt and exit go through onEscape/onCtrlD). */
const APP_ACTIONS = [
	"app.clear",
	"app.suspend",
	"app.thinking.cycle",
	"app.model.cycleForward",
	"app.model.cycleBackward",
	"app.model.select",
	"app.tools.expand",
	"app.thinking.toggle",
	"app.editor.external",
	"app.message.followUp",
	"app.message.dequeue",
	"app.clipboard.pasteImage",
	"app.session.new",
	"app.session.tree",
	"app.session.fork",
	"app.session.resume",
];

/** matchesBinding reports whether raw key data is one of the keys bound to action. */
function matchesBinding(data: string, action: string): boolean {
	const keys = bindings(currentCtx)[action];
	if (!keys || keys.length === 0) return false;
	const { matchesKey } = require("@mariozechner/pi-tui");
	return keys.some((k: string) => {
		try {
			return matchesKey(data, k.replace(/^esc$/, "escape"));
		} catch {
			return false;
		}
	});
}

let customEditorClass: any;
/**
 * CustomEditor is pi's base class for replacement editors: pi-tui's Editor whose handleInput
 * first gives app keybindings to actionHandlers (filled by the host: they run the app's action
 * in the core), Escape to onEscape and Ctrl+D on an empty editor to onCtrlD.
 */
export function CustomEditorClass(): any {
	if (customEditorClass) return customEditorClass;
	const { Editor } = require("@mariozechner/pi-tui");
	customEditorClass = class CustomEditor extends Editor {
		actionHandlers = new Map<string, () => void>();
		onEscape?: () => void;
		onCtrlD?: () => void;
		onPasteImage?: () => void;
		keybindings: unknown;
		constructor(tui: any, theme: any, keybindings?: unknown, options?: any) {
			super(tui, theme, options);
			this.keybindings = keybindings;
		}
		onAction(action: string, handler: () => void): void {
			this.actionHandlers.set(action, handler);
		}
		handleInput(data: string): void {
			const autocompleting = typeof (this as any).isShowingAutocomplete === "function" && (this as any).isShowingAutocomplete();
			if (!autocompleting && matchesBinding(data, "app.interrupt") && this.onEscape) {
				this.onEscape();
				return;
			}
			if (matchesBinding(data, "app.exit") && this.getText().length === 0 && this.onCtrlD) {
				this.onCtrlD();
				return;
			}
			for (const [action, handler] of this.actionHandlers) {
				if (matchesBinding(data, action)) {
					handler();
					return;
				}
			}
			super.handleInput(data);
		}
	};
	return customEditorClass;
}

/** editorTheme is pi's EditorTheme in the active theme's colours. */
function editorTheme(): any {
	const fg = (token: string) => (s: string) => currentTheme.fg(token, s);
	return {
		borderColor: fg("border"),
		selectList: { selectedPrefix: fg("accent"), selectedText: fg("accent"), description: fg("muted"), scrollInfo: fg("muted"), noMatch: fg("muted") },
	};
}

/**
 * wireEditor connects a replacement editor to the core: submit, text changes and the app actions
 * of a CustomEditor; it starts with the built-in editor's text.
 */
function wireEditor(c: any, ctx: number): void {
	const action = (a: string) => () => notify("ui.editor.action", { ctx, action: a });
	c.onSubmit = (text: string) => notify("ui.editor.submit", { ctx, text: String(text ?? "") });
	c.onChange = (text: string) => notify("ui.editor.change", { ctx, text: String(text ?? "") });
	if (c.actionHandlers instanceof Map) {
		// app.clear (Ctrl+C) empties the replacement editor as it does the built-in one, unless the
		// extension bound it itself; the core counts the press for the double Ctrl+C that quits.
		if (!c.actionHandlers.has("app.clear")) {
			const passOn = action("app.clear");
			c.actionHandlers.set("app.clear", () => {
				if (typeof c.setText === "function") c.setText("");
				passOn();
			});
		}
		for (const a of APP_ACTIONS) if (!c.actionHandlers.has(a)) c.actionHandlers.set(a, action(a));
		c.onEscape ??= action("app.interrupt");
		c.onCtrlD ??= action("app.exit");
	}
	try {
		const text = syncCall<string>("ui.getEditorText", { ctx }) ?? "";
		if (text && typeof c.setText === "function") c.setText(text);
	} catch {
		// a stale context: start empty
	}
}

/** The current replacement editor component of each context's UI (getEditorComponent). */
let editorFactory: ((tui: any, theme: any, keybindings: any) => any) | undefined;

/** setEditorComponent is ctx.ui.setEditorComponent (undefined restores the built-in editor). */
export function setEditorComponent(ctx: number, factory: ((tui: any, theme: any, keybindings: any) => any) | undefined, setSlot: (slot: string, ctx: number, f: any, theme: () => any, extra: unknown[]) => number | undefined): void {
	editorFactory = typeof factory === "function" ? factory : undefined;
	if (!editorFactory) {
		setSlot("editor", ctx, undefined, () => currentTheme, []);
		notify("ui.setEditorComponent", { ctx, component: 0 });
		return;
	}
	const f = editorFactory;
	let kb: unknown;
	try {
		kb = require("@mariozechner/pi-tui").getKeybindings?.();
	} catch {}
	const id = setSlot(
		"editor",
		ctx,
		(tui: any) => {
			const c = f(tui, editorTheme(), kb);
			if (c && typeof c.render === "function") wireEditor(c, ctx);
			return c;
		},
		() => currentTheme,
		[],
	);
	if (id !== undefined) notify("ui.setEditorComponent", { ctx, component: id });
}

/** getEditorComponent is the current replacement editor's factory (so extensions can wrap each other). */
export function getEditorComponent(): unknown {
	return editorFactory;
}
