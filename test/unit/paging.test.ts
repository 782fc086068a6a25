/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import http from 'http';
import type { AddressInfo } from 'net';

import { Continuity, PAGES_IN_FLIGHT } from '../../nodes/FormsWtf/shared/transport/paging';
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

describe('paging: the continuity proof of a walk by offset', () => {
	const at = (id: string, submittedAt = '2026-01-01T00:00:00.000Z') => ({
		...response(id),
		submittedAt,
	});

	it('a boundary is proven when the next page holds one of the last responses read, in the same version', () => {
		const continuity = new Continuity(2);
		continuity.observe([at('a'), at('b'), at('c'), at('d')]);
		continuity.crossBoundary();
		expect(continuity.proven).toBe(false);
		// The next page starts 2 early: c, d, then new ones.
		continuity.observe([at('c'), at('d'), at('e')]);
		expect(continuity.proven).toBe(true);
		expect(continuity.anchors.map((anchor) => anchor.id)).toEqual(['c', 'd', 'e']);
	});

	it('an anchor that came back updated proves nothing; the oldest unproven boundary stays the one to find', () => {
		const continuity = new Continuity(1);
		continuity.observe([at('a'), at('b')]);
		continuity.crossBoundary();
		// b was updated and moved: the page no longer proves the boundary after b.
		continuity.observe([at('c'), at('b', '2026-02-01T00:00:00.000Z')]);
		expect(continuity.proven).toBe(false);
		continuity.crossBoundary();
		continuity.observe([at('x'), at('a')]);
		expect(continuity.proven).toBe(true);
		// A read cut now would hand on the last responses read.
		expect(continuity.anchors.map((anchor) => anchor.id)).toEqual(['x', 'a']);
	});

	it('a response served again by a page that starts early is one anchor, not two', () => {
		const continuity = new Continuity(3);
		continuity.observe([at('a'), at('b')]);
		continuity.crossBoundary();
		continuity.observe([at('b'), at('c')]);
		expect(continuity.anchors.map((anchor) => anchor.id)).toEqual(['a', 'b', 'c']);
	});

	it('a resumed walk must find the anchors it was handed', () => {
		const continuity = new Continuity(1, [{ id: 'k', submittedAt: '2026-01-01T00:00:00.000Z' }]);
		expect(continuity.proven).toBe(false);
		continuity.observe([at('i'), at('j')]);
		expect(continuity.proven).toBe(false);
		expect(continuity.anchors.map((anchor) => anchor.id)).toEqual(['k']);
		expect(continuity.resumed).toBe(false);
		continuity.observe([at('k'), at('l')]);
		expect(continuity.proven).toBe(true);
		expect(continuity.resumed).toBe(true);
	});

	describe('a boundary not found yet: pushed on (nothing skipped) or pulled back (not proven)', () => {
		const minute = (m: number) => `2026-01-01T00:${String(m).padStart(2, '0')}:00.000Z`;
		// Newest first: e (minute 5) down to a (minute 1); the walk read e, d, c.
		const firstPage = () => {
			const continuity = new Continuity(1);
			continuity.observe([at('e', minute(5)), at('d', minute(4)), at('c', minute(3))]);
			continuity.crossBoundary();
			return continuity;
		};

		it('a page of arrivals newer than the boundary and of responses read before: pushed on', () => {
			const continuity = firstPage();
			continuity.observe([at('f', minute(6)), at('e', minute(5))]);
			expect(continuity.proven).toBe(false);
			expect(continuity.pushedOn).toBe(true);
		});

		it('a response beyond the boundary not read before: pulled back, not pushed on', () => {
			const continuity = firstPage();
			continuity.observe([at('e', minute(5)), at('b', minute(2))]);
			expect(continuity.pushedOn).toBe(false);
			// Once false, it stays so for that boundary, whatever the next page holds.
			continuity.observe([at('f', minute(6))]);
			expect(continuity.pushedOn).toBe(false);
		});

		it('the anchors a walk resumed from, pushed on by arrivals, or pulled back', () => {
			const resumedFrom = [at('d', minute(4)), at('c', minute(3))];
			const pushed = new Continuity(1, resumedFrom);
			pushed.observe([at('f', minute(6)), at('e', minute(5))]);
			expect(pushed.resumed).toBe(false);
			expect(pushed.pushedOn).toBe(true);
			// Found further on: resumed and proven.
			pushed.observe([at('d', minute(4)), at('c', minute(3))]);
			expect(pushed.proven).toBe(true);
			expect(pushed.pushedOn).toBe(false);

			const pulled = new Continuity(1, resumedFrom);
			pulled.observe([at('b', minute(2)), at('a', minute(1))]);
			expect(pulled.pushedOn).toBe(false);
		});

		it('an empty page, or an undated response not read before, is no proof of a push', () => {
			const empty = firstPage();
			empty.observe([]);
			expect(empty.pushedOn).toBe(false);
			const undated = firstPage();
			undated.observe([at('f', 'not a date')]);
			expect(undated.pushedOn).toBe(false);
		});
	});

	it('a boundary whose page never came is taken back; one a page came after, or the one a walk resumed from, stays', () => {
		const failed = new Continuity(1);
		failed.observe([at('a'), at('b')]);
		failed.crossBoundary();
		failed.abandonBoundary();
		expect(failed.proven).toBe(true);
		expect(failed.anchors.map((anchor) => anchor.id)).toEqual(['a', 'b']);

		const answered = new Continuity(1);
		answered.observe([at('a'), at('b')]);
		answered.crossBoundary();
		answered.observe([at('x'), at('y')]);
		answered.abandonBoundary();
		expect(answered.proven).toBe(false);

		const resumed = new Continuity(1, [{ id: 'k', submittedAt: '2026-01-01T00:00:00.000Z' }]);
		resumed.abandonBoundary();
		expect(resumed.proven).toBe(false);
		expect(resumed.resumed).toBe(false);
	});

	it('a resumed walk that found its anchors but misses a later boundary is resumed all the same', () => {
		const continuity = new Continuity(1, [{ id: 'k', submittedAt: '2026-01-01T00:00:00.000Z' }]);
		continuity.observe([at('k'), at('l')]);
		continuity.crossBoundary();
		continuity.observe([at('n'), at('o')]);
		expect(continuity.proven).toBe(false);
		expect(continuity.resumed).toBe(true);
	});
});
