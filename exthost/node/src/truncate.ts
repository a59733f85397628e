// Output truncation helpers of @bastani/atomic (tools.md §3), the same semantics as atomic's Go
// tool/truncate.go and pi's truncate.ts: lines are "\n"-separated pieces, bytes are UTF-8.

export const DEFAULT_MAX_BYTES = 50 * 1024;
export const DEFAULT_MAX_LINES = 2000;
export const GREP_MAX_LINE_LENGTH = 500;

export interface TruncationOptions {
	maxLines?: number;
	maxBytes?: number;
}

export interface TruncationResult {
	content: string;
	truncated: boolean;
	truncatedBy: "lines" | "bytes" | null;
	totalLines: number;
	totalBytes: number;
	outputLines: number;
	outputBytes: number;
	lastLinePartial: boolean;
	firstLineExceedsLimit: boolean;
	maxLines: number;
	maxBytes: number;
}

const byteLength = (s: string) => Buffer.byteLength(s, "utf8");

function limits(o: TruncationOptions = {}): [number, number] {
	return [o.maxLines ?? DEFAULT_MAX_LINES, o.maxBytes ?? DEFAULT_MAX_BYTES];
}

function base(content: string, maxLines: number, maxBytes: number, lines: string[]): TruncationResult {
	const totalBytes = byteLength(content);
	return {
		content,
		truncated: false,
		truncatedBy: null,
		totalLines: lines.length,
		totalBytes,
		outputLines: lines.length,
		outputBytes: totalBytes,
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	};
}

/** truncateHead keeps whole lines from the start within maxLines lines and maxBytes bytes. */
export function truncateHead(content: string, options?: TruncationOptions): TruncationResult {
	const [maxLines, maxBytes] = limits(options);
	const lines = content.split("\n");
	const r = base(content, maxLines, maxBytes, lines);
	if (lines.length <= maxLines && r.totalBytes <= maxBytes) return r;
	r.truncated = true;
	if (byteLength(lines[0]) > maxBytes) {
		return { ...r, content: "", truncatedBy: "bytes", firstLineExceedsLimit: true, outputLines: 0, outputBytes: 0 };
	}
	const out: string[] = [];
	let bytes = 0;
	let by: "lines" | "bytes" = "lines";
	for (let i = 0; i < lines.length && i < maxLines; i++) {
		const size = byteLength(lines[i]) + (i > 0 ? 1 : 0);
		if (bytes + size > maxBytes) {
			by = "bytes";
			break;
		}
		out.push(lines[i]);
		bytes += size;
	}
	if (out.length >= maxLines && bytes <= maxBytes) by = "lines";
	const kept = out.join("\n");
	return { ...r, content: kept, truncatedBy: by, outputLines: out.length, outputBytes: byteLength(kept) };
}

/** truncateTail keeps whole lines from the end; a last line over maxBytes keeps its final bytes. */
export function truncateTail(content: string, options?: TruncationOptions): TruncationResult {
	const [maxLines, maxBytes] = limits(options);
	const lines = content.split("\n");
	const r = base(content, maxLines, maxBytes, lines);
	if (lines.length <= maxLines && r.totalBytes <= maxBytes) return r;
	r.truncated = true;
	const out: string[] = [];
	let bytes = 0;
	let by: "lines" | "bytes" = "lines";
	for (let i = lines.length - 1; i >= 0 && out.length < maxLines; i--) {
		const size = byteLength(lines[i]) + (out.length > 0 ? 1 : 0);
		if (bytes + size > maxBytes) {
			by = "bytes";
			if (out.length === 0) {
				let buf = Buffer.from(lines[i], "utf8");
				let start = buf.length - maxBytes;
				while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
				buf = buf.subarray(start);
				const kept = buf.toString("utf8");
				return { ...r, content: kept, truncatedBy: "bytes", outputLines: 1, outputBytes: buf.length, lastLinePartial: true };
			}
			break;
		}
		out.unshift(lines[i]);
		bytes += size;
	}
	if (out.length >= maxLines && bytes <= maxBytes) by = "lines";
	const kept = out.join("\n");
	return { ...r, content: kept, truncatedBy: by, outputLines: out.length, outputBytes: byteLength(kept) };
}

/** truncateLine cuts a line to maxChars characters and appends "... [truncated]". */
export function truncateLine(line: string, maxChars: number = GREP_MAX_LINE_LENGTH): { text: string; wasTruncated: boolean } {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

/** formatSize renders a byte count: "512B", "1.5KB", "2.0MB". */
export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}
