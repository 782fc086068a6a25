/**
 * A P7a break found by the long fuzz (seed 91007): the trigger's, not the oracle's. The promise
 * (docs/trigger-promise.md): "A response is existing when the activation's read of its form saw
 * it", and the newest N emits "the N existing responses with the latest submittedAt over every
 * watched form"; a form that makes no progress on 5 of the choice's polls "is left out of the
 * choice ... so that it never holds up the others". Here the form that left held the only
 * candidate; the other form read its window again on a later poll and took none of the responses
 * of the activation's own second that the activation's read had seen, so it chose (and emitted)
 * an older one. Replay with
 *   npx jest test/property/trigger.fuzz91007.test.ts --maxWorkers=1 -t '<name>'
 */
import { cursorOf, MINUTE, newestOneOfTwoBursts, settingsWith, timesEmitted } from './named';
import { check, formatViolations } from './oracle';
import type { PollRecord } from './run';
import { runSchedule } from './run';
import type { Schedule } from './schedule';

/** The fuzz schedule, as `npm run fuzz` shrank it (seed 91007). */
const FUZZ_SCHEDULE: Schedule = {
	settings: settingsWith({
		watch: 'allForms',
		formCount: 2,
		requestMs: 100,
		lookBackMinutes: 0,
		pageCap: 7,
		startOffsetMs: 0,
		seeded: [7, 4, 0, 0],
		seedSpacingMs: 1_000,
		newestCount: 1,
	}),
	steps: [
		{ kind: 'burst', form: 0, count: 16 },
		{ kind: 'burst', form: 1, count: 14 },
		{ kind: 'poll', budget: '1s' },
		{ kind: 'fault', fault: { kind: 'drop' }, times: 13, form: 3 },
		{ kind: 'poll', budget: 'tiny' },
		{ kind: 'poll', budget: 'tiny' },
		{ kind: 'poll', budget: '3s' },
		{ kind: 'poll', budget: 'default' },
		{ kind: 'poll', budget: 'default' },
	],
};

const MOMENT = '2026-03-02T09:00:00.000Z';

describe('Forms.wtf Trigger, fuzz seed 91007: the newest N, the form holding the candidate leaves the choice', () => {
	// REPRO (found by `npm run fuzz`, seed 91007, path "14601:2:2:2:2:3:3:4:3:3:4:3:4:3:6:8:6:10:
	// 7:14:30:33:3:3:37:41:45:48:46:48:51:53:53:53:53:46"). Version 1, All Forms (2), newest 1,
	// look-back 0, oldest first, pages of 7, 100 ms a request. form0: r0001..r0007 a second apart up
	// to 09:00:00.000, then a burst r0012..r0027 in that millisecond; form1: r0008..r0011 up to
	// 09:00:00.000, then a burst r0028..r0041 in it. Activation at 09:00:00 (poll 0, budget 1 s).
	// - poll 0: form0's read is whole (5 pages): r0007, r0012..r0027, of the moment's second, are
	//   existing (seen by the activation's read). form1's read is cut after 3 pages (r0041 unseen:
	//   either way). Tied in one millisecond, form1's ids rank above form0's: the one candidate kept
	//   is r0040 of form1.
	// - polls 1..5: every read of form1 is dropped (ECONNRESET); at the 5th poll without progress
	//   it is named and leaves the choice. Its candidate goes with it: form0 reads the window again.
	// - poll 6 (healthy): form0's window read again; before the fix, a choosing read not of the
	//   activation took no response of the moment's second as a candidate, though its cursor
	//   remembered (`seen`) that the activation's read saw them: it chose r0006 (08:59:59), older
	//   than 17 existing responses of form0, and emitted it. With the fix it chooses r0027.
	it('the newest 1 comes from what the activation read of form0, not an older response, after form1 left', async () => {
		const { server, driver } = newestOneOfTwoBursts();
		const polls: PollRecord[] = [];
		const inTheChoice = (formId: string) =>
			(driver.session.triggerState?.choice as { forms?: string[] } | undefined)?.forms?.includes(
				formId,
			) === true;

		polls.push(await driver.poll({ budgetMs: 1_000 }));
		// The activation's read: form0 whole, form1 cut.
		const pagesOf = (formId: string) =>
			polls[0].requests.filter((r) => r.formId === formId && r.status === 200 && r.since);
		expect(pagesOf('form0').at(-1)?.hasMore).toBe(false);
		expect(pagesOf('form1').at(-1)?.hasMore).toBe(true);
		const sawOfForm0 = new Set(pagesOf('form0').flatMap((r) => r.ids ?? []));
		const ofTheMoment = server.responses.filter(
			(r) => r.formId === 'form0' && r.versions[0].atMs === Date.parse(MOMENT),
		);
		expect(ofTheMoment.map((r) => r.id)).toHaveLength(17);
		expect(ofTheMoment.every((r) => sawOfForm0.has(r.id))).toBe(true);
		expect(polls[0].emitted).toEqual([]);
		// Tied in that millisecond, form1's ids rank first: the one candidate kept is form1's.
		const chosen = () =>
			(driver.session.triggerState?.choice as { chosen?: unknown[][] } | undefined)?.chosen;
		expect(chosen()?.map(([formId, id]) => `${String(formId)}/${String(id)}`)).toEqual([
			'form1/r0040',
		]);

		server.inject({ kind: 'drop' }, 13, 1);
		for (const budgetMs of [1, 1, 3_000, 300_000, 300_000])
			polls.push(await driver.poll({ budgetMs }));
		// form1 made no progress on 5 polls: named, and out of the choice; form0 still in it.
		expect(polls[5].errors.some((error) => error.includes('(form1)'))).toBe(true);
		expect(inTheChoice('form1')).toBe(false);
		expect(inTheChoice('form0')).toBe(true);
		expect(cursorOf(driver, 'form1')?.choice).toBeUndefined();
		// Its candidate went with it: form0 reads its window again (the choice is still on).
		expect(chosen()).toEqual([]);
		expect(cursorOf(driver, 'form0')?.choice).toBe('reading');
		expect(polls.flatMap((p) => p.emitted)).toEqual([]);

		server.apply({ kind: 'advance', ms: MINUTE });
		await driver.drain();
		expect(driver.polls.slice(6).flatMap((p) => p.errors)).toEqual([]);
		// The newest 1 of the forms still in the choice: a response of form0 submitted in the
		// moment's millisecond (the latest submittedAt of all existing ones), seen by the
		// activation's read. Nothing older of form0 comes.
		const ofForm0 = driver.emitted.filter((e) => e.formId === 'form0');
		expect(ofForm0).toHaveLength(1);
		expect(ofForm0[0].submittedAt).toBe(MOMENT);
		expect(ofForm0[0].id).toBe('r0027');
		expect(timesEmitted(driver.emitted, 'r0006')).toBe(0);
		// form1 left the choice: its existing responses stay out, its unseen r0041 (of the moment's
		// second, the read cut) may come, once.
		const ofForm1 = driver.emitted.filter((e) => e.formId === 'form1').map((e) => e.id);
		expect(ofForm1.filter((id) => id !== 'r0041')).toEqual([]);
		expect(timesEmitted(driver.emitted, 'r0041')).toBeLessThanOrEqual(1);
	});

	it('the fuzz schedule: the oracle finds nothing', async () => {
		const trace = await runSchedule(FUZZ_SCHEDULE);
		expect(formatViolations(check(trace))).toBe('');
	});
});
