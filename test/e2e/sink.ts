/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Stands in for Slack, the mail server and the spreadsheet in end-to-end runs: an HTTP server on
 * 127.0.0.1 that records every request it gets, so a test can see what n8n would have sent.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface SinkRequest {
	path: string;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
}

export class Sink {
	readonly requests: SinkRequest[] = [];
	private readonly held = new Set<string>();
	private readonly unanswered: Array<() => void> = [];
	private server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const path = req.url ?? '/';
			this.requests.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
			const answer = () => {
				if (req.socket.destroyed) return; // The sender is gone (e.g. killed while it waited).
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end('{"ok":true}');
			};
			if (this.held.has(path)) this.unanswered.push(answer);
			else answer();
		});
	});

	/**
	 * Requests to `path` are recorded as they arrive but answered only on `release()`: the
	 * execution that sent one stays in flight, e.g. to kill its process at that moment.
	 */
	hold(path: string): void {
		this.held.add(path);
	}

	release(): void {
		this.held.clear();
		for (const answer of this.unanswered.splice(0)) answer();
	}

	async start(): Promise<string> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	on(path: string): SinkRequest[] {
		return this.requests.filter((request) => request.path === path);
	}

	/** Resolves once `count` requests reached `path`, or rejects after `timeoutMs`. */
	async waitFor(path: string, count: number, timeoutMs: number): Promise<SinkRequest[]> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (this.on(path).length >= count) return this.on(path);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		throw new Error(
			`expected ${count} requests on ${path} within ${timeoutMs} ms, got ${this.on(path).length}`,
		);
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}
}
