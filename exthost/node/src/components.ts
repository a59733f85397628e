// Components that live in the host (docs/extension-protocol.md "Components", tui.md §8.4): the
// pi-tui objects made by ctx.ui.custom, factory widgets and setFooter/setHeader factories stay
// here, in a table by id; the core asks them for lines (`component.render`), sends them keys as
// raw terminal bytes (`component.input`) and drops them (`component.dispose`); a component's
// tui.requestRender() tells the core to render it again (`ui.component.invalidate`, coalesced to
// one notification per turn of the event loop), and done(value) closes a custom component
// (`ui.component.done`) and resolves custom()'s promise here, so the value never crosses the wire.

import { notify, requestCancellable } from "./rpc";

type Fn = (...args: any[]) => any;

interface Entry {
	id: number;
	comp: any;
	columns: number;
	rows: number;
	/** an invalidate notification is scheduled */
	scheduled: boolean;
	/** overlayOptions as given to custom() (an object or a function evaluated per render) */
	overlayOptions?: any;
	overlay: boolean;
	/** the Go side dropped it or it closed */
	closed: boolean;
	onDispose?: () => void;
	/** the core has the component (its ui.custom request was sent) */
	opened?: boolean;
	/** OverlayHandle calls made before it was opened, sent once it is */
	controls?: string[];
	/** setHidden's state, and whether the core last said it has the keys */
	hidden?: boolean;
	focused?: boolean;
}

const table = new Map<number, Entry>();
let nextId = 1;

let tuiModule: any;
function piTui(): any {
	return (tuiModule ??= require("@mariozechner/pi-tui"));
}

function keybindings(): any {
	try {
		return piTui().getKeybindings?.();
	} catch {
		return undefined;
	}
}

function scheduleRender(e: Entry): void {
	if (e.scheduled || e.closed) return;
	e.scheduled = true;
	setImmediate(() => {
		e.scheduled = false;
		if (!e.closed) notify("ui.component.invalidate", { component: e.id });
	});
}

function disposeComp(e: Entry): void {
	if (e.closed) return;
	e.closed = true;
	table.delete(e.id);
	try {
		e.comp?.dispose?.();
	} catch (err) {
		console.error("atomic extension host: a component's dispose() failed:", err);
	}
	e.onDispose?.();
}

/**
 * The TUI object factories receive: requestRender reaches the core; the terminal size is the last
 * one the core rendered at; the terminal-taking calls (start, stop, setFocus…) have nothing to act
 * on in a host process and do nothing.
 */
function makeTui(e: Entry, ctx: number, theme: () => any): any {
	const overlays: Array<{ close: () => void }> = [];
	// The overlays this tui opened with showOverlay: pi-tui's requestRender draws every component,
	// so a controller's requestRender must reach them too (overlay-qa-tests' /overlay-passive
	// timer panel ticks only through its controller's tui).
	let shown: Entry[] = [];
	const render = () => {
		scheduleRender(e);
		shown = shown.filter((c) => !c.closed);
		for (const c of shown) if (c.opened) scheduleRender(c);
	};
	const tui: any = {
		requestRender: render,
		invalidate: render,
		terminal: {
			get columns() {
				return e.columns;
			},
			get rows() {
				return e.rows;
			},
			setTitle: (title: string) => notify("ui.setTitle", { ctx, title: String(title) }),
			write: () => {},
			setAutowrap: () => {},
		},
		get columns() {
			return e.columns;
		},
		get rows() {
			return e.rows;
		},
		mode: "regular",
		children: [],
		addChild: () => {},
		removeChild: () => {},
		setFocus: () => {},
		start: () => {},
		stop: () => {},
		addInputListener: () => () => {},
		// pi-tui's showHardwareCursor: the core shows the cursor at a focused input's CURSOR_MARKER
		// with ATOMIC_HARDWARE_CURSOR=1 (or PI_HARDWARE_CURSOR=1), else places it hidden.
		getShowHardwareCursor: () => process.env.ATOMIC_HARDWARE_CURSOR === "1" || process.env.PI_HARDWARE_CURSOR === "1",
		setShowHardwareCursor: () => {},
		setClearOnShrink: () => {},
		// tui.showOverlay(component, options): the component floats through the same channel.
		showOverlay: (component: any, options?: any) => {
			let closeIt: () => void = () => {};
			let entry: Entry | undefined;
			const p = mountCustom(ctx, () => component, { overlay: true, overlayOptions: options }, theme, (close) => (closeIt = close), (en) => (entry = en));
			if (entry) shown.push(entry);
			const o = { close: () => closeIt() };
			overlays.push(o);
			void p.catch(() => undefined);
			return overlayHandle(entry!, () => {
				const i = overlays.indexOf(o);
				if (i >= 0) overlays.splice(i, 1);
				o.close();
			});
		},
		hideOverlay: () => overlays.pop()?.close(),
		hasOverlay: () => overlays.length > 0,
	};
	return tui;
}

/** control sends an OverlayHandle call to the core (`ui.component.control`), or keeps it until the component is opened. */
function control(e: Entry, action: string): void {
	if (e.closed) return;
	if (!e.opened) (e.controls ??= []).push(action);
	else notify("ui.component.control", { component: e.id, action });
}

/** opened marks e as held by the core and sends the handle calls made before. */
function openedEntry(e: Entry): void {
	e.opened = true;
	for (const a of e.controls?.splice(0) ?? []) notify("ui.component.control", { component: e.id, action: a });
}

/**
 * overlayHandle is pi-tui's OverlayHandle of a host overlay: hide() closes it; setHidden, focus
 * and unfocus reach the core (ui.component.control), which owns focus. isFocused is what the
 * core said at the last render, updated at once by this handle's own focus/unfocus calls.
 */
function overlayHandle(e: Entry, close: () => void): any {
	return {
		hide: () => close(),
		setHidden: (h: boolean) => {
			const hidden = h === true;
			if (e.hidden === hidden) return;
			e.hidden = hidden;
			if (hidden) e.focused = false;
			control(e, hidden ? "hide" : "show");
		},
		isHidden: () => e.hidden === true,
		focus: () => {
			if (e.hidden) return;
			e.focused = true;
			control(e, "focus");
		},
		unfocus: () => {
			e.focused = false;
			control(e, "unfocus");
		},
		isFocused: () => !e.closed && e.focused === true,
	};
}

function wireSize(v: unknown): string | undefined {
	if (v === undefined || v === null) return undefined;
	return String(v);
}

/** wireOverlayOptions is the JSON-safe part of pi-tui's OverlayOptions (docs: "Components"). */
function wireOverlayOptions(o: any): any {
	if (!o || typeof o !== "object") return undefined;
	let margin: any;
	if (typeof o.margin === "number") margin = { top: o.margin, right: o.margin, bottom: o.margin, left: o.margin };
	else if (o.margin && typeof o.margin === "object") margin = { top: o.margin.top ?? 0, right: o.margin.right ?? 0, bottom: o.margin.bottom ?? 0, left: o.margin.left ?? 0 };
	return {
		width: wireSize(o.width ?? o.maxWidth),
		minWidth: typeof o.minWidth === "number" ? o.minWidth : undefined,
		maxHeight: wireSize(o.maxHeight),
		anchor: typeof o.anchor === "string" ? o.anchor : undefined,
		offsetX: typeof o.offsetX === "number" ? o.offsetX : undefined,
		offsetY: typeof o.offsetY === "number" ? o.offsetY : undefined,
		row: wireSize(o.row),
		col: wireSize(o.col),
		margin,
		nonCapturing: o.nonCapturing === true ? true : undefined,
	};
}

function currentOverlayOptions(e: Entry): any {
	let o = e.overlayOptions;
	if (typeof o === "function") o = o();
	if (!o && typeof e.comp?.width === "number") o = { width: e.comp.width };
	return o;
}

/**
 * mountCustom runs ctx.ui.custom: makes the component with factory(tui, theme, keybindings, done)
 * and opens it in the core with the `ui.custom` request, which the core answers when it closed the
 * component (the user or client dismissed it, the UI ended). done(value) closes it from here.
 * onClose receives the function that closes it from outside (tui.hideOverlay).
 */
export function mountCustom(ctx: number, factory: Fn, opts: any, theme: () => any, onClose?: (close: () => void) => void, onEntry?: (e: Entry) => void): Promise<any> {
	const signal: AbortSignal | undefined = opts?.signal;
	const e: Entry = { id: nextId++, comp: undefined, columns: 80, rows: 24, scheduled: false, overlay: opts?.overlay === true, overlayOptions: opts?.overlayOptions, closed: false };
	onEntry?.(e);
	if (signal?.aborted) return Promise.reject(signal.reason);
	if (opts?.reserveTranscriptRows === true && e.overlay) {
		// Atomic's rules: a reserving overlay sits on the bottom edge, where the transcript ends.
		const o = currentOverlayOptions(e);
		const anchor = o?.anchor;
		if (anchor !== "bottom-left" && anchor !== "bottom-center" && anchor !== "bottom-right")
			return Promise.reject(new Error("reserveTranscriptRows requires an explicit bottom anchor: bottom-left, bottom-center, or bottom-right"));
		if (o?.row !== undefined) return Promise.reject(new Error("reserveTranscriptRows does not support overlayOptions.row"));
		if (o?.offsetY !== undefined && o.offsetY !== 0) return Promise.reject(new Error("reserveTranscriptRows does not support a nonzero overlayOptions.offsetY"));
	}
	return new Promise((resolve, reject) => {
		let settled = false;
		let opened = false;
		const finish = (ok: boolean, v: unknown) => {
			if (settled) return;
			settled = true;
			disposeComp(e);
			if (ok) resolve(v);
			else reject(v);
		};
		const done = (value?: unknown) => {
			if (settled) return;
			if (opened) notify("ui.component.done", { component: e.id });
			finish(true, value);
		};
		onClose?.(() => done(undefined));
		const tui = makeTui(e, ctx, theme);
		Promise.resolve()
			.then(() => factory(tui, theme(), keybindings(), done))
			.then((comp) => {
				if (settled) {
					try {
						comp?.dispose?.();
					} catch {}
					return;
				}
				if (!comp || typeof comp.render !== "function") throw new TypeError("ctx.ui.custom: the factory did not return a component (an object with render(width))");
				e.comp = comp;
				table.set(e.id, e);
				opened = true;
				// A capturing overlay has the keys once shown (until the core says otherwise).
				e.focused = !e.overlay || currentOverlayOptions(e)?.nonCapturing !== true;
				const wire = e.overlay ? wireOverlayOptions(currentOverlayOptions(e)) : undefined;
				const req = requestCancellable("ui.custom", { ctx, component: e.id, overlay: e.overlay, overlayOptions: wire, handlesCtrlC: opts?.handlesCtrlC === true ? true : undefined, reserveTranscriptRows: opts?.reserveTranscriptRows === true && e.overlay ? true : undefined }, { signal });
				openedEntry(e);
				if (e.overlay && typeof opts?.onHandle === "function") opts.onHandle(overlayHandle(e, () => done(undefined)));
				req.then(
					() => finish(true, undefined),
					// Aborted: reject with the signal's reason (Atomic's custom({signal})); any other
					// failure (the host is going away) resolves undefined rather than hang.
					() => finish(!signal?.aborted, signal?.aborted ? signal.reason : undefined),
				);
				if (signal) signal.addEventListener("abort", () => finish(false, signal.reason), { once: true });
			})
			.catch((err) => finish(false, err));
	});
}

/**
 * mountPersistent makes the component of a factory widget, footer or header and returns its id;
 * it lives until dropPersistent (replaced, restored) or the core disposes it.
 */
export function mountPersistent(ctx: number, factory: Fn, theme: () => any, extra: unknown[]): number | undefined {
	const e: Entry = { id: nextId++, comp: undefined, columns: 80, rows: 24, scheduled: false, overlay: false, closed: false };
	const comp = factory(makeTui(e, ctx, theme), theme(), ...extra);
	if (!comp || typeof comp.render !== "function") {
		console.error("atomic extension host: a widget, footer or header factory did not return a component (an object with render(width)); ignored");
		return undefined;
	}
	e.comp = comp;
	table.set(e.id, e);
	return e.id;
}

/** The persistent components by slot ("widget:<key>", "footer", "header"). */
const slots = new Map<string, number>();

/**
 * setSlot mounts factory's component into slot (replacing and disposing the one before) and
 * returns its id; factory undefined only drops the old one.
 */
export function setSlot(slot: string, ctx: number, factory: Fn | undefined, theme: () => any, extra: unknown[]): number | undefined {
	dropPersistent(slots.get(slot));
	slots.delete(slot);
	if (typeof factory !== "function") return undefined;
	const id = mountPersistent(ctx, factory, theme, extra);
	if (id !== undefined) slots.set(slot, id);
	return id;
}

/** dropPersistent disposes a component mounted by mountPersistent (no-op for an unknown id). */
export function dropPersistent(id: number | undefined): void {
	if (id === undefined) return;
	const e = table.get(id);
	if (e) disposeComp(e);
}

function stringLines(lines: unknown): string[] {
	if (!Array.isArray(lines)) return [];
	return lines.map((l) => (typeof l === "string" ? l : String(l ?? "")));
}

/**
 * render answers `component.render`: the component's lines at width, and an overlay's placement.
 * A component closed meanwhile (done, dismissed, replaced) answers {closed: true}: the core's
 * render raced with the close, which is no error.
 */
export function render(p: { component: number; width: number; rows?: number; columns?: number; focused?: boolean }): unknown {
	const e = table.get(p.component);
	if (!e?.comp) return { lines: [], closed: true };
	e.columns = p.columns ?? p.width;
	if (p.rows) e.rows = p.rows;
	// pi-tui sets focused on a Focusable (a component with a focused property) that has the keys.
	e.focused = p.focused === true;
	if (e.comp && typeof e.comp === "object" && "focused" in e.comp) {
		try {
			e.comp.focused = e.focused;
		} catch {}
	}
	const out: Record<string, unknown> = { lines: stringLines(e.comp.render(Math.max(1, p.width | 0))) };
	if (e.overlay) {
		const o = currentOverlayOptions(e);
		out.overlay = wireOverlayOptions(o);
		if (o && typeof o.visible === "function" && !o.visible(e.columns, e.rows)) out.hidden = true;
	}
	return out;
}

/** input delivers `component.input` (one key or paste, raw bytes) to handleInput. */
export function input(p: { component: number; data: string }): void {
	const e = table.get(p.component);
	if (!e?.comp) return;
	try {
		e.comp.handleInput?.(String(p.data ?? ""));
	} catch (err) {
		console.error("atomic extension host: a component's handleInput failed:", err);
	}
	// pi-tui renders after every input; the core asks for the new lines itself.
}

/** invalidate delivers `component.invalidate` (the theme changed). */
export function invalidate(p: { component: number }): void {
	const e = table.get(p.component);
	try {
		e?.comp?.invalidate?.();
	} catch (err) {
		console.error("atomic extension host: a component's invalidate failed:", err);
	}
}

/** dispose handles `component.dispose`: the core dropped the component. */
export function dispose(p: { component: number }): void {
	const e = table.get(p.component);
	if (e) disposeComp(e);
}

/** disposeAll drops every component (a new generation: the core's UI was reset). */
export function disposeAll(): void {
	// The core still shows the widgets, footer and header of the old generation: tell it they
	// ended, so it removes them (and restores its built-in footer and header).
	for (const id of slots.values()) notify("ui.component.done", { component: id });
	slots.clear();
	for (const e of [...table.values()]) disposeComp(e);
}
