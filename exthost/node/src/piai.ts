// pi-ai's model API for extensions (`@mariozechner/pi-ai`, `@earendil-works/pi-ai`,
// `@bastani/pi-ai`): stream, complete, streamSimple, completeSimple and the per-API
// streamSimple* functions run in the core (`llm.stream`, docs/extension-protocol.md §4 "Model
// calls") with atomic's providers, credentials and retry, so an extension needs no API key of
// its own; getModel, getModels and getProviders read the core's model registry. The event
// stream classes (EventStream, AssistantMessageEventStream) are the ones a custom provider's
// streamSimple returns.

import { nodeCrypto } from "./lazy";
import { requestCancellable, syncCall } from "./rpc";

/** EventStream is pi-ai's push-based async iterable with a final result. */
export class EventStream<T, R = T> implements AsyncIterable<T> {
	private queue: T[] = [];
	private waiting: ((r: IteratorResult<T>) => void)[] = [];
	private done = false;
	private settled = false;
	private finalResultPromise: Promise<R>;
	private resolveFinalResult!: (r: R) => void;

	constructor(
		private isComplete: (event: T) => boolean,
		private extractResult: (event: T) => R,
	) {
		this.finalResultPromise = new Promise<R>((resolve) => {
			this.resolveFinalResult = resolve;
		});
	}

	private settle(r: R): void {
		if (this.settled) return;
		this.settled = true;
		this.resolveFinalResult(r);
	}

	/** push delivers an event; a completing event also settles result(). Ignored once done. */
	push(event: T): void {
		if (this.done) return;
		if (this.isComplete(event)) {
			this.done = true;
			this.settle(this.extractResult(event));
		}
		const w = this.waiting.shift();
		if (w) w({ value: event, done: false });
		else this.queue.push(event);
		if (this.done) this.wakeAll();
	}

	/** end finishes the stream; result, when given, settles result() if no event did. */
	end(result?: R): void {
		this.done = true;
		if (result !== undefined) this.settle(result);
		this.wakeAll();
	}

	private wakeAll(): void {
		if (this.queue.length > 0) return;
		while (this.waiting.length > 0) this.waiting.shift()!({ value: undefined as any, done: true });
	}

	async *[Symbol.asyncIterator](): AsyncIterator<T> {
		for (;;) {
			if (this.queue.length > 0) {
				yield this.queue.shift()!;
				continue;
			}
			if (this.done) return;
			const r = await new Promise<IteratorResult<T>>((resolve) => this.waiting.push(resolve));
			if (r.done) return;
			yield r.value;
		}
	}

	result(): Promise<R> {
		return this.finalResultPromise;
	}
}

/** AssistantMessageEventStream completes at "done" (its message) or "error" (its error). */
export class AssistantMessageEventStream extends EventStream<any, any> {
	constructor() {
		super(
			(e) => e?.type === "done" || e?.type === "error",
			(e) => (e.type === "done" ? e.message : e.error),
		);
	}
}

export function createAssistantMessageEventStream(): AssistantMessageEventStream {
	return new AssistantMessageEventStream();
}

const json = (v: unknown) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function zeroUsage() {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

/** errorMessage is the assistant message of a call that failed in the host itself. */
function errorMessage(model: any, api: string | undefined, reason: "error" | "aborted", text: string) {
	return {
		role: "assistant",
		content: [],
		api: api ?? model?.api,
		provider: model?.provider,
		model: model?.id,
		usage: zeroUsage(),
		stopReason: reason,
		errorMessage: text,
		timestamp: Date.now(),
	};
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * wireOptions keeps the options that cross to the core; onPayload and onResponse stay here and
 * cross as flags (the core calls back with llm.payload and llm.response).
 */
function wireOptions(o: any = {}) {
	const reasoning = o.reasoning ?? o.reasoningEffort ?? o.effort ?? (o.thinkingEnabled ? "medium" : undefined);
	const retention = o.cacheRetention;
	return {
		apiKey: typeof o.apiKey === "string" && o.apiKey !== "" ? o.apiKey : undefined,
		maxTokens: num(o.maxTokens),
		reasoning: typeof reasoning === "string" ? reasoning : undefined,
		headers: o.headers && typeof o.headers === "object" ? json(o.headers) : undefined,
		sessionId: typeof o.sessionId === "string" ? o.sessionId : undefined,
		temperature: num(o.temperature),
		cacheRetention: retention === "none" || retention === "short" || retention === "long" ? retention : undefined,
		metadata: o.metadata && typeof o.metadata === "object" && !Array.isArray(o.metadata) ? json(o.metadata) : undefined,
		transport: o.transport === "sse" || o.transport === "websocket" || o.transport === "auto" ? o.transport : undefined,
		timeoutMs: num(o.timeoutMs),
		maxRetries: num(o.maxRetries),
		maxRetryDelayMs: num(o.maxRetryDelayMs),
		onPayload: typeof o.onPayload === "function" ? true : undefined,
		onResponse: typeof o.onResponse === "function" ? true : undefined,
	};
}

/** The onPayload and onResponse of the llm.stream calls in flight, by request id. */
const callHooks = new Map<number, { model: any; onPayload?: Function; onResponse?: Function }>();

/**
 * llmPayload serves llm.payload: the call's onPayload sees the provider payload (and the model)
 * before it is sent; a value other than undefined replaces it.
 */
export async function llmPayload(p: { id: number; payload: unknown }) {
	const h = callHooks.get(p?.id);
	if (!h?.onPayload) return {};
	const next = await h.onPayload(p.payload, h.model);
	return next === undefined ? {} : { payload: next };
}

/** llmResponse serves llm.response: the call's onResponse gets {status, headers}. */
export async function llmResponse(p: { id: number; status: number; headers: Record<string, string> }) {
	const h = callHooks.get(p?.id);
	if (h?.onResponse) await h.onResponse({ status: p.status, headers: p.headers ?? {} }, h.model);
	return null;
}

function wireContext(c: any = {}) {
	return {
		systemPrompt: typeof c.systemPrompt === "string" ? c.systemPrompt : undefined,
		messages: json(c.messages ?? []),
		tools: c.tools ? c.tools.map((t: any) => ({ name: t.name, description: t.description ?? "", parameters: json(t.parameters ?? { type: "object", properties: {} }) })) : undefined,
	};
}

/**
 * streamVia runs one model call in the core and returns its pi-ai event stream: every event but
 * the last carries the partial message, assembled here from the deltas. Failures never throw;
 * they end the stream with an "error" event, as pi-ai's providers do.
 */
function streamVia(api: string | undefined, model: any, context: any, options: any = {}): AssistantMessageEventStream {
	const own = apiProviders.get(api ?? model?.api);
	const fn = own?.streamSimple ?? own?.stream;
	if (fn) return fn(model, context, options);
	const out = new AssistantMessageEventStream();
	let partial: any;
	const toolArgs = new Map<number, string>();
	const onEvent = (ev: any) => {
		switch (ev.type) {
			case "start":
				partial = { ...(ev.partial ?? {}), content: [] };
				break;
			case "text_start":
				if (partial) partial.content[ev.contentIndex] = { type: "text", text: "" };
				break;
			case "thinking_start":
				if (partial) partial.content[ev.contentIndex] = { type: "thinking", thinking: "" };
				break;
			case "toolcall_start":
				if (partial) partial.content[ev.contentIndex] = { type: "toolCall", id: ev.toolCall?.id ?? "", name: ev.toolCall?.name ?? "", arguments: {} };
				delete ev.toolCall;
				break;
			case "text_delta":
				if (partial?.content[ev.contentIndex]) partial.content[ev.contentIndex].text += ev.delta;
				break;
			case "thinking_delta":
				if (partial?.content[ev.contentIndex]) partial.content[ev.contentIndex].thinking += ev.delta;
				break;
			case "toolcall_delta": {
				const s = (toolArgs.get(ev.contentIndex) ?? "") + ev.delta;
				toolArgs.set(ev.contentIndex, s);
				try {
					if (partial?.content[ev.contentIndex]) partial.content[ev.contentIndex].arguments = JSON.parse(s);
				} catch {
					// incomplete JSON: the arguments are set at toolcall_end
				}
				break;
			}
			case "text_end":
				if (partial?.content[ev.contentIndex]) partial.content[ev.contentIndex].text = ev.content;
				break;
			case "thinking_end":
				if (partial?.content[ev.contentIndex]) partial.content[ev.contentIndex].thinking = ev.content;
				break;
			case "toolcall_end":
				if (partial) partial.content[ev.contentIndex] = ev.toolCall;
				break;
		}
		if (ev.type !== "done" && ev.type !== "error") ev.partial = partial ?? errorMessage(model, api, "error", "");
		out.push(ev);
	};
	const params = { model: json(model), api, context: wireContext(context), options: wireOptions(options) };
	const hooks = params.options.onPayload || params.options.onResponse ? { model, onPayload: options.onPayload, onResponse: options.onResponse } : undefined;
	let callId = 0;
	const onId = hooks ? (id: number) => callHooks.set((callId = id), hooks) : undefined;
	requestCancellable<any>("llm.stream", params, { signal: options?.signal, onUpdate: onEvent, onId })
		.finally(() => callId && callHooks.delete(callId))
		.then(
		(final) => {
			const failed = final?.stopReason === "error" || final?.stopReason === "aborted";
			out.push(failed ? { type: "error", reason: final.stopReason, error: final } : { type: "done", reason: final?.stopReason ?? "stop", message: final });
			out.end(final);
		},
		(err) => {
			const aborted = options?.signal?.aborted === true;
			const msg = errorMessage(model, api, aborted ? "aborted" : "error", err instanceof Error ? err.message : String(err));
			out.push({ type: "error", reason: msg.stopReason, error: msg });
			out.end(msg);
		},
	);
	return out;
}

export const stream = (model: any, context: any, options?: any) => streamVia(undefined, model, context, options);
export const complete = (model: any, context: any, options?: any) => stream(model, context, options).result();
export const streamSimple = stream;
export const completeSimple = complete;

/** apiStream makes pi-ai's per-API stream functions (streamAnthropic, streamSimpleOpenAIResponses…). */
const apiStream = (api: string) => (model: any, context: any, options?: any) => streamVia(api, model, context, options);
export const streamAnthropic = apiStream("anthropic-messages");
export const streamSimpleAnthropic = streamAnthropic;
export const streamOpenAIResponses = apiStream("openai-responses");
export const streamSimpleOpenAIResponses = streamOpenAIResponses;
export const streamOpenAICompletions = apiStream("openai-completions");
export const streamSimpleOpenAICompletions = streamOpenAICompletions;

const models = (method: string, provider?: string, id?: string) => {
	const v = syncCall("models", { method, provider, id });
	return v === null ? undefined : v;
};

/** getModel returns the model the core's registry knows by provider and id, or undefined. */
export const getModel = (provider: string, id: string) => models("find", provider, id);
/** getModels returns the models of provider in the core's registry. */
export const getModels = (provider: string) => models("list", provider) ?? [];
/** getProviders returns the provider names of the core's registry. */
export const getProviders = () => models("providers") ?? [];

/** calculateCost fills usage.cost from the model's prices (US dollars per million tokens). */
export function calculateCost(model: any, usage: any) {
	const c = model?.cost ?? {};
	usage.cost = usage.cost ?? {};
	usage.cost.input = ((c.input ?? 0) / 1_000_000) * (usage.input ?? 0);
	usage.cost.output = ((c.output ?? 0) / 1_000_000) * (usage.output ?? 0);
	usage.cost.cacheRead = ((c.cacheRead ?? 0) / 1_000_000) * (usage.cacheRead ?? 0);
	usage.cost.cacheWrite = ((c.cacheWrite ?? 0) / 1_000_000) * (usage.cacheWrite ?? 0);
	usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
	return usage.cost;
}

/** modelsAreEqual compares provider and id; false when either is missing. */
export const modelsAreEqual = (a: any, b: any) => !!a && !!b && a.id === b.id && a.provider === b.provider;

/** uuidv7 returns a time-ordered UUID (RFC 9562 version 7). */
export function uuidv7(): string {
	const b = nodeCrypto().randomBytes(16);
	const ms = BigInt(Date.now());
	for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
	b[6] = (b[6] & 0x0f) | 0x70;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = b.toString("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The API providers registered with registerApiProvider (custom wire APIs of extensions). */
export const apiProviders = new Map<string, { api: string; stream?: Function; streamSimple?: Function; sourceId?: string }>();

export function registerApiProvider(provider: { api: string; stream?: Function; streamSimple?: Function }, sourceId?: string): void {
	apiProviders.set(provider.api, { ...provider, sourceId });
}
export const getApiProvider = (api: string) => apiProviders.get(api);
export const getApiProviders = () => [...apiProviders.values()];
export function unregisterApiProviders(sourceId: string): void {
	for (const [k, v] of apiProviders) if (v.sourceId === sourceId) apiProviders.delete(k);
}

/** The pi-ai runtime exports atomic serves (the types are erased by the transpiler). */
export const piAiRuntime = {
	EventStream,
	AssistantMessageEventStream,
	createAssistantMessageEventStream,
	stream,
	complete,
	streamSimple,
	completeSimple,
	streamAnthropic,
	streamSimpleAnthropic,
	streamOpenAIResponses,
	streamSimpleOpenAIResponses,
	streamOpenAICompletions,
	streamSimpleOpenAICompletions,
	getModel,
	getModels,
	getProviders,
	calculateCost,
	modelsAreEqual,
	uuidv7,
	registerApiProvider,
	getApiProvider,
	getApiProviders,
	unregisterApiProviders,
};
