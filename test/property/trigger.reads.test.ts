/**
 * Two parts of the trigger's reading of a form: a response without a usable `submittedAt`, dated
 * by the page that showed it (an update after that page is newer); and a read whose `since`
 * stands at its look-back window's start, which walks the window at once. Each story states what
 * the promise asks (docs/trigger-promise.md) and ends with the oracle.
 */
import type { SimServer } from '../sim/server';
import { aliveIds, drain, editByIds, MINUTE, newestId, setUp, timesEmitted } from './named';
import type { Driver } from './run';
import { VIRTUAL_EPOCH_MS } from './run';
import type { FuzzSettings } from './schedule';

/** The versions of a response emitted, in order. */
function tagsOf(driver: Driver, id: string): string[] {
	return driver.emitted.filter((e) => e.id === id).map((e) => e.tag);
}

/** The update of `id` came (its first version may come before it, or not at all), each version once. */
function expectTheUpdate(driver: Driver, id: string): void {
	const tags = tagsOf(driver, id);
	expect(tags).toContain(`${id}#2`);
	expect(new Set(tags).size).toBe(tags.length);
}

/**
 * One Form, New or Updated Response, activated; 5 s later a response without a date is
 * submitted, and the next poll reads it (a page of one response).
 */
async function undatedRead(
	patch: Partial<FuzzSettings>,
): Promise<ReturnType<typeof setUp> & { undated: string }> {
	const setup = setUp({ lookBackMinutes: 10, ...patch });
	const { server, driver } = setup;
	expect((await driver.poll()).errors).toEqual([]);
	server.apply({ kind: 'advance', ms: 5_000 });
	server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
	const undated = newestId(server);
	const read = await driver.poll();
	expect(read.errors).toEqual([]);
	expect(timesEmitted(read.emitted, undated)).toBe(1);
	return { ...setup, undated };
}

describe('New or Updated Response, no Date header: a response without a date, then updated with a date', () => {
	// The update is a new version submitted after the activation: the promise asks for it (P2b).
	it('updated in the millisecond its page was answered: the update comes', async () => {
		const { server, driver, undated } = await undatedRead({ dateAbsent: true });
		// The poll's last request served it; the clock now is the end of that answer.
		const lastRequest = driver.polls.at(-1)?.requests.at(-1);
		expect(lastRequest?.ids).toEqual([undated]);
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expectTheUpdate(driver, undated);
	});

	it('updated while the page that showed it was on its way (50 ms into a 100 ms answer): the update comes', async () => {
		const { server, driver, undated } = await undatedRead({ dateAbsent: true, requestMs: 100 });
		// The service served the page 100 ms ago; the respondent updated 50 ms after that.
		server.apply({ kind: 'advance', ms: -50 });
		editByIds(server, 'update', [undated]);
		server.apply({ kind: 'advance', ms: 50 });
		server.apply({ kind: 'advance', ms: MINUTE });
		await drain(driver);
		expectTheUpdate(driver, undated);
	});

	it('updated between two requests of one read, newest first: the update comes', async () => {
		// Pages of 100, newest first: 150 responses, then the undated one on top. The read's first
		// page shows it; the respondent updates it just before the read's next request.
		const { server, driver } = setUp({
			dateAbsent: true,
			lookBackMinutes: 10,
			pageCap: 100,
			order: 'newestFirst',
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5_000 });
		server.apply({ kind: 'submit', form: 0, count: 150, gapMs: 1 });
		server.apply({ kind: 'advance', ms: 1 });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'missing' });
		const undated = newestId(server);
		server.arm(2, (s) => editByIds(s, 'update', [undated]));
		const read = await driver.poll();
		expect(read.errors).toEqual([]);
		expect(read.requests[0].ids?.[0]).toBe(undated);
		expect(read.requests.length).toBeGreaterThan(1);
		await drain(driver);
		expectTheUpdate(driver, undated);
	});

	it("with the service's Date header, updated a millisecond after its page: the update comes", async () => {
		const { server, driver, undated } = await undatedRead({});
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expectTheUpdate(driver, undated);
	});

	it('New Response, updated in the millisecond its page was answered: it comes once', async () => {
		const { server, driver, undated } = await undatedRead({
			dateAbsent: true,
			updatedResponses: 'ignore',
		});
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expect(tagsOf(driver, undated)).toEqual([`${undated}#1`]);
	});
});

/**
 * A form whose look-back window holds more than a page, read twice in one second of the service's
 * clock: the second read's `since` stands at its window's start, and it walks the window at once.
 * `patch` sets the service and the trigger; `between` happens between the two reads.
 */
async function twoReadsInOneSecond(
	patch: Partial<FuzzSettings>,
	between: (server: SimServer) => void = () => undefined,
): Promise<ReturnType<typeof setUp>> {
	const setup = setUp({
		version: 2,
		pageCap: 100,
		lookBackMinutes: 10,
		startOffsetMs: 0,
		...patch,
	});
	const { server, driver } = setup;
	server.seed(0, 120, 5 * MINUTE, 1_000);
	expect((await driver.poll()).errors).toEqual([]);
	server.apply({ kind: 'advance', ms: 2_000 });
	// A first page of one millisecond: the order shows only further on.
	server.apply({ kind: 'burst', form: 0, count: 150 });
	server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
	expect((await driver.poll()).errors).toEqual([]);
	between(server);
	const second = await driver.poll();
	expect(second.errors).toEqual([]);
	expect(Math.floor((second.startMs - VIRTUAL_EPOCH_MS) / 1000)).toBe(2);
	// The window is walked from its first page, five responses back each page: no look at the
	// list's oldest end (an offset off the walk's steps).
	expect(second.requests.every((r) => r.offset === undefined || r.offset % 95 === 0)).toBe(true);
	return setup;
}

describe("a second read in the same second, its since at the window's start: what it reads", () => {
	it.each([
		['newest first', { order: 'newestFirst' }],
		['newest first, no total', { order: 'newestFirst', totalAbsent: true }],
		['oldest first', { order: 'oldestFirst' }],
		[
			'newest first, a since by whole seconds, no look-back window',
			{ order: 'newestFirst', since: 'wholeSeconds', lookBackMinutes: 0 },
		],
		['newest first, Every Response Since a Date', { order: 'newestFirst', sinceAgoMs: 3_600_000 }],
		['oldest first, the newest 30', { order: 'oldestFirst', newestCount: 30 }],
		['newest first, New Response', { order: 'newestFirst', updatedResponses: 'ignore' }],
	] as Array<[string, Partial<FuzzSettings>]>)(
		'%s: every new response once',
		async (_story, patch) => {
			const { driver } = await twoReadsInOneSecond(patch);
			await drain(driver);
		},
	);

	it.each([['newestFirst'], ['oldestFirst']] as const)(
		'%s, a response updated and one deleted between the two reads, one updated between its pages: every new version once',
		async (order) => {
			const { server, driver } = await twoReadsInOneSecond({ order }, (s) => {
				const ids = aliveIds(s);
				s.apply({ kind: 'update', form: 0, pick: ids.length - 3 });
				s.apply({ kind: 'delete', form: 0, pick: ids.length - 40 });
				s.arm(2, { kind: 'update', form: 0, pick: ids.length - 100 });
			});
			expect(server.responses.some((r) => r.deletedAtMs !== undefined)).toBe(true);
			await drain(driver);
		},
	);
});

describe("a read whose since stands at the window's start after its first look (no Date header)", () => {
	it.each([['newestFirst'], ['oldestFirst']] as const)(
		'%s, Every Response Since a Date a week ago, a backlog of 3 pages an hour ago and 2 pages in the window: each once',
		async (order) => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				dateAbsent: true,
				sinceAgoMs: 7 * 24 * 3_600_000,
			});
			server.seed(0, 300, 60 * MINUTE, 1_000);
			server.apply({ kind: 'burst', form: 0, count: 150 });
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'notADate' });
			server.apply({ kind: 'advance', ms: 3_000 });
			await drain(driver);
			expect(driver.emitted).toHaveLength(451);
		},
	);

	it('a read cut by a poll of 1 s at 100 ms a request, newest first: each once', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			requestMs: 100,
			dateAbsent: true,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 0, count: 400, gapMs: 1 });
		server.apply({ kind: 'advance', ms: 15 * MINUTE });
		for (let k = 0; k < 6; k++) {
			server.apply({ kind: 'submit', form: 0, count: 120, gapMs: 1 });
			await driver.poll({ budgetMs: 1_000 });
			server.apply({ kind: 'advance', ms: 2_000 });
		}
		await drain(driver);
	});
});

describe("beyond the assumptions: spam cleared out between a read's pages, its since at the window's start", () => {
	it('five responses deleted before each of three pages: the new ones come once, nothing twice, nothing silent', async () => {
		// Read in the activation's second, oldest first, a window of 203 responses in pages of 100:
		// each pass of the walk meets its page no more (five deleted before the overlap), so the
		// read may not be proven in this poll; what it read comes, and a later poll proves the rest.
		const { server, driver } = setUp({
			version: 2,
			pageCap: 100,
			lookBackMinutes: 10,
			startOffsetMs: 0,
		});
		server.seed(0, 200, MINUTE, 100);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'submit', form: 0, count: 3, gapMs: 1 });
		const fresh = aliveIds(server).slice(-3);
		for (const before of [2, 4, 6])
			for (let k = 0; k < 5; k++) server.arm(before, { kind: 'delete', form: 0, pick: 0 });
		const spammed = await driver.poll();
		expect(spammed.errors).toEqual([]);
		expect(spammed.emitted.map((e) => e.id).sort()).toEqual(fresh);
		await drain(driver, 'beyond');
		for (const id of fresh) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
});
