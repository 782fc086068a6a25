/**
 * Breaks of the trigger's promise (docs/trigger-promise.md) found by a sixth adversarial review,
 * of the responses a resume point keeps from before its anchors (ResumePoint.earlier, e1b747a):
 * a read finds its place by any of them. Each test is written as the promise says it should
 * be; a break not fixed yet is `it.failing` (it passes while the break is there, and fails the
 * day a change fixes it — then drop `.failing`). The REPRO comment says what broke, why, and the
 * mechanism; replay one with
 *   npx jest test/property/trigger.review6.test.ts --maxWorkers=1 -t '<name>'
 */
import { aliveIds, MINUTE, setUp, timesEmitted } from './named';

describe('Forms.wtf Trigger, review 6: a checkpoint without a date', () => {
	// REPRO: One Form, Every Response Since a Date (7 days ago), oldest first, 40 responses in the
	// last hour, pages of 5 at 100 ms, one page a poll (a 1 ms budget); r0009 is served without a
	// date (`submittedAt: null`, which the trigger promises to survive: docs/trigger-promise.md,
	// "A response without a usable submittedAt is emitted once"). After poll 5 the read stands at
	// 13 with anchors r0010..r0013 and keeps r0009 as a checkpoint (`earlier`, submittedAt
	// "null"). Between polls 5 and 6 respondents update r0009 (its new version is again served
	// without a date) and the four anchors: oldest first, all five move to the end. Poll 6 has
	// time to read to the end. r0014 and r0015 are never emitted, and nothing is reported.
	// Why: a checkpoint is matched by id and `submittedAt` as sent (isAnchor); an undated
	// response keeps the same "null" across versions, so its update is not told apart from the
	// version the pass read. The five moves pull r0014.. five places back; the read resumes at 10
	// (overlap 3) and starts at r0016: r0014, r0015 lie before it. It does not find the anchors
	// (updated), reads on page by page looking for its place (Continuity: resume anchors are
	// looked for in every page), and the last page holds r0009, moved to the end, "in the same
	// version". The place counts as found, the read is proven and complete, the pass ends and
	// `since` moves past the skipped pair. The argument on `earlier` (state.ts) holds only for a
	// response whose every update changes `submittedAt`; before e1b747a the read found nothing and
	// searched back a page a poll until it found r0010..r0013's neighbourhood or began again.
	// The promise: every response exactly once (P1); r0014 and r0015 carry dates.
	// Replay:
	//   npx jest test/property/trigger.review6.test.ts --maxWorkers=1 -t 'undated checkpoint'
	it.failing(
		'One Form, oldest first, pages of 5, an undated checkpoint updated (still undated) with the 4 anchors, then a read to the end (undated checkpoint): every response comes',
		async () => {
			const { server, driver } = setUp({
				version: 2,
				pageCap: 5,
				requestMs: 100,
				sinceAgoMs: 7 * 24 * 3_600_000,
			});
			server.seed(0, 40, 60 * MINUTE, 1_000);
			server.apply({ kind: 'garble', form: 0, pick: 8, garble: 'null' });
			const errors: string[] = [];
			for (let poll = 0; poll < 12; poll++) {
				errors.push(...(await driver.poll({ budgetMs: poll === 6 ? 60_000 : 1 })).errors);
				server.apply({ kind: 'advance', ms: MINUTE });
				if (poll === 5) {
					server.apply({ kind: 'update', form: 0, pick: 8 });
					server.apply({ kind: 'garble', form: 0, pick: 8, garble: 'null' });
					for (const pick of [9, 10, 11, 12]) server.apply({ kind: 'update', form: 0, pick });
				}
			}
			expect(server.unhealthy()).toBe(false);
			expect(errors).toEqual([]);
			const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
			expect(missing).toEqual([]);
		},
	);
});
