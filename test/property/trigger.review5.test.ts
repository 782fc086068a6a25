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
import { aliveIds, MINUTE, setUp, timesEmitted } from './named';

describe('Forms.wtf Trigger, review 5: one short page of one response on a service that serves pages of 5', () => {
	// REPRO: One Form, Every Response Since a Date (7 days ago), oldest first, 40 responses in the
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
	it.failing(
		'One Form, oldest first, pages of 5 read one a poll, one short page of 1 then one update (one short page): every response comes',
		async () => {
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
		},
	);
});
