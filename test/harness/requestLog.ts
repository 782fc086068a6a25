/**
 * The last N API requests, for tests that assert what a client sent (paging parameters,
 * retries, back-off). A ring buffer, so a benchmark's millions of requests cost nothing
 * beyond the cap.
 */
import type { RequestLogEntry } from './types';

export class RequestLog {
	private entries: (RequestLogEntry | undefined)[];
	private next = 0;
	private size = 0;

	constructor(private readonly capacity: number) {
		this.entries = new Array<RequestLogEntry | undefined>(capacity);
	}

	add(entry: RequestLogEntry): void {
		if (this.capacity === 0) return;
		this.entries[this.next] = entry;
		this.next = (this.next + 1) % this.capacity;
		this.size = Math.min(this.size + 1, this.capacity);
	}

	/** Oldest first. */
	list(): RequestLogEntry[] {
		const out: RequestLogEntry[] = [];
		const start = (this.next - this.size + this.capacity) % this.capacity;
		for (let i = 0; i < this.size; i++) {
			const entry = this.entries[(start + i) % this.capacity];
			if (entry !== undefined) out.push(entry);
		}
		return out;
	}

	clear(): void {
		this.entries = new Array<RequestLogEntry | undefined>(this.capacity);
		this.next = 0;
		this.size = 0;
	}
}
