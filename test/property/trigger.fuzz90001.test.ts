/**
 * Two breaks of P4a (no poll fails while the server is healthy) that the long fuzzer found on
 * the trigger of a3fd453, written down by hand from its shrunk schedules (seeds 90001 and 90003).
 * Each test is written as the promise (docs/trigger-promise.md) says it should be. Seed 90003's
 * break is fixed (a plain test, which fails without the fix); seed 90001's, a known gap, is not,
 * so it is `it.failing` (it passes while the break is there, and fails the day a change fixes it
 * — then drop `.failing`). The REPRO comment says what broke, why, and the mechanism; replay one
 * with
 *   npx jest test/property/trigger.fuzz90001.test.ts --maxWorkers=1 -t '<name>'
 */
import type { IDataObject } from 'n8n-workflow';

import { aliveIds, cursorOf, drain, setUp } from './named';

/** `count` polls with this budget (undefined: n8n's default), `before(i)` applied before each. */
type Polls = (
	count: number,
	budgetMs: number | undefined,
	before: (i: number) => void,
) => Promise<void>;

describe('Forms.wtf Trigger, fuzz seeds 90001 and 90003 (P4a)', () => {
	// REPRO (seed 90001, path "24236:2:2:…:33:33"): All Forms (one form), version 1, look-back 0,
	// oldest first, since exclusive, pages of 2 at 100 ms; form0 has 3 responses, 7 more are
	// submitted just before the activation poll's first request. 15 polls of one page (1 ms budget)
	// each after an update of form0 (polls 0-14): its pass loses its place and begins again (poll
	// 14: restarts 1, failedPolls 1 "keptMoving"); a new response, then a poll of 1 s (poll 15)
	// reads 8 pages and gets past where the pass had been, but the pass keeps `restarts: 1` (kept
	// until the pass ends), resume offset 10. form0 then leaves the listing (polls 16-36 do not
	// read it: its cursor is kept) and all 11 of its responses are deleted, one before each of polls
	// 16-26 (the last real edit: r0011, just before poll 26; the deletions before polls 27-35
	// delete nothing). The drain shows form0 again (poll 37): its read resumes at offset 9 of an
	// EMPTY list, finds no anchor and searches back a page a poll (offsets 7, 5, 3, 1, 0), one
	// empty page each poll; each is a read of a pass that lost its place (restarts + `reached`)
	// that did not move, counted "keptMoving": failedPolls 1-5 on polls 37-41, and poll 41 names
	// form0 "could not be read: its responses kept moving". Poll 42 reads from 0, finds the list
	// empty and ends the pass. The 15 polls before poll 41 (26-40) hold one edit of form0, not two:
	// the oracle objects P4a, rightly by the promise's words (two edits or more within the 15
	// polls before the error).
	// Known gap: "A pass begun again whose place was edited until just before the edits stop: its
	// search back after them counts every poll" (docs/trigger.md, review 10, "named after the
	// edits"); here the edits are made while the form is unlisted and the search walks back
	// through a list that has become empty, two places a poll, although each empty page shows
	// that nothing lies at or after it.
	// Fix idea (tried on a copy: this test then passes, the other property tests unchanged):
	// allowance.ts resumeAfter, a search read whose only page was empty (the list ends before
	// where it searched) sends the next search to offset 0 rather than a page back; the read from
	// 0 (poll 38) then ends the pass. The general gap (a lost pass's search counts every poll
	// after the edits stop) stays.
	// Replay:
	//   npx jest test/property/trigger.fuzz90001.test.ts --maxWorkers=1 -t 'seed 90001'
	it.failing(
		'seed 90001: All Forms, oldest first, pages of 2, a pass begun again, then every response deleted while the form is unlisted: no "kept moving" on the healthy polls after it is listed again',
		async () => {
			const { server, driver } = setUp({
				watch: 'allForms',
				formCount: 1,
				requestMs: 100,
				lookBackMinutes: 0,
				pageCap: 2,
				startOffsetMs: 0,
				seeded: [3, 0, 0, 0],
				seedAgoMs: 0,
			});
			server.seed(0, 3, 0, 1_000);
			const polls: Polls = async (count, budgetMs, before) => {
				for (let i = 0; i < count; i++) {
					before(i);
					await driver.poll({ budgetMs });
				}
			};
			server.arm(1, { kind: 'submit', form: 0, count: 7, gapMs: 1 });
			await polls(15, 1, (i) => server.apply({ kind: 'update', form: 0, pick: i * 7 }));
			server.apply({ kind: 'submit', form: 0, count: 1, gapMs: 1 });
			await driver.poll({ budgetMs: 1_000 });
			// Poll 15 got past where the pass had been; its count of beginnings again stays.
			const resume = cursorOf(driver, 'form0')?.resume as IDataObject;
			expect(resume).toMatchObject({ offset: 10, restarts: 1 });
			expect(resume.reached).toBeUndefined();
			server.setHidden(0, true);
			await polls(5, undefined, (i) => server.apply({ kind: 'delete', form: 0, pick: i * 7 }));
			await polls(15, undefined, (i) => server.apply({ kind: 'delete', form: 0, pick: i * 7 }));
			await driver.poll();
			// Every response of form0 is gone, the last before poll 26; form0 unread since poll 15.
			expect(aliveIds(server)).toEqual([]);
			const lastDeletion = Math.max(...server.responses.map((r) => r.deletedAtMs ?? 0));
			expect(driver.polls[26].startMs).toBe(lastDeletion);
			expect(driver.polls.slice(16).every((p) => p.requests.every((r) => !r.formId))).toBe(true);
			// The drain lists form0 again: no error on a healthy poll (the oracle's full check).
			await drain(driver);
			expect(driver.polls.flatMap((p) => p.errors)).toEqual([]);
		},
	);

	// REPRO (seed 90003, path "5574:3:3:…:42:31"): All Forms (three forms), version 1, look-back
	// 1 min, NEWEST first, since exclusive, pages of 2 at 1 ms, 15 responses each. The activation
	// poll (1 ms budget) reads one page of form0; poll 1 (default budget) reads 40 pages and cuts
	// form0 at offset 14. Then 15 responses of form0 arrive in one ms (r0046-r0060): form0 is never
	// edited. Then two 429s (no Retry-After) wait for form1, and 21 polls of one page (1 ms budget)
	// each after an update of form1 (polls 2-22). Form0's pass: the resumed page at offset 13 holds
	// two responses of one millisecond, so the read cannot tell the order and takes its place for
	// lost, not pushed on (Continuity.pushedOn): it searches back (polls 2-8, emitting the
	// arrivals) and at poll 9 reads from 0 without finding its place: the pass begins again
	// (restarts 1, reached 14, failedPolls 1 "keptMoving") though nothing of form0 was edited.
	// Poll 14: form1's 429 stops the poll's reading; a rate limit holds back every form, so form0,
	// not reached, starts a new run of the other kind (failedPolls 1, no `failedFor`: "ran out of
	// time"). From poll 15 on the service is healthy; form0 is read every other poll (15, 17, 19,
	// 21: a proven page each, past where it stood), but each read is of a pass begun again short
	// of `reached` (`readAgainOn`), which leaves the run "as it stands": meant for a run of polls
	// whose responses kept moving, it also keeps this run of polls WITHOUT A PAGE. On polls 16, 18,
	// 20, 22 the one page goes to form1 or form2, and form0, not reached and in a run
	// (failedPolls > 0, not "keptMoving"), is counted: 2, 3, 4, 5. Poll 22 names form0 "made no
	// progress: the poll ran out of time" though it got a page on every other poll since the
	// service healed. The oracle objects P4a, rightly: the promise names a form that "makes no
	// progress for 5 polls in a row (no page of its responses could be read)".
	// Class: new (next to the known gap "Several forms in a run of polls without progress, when a
	// poll has time for one page …", docs/trigger.md, but here the form does get its turns: its
	// reads do not end a run of polls without a page because its pass had begun again).
	// Fixed: in newResponses.ts pollOnce, `readAgainOn` leaves the run standing only when it is a
	// run of polls whose responses kept moving (cursor.failedFor === 'keptMoving'); a run of
	// another kind (no page: no time, failures) ends with the page it read, as a moved read ends it.
	// Replay:
	//   npx jest test/property/trigger.fuzz90001.test.ts --maxWorkers=1 -t 'seed 90003'
	it('seed 90003: All Forms (three), newest first, pages of 2 read one a poll, arrivals in one ms push form0\'s place on, form1 rate-limited, then healthy: form0, read every other poll, is not named "made no progress"', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 3,
			lookBackMinutes: 1,
			order: 'newestFirst',
			pageCap: 2,
			startOffsetMs: 0,
			seeded: [15, 15, 15, 0],
			seedAgoMs: 0,
		});
		for (const form of [0, 1, 2]) server.seed(form, 15, 0, 1_000);
		await driver.poll({ budgetMs: 1 });
		await driver.poll();
		server.apply({ kind: 'burst', form: 0, count: 2 });
		server.apply({ kind: 'burst', form: 0, count: 13 });
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'absent' } }, 2, 1);
		for (let i = 0; i < 21; i++) {
			server.apply({ kind: 'update', form: 1, pick: i * 7 });
			await driver.poll({ budgetMs: 1 });
			// Poll 9: form0's pass has begun again, without an edit of form0.
			if (driver.polls.length === 10)
				expect(cursorOf(driver, 'form0')?.resume).toMatchObject({ restarts: 1, reached: 14 });
		}
		const form0 = server.responses.filter((r) => r.formId === 'form0');
		expect(form0.every((r) => r.versions.length === 1 && r.deletedAtMs === undefined)).toBe(true);
		// The 429s are used up by poll 14: from poll 15 on the service is healthy.
		expect(driver.polls.slice(15).every((p) => p.healthyAtStart)).toBe(true);
		// No read of form0 ever fails, and from poll 15 on it gets a page within every 5 polls
		// (today on every other poll: 15, 17, 19, 21).
		const gotPage = driver.polls.map((p) =>
			p.requests.some((r) => r.formId === 'form0' && r.ids !== undefined),
		);
		for (let from = 15; from + 5 <= driver.polls.length; from++)
			expect(gotPage.slice(from, from + 5)).toContain(true);
		expect(
			driver.polls.every((p) => p.requests.every((r) => r.formId !== 'form0' || r.status === 200)),
		).toBe(true);
		// The promise: a form is named once it gets no page for 5 polls in a row.
		const namingForm0 = driver.polls
			.filter((p) => p.errors.some((error) => error.includes('(form0)')))
			.map((p) => p.index);
		expect(namingForm0).toEqual([]);
		await drain(driver);
	});
});
