import http from 'http';
import type { AddressInfo } from 'net';

import { PAGES_IN_FLIGHT } from '../../nodes/FormsWtf/transport/paging';
import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY, response, useFastRetries } from './fixtures';

useFastRetries();

interface FakeForm {
	count: number;
	/** The most responses the server puts on the page at an offset, whatever the limit asked. */
	pageCap?: (offset: number) => number;
	/** The `total` the server reports (default: what it serves). */
	reportedTotal?: number;
	/** Delays and failures per requested offset. */
	delayMs?: (offset: number) => number;
	fail?: (offset: number) => { status: number; headers?: Record<string, string> } | undefined;
}

interface PagingServer {
	baseUrl: string;
	/** The offset of every request, in arrival order. */
	offsets: number[];
	/** The most requests the server was answering at one time. */
	maxInFlight: () => number;
	close: () => Promise<void>;
}

/** A real local server: concurrency and timing are what these tests look at, which nock does not model. */
async function pagingServer(form: FakeForm): Promise<PagingServer> {
	const ids = Array.from({ length: form.count }, (_, i) => `r${i}`);
	const offsets: number[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const offset = Number(url.searchParams.get('offset'));
		const limit = Math.min(Number(url.searchParams.get('limit')), form.pageCap?.(offset) ?? 1000);
		offsets.push(offset);
		maxInFlight = Math.max(maxInFlight, ++inFlight);
		setTimeout(() => {
			inFlight--;
			const failure = form.fail?.(offset);
			if (failure) {
				res.writeHead(failure.status, { 'Content-Type': 'application/json', ...failure.headers });
				res.end(JSON.stringify({ error: 'failed on purpose' }));
				return;
			}
			const slice = ids.slice(offset, offset + limit);
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(
				JSON.stringify({
					responses: slice.map((id) => response(id)),
					total: form.reportedTotal ?? ids.length,
					hasMore: offset + slice.length < ids.length,
				}),
			);
		}, form.delayMs?.(offset) ?? 15);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
		offsets,
		maxInFlight: () => maxInFlight,
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

async function returnAll(baseUrl: string, options: Record<string, unknown> = {}) {
	const result = await runFormsWtf({
		baseUrl,
		apiKey: API_KEY,
		parameters: { resource: 'response', operation: 'getAll', formId: formById('f1'), returnAll: true, options },
	});
	return { result, ids: result.status === 'success' ? result.outputOf('Forms.wtf').map((item) => item.json.id) : [] };
}

const allIds = (count: number) => Array.from({ length: count }, (_, i) => `r${i}`);

describe('paging: reading ahead', () => {
	it('keeps the next page under way while reading one, and still sends one request per page', async () => {
		const server = await pagingServer({ count: 5500 });
		try {
			const { ids } = await returnAll(server.baseUrl);
			expect(ids).toEqual(allIds(5500));
			expect(server.offsets).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
			expect(server.maxInFlight()).toBe(PAGES_IN_FLIGHT);
		} finally {
			await server.close();
		}
	});

	it('skips and repeats nothing when the server sends shorter pages than asked', async () => {
		const server = await pagingServer({ count: 2100, pageCap: () => 400 });
		try {
			const { ids } = await returnAll(server.baseUrl);
			expect(ids).toEqual(allIds(2100));
			// The first page shows the real page size; every page asked for after it starts right.
			expect(server.offsets).toEqual([0, 400, 800, 1200, 1600, 2000]);
		} finally {
			await server.close();
		}
	});

	it('drops a page read ahead at an offset that a shorter page made wrong', async () => {
		const server = await pagingServer({ count: 3000, pageCap: (offset) => (offset === 0 ? 1000 : 600) });
		try {
			const { ids } = await returnAll(server.baseUrl);
			expect(ids).toEqual(allIds(3000));
			// 2000 was asked for ahead, assuming a full page at 1000: the one wasted request.
			expect([...server.offsets].sort((a, b) => a - b)).toEqual([0, 1000, 1600, 2000, 2200, 2800]);
		} finally {
			await server.close();
		}
	});

	it('with Since, asks for a page only after the previous one arrived (total may count every response)', async () => {
		const server = await pagingServer({ count: 2500, reportedTotal: 10_000 });
		try {
			const { ids } = await returnAll(server.baseUrl, { since: '2026-01-01T00:00:00Z' });
			expect(ids).toEqual(allIds(2500));
			expect(server.offsets).toEqual([0, 1000, 2000]);
			expect(server.maxInFlight()).toBe(1);
		} finally {
			await server.close();
		}
	});

	it('stops retrying a page read ahead once the walk has failed', async () => {
		const server = await pagingServer({
			count: 5000,
			// The page at 1000 fails late, after the page read ahead at 2000 was refused for a second.
			delayMs: (offset) => (offset === 1000 ? 300 : 5),
			fail: (offset) =>
				offset === 1000
					? { status: 401 }
					: offset === 2000
						? { status: 429, headers: { 'Retry-After': '1' } }
						: undefined,
		});
		try {
			const { result } = await returnAll(server.baseUrl);
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(/API key/);
			await new Promise((resolve) => setTimeout(resolve, 1500));
			// Without the stop, the refused page would have been asked for again after its second.
			expect(server.offsets.filter((offset) => offset === 2000)).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
