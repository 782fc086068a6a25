/**
 * Responses without a usable `submittedAt` read by reads that take more than a second: the
 * service's Date (whole seconds) of a read's first page is not the second of the page that
 * showed the response. Each story states what the promise asks and ends with the oracle.
 */
import type { SimServer } from '../sim/server';
import {
	aliveIds,
	drain,
	editByIds,
	MINUTE,
	newestId,
	settingsWith,
	setUp,
	timesEmitted,
} from './named';
import { check, formatViolations } from './oracle';
import type { PollRecord } from './run';
import { runSchedule, VIRTUAL_EPOCH_MS } from './run';

/** Moves the service's clock on to `ms` after the virtual epoch (a whole second). */
function clockTo(server: SimServer, ms: number): void {
	server.apply({ kind: 'advance', ms: VIRTUAL_EPOCH_MS + ms - server.now });
}

function served(poll: PollRecord, id: string): number[] {
	return poll.requests.filter((r) => r.ids?.includes(id)).map((r) => r.atMs - VIRTUAL_EPOCH_MS);
}

/**
 * One Form, activated at the epoch's second, New or Updated Response, no look-back window, pages
 * of 100 at 100 ms a request (unless `patch` says otherwise); 150 responses at +5 s; a poll at
 * +5.95 s whose read of them takes three requests, and a response without a date submitted just
 * before its `submittedBefore`-th request (after a dated one, `withDated`): in a later second
 * than the read's first page. Returns that poll and the undated response.
 */
async function undatedInASlowRead(
	patch: Parameters<typeof setUp>[0],
	submittedBefore = 2,
	withDated = false,
): Promise<ReturnType<typeof setUp> & { undated: string; read: PollRecord }> {
	const setup = setUp({
		lookBackMinutes: 0,
		startOffsetMs: 0,
		pageCap: 100,
		requestMs: 100,
		...patch,
	});
	const { server, driver } = setup;
	expect((await driver.poll()).errors).toEqual([]);
	clockTo(server, 5_000);
	server.apply({ kind: 'submit', form: 0, count: 150, gapMs: 1 });
	clockTo(server, 5_950);
	if (withDated) server.arm(submittedBefore, { kind: 'submit', form: 0, count: 1 });
	server.arm(submittedBefore, { kind: 'submitGarbled', form: 0, garble: 'null' });
	const read = await driver.poll();
	expect(read.errors).toEqual([]);
	return { ...setup, undated: newestId(server), read };
}

describe('a response without a date, seen by a read that began in an earlier second', () => {
	it.each([
		['no look-back window', 0],
		['a look-back window of 1 minute', 1],
	])(
		'a since compared by whole seconds, %s: emitted once, though a later read starts two seconds after the window',
		async (_window, lookBackMinutes) => {
			const { server, driver, undated, read } = await undatedInASlowRead({
				since: 'wholeSeconds',
				lookBackMinutes,
			});
			// The read began at +5.95 s (Date: +5 s); the page that showed it was answered at +6.15 s.
			expect(served(read, undated)).toEqual([6_150]);
			expect(timesEmitted(read.emitted, undated)).toBe(1);
			// The read at +7.1 s (and a window later) lets its window start after +6.999 s, which a
			// coarse server compares as +6 s: the next read is served the response again.
			clockTo(server, 7_100 + lookBackMinutes * MINUTE);
			expect((await driver.poll()).errors).toEqual([]);
			const again = await driver.poll();
			expect(served(again, undated).length).toBe(1);
			expect(timesEmitted(driver.emitted, undated)).toBe(1);
			await drain(driver);
		},
	);

	it('a since compared exactly: emitted once, though its read began two seconds before its page', async () => {
		// Pages of 600 ms: the read begins at +5.95 s (Date: +5 s), its third page, which shows
		// the response submitted just before it, is answered at +7.15 s.
		const { server, driver, undated, read } = await undatedInASlowRead({ requestMs: 600 }, 3);
		expect(served(read, undated)).toEqual([7_150]);
		expect(timesEmitted(read.emitted, undated)).toBe(1);
		// The read at +7.75 s lets its window start after +6.999 s, before the response: the next
		// read is served it again.
		expect((await driver.poll()).errors).toEqual([]);
		expect(server.now - VIRTUAL_EPOCH_MS).toBeLessThan(9_000);
		const again = await driver.poll();
		expect(served(again, undated).length).toBe(1);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
		await drain(driver);
	});

	it('no Date header: emitted once, though a dated response came in the same millisecond', async () => {
		// The host's clock dates the read +5.95 s; the response and a dated one come at +6.05 s.
		const { driver, undated, read } = await undatedInASlowRead({ dateAbsent: true }, 2, true);
		// Its second page, at +6.05 s, shows both; the read is dated by its first page, +5.95 s.
		expect(served(read, undated)).toEqual([6_050]);
		expect(timesEmitted(read.emitted, undated)).toBe(1);
		// The next reads let their window start at the newest response read, +6.05 s.
		await driver.poll();
		await driver.poll();
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
		await drain(driver);
	});
});

/**
 * A date a few seconds ahead of the clock (a user may pick any date): a read that begins before
 * it and takes a second page after it.
 */
describe('Every Response Since a Date still to come, New Response: a response without a date submitted after the date', () => {
	it("seen by a read that began before the date (the service's Date), then updated: emitted once", async () => {
		// The date is +6 s; the read begins at +5.95 s (Date: +5 s) and a later page, after
		// +6.05 s, shows the response submitted at +6.05 s, after the date.
		const { server, driver, undated, read } = await undatedInASlowRead(
			{ version: 2, sinceAgoMs: -6_000, updatedResponses: 'ignore', lookBackMinutes: 10 },
			2,
		);
		expect(served(read, undated).length).toBeGreaterThan(0);
		server.apply({ kind: 'advance', ms: MINUTE });
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
	});

	it('no Date header, a date inside the second the read began in, then updated: emitted once', async () => {
		// The date is +5.99 s; the host's clock dates the read +5.95 s; a later page shows the
		// response submitted at +6.05 s.
		const { server, driver, undated, read } = await undatedInASlowRead(
			{
				version: 2,
				sinceAgoMs: -5_990,
				updatedResponses: 'ignore',
				lookBackMinutes: 10,
				dateAbsent: true,
			},
			2,
		);
		expect(served(read, undated).length).toBeGreaterThan(0);
		server.apply({ kind: 'advance', ms: MINUTE });
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
	});

	it("the service's Date, a date inside the second the read began in, then updated: emitted once", async () => {
		const { server, driver, undated, read } = await undatedInASlowRead(
			{ version: 2, sinceAgoMs: -5_990, updatedResponses: 'ignore', lookBackMinutes: 10 },
			2,
		);
		expect(served(read, undated).length).toBeGreaterThan(0);
		expect(timesEmitted(read.emitted, undated)).toBe(1);
		server.apply({ kind: 'advance', ms: MINUTE });
		editByIds(server, 'update', [undated]);
		await drain(driver);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
	});
});

describe('responses without a date that the promise lets the trigger emit once, or not at all', () => {
	it('Every Response Since a Date inside the activation second: an undated response submitted 5 minutes before, in the look-back window, is emitted once', async () => {
		// Without a date the trigger cannot tell whether it existed (a limit of the promise): it
		// may have been submitted up to the end of the second read, which is after the date.
		const { server, driver } = setUp({
			version: 2,
			sinceAgoMs: -500,
			startOffsetMs: 100,
			lookBackMinutes: 10,
		});
		server.apply({ kind: 'advance', ms: -5 * MINUTE });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'missing' });
		server.apply({ kind: 'advance', ms: 5 * MINUTE });
		const undated = newestId(server);
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(timesEmitted(activation.emitted, undated)).toBe(1);
		await drain(driver);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
	});

	it.each([
		['in the same second', 100],
		['a second later', 1_000],
		['a minute later', MINUTE],
	])(
		'Every Response Since a Date inside the activation second, New or Updated Response: an undated response of that second, updated %s, comes as both versions once',
		async (_when, afterMs) => {
			const { server, driver } = setUp({
				version: 2,
				sinceAgoMs: 0,
				startOffsetMs: 1,
				lookBackMinutes: 0,
			});
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 5 });
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'notADate' });
			const undated = newestId(server);
			expect(timesEmitted((await driver.poll()).emitted, undated)).toBe(1);
			server.apply({ kind: 'advance', ms: afterMs });
			server.apply({ kind: 'update', form: 0, pick: 0 });
			await drain(driver);
			expect(driver.emitted.filter((e) => e.id === undated).map((e) => e.tag)).toEqual([
				`${undated}#1`,
				`${undated}#2`,
			]);
		},
	);

	it('Only New Responses: an undated response submitted in the activation second after its read, read again in that second, comes once, then its update', async () => {
		const { server, driver } = setUp({ startOffsetMs: 1, lookBackMinutes: 0 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5 });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
		const undated = newestId(server);
		expect(timesEmitted((await driver.poll()).emitted, undated)).toBe(1);
		server.apply({ kind: 'update', form: 0, pick: 0 });
		await drain(driver);
		expect(driver.emitted.filter((e) => e.id === undated).map((e) => e.tag)).toEqual([
			`${undated}#1`,
			`${undated}#2`,
		]);
	});

	it('the newest 1: undated existing responses in the look-back window come once each beside the newest dated one', async () => {
		// None of them can be ranked; each is emitted once (the promise's limit), the dated
		// responses older than the newest are not.
		const { server, driver } = setUp({ newestCount: 1, lookBackMinutes: 10 });
		server.seed(0, 3, MINUTE, 1_000);
		const dated = aliveIds(server);
		for (let k = 0; k < 3; k++) {
			server.apply({ kind: 'advance', ms: 1_000 });
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
		}
		const undated = aliveIds(server).filter((id) => !dated.includes(id));
		server.apply({ kind: 'advance', ms: 1_000 });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		const newestDated = newestId(server);
		server.apply({ kind: 'advance', ms: 2_000 });
		await drain(driver);
		for (const id of [...undated, newestDated]) expect(timesEmitted(driver.emitted, id)).toBe(1);
		expect(dated).toHaveLength(3);
		for (const id of dated) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});
});

describe('a response without a date, submitted while a 429 on the page that shows it is waited out', () => {
	for (const dateAbsent of [true, false])
		it(`${dateAbsent ? 'no Date header' : 'a Date header'}, no look-back window: emitted once, beside an update of an existing response made then`, async () => {
			const { server, driver } = setUp({
				version: 2,
				lookBackMinutes: 0,
				pageCap: 100,
				requestMs: 1,
				dateAbsent,
			});
			server.seed(0, 5, MINUTE, 1_000);
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: MINUTE });
			// The poll's first request is answered 429 (wait 1 s); the retry finds both.
			server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 1 } }, 1);
			server.arm(2, { kind: 'update', form: 0, pick: 4 });
			server.arm(2, { kind: 'submitGarbled', form: 0, garble: 'null' });
			const undated = () => newestId(server);
			const read = await driver.poll();
			expect(read.errors).toEqual([]);
			expect(timesEmitted(read.emitted, undated())).toBe(1);
			server.apply({ kind: 'advance', ms: 1_000 });
			await drain(driver);
			expect(timesEmitted(driver.emitted, undated())).toBe(1);
		});
});

describe('New or Updated Response, newest first: an undated response updated while its read goes on', () => {
	// A read shows the newest response undated on its first page; the end page it asks next starts
	// with another undated response (which proves nothing), so the window is walked from the first
	// page again: that page's clock, not the end page's, dates the undated response.
	describe.each([
		['no Date header', { dateAbsent: true }, false],
		['a Date header, the clock 1.5 s on by the end page', {}, true],
	])('%s', (_name, patch, clockMoves) => {
		it.each([10, 0])('look-back %i min: its update comes', async (lookBackMinutes) => {
			const { server, driver } = setUp({
				watch: 'form',
				order: 'newestFirst',
				pageCap: 100,
				lookBackMinutes,
				updatedResponses: 'emit',
				...patch,
			});
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 1_000 });
			server.apply({ kind: 'submit', form: 0, count: 150, gapMs: 500 });
			server.apply({ kind: 'advance', ms: 500 });
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
			server.apply({ kind: 'garble', form: 0, pick: 89, garble: 'null' });
			const undated = newestId(server);
			if (lookBackMinutes > 0) {
				server.apply({ kind: 'advance', ms: 10_000 });
				expect((await driver.poll()).errors).toEqual([]);
			}
			server.apply({ kind: 'advance', ms: 20_000 });
			// Just before the read's second request (the end page), its respondent updates it.
			server.arm(2, { kind: 'update', form: 0, pick: 150 });
			if (clockMoves) server.arm(2, { kind: 'advance', ms: 1_500 });
			for (let poll = 0; poll < 4; poll++) {
				await driver.poll();
				server.apply({ kind: 'advance', ms: MINUTE });
			}
			await drain(driver);
			const versions = driver.emitted.filter((e) => e.id === undated).map((e) => e.tag);
			expect(versions).toEqual([`${undated}#1`, `${undated}#2`]);
		});
	});
});

describe('a response without a date in an answer long on its way', () => {
	it('no Date header, a since compared in whole seconds: an undated response submitted while a read waited an hour for its answer is emitted once, though the next read passes the hour', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				version: 1,
				lookBackMinutes: 0,
				updatedResponses: 'emit',
				since: 'wholeSeconds',
				order: 'oldestFirst',
				pageCap: 100,
				requestMs: 1,
				startOffsetMs: 0,
				seeded: [5],
				seedAgoMs: 0,
				dateAbsent: true,
			}),
			steps: [
				{ kind: 'poll', budget: 'default' },
				// The next read's answer comes an hour after it was asked for, with an undated response.
				{ kind: 'during', afterRequests: 0, event: { kind: 'advance', ms: 60 * MINUTE } },
				{
					kind: 'during',
					afterRequests: 0,
					event: { kind: 'submitGarbled', form: 0, garble: 'null' },
				},
				// Updates on every poll after it move the next reads' `since` past the hour.
				...[0, 1, 2, 3, 4].flatMap((pick) => [
					{ kind: 'update' as const, form: 0, pick },
					{ kind: 'poll' as const, budget: 'default' as const },
				]),
			],
		});
		const undated = trace.server.responses.filter((r) => r.versions[0].garble !== undefined);
		expect(undated).toHaveLength(1);
		expect(trace.emitted.filter((e) => e.id === undated[0].id)).toHaveLength(1);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('no Date header: an undated response submitted while the answer was on its way, after a dated one, is emitted once', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				lookBackMinutes: 0,
				pageCap: 100,
				requestMs: 1,
				startOffsetMs: 0,
				dateAbsent: true,
			}),
			steps: [
				{ kind: 'poll', budget: 'default' },
				{ kind: 'advance', ms: 1_000 },
				// Just before the next request is answered: a response, 150 s, another, then one undated.
				{
					kind: 'during',
					afterRequests: 1,
					event: { kind: 'submit', form: 0, count: 2, gapMs: 150_000 },
				},
				{
					kind: 'during',
					afterRequests: 1,
					event: { kind: 'submitGarbled', form: 0, garble: 'null' },
				},
				{ kind: 'poll', budget: 'default' },
				{ kind: 'poll', budget: 'default' },
			],
		});
		const undated = trace.server.responses.filter((r) => r.versions[0].garble !== undefined);
		expect(undated).toHaveLength(1);
		expect(trace.emitted.filter((e) => e.id === undated[0].id)).toHaveLength(1);
		expect(formatViolations(check(trace))).toBe('');
	});
});
