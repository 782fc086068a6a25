/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * A quick check (not a timed test) that a 1,000,000-response form starts and serves pages at
 * high offsets and with `since`. Startup time, memory and page latency are printed for the
 * record, never asserted: machines differ.
 */
import { startHarness, type FormResponse, type ResponsesPage, type RunningHarness } from './index';

const SIZE = 1_000_000;
let h: RunningHarness;
let formId: string;
const measured: string[] = [];

function mb(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

beforeAll(async () => {
	global.gc?.();
	const before = process.memoryUsage();
	const start = performance.now();
	h = await startHarness({ port: 0, largeFormResponses: SIZE, rateLimit: false });
	const startupMs = performance.now() - start;
	const after = process.memoryUsage();
	measured.push(
		`startup ${startupMs.toFixed(0)} ms`,
		`memory added: heap ${mb(after.heapUsed - before.heapUsed)}, array buffers ${mb(after.arrayBuffers - before.arrayBuffers)}, rss ${mb(after.rss - before.rss)}`,
	);
	formId = (await h.control.form('large')).id;
});
afterAll(async () => {
	await h.close();
	process.stdout.write(`\n1M-response form: ${measured.join('; ')}\n`);
});

async function page(query: string): Promise<{ body: ResponsesPage; ms: number }> {
	const start = performance.now();
	const r = await fetch(`${h.baseUrl}/forms/${formId}/responses?${query}`, {
		headers: { Authorization: `Bearer ${h.keys.team}` },
	});
	const text = await r.text();
	const ms = performance.now() - start;
	expect(r.status).toBe(200);
	return { body: JSON.parse(text) as ResponsesPage, ms };
}

test('pages of 1000 at high offsets, in both orders', async () => {
	const listed = await h.control.form('large');
	expect(listed.responseCount).toBe(SIZE);
	await page('limit=1000&offset=0'); // warm-up
	const times: number[] = [];
	for (const offset of [999_000, 998_000, 500_000, 123_456, 999_999]) {
		const { body, ms } = await page(`limit=1000&offset=${offset}`);
		times.push(ms);
		expect(body.total).toBe(SIZE);
		expect(body.responses).toHaveLength(Math.min(1000, SIZE - offset));
		expect(body.hasMore).toBe(offset + body.responses.length < SIZE);
		const stamps = body.responses.map((r) => r.submittedAt);
		expect([...stamps].sort().reverse()).toEqual(stamps);
	}
	const oldestLast = await page('limit=1000&offset=999000');
	const newestFirstTail = oldestLast.body.responses;
	await h.control.updateSettings({ responseOrder: 'oldestFirst' });
	const { body: head } = await page('limit=1000&offset=0');
	expect(head.responses.map((r) => r.id)).toEqual(newestFirstTail.map((r) => r.id).reverse());
	await h.control.updateSettings({ responseOrder: 'newestFirst' });
	times.sort((a, b) => a - b);
	measured.push(
		`page of 1000 over HTTP: median ${times[2].toFixed(1)} ms, max ${times[4].toFixed(1)} ms`,
	);
});

test('since narrows a million responses by binary search', async () => {
	const { body: probe } = await page('limit=1&offset=250000');
	const pivot: FormResponse = probe.responses[0];
	const { body, ms } = await page(`limit=1000&since=${encodeURIComponent(pivot.submittedAt)}`);
	// Newest first, strictly after the pivot: the pivot's 250,000 newer neighbours, minus any sharing its millisecond.
	expect(body.total).toBeLessThanOrEqual(250_000);
	expect(body.total).toBeGreaterThan(249_990);
	expect(body.responses.every((r) => r.submittedAt > pivot.submittedAt)).toBe(true);
	const { body: tail } = await page(
		`limit=1000&offset=${body.total - 1}&since=${encodeURIComponent(pivot.submittedAt)}`,
	);
	expect(tail.responses).toHaveLength(1);
	expect(tail.hasMore).toBe(false);
	measured.push(`page with since: ${ms.toFixed(1)} ms`);
});

test('a response submitted to the big form lands first without a rebuild', async () => {
	const created = await h.control.submitResponse(formId);
	const { body } = await page('limit=1');
	expect(body.total).toBe(SIZE + 1);
	expect(body.responses[0].id).toBe(created.id);
});
