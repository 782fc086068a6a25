/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npx tsx test/harness/measure.ts [responses]`: startup time, memory and page latency of a
 * harness with one very large form, measured outside jest (whose vm sandbox slows hot code
 * several-fold). The numbers in docs/performance.md come from here.
 */
import { ByteWriter } from './byteWriter';
import { buildDataset } from './data';
import { startHarness } from './index';

function mb(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function percentile(sorted: number[], p: number): string {
	return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1);
}

async function main(): Promise<void> {
	const size = Number(process.argv[2] ?? 1_000_000);
	const before = process.memoryUsage();
	const started = performance.now();
	const h = await startHarness({ port: 0, largeFormResponses: size, rateLimit: false });
	const startupMs = performance.now() - started;
	const after = process.memoryUsage();
	const form = await h.control.form('large');
	const headers = { Authorization: `Bearer ${h.keys.team}` };
	const get = async (query: string): Promise<number> => {
		const t = performance.now();
		const r = await fetch(`${h.baseUrl}/forms/${form.id}/responses?${query}`, { headers });
		await r.arrayBuffer();
		if (r.status !== 200) throw new Error(`status ${r.status}`);
		return performance.now() - t;
	};
	for (let i = 0; i < 20; i++) await get(`limit=1000&offset=${i * 1000}`); // warm-up
	const pages: number[] = [];
	for (let i = 0; i < 200; i++)
		pages.push(await get(`limit=1000&offset=${Math.floor(Math.random() * (size - 1000))}`));
	const small: number[] = [];
	for (let i = 0; i < 200; i++)
		small.push(await get(`limit=100&offset=${Math.floor(Math.random() * (size - 100))}`));
	const since: number[] = [];
	for (let i = 0; i < 100; i++) {
		const at = new Date(
			Date.UTC(2024, 6, 1) + Math.floor(Math.random() * 300) * 86_400_000,
		).toISOString();
		since.push(await get(`limit=1000&since=${at}`));
	}
	// The server's own work for a page, without HTTP and without the client sharing the thread.
	const large = buildDataset(1, size).forms.find((f) => f.fixture === 'large');
	if (large === undefined) throw new Error('no large form');
	const build: number[] = [];
	for (let i = 0; i < 220; i++) {
		const t = performance.now();
		const page = large.store.page({
			offset: Math.floor(Math.random() * (size - 1000)),
			limit: 1000,
			sinceMs: null,
			sinceInclusive: false,
			order: 'newestFirst',
		});
		const out = new ByteWriter(1024 * 1024);
		for (const record of page.records) out.write(large.store.json(record));
		out.finish();
		if (i >= 20) build.push(performance.now() - t);
	}
	const exportStart = performance.now();
	const csv = await fetch(`${h.baseUrl}/forms/${form.id}/export`, { headers });
	let bytes = 0;
	for await (const chunk of csv.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
	const exportMs = performance.now() - exportStart;
	const peak = process.memoryUsage();
	[pages, small, since, build].forEach((list) => list.sort((a, b) => a - b));
	console.log(`responses in the large form: ${size.toLocaleString('en')}`);
	console.log(`startup: ${startupMs.toFixed(0)} ms`);
	console.log(
		`memory added by startup: rss ${mb(after.rss - before.rss)}, heap ${mb(after.heapUsed - before.heapUsed)}, array buffers ${mb(after.arrayBuffers - before.arrayBuffers)}`,
	);
	console.log(
		`page of 1000 at random offsets over HTTP (client included): p50 ${percentile(pages, 0.5)} ms, p95 ${percentile(pages, 0.95)} ms`,
	);
	console.log(
		`building a page of 1000 (no HTTP): p50 ${percentile(build, 0.5)} ms, p95 ${percentile(build, 0.95)} ms`,
	);
	console.log(`page of 100: p50 ${percentile(small, 0.5)} ms, p95 ${percentile(small, 0.95)} ms`);
	console.log(
		`page of 1000 with since: p50 ${percentile(since, 0.5)} ms, p95 ${percentile(since, 0.95)} ms`,
	);
	console.log(
		`CSV export: ${mb(bytes)} in ${(exportMs / 1000).toFixed(1)} s; rss after export ${mb(peak.rss)}`,
	);
	await h.close();
}

void main();
