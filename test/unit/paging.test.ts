/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import http from 'http';
import type { AddressInfo } from 'net';

import { FormPages, orderOf, PAGES_IN_FLIGHT } from '../../nodes/FormsWtf/shared/transport/paging';
import type { FetchedPage } from '../../nodes/FormsWtf/shared/transport/paging';
import type { FormResponse } from '../../nodes/FormsWtf/shared/transport/types';
import { testRetryPolicy } from '../support/retryPolicy';
import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY, response, useFastRetries } from './fixtures';

useFastRetries();

interface FakeForm {
	count: number;
	/** The most responses the server puts on the page at an offset, whatever the limit asked. */
	pageCap?: (offset: number) => number;
	/** The `total` the server reports (default: what it serves); `absent` leaves the field out. */
	reportedTotal?: number | string | 'absent';
	/** Failures per requested offset. */
	fail?: (offset: number) => { status: number; headers?: Record<string, string> } | undefined;
	/** Answers the request at an offset only once this resolves (ordering, not timing). */
	answerWhen?: (offset: number) => Promise<void> | undefined;
	/** Told when the answer for an offset has been sent. */
	onAnswered?: (offset: number) => void;
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
		const answer = () => {
			inFlight--;
			res.once('finish', () => form.onAnswered?.(offset));
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
					total: form.reportedTotal === 'absent' ? undefined : (form.reportedTotal ?? ids.length),
					hasMore: offset + slice.length < ids.length,
				}),
			);
		};
		const gate = form.answerWhen?.(offset);
		// A short pause lets the client put its next request under way before this answer.
		if (gate) void gate.then(answer);
		else setTimeout(answer, 15);
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
		parameters: {
			resource: 'response',
			operation: 'getAll',
			formId: formById('f1'),
			returnAll: true,
			options,
		},
	});
	return {
		result,
		ids:
			result.status === 'success' ? result.outputOf('Forms.wtf').map((item) => item.json.id) : [],
	};
}

const allIds = (count: number) => Array.from({ length: count }, (_, i) => `r${i}`);

describe('paging: reading ahead', () => {
	it('keeps the next page under way while reading one, and still sends one request per page', async () => {
		const server = await pagingServer({ count: 5500 });
		try {
			const { ids } = await returnAll(server.baseUrl);
			expect(ids).toEqual(allIds(5500));
			// Each page asked for ahead starts on the last response of the page before it.
			expect(server.offsets).toEqual([0, 1000, 1999, 2998, 3997, 4996]);
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
			expect(server.offsets).toEqual([0, 400, 799, 1198, 1597, 1996]);
		} finally {
			await server.close();
		}
	});

	it('drops a page read ahead at an offset that a shorter page made wrong', async () => {
		const server = await pagingServer({
			count: 3000,
			pageCap: (offset) => (offset === 0 ? 1000 : 600),
		});
		try {
			const { ids } = await returnAll(server.baseUrl);
			expect(ids).toEqual(allIds(3000));
			// 1999 and 2598 were asked for ahead, assuming a full page at 1000: two wasted requests,
			// dropped because 1999 does not hold r1599, the last response of the page at 1000.
			expect([...server.offsets].sort((a, b) => a - b)).toEqual([
				0, 1000, 1600, 1999, 2200, 2598, 2799,
			]);
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

	it.each<[string, string]>([
		['no total', 'absent'],
		['total as a string', '25000'],
		['total as a word', 'many'],
	])('with %s, hasMore alone says where the responses end', async (_name, reportedTotal) => {
		const server = await pagingServer({ count: 25_000, reportedTotal });
		try {
			const { result, ids } = await returnAll(server.baseUrl);
			expect(result.error).toBeUndefined();
			expect(ids).toEqual(allIds(25_000));
		} finally {
			await server.close();
		}
	});

	it('stops waiting to retry a page read ahead once the walk has failed', async () => {
		// A clock of our own: a wait ends only when its signal stops it.
		const waits: Array<{ ms: number; signal?: AbortSignal }> = [];
		testRetryPolicy.wait = async (ms, signal) => {
			waits.push({ ms, signal });
			await new Promise<void>((_, reject) =>
				signal?.addEventListener('abort', () => reject(new Error('aborted'))),
			);
		};
		let aheadRefused!: () => void;
		const refused = new Promise<void>((resolve) => (aheadRefused = resolve));
		const server = await pagingServer({
			count: 5000,
			fail: (offset) =>
				offset === 1000
					? { status: 401 }
					: offset === 1999
						? { status: 429, headers: { 'Retry-After': '1' } }
						: undefined,
			// The page at 1000 fails only after the page read ahead was refused and is waiting.
			answerWhen: (offset) => (offset === 1000 ? refused : undefined),
			onAnswered: (offset) => offset === 1999 && aheadRefused(),
		});
		try {
			const { result } = await returnAll(server.baseUrl);
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(/API key/);
			// The refused page was waiting out its Retry-After; the failed walk cancelled that wait.
			expect(waits).toEqual([{ ms: 1000, signal: expect.any(AbortSignal) }]);
			expect(waits[0].signal?.aborted).toBe(true);
			expect(server.offsets.filter((offset) => offset === 1999)).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});

describe('paging: reads that prove themselves', () => {
	/** A form's list as a server serves it: `list` (in the server's order) is read at each request. */
	function source(list: () => FormResponse[], pageCap = 1000, pages = 40) {
		const asked: number[] = [];
		const pageSource = {
			asked,
			mayRead: () => asked.length < pages,
			page: async (_formId: string, offset: number, _since?: string, limit = 1000) => {
				asked.push(offset);
				const all = list();
				const responses = all.slice(offset, offset + Math.min(limit, pageCap));
				const hasMore = offset + responses.length < all.length;
				return { responses, total: all.length, hasMore, sentAtMs: Date.now() };
			},
		};
		return pageSource;
	}
	const minutes = (n: number, order: 1 | -1) =>
		Array.from({ length: n }, (_, i) =>
			at(`r${i}`, new Date(Date.UTC(2026, 0, 1, 0, order === 1 ? i : n - i)).toISOString()),
		);
	const at = (id: string, submittedAt: string): FormResponse =>
		({ id, submittedAt }) as FormResponse;

	const taken = () => {
		const ids = new Set<string>();
		return { ids, take: (page: FetchedPage) => page.responses.forEach((r) => ids.add(r.id)) };
	};
	const ms = (r: FormResponse) => Date.parse(r.submittedAt);

	it('an oldest-first list proves what lies before the newest of its first pages', async () => {
		const list = minutes(300, 1);
		const server = source(() => list, 100);
		const pages = new FormPages(server, 'f');
		const { ids, take } = taken();
		const proven = await pages.provenBefore(await pages.at(0), take, () => true);
		expect(proven).toEqual({ beforeMs: ms(list[99]), wholeList: false });
		expect(server.asked).toEqual([0]);
		expect(ids.size).toBe(100);
	});

	it('an oldest-first list is walked on until what it proves is enough', async () => {
		const list = minutes(300, 1);
		const server = source(() => list, 100);
		const pages = new FormPages(server, 'f');
		const proven = await pages.provenBefore(
			await pages.at(0),
			() => undefined,
			(t) => t > ms(list[150]),
		);
		expect(server.asked).toEqual([0, 95]);
		expect(proven?.beforeMs).toBe(ms(list[194]));
	});

	it('a newest-first list proves its oldest end with its last page, asked a tenth of a page early', async () => {
		const list = minutes(300, -1);
		const server = source(() => list, 100);
		const pages = new FormPages(server, 'f');
		const { ids, take } = taken();
		const proven = await pages.provenBefore(await pages.at(0), take, () => true);
		expect(server.asked).toEqual([0, 210]);
		expect(proven?.beforeMs).toBe(ms(list[210]));
		expect(list.slice(210).every((r) => ids.has(r.id))).toBe(true);
	});

	it('a newest-first list whose last page is one millisecond reads the last pages until they prove more', async () => {
		const burst = Array.from({ length: 150 }, (_, i) => at(`b${i}`, '2025-12-31T00:00:00.000Z'));
		const list = [...minutes(300, -1), ...burst];
		const server = source(() => list, 100);
		const pages = new FormPages(server, 'f');
		const burstMs = ms(burst[0]);
		const proven = await pages.provenBefore(
			await pages.at(0),
			() => undefined,
			(t) => t > burstMs,
		);
		expect(proven?.beforeMs).toBeGreaterThan(burstMs);
		expect(server.asked[1]).toBe(450 - 90);
	});

	it('a first page of one millisecond: the last response tells the order', async () => {
		const burst = Array.from({ length: 150 }, (_, i) => at(`b${i}`, '2025-12-31T00:00:00.000Z'));
		const server = source(() => [...burst, ...minutes(300, 1)], 100);
		const pages = new FormPages(server, 'f');
		const proven = await pages.provenBefore(
			await pages.at(0),
			() => undefined,
			(t) => t > ms(burst[0]),
		);
		expect(server.asked.slice(0, 2)).toEqual([0, 449]);
		expect(proven?.beforeMs).toBeGreaterThan(ms(burst[0]));
	});

	it('a page that shows no order proves nothing', async () => {
		const shuffled = minutes(300, 1).sort(
			(a, b) => (a.id.length % 2) - (b.id.length % 2) || (a.id < b.id ? 1 : -1),
		);
		const server = source(() => shuffled, 100);
		const pages = new FormPages(server, 'f');
		expect(
			await pages.provenBefore(
				await pages.at(0),
				() => undefined,
				() => true,
			),
		).toBeUndefined();
	});

	it('a walk whose pages meet their overlap reads the whole list once', async () => {
		const server = source(() => minutes(250, -1), 100);
		const pages = new FormPages(server, 'f');
		const read = new Set<string>();
		const walked = await pages.walk(await pages.at(0), 0, (page) =>
			page.responses.forEach((r) => read.add(r.id)),
		);
		expect(walked).toBe('whole');
		expect(read.size).toBe(250);
		expect(server.asked).toEqual([0, 95, 190]);
	});

	it('a walk begins again when deletions pull its overlap out of the next page', async () => {
		let list = minutes(250, 1);
		const server = source(() => {
			// Before the second page, six responses of the first are deleted.
			if (server.asked.length === 2) list = list.filter((_, i) => i < 10 || i >= 16);
			return list;
		}, 100);
		const pages = new FormPages(server, 'f');
		const read = new Set<string>();
		const walked = await pages.walk(await pages.at(0), 0, (page) =>
			page.responses.forEach((r) => read.add(r.id)),
		);
		expect(walked).toBe('whole');
		expect(server.asked).toEqual([0, 95, 0, 95, 190]);
		expect([...list].every((r) => read.has(r.id))).toBe(true);
	});

	it('an oldest-first walk cut after a page that misses its overlap proves no more than the pages before', async () => {
		let list = minutes(300, 1);
		const server = source(
			() => {
				// Before the second page, the first page's last 30 are updated: they move to the end.
				if (server.asked.length === 2) {
					const moved = list.slice(70, 100).map((r) => at(r.id, '2026-02-01T00:00:00.000Z'));
					list = [...list.slice(0, 70), ...list.slice(100), ...moved];
				}
				return list;
			},
			100,
			2,
		);
		const pages = new FormPages(server, 'f');
		const first = await pages.at(0);
		const proven = await pages.provenBefore(
			first,
			() => undefined,
			() => false,
		);
		expect(server.asked).toEqual([0, 95]);
		expect(proven).toEqual({ beforeMs: ms(first.responses[99]), wholeList: false });
	});

	it('a walk of pages of one response cannot prove its boundaries', async () => {
		const server = source(() => minutes(10, 1), 1);
		const pages = new FormPages(server, 'f');
		expect(await pages.walk(await pages.at(0), 0, () => undefined)).toBe('notWhole');
	});

	it('a walk stops when the poll may read no more, and when the reader has enough', async () => {
		const server = source(() => minutes(500, -1), 100, 2);
		const cut = new FormPages(server, 'f');
		expect(await cut.walk(await cut.at(0), 0, () => undefined)).toBe('cut');
		const all = source(() => minutes(500, -1), 100);
		const enough = new FormPages(all, 'f');
		let count = 0;
		const walked = await enough.walk(
			await enough.at(0),
			0,
			(page) => (count += page.responses.length),
			() => count >= 150,
		);
		expect(walked).toBe('whole');
		expect(all.asked).toEqual([0, 95]);
	});

	it('tells the order a page shows, none when it breaks it, and none on a page of a few responses', () => {
		expect(orderOf(minutes(10, 1))).toBe(1);
		expect(orderOf(minutes(10, -1))).toBe(-1);
		expect(orderOf(minutes(9, 1))).toBe(0);
		const sameMs = Array.from({ length: 10 }, (_, i) => at(`s${i}`, '2026-01-01T00:00:00.000Z'));
		expect(orderOf(sameMs)).toBe(0);
		const [a, b, ...rest] = minutes(10, 1);
		expect(orderOf([b, a, ...rest])).toBe(0);
	});
});
