/**
 * A P2c break found by the long fuzz (seed 92003): the trigger's, not the oracle's. The promise
 * (docs/trigger-promise.md): a response is existing "when it was submitted before the second of
 * that clock began (and the API showed it then)", and existing responses are not emitted. Its
 * limit for a service that serves a page of one twice in a row: "the boundary after the second
 * such page is taken on trust, and a response edited or deleted before the next page can make the
 * read skip another one; the look-back window reads it on a later poll". A skip is allowed, and a
 * skipped new response comes late; a skipped existing one must still not come.
 * Replay with
 *   npx jest test/property/trigger.fuzz92003.test.ts --maxWorkers=1 -t '<name>'
 */
import { cursorOf, settingsWith, timesEmitted, trustedSkipAtActivation } from './named';
import { check, formatViolations } from './oracle';
import { runSchedule } from './run';
import type { Schedule } from './schedule';

/** The fuzz schedule, as `npm run fuzz` shrank it (seed 92003). */
const FUZZ_SCHEDULE: Schedule = {
	settings: settingsWith({
		requestMs: 1,
		lookBackMinutes: 1,
		order: 'newestFirst',
		pageCap: 7,
		startOffsetMs: 0,
		seeded: [4, 0, 0, 0],
		seedSpacingMs: 1_000,
	}),
	steps: [
		{ kind: 'during', afterRequests: 4, event: { kind: 'delete', form: 0, pick: 11 } },
		{ kind: 'fault', fault: { kind: 'shortPage', size: 1 }, times: 3 },
		{ kind: 'poll', budget: 'default' },
	],
};

describe('Forms.wtf Trigger, fuzz seed 92003: a boundary taken on trust in the activation read', () => {
	// REPRO (found by `npm run fuzz`, seed 92003, path "2011:2:2:2:2:2:3:2:2:3:4:4:4:6:0:3:2:2:2:2:
	// 10:12:12:18:19:18:18:19:23:20:19:21:22:22:12"). One Form, version 1, only new, look-back
	// 1 min, newest first, pages of 7; r0001..r0004 at 08:59:57..09:00:00.000, activation 09:00:00.
	// The activation poll: request 1 dates it (a page of one: r0004); request 2 reads from the
	// window's start, a page of one (r0004); request 3 starts at it again, a page of one (r0004),
	// the only proof a page of one allows; the boundary after it is taken on trust. r0004 is
	// deleted before request 4, which asks offset 1 and gets [r0002 r0001]: r0003 (08:59:59) moved
	// to offset 0 and was skipped. The read ended whole, so the floor (nothing before the moment's
	// second) was dropped, and poll 1's read of the look-back window found r0003 unseen: emitted,
	// though it was submitted (and shown) a second before activation.
	it('a response the activation read skipped past a boundary taken on trust is not emitted', async () => {
		const { driver } = trustedSkipAtActivation();
		const activation = await driver.poll();
		// The activation read skipped r0003 (deleted r0004 pulled it back past the trusted boundary).
		expect(activation.requests.map((r) => r.ids)).toEqual([
			['r0004'],
			['r0004'],
			['r0004'],
			['r0002', 'r0001'],
		]);
		// What keeps it out: the floor at the moment's second stays.
		expect(cursorOf(driver, 'form0')?.floor).toBeDefined();
		await driver.drain();
		expect(driver.polls.flatMap((p) => p.errors)).toEqual([]);
		expect(timesEmitted(driver.emitted, 'r0003')).toBe(0);
		expect(driver.emitted).toEqual([]);
	});

	it('a response submitted after activation still comes (the floor keeps only the existing out)', async () => {
		const { server, driver } = trustedSkipAtActivation();
		await driver.poll();
		server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 1_000 });
		await driver.drain();
		expect(driver.emitted.map((e) => e.id)).toEqual(['r0005', 'r0006']);
	});

	it('the fuzz schedule: the oracle finds nothing', async () => {
		const trace = await runSchedule(FUZZ_SCHEDULE);
		expect(formatViolations(check(trace))).toBe('');
	});
});
