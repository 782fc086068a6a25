/**
 * Breaks of the trigger's promise (docs/trigger-promise.md) found by a fifth adversarial review,
 * of the newest changes (after pages of one response the resume boundary taken on trust, search
 * points read from their own offset, restarts counted until a read finds its place, remembered
 * undated responses held in `seen`). Each test is written as the promise says it should be; a
 * break not fixed yet is `it.failing` (it passes while the break is there, and fails the day a
 * change fixes it — then drop `.failing`). The REPRO comment says what broke, why, and the
 * mechanism; replay one with
 *   npx jest test/property/trigger.review5.test.ts --maxWorkers=1 -t '<name>'
 */
import { aliveIds, backlogUnderRareEdits, MINUTE, setUp, timesEmitted } from './named';

describe('Forms.wtf Trigger, review 5: one short page of one response on a service that serves pages of 5', () => {
	// Fixed by undoing the trust after pages of one response: the resume point is proven again.
	// It was: One Form, Every Response Since a Date (7 days ago), oldest first, 40 responses in the
	// last hour, pages of 5 at 100 ms, a 1 ms budget (one page a poll). On poll 3 only, the
	// service answers with one response where 5 were asked and more exist (hasMore true; the
	// contract's `limit` is a maximum: forms-api.md, "Maximum responses returned"); every other
	// page is full. Between polls 3 and 4 a respondent updates the oldest response (service
	// notes: responses can be updated; oldest first, it moves to the end). The response that
	// stood at offset 6 (r0008) is never emitted, and nothing is reported.
	// Why: the read's `pageSize` (allowance.ts) is the length of its LAST page, not the pages the
	// service serves. Poll 2 stopped at 7 with 4 anchors (r0004..r0007). Poll 3 asks from 4
	// (overlap 3) and gets [r0005] only: its end stays 7, its anchors become [r0005] and its
	// pageSize 1. Poll 4 then takes offset 7 on trust (`start.pageSize === 1`: a Continuity with
	// no anchors, overlap 0). The update pulled everything after r0001 one place back, so r0008 now
	// stands at 6 and the read from 7 starts at r0009; no anchor is checked, so the skip is not
	// seen. The documented limit (docs/trigger.md) is a server that serves one response per page;
	// this one serves 5, a single short page disarms the proof of the boundary the previous full
	// page had anchored. New with c2ac125 (before it, the missing anchor sent the read searching).
	// The promise: every response exactly once (P1).
	// Replay:
	//   npx jest test/property/trigger.review5.test.ts --maxWorkers=1 -t 'one short page'
	it('One Form, oldest first, pages of 5 read one a poll, one short page of 1 then one update (one short page): every response comes', async () => {
		const { server, driver } = setUp({
			version: 2,
			pageCap: 5,
			requestMs: 100,
			sinceAgoMs: 7 * 24 * 3_600_000,
		});
		server.seed(0, 40, 60 * MINUTE, 1_000);
		const errors: string[] = [];
		for (let poll = 0; poll < 40; poll++) {
			server.settings.pageCap = poll === 3 ? 1 : 5;
			errors.push(...(await driver.poll({ budgetMs: 1 })).errors);
			server.apply({ kind: 'advance', ms: MINUTE });
			if (poll === 3) server.apply({ kind: 'update', form: 0, pick: 0 });
		}
		expect(server.unhealthy()).toBe(false);
		expect(errors).toEqual([]);
		const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
		expect(missing).toEqual([]);
	});
});

describe('Forms.wtf Trigger, review 5: a pass begun again finds the place it set itself', () => {
	// Fixed by the responses a resume point keeps from before its anchors (ResumePoint.earlier):
	// with every anchor updated, the search finds one of them a page back, and the pass goes on
	// from there instead of beginning again.
	// It was: One Form, Every Response Since a Date (7 days ago), oldest first, 200 responses in
	// the last hour, pages of 5 at 100 ms, a 1 ms budget (one page a poll: the read moves on by
	// 2). Every 20 polls respondents update the last 4 responses the last page served ended on
	// (all 4 anchors of the read; 4 edits at one moment every 20 minutes). After 150 polls most of
	// the backlog had never been emitted (139 of 200), and nothing was reported: the resume offset
	// climbed 5, 7, ... ~33, searched back 25s, 20s, ... 0s, began again (restarts 1, for ONE
	// poll), climbed again, for ever.
	// Why: with every anchor updated, no search could find them; the read from 0 did not come upon
	// them and counted restarts 1. The very next read resumed from the anchors that read from 0
	// set itself, found them, and the count went back to 0: the reads that re-read what was read
	// before the restart counted as progress, and the form was never named. (A count kept until a
	// read passes where the pass had been was tried too: it named forms whose edits moved the read
	// responses out of the way, so that the read from 0 was progress.) One edit burst in 20 polls
	// is not "kept moving" (docs/trigger-promise.md, "When it must be told"), so the backlog must
	// come (P8b).
	// Replay:
	//   npx jest test/property/trigger.review5.test.ts --maxWorkers=1 -t 'restart resets itself'
	it('One Form, oldest first, pages of 5 read one a poll, all 4 anchors the read ended on updated every 20 polls (restart resets itself): the backlog comes', async () => {
		expect(await backlogUnderRareEdits(5, 200, 4)).toEqual({ missing: [], errors: [] });
	});

	// The same with the last 12 responses served updated every 20 polls: every anchor and the
	// nearest of the responses kept from before them (a page and two pages back). The search looks
	// a page further back each poll and finds one four pages back. Kept the 8 read last instead,
	// the 12 edits took them all, and 85 of the 200 had not come after 150 polls, unreported.
	// Each burst adds 12 updated versions to read, so the backlog is given 30 quiet polls more.
	it('One Form, oldest first, pages of 5 read one a poll, the last 12 responses served updated every 20 polls: the backlog comes', async () => {
		expect(await backlogUnderRareEdits(5, 200, 12, 30)).toEqual({ missing: [], errors: [] });
	});
});
