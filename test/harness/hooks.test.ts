/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** Ordering and stream hooks, and the page size cap: what tests of a slow or busy server ask for. */
import http from 'http';
import { startHarness, type RunningHarness } from './index';
import { apiJson } from './testHelpers';
import type { ResponsesPage } from './types';

let h: RunningHarness;
let formId: string;
beforeAll(async () => {
	h = await startHarness({ rateLimit: false });
	formId = (await h.control.form('feedback')).id;
});
afterEach(() => h.control.reset());
afterAll(() => h.close());

const pagePath = (offset: number, limit = 100) =>
	`/forms/${formId}/responses?limit=${limit}&offset=${offset}`;

test('pageSizeCap serves at most N responses per page, whatever limit asks', async () => {
	await h.control.updateSettings({ pageSizeCap: 30 });
	const page = await apiJson<ResponsesPage>(h, pagePath(0, 1000));
	expect(page.responses).toHaveLength(30);
	expect(page.hasMore).toBe(true);
});

test('hold: the held request is answered after the next one, with the inserted responses', async () => {
	await h.control.holdUntilNextAnswered('offset=100', 1);
	const order: number[] = [];
	const held = apiJson<ResponsesPage>(h, pagePath(100)).then((page) => (order.push(100), page));
	// The hold is in place once the request is logged: the next request is the later one.
	while ((await h.control.requestLog()).length === 0)
		await new Promise((resolve) => setImmediate(resolve));
	const later = await apiJson<ResponsesPage>(h, pagePath(200)).then(
		(page) => (order.push(200), page),
	);
	const first = await held;
	expect(order).toEqual([200, 100]);
	expect(first.total).toBe(later.total + 1);
});

test('insertAfter: responses arrive once the matching request has been answered', async () => {
	await h.control.insertAfterAnswer('offset=0', 100);
	const before = await apiJson<ResponsesPage>(h, pagePath(0));
	const after = await apiJson<ResponsesPage>(h, pagePath(100));
	expect(after.total).toBe(before.total + 100);
	// Newest first: the page at 100 now holds the page read before.
	expect(after.responses.map((r) => r.id)).toEqual(before.responses.map((r) => r.id));
});

test('stall sends the headers and K bytes, then nothing; hang sends nothing', async () => {
	await h.control.stallBody('/responses', 50);
	const received = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
		const req = http.get(
			`${h.baseUrl}${pagePath(0)}`,
			{ headers: { Authorization: `Bearer ${h.keys.team}` } },
			(res) => {
				let bytes = 0;
				res.on('data', (chunk: Buffer) => {
					bytes += chunk.length;
					// Everything the stall lets out has arrived; the rest never will.
					if (bytes >= 50) {
						resolve({ status: res.statusCode ?? 0, bytes });
						req.destroy();
					}
				});
			},
		);
		req.on('error', reject);
	});
	expect(received).toEqual({ status: 200, bytes: 50 });

	await h.control.neverAnswer('/forms/');
	const controller = new AbortController();
	const hung = fetch(`${h.baseUrl}/forms/${formId}`, {
		headers: { Authorization: `Bearer ${h.keys.team}` },
		signal: controller.signal,
	});
	while ((await h.control.requestLog()).length < 2)
		await new Promise((resolve) => setImmediate(resolve));
	expect((await h.control.listHooks()).fired).toBe(2);
	controller.abort();
	await expect(hung).rejects.toThrow();
});
